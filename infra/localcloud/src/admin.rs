//! Admin endpoints for tests and the bench driver:
//! `GET /_localcloud/health`, `GET /_localcloud/metrics`, `POST /_localcloud/reset`,
//! `GET|POST /_localcloud/faults` (`faults`), `GET /_localcloud/invocations`
//! (the kept invocation records, each with its CPU and contention figures).

use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;
use http::{Method, StatusCode};
use localcloud_core::{HttpRequest, HttpResponse, PathService};
use localcloud_dynamodb::DynamoDb;
use localcloud_metrics::{MetricsDocument, ProcessMetrics};
use localcloud_sqs::SqsService;

use crate::Stack;
use serde_json::json;

pub const PREFIX: &str = "/_localcloud/";

pub struct Admin {
    dynamodb: Arc<DynamoDb>,
    sqs: Arc<SqsService>,
    stack: Option<Arc<Stack>>,
    iam: Arc<localcloud_iam::Iam>,
    deployments: Arc<crate::deploy::Deployments>,
    started: std::time::Instant,
}

impl Admin {
    pub fn new(
        dynamodb: Arc<DynamoDb>,
        sqs: Arc<SqsService>,
        stack: Option<Arc<Stack>>,
        iam: Arc<localcloud_iam::Iam>,
        deployments: Arc<crate::deploy::Deployments>,
    ) -> Self {
        Self {
            dynamodb,
            sqs,
            stack,
            iam,
            deployments,
            started: std::time::Instant::now(),
        }
    }

    /// Every counter the cost model and the bench driver read, in one document.
    pub fn metrics(&self) -> MetricsDocument {
        let cpu = read_own_cpu_seconds();
        let mut doc = MetricsDocument {
            dynamodb: self.dynamodb.metrics(),
            sqs: self.sqs.metrics(),
            process: ProcessMetrics {
                cpu_user_seconds: cpu.map(|(user, _)| user),
                cpu_system_seconds: cpu.map(|(_, system)| system),
            },
            ..MetricsDocument::new()
        };
        if let Some(stack) = &self.stack {
            stack.fill_metrics(&mut doc);
        }
        doc
    }

    /// The invocation records the Lambda service kept since the last reset
    /// (oldest first): `function=NAME` keeps one function's, `last=N` the
    /// newest N. Per-invocation figures behind the metrics' totals, for
    /// checks that need a distribution (scripts/contention-check.py).
    fn invocations(&self, query: Option<&str>) -> HttpResponse {
        let query = match InvocationsQuery::parse(query.unwrap_or("")) {
            Ok(query) => query,
            Err(message) => {
                return json_response(StatusCode::BAD_REQUEST, json!({ "message": message }))
            }
        };
        let (kept, dropped) = match &self.stack {
            Some(stack) => (
                stack
                    .lambda
                    .newest_records(query.function.as_deref(), query.last),
                stack.lambda.dropped_records(),
            ),
            None => (Vec::new(), 0),
        };
        json_response(
            StatusCode::OK,
            json!({ "invocations": kept, "dropped": dropped }),
        )
    }

    /// Zeroes every counter (capacity units, SQS requests, invocations...);
    /// tables, items, queues and messages stay, so a bench can reset between
    /// scenarios without seeding again.
    pub fn reset(&self) {
        self.dynamodb.reset_metrics();
        self.sqs.reset();
        if let Some(stack) = &self.stack {
            stack.reset_metrics();
        }
    }
}

#[async_trait]
impl PathService for Admin {
    async fn handle(&self, request: HttpRequest) -> Result<HttpResponse, HttpRequest> {
        let Some(action) = request.uri().path().strip_prefix(PREFIX) else {
            return Err(request);
        };
        let response = match (request.method(), action) {
            (&Method::GET, "health") => json_response(
                StatusCode::OK,
                json!({"status": "ok", "uptimeSeconds": self.started.elapsed().as_secs_f64(),
                       "services": ["dynamodb", "sqs"]}),
            ),
            (&Method::GET, "metrics") => json_text(StatusCode::OK, self.metrics().to_json()),
            (&Method::GET, "faults") => {
                let (status, body) = crate::faults::show(self.stack.as_deref());
                json_response(status, body)
            }
            (&Method::POST, "faults") => {
                let (status, body) = crate::faults::inject(self.stack.as_deref(), request.body());
                json_response(status, body)
            }
            (&Method::GET, "invocations") => self.invocations(request.uri().query()),
            (&Method::GET, "iam") => json_text(
                StatusCode::OK,
                crate::iam_report::report(&self.iam, &self.deployments).to_json(),
            ),
            (&Method::POST, "iam/reset") => {
                self.iam.usage.clear();
                json_response(StatusCode::OK, json!({"reset": true}))
            }
            (&Method::POST, "reset") => {
                self.reset();
                json_response(StatusCode::OK, json!({"reset": true}))
            }
            (
                _,
                "health" | "metrics" | "reset" | "faults" | "invocations" | "iam" | "iam/reset",
            ) => json_response(
                StatusCode::METHOD_NOT_ALLOWED,
                json!({"message": format!("{} is not allowed on {PREFIX}{action}", request.method())}),
            ),
            _ => json_response(
                StatusCode::NOT_FOUND,
                json!({"message": format!("no admin endpoint {PREFIX}{action}; try health, metrics, invocations, reset or faults")}),
            ),
        };
        Ok(response)
    }
}

/// `GET /_localcloud/invocations`'s parameters.
#[derive(Debug, Default, PartialEq)]
struct InvocationsQuery {
    function: Option<String>,
    last: Option<usize>,
}

impl InvocationsQuery {
    fn parse(query: &str) -> Result<Self, String> {
        let mut parsed = Self::default();
        for pair in query.split('&').filter(|pair| !pair.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let value = localcloud_core::url::form_decode(value);
            match &*localcloud_core::url::form_decode(key) {
                "function" => parsed.function = Some(value),
                "last" => {
                    parsed.last = Some(value.parse().map_err(|_| {
                        format!("last must be a whole number of records, not {value:?}")
                    })?)
                }
                other => {
                    return Err(format!(
                        "unknown parameter {other:?} of {PREFIX}invocations; use function or last"
                    ))
                }
            }
        }
        Ok(parsed)
    }
}

fn json_response(status: StatusCode, body: serde_json::Value) -> HttpResponse {
    json_text(status, body.to_string())
}

fn json_text(status: StatusCode, body: String) -> HttpResponse {
    http::Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .body(Bytes::from(body))
        .expect("static response parts are valid")
}

/// CPU seconds this process has used (user, system), from /proc on Linux.
pub(crate) fn read_own_cpu_seconds() -> Option<(f64, f64)> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the parenthesised command name; utime and stime are 14 and 15.
    let after = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = 100.0; // USER_HZ is 100 on every Linux the project targets
    let user: f64 = fields.get(11)?.parse().ok()?;
    let system: f64 = fields.get(12)?.parse().ok()?;
    Some((user / ticks, system / ticks))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invocations_query_reads_function_and_last() {
        assert_eq!(InvocationsQuery::parse(""), Ok(InvocationsQuery::default()));
        assert_eq!(
            InvocationsQuery::parse("function=local-conduit%2Dmono&last=20"),
            Ok(InvocationsQuery {
                function: Some("local-conduit-mono".into()),
                last: Some(20),
            })
        );
    }

    #[test]
    fn invocations_query_refuses_what_it_does_not_know() {
        let bad_count = InvocationsQuery::parse("last=many").unwrap_err();
        assert!(bad_count.contains("\"many\""), "{bad_count}");
        let unknown = InvocationsQuery::parse("fn=x").unwrap_err();
        assert!(unknown.contains("\"fn\""), "{unknown}");
    }
}
