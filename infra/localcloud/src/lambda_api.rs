//! The Lambda API for every running stack: calls naming a function go to
//! the stack that runs it; `ListFunctions`, the event source mapping reads
//! and `ListTags` are answered here from all of them.
//! https://docs.aws.amazon.com/lambda/latest/api/API_ListFunctions.html

use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;
use http::Method;
use localcloud_core::url::percent_decode;
use localcloud_core::{HttpRequest, HttpResponse, PathService};
use serde_json::{json, Value};

use crate::deploy::Deployments;
use crate::stack::Stack;

const FUNCTIONS: &str = "/2015-03-31/functions";
const MAPPINGS: &str = "/2015-03-31/event-source-mappings";
const TAGS: &str = "/2017-03-31/tags/";

pub(crate) struct LambdaApi(pub Arc<Deployments>);

#[async_trait]
impl PathService for LambdaApi {
    async fn handle(&self, request: HttpRequest) -> Result<HttpResponse, HttpRequest> {
        let path = request.uri().path().to_string();
        let stacks: Vec<Arc<Stack>> = self.0.all().into_iter().map(|(_, s)| s).collect();
        if request.method() == Method::GET && (path == FUNCTIONS || path == format!("{FUNCTIONS}/"))
        {
            // `FunctionVersion=ALL` lists every published version too.
            let query = request.uri().query().unwrap_or_default();
            let all_versions = param(query, "FunctionVersion").as_deref() == Some("ALL");
            let functions: Vec<Value> = stacks
                .iter()
                .flat_map(|s| s.lambda.configurations(all_versions))
                .collect();
            return Ok(json_response(200, &json!({ "Functions": functions })));
        }
        if let Some(rest) = path.strip_prefix(&format!("{FUNCTIONS}/")) {
            let name = percent_decode(rest.split('/').next().unwrap_or_default());
            let owner = stacks.iter().find(|s| s.lambda.has_function(&name));
            return match owner {
                Some(stack) => stack.lambda.handle(request).await,
                None => Ok(not_found(&format!("Function not found: {name}"))),
            };
        }
        if request.method() == Method::GET && path.starts_with(MAPPINGS) {
            let query = request.uri().query().unwrap_or_default().to_string();
            let mappings: Vec<Value> = stacks.iter().flat_map(|s| mappings(s)).collect();
            return Ok(match path[MAPPINGS.len()..].trim_matches('/') {
                "" => {
                    let wanted = |key: &str| param(&query, key);
                    let selected: Vec<&Value> = mappings
                        .iter()
                        .filter(|m| wanted("FunctionName").is_none_or(|f| m["FunctionArn"].as_str().is_some_and(|a| names_function(a, &f))))
                        .filter(|m| wanted("EventSourceArn").is_none_or(|e| m["EventSourceArn"] == e.as_str()))
                        .collect();
                    json_response(200, &json!({ "EventSourceMappings": selected }))
                }
                uuid => match mappings.iter().find(|m| m["UUID"] == uuid) {
                    Some(m) => json_response(200, m),
                    None => not_found(&format!("The resource you requested does not exist. (Service: Lambda, Status Code: 404) UUID {uuid}")),
                },
            });
        }
        if request.method() == Method::GET {
            if let Some(arn) = path.strip_prefix(TAGS) {
                let arn = percent_decode(arn);
                let known = stacks.iter().any(|s| s.lambda.has_function(&arn));
                // SAM tags every function it creates with lambda:createdBy.
                return Ok(match known {
                    true => json_response(200, &json!({ "Tags": { "lambda:createdBy": "SAM" } })),
                    false => not_found(&format!("Function not found: {arn}")),
                });
            }
        }
        Err(request)
    }
}

/// The event source mappings of a stack's functions, in the API's shape;
/// a mapping's UUID is derived from its function and event names.
fn mappings(stack: &Stack) -> Vec<Value> {
    let lambda = stack.lambda.config();
    stack
        .app
        .functions
        .iter()
        .flat_map(|f| f.sqs_events.iter().map(move |e| (f, e)))
        .map(|(f, e)| {
            // SAM points the mappings of an `AutoPublishAlias` function at the alias.
            let arn = format!("arn:aws:lambda:{}:{}:function:{}", lambda.region, lambda.account_id, f.invoke_target());
            let mut m = json!({
                "UUID": uuid_of(&format!("{}/{}", f.name, e.name)),
                "BatchSize": e.batch_size,
                "MaximumBatchingWindowInSeconds": e.maximum_batching_window_seconds,
                "EventSourceArn": e.queue_arn,
                "FunctionArn": arn,
                "LastModified": 0.0,
                "State": if e.enabled { "Enabled" } else { "Disabled" },
                "StateTransitionReason": "USER_INITIATED",
                "FunctionResponseTypes": if e.report_batch_item_failures { vec!["ReportBatchItemFailures"] } else { Vec::new() },
            });
            if let Some(max) = e.maximum_concurrency {
                m["ScalingConfig"] = json!({ "MaximumConcurrency": max });
            }
            m
        })
        .collect()
}

/// True when a `FunctionName` filter names the mapping's function: by its
/// ARN or name, qualified as the mapping is, or unqualified for a mapping of
/// an alias (AWS does not document which mappings an unqualified name lists;
/// a deploy tool listing a function's mappings sees those of its aliases).
fn names_function(mapping_arn: &str, filter: &str) -> bool {
    let unqualified = mapping_arn
        .splitn(8, ':')
        .take(7)
        .collect::<Vec<_>>()
        .join(":");
    [mapping_arn, unqualified.as_str()]
        .iter()
        .any(|arn| *arn == filter || arn.ends_with(&format!(":{filter}")))
}

/// A stable UUID-shaped id (FNV-1a of the name, twice).
fn uuid_of(name: &str) -> String {
    let fnv = |seed: u64| {
        name.bytes().fold(seed, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        })
    };
    let (a, b) = (fnv(0xcbf2_9ce4_8422_2325), fnv(0x8422_2325_cbf2_9ce4));
    format!(
        "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xfff,
        b >> 52,
        b & 0xffff_ffff_ffff
    )
}

fn param(query: &str, key: &str) -> Option<String> {
    query.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=')?;
        (k == key).then(|| percent_decode(v))
    })
}

fn json_response(status: u16, body: &Value) -> HttpResponse {
    http::Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .header(
            "x-amzn-requestid",
            localcloud_core::context::new_request_id(),
        )
        .body(Bytes::from(body.to_string()))
        .expect("valid JSON response")
}

fn not_found(message: &str) -> HttpResponse {
    let mut response = json_response(404, &json!({ "Type": "User", "message": message }));
    response.headers_mut().insert(
        "x-amzn-errortype",
        http::HeaderValue::from_static("ResourceNotFoundException"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::{names_function, uuid_of};

    #[test]
    fn a_function_name_filter_matches_the_function_and_its_aliases() {
        let alias = "arn:aws:lambda:us-east-1:000000000000:function:f:live";
        assert!(names_function(alias, "f"));
        assert!(names_function(alias, "f:live"));
        assert!(names_function(
            alias,
            "arn:aws:lambda:us-east-1:000000000000:function:f"
        ));
        assert!(!names_function(alias, "f:other"));
        assert!(!names_function(alias, "g"));
        let plain = "arn:aws:lambda:us-east-1:000000000000:function:f";
        assert!(names_function(plain, "f") && !names_function(plain, "f:live"));
    }

    #[test]
    fn mapping_ids_are_stable_and_uuid_shaped() {
        let a = uuid_of("f/Work");
        assert_eq!(a, uuid_of("f/Work"));
        assert_ne!(a, uuid_of("f/Other"));
        assert_eq!(a.len(), 36);
        assert_eq!(
            a.split('-').map(str::len).collect::<Vec<_>>(),
            vec![8, 4, 4, 4, 12]
        );
    }
}
