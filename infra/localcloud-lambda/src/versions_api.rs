//! The version and alias operations of the Lambda REST-JSON API, with the
//! paths, bodies and status codes of the API reference:
//! `PublishVersion` (POST .../versions, 201), `ListVersionsByFunction`
//! (GET .../versions), `CreateAlias` (POST .../aliases, 201), `ListAliases`
//! (GET .../aliases), `GetAlias`, `UpdateAlias` (PUT) and `DeleteAlias`
//! (DELETE, 204) on .../aliases/{Name}
//! (https://docs.aws.amazon.com/lambda/latest/api/API_Operations.html).

use std::collections::BTreeMap;
use std::sync::Arc;

use localcloud_core::{HttpRequest, HttpResponse};
use serde_json::{json, Value};

use crate::api::{configuration, json_response, query_param, version_configuration, ApiError};
use crate::function::Function;
use crate::names::{self, LATEST};
use crate::service::LambdaService;
use crate::versions::{Alias, AliasUpdate};

/// `MaxItems` when a list request gives none.
const DEFAULT_PAGE: usize = 50;

impl LambdaService {
    pub(crate) fn publish_version(
        &self,
        name: &str,
        request: &HttpRequest,
    ) -> Result<HttpResponse, ApiError> {
        let function = self.unqualified(name)?;
        let body = body(request)?;
        let to_latest_published = match text(&body, "PublishTo") {
            None => false,
            Some("LATEST_PUBLISHED") => true,
            Some(other) => return Err(validation("publishTo", other, "[LATEST_PUBLISHED]")),
        };
        let snapshot = function.code.snapshot(&function.config);
        let version = function.versions.publish(
            snapshot,
            text(&body, "Description").map(str::to_string),
            text(&body, "CodeSha256"),
            to_latest_published,
        )?;
        Ok(json_response(
            201,
            &version_configuration(&function, &version),
        ))
    }

    /// `$LATEST` (its ARN qualified, as Lambda lists it), then the published
    /// versions.
    pub(crate) fn list_versions(
        &self,
        name: &str,
        request: &HttpRequest,
    ) -> Result<HttpResponse, ApiError> {
        let function = self.unqualified(name)?;
        let mut latest = configuration(&function);
        latest["FunctionArn"] = json!(names::qualified_arn(&function.arn, LATEST));
        let all: Vec<Value> = std::iter::once(latest)
            .chain(
                function
                    .versions
                    .published()
                    .iter()
                    .map(|v| version_configuration(&function, v)),
            )
            .collect();
        let (page, next) = page(&all, request)?;
        let mut body = json!({ "Versions": page });
        if let Some(next) = next {
            body["NextMarker"] = json!(next);
        }
        Ok(json_response(200, &body))
    }

    pub(crate) fn create_alias(
        &self,
        name: &str,
        request: &HttpRequest,
    ) -> Result<HttpResponse, ApiError> {
        let function = self.unqualified(name)?;
        let body = body(request)?;
        let alias_name = required(&body, "Name")?;
        let version = required(&body, "FunctionVersion")?;
        let alias = function.versions.create_alias(
            alias_name,
            version,
            text(&body, "Description").unwrap_or_default(),
            weights(&body)?.unwrap_or_default(),
        )?;
        Ok(json_response(201, &alias_configuration(&function, &alias)))
    }

    pub(crate) fn list_aliases(
        &self,
        name: &str,
        request: &HttpRequest,
    ) -> Result<HttpResponse, ApiError> {
        let function = self.unqualified(name)?;
        let version = query_param(request, "FunctionVersion");
        let all: Vec<Value> = function
            .versions
            .aliases(version.as_deref())
            .iter()
            .map(|a| alias_configuration(&function, a))
            .collect();
        let (page, next) = page(&all, request)?;
        let mut body = json!({ "Aliases": page });
        if let Some(next) = next {
            body["NextMarker"] = json!(next);
        }
        Ok(json_response(200, &body))
    }

    pub(crate) fn get_alias(&self, name: &str, alias: &str) -> Result<HttpResponse, ApiError> {
        let function = self.unqualified(name)?;
        let alias = function.versions.alias(alias)?;
        Ok(json_response(200, &alias_configuration(&function, &alias)))
    }

    pub(crate) fn update_alias(
        &self,
        name: &str,
        alias: &str,
        request: &HttpRequest,
    ) -> Result<HttpResponse, ApiError> {
        let function = self.unqualified(name)?;
        let body = body(request)?;
        let update = AliasUpdate {
            function_version: text(&body, "FunctionVersion").map(str::to_string),
            description: text(&body, "Description").map(str::to_string),
            additional_weights: weights(&body)?,
            revision_id: text(&body, "RevisionId").map(str::to_string),
        };
        let alias = function.versions.update_alias(alias, update)?;
        Ok(json_response(200, &alias_configuration(&function, &alias)))
    }

    pub(crate) fn delete_alias(&self, name: &str, alias: &str) -> Result<HttpResponse, ApiError> {
        let function = self.unqualified(name)?;
        function.versions.delete_alias(alias);
        Ok(http::Response::builder()
            .status(204)
            .header(
                "x-amzn-requestid",
                localcloud_core::context::new_request_id(),
            )
            .body(bytes::Bytes::new())
            .expect("an empty response is valid"))
    }

    /// The function of a version or alias operation, whose name takes no qualifier.
    fn unqualified(&self, name: &str) -> Result<Arc<Function>, ApiError> {
        let (function, qualifier) = self.inner.lookup(name)?;
        match qualifier {
            None => Ok(function),
            Some(_) => Err(ApiError::new(
                400,
                "InvalidParameterValueException",
                "Unsupported: a qualified function name for this operation",
            )),
        }
    }
}

/// An `AliasConfiguration`.
fn alias_configuration(function: &Function, alias: &Alias) -> Value {
    let mut value = json!({
        "AliasArn": names::qualified_arn(&function.arn, &alias.name),
        "Name": alias.name,
        "FunctionVersion": alias.function_version,
        "Description": alias.description,
        "RevisionId": alias.revision_id,
    });
    if !alias.additional_weights.is_empty() {
        value["RoutingConfig"] = json!({ "AdditionalVersionWeights": alias.additional_weights });
    }
    value
}

/// The request's JSON body; an empty one is `{}`.
fn body(request: &HttpRequest) -> Result<Value, ApiError> {
    if request.body().iter().all(u8::is_ascii_whitespace) {
        return Ok(json!({}));
    }
    serde_json::from_slice(request.body()).map_err(|err| {
        ApiError::new(
            400,
            "InvalidRequestContentException",
            &format!("Could not parse request body into json: {err}"),
        )
    })
}

fn text<'a>(body: &'a Value, key: &str) -> Option<&'a str> {
    body.get(key).and_then(Value::as_str)
}

fn required<'a>(body: &'a Value, key: &str) -> Result<&'a str, ApiError> {
    text(body, key).ok_or_else(|| {
        let member = lower_first(key);
        ApiError::new(
            400,
            "ValidationException",
            &format!("1 validation error detected: Value null at '{member}' failed to satisfy constraint: Member must not be null"),
        )
    })
}

/// `RoutingConfig.AdditionalVersionWeights`, when the body has a `RoutingConfig`.
fn weights(body: &Value) -> Result<Option<BTreeMap<String, f64>>, ApiError> {
    let Some(routing) = body.get("RoutingConfig") else {
        return Ok(None);
    };
    let weights = routing
        .get("AdditionalVersionWeights")
        .cloned()
        .unwrap_or_else(|| json!({}));
    serde_json::from_value(weights).map(Some).map_err(|_| {
        ApiError::new(
            400,
            "InvalidRequestContentException",
            "RoutingConfig.AdditionalVersionWeights must map versions to numbers",
        )
    })
}

/// One page of `items` from `Marker` (an index here), at most `MaxItems`
/// (1 to 10,000), and the marker of the next page.
fn page(items: &[Value], request: &HttpRequest) -> Result<(Vec<Value>, Option<String>), ApiError> {
    let start = match query_param(request, "Marker") {
        None => 0,
        Some(marker) => marker
            .parse::<usize>()
            .map_err(|_| ApiError::new(400, "InvalidParameterValueException", "Invalid Marker"))?,
    };
    let size = match query_param(request, "MaxItems") {
        None => DEFAULT_PAGE,
        Some(n) => match n.parse::<usize>() {
            Ok(n) if (1..=10_000).contains(&n) => n,
            _ => return Err(validation("maxItems", &n, "between 1 and 10000")),
        },
    };
    let end = (start + size).min(items.len());
    let page = items.get(start..end).unwrap_or_default().to_vec();
    let next = (end < items.len()).then(|| end.to_string());
    Ok((page, next))
}

fn validation(member: &str, value: &str, constraint: &str) -> ApiError {
    ApiError::new(
        400,
        "ValidationException",
        &format!("1 validation error detected: Value '{value}' at '{member}' failed to satisfy constraint: Member must satisfy {constraint}"),
    )
}

fn lower_first(key: &str) -> String {
    let mut chars = key.chars();
    chars
        .next()
        .map(|c| c.to_ascii_lowercase().to_string() + chars.as_str())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;

    fn get(uri: &str) -> HttpRequest {
        http::Request::get(uri).body(Bytes::new()).unwrap()
    }

    #[test]
    fn pages_follow_marker_and_max_items() {
        let items: Vec<Value> = (0..5).map(|n| json!(n)).collect();
        let (first, next) = page(&items, &get("/x?MaxItems=2")).unwrap();
        assert_eq!(first, [json!(0), json!(1)]);
        assert_eq!(next.as_deref(), Some("2"));
        let (last, next) = page(&items, &get("/x?MaxItems=4&Marker=2")).unwrap();
        assert_eq!(last, [json!(2), json!(3), json!(4)]);
        assert_eq!(next, None);
        assert!(page(&items, &get("/x?MaxItems=0")).is_err());
    }

    #[test]
    fn routing_weights_are_read_when_given() {
        let body = json!({ "RoutingConfig": { "AdditionalVersionWeights": { "2": 0.1 } } });
        assert_eq!(
            weights(&body).unwrap(),
            Some(BTreeMap::from([("2".to_string(), 0.1)]))
        );
        assert_eq!(weights(&json!({})).unwrap(), None);
        assert!(
            weights(&json!({ "RoutingConfig": { "AdditionalVersionWeights": { "2": "x" } } }))
                .is_err()
        );
    }

    #[test]
    fn missing_required_members_name_the_member_as_aws_does() {
        let err = required(&json!({}), "FunctionVersion").unwrap_err();
        assert_eq!(err.status, 400);
        assert!(err.message.contains("'functionVersion'"), "{}", err.message);
    }
}
