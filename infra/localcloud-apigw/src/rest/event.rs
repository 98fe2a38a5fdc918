//! The payload format 1.0 event a REST API sends to a Lambda proxy
//! integration, as documented in "Input format of a Lambda function for
//! proxy integration":
//! <https://docs.aws.amazon.com/apigateway/latest/developerguide/set-up-lambda-proxy-integrations.html#api-gateway-simple-proxy-for-lambda-input-format>.
//! Absent maps and an absent body are `null`, not missing.

use std::collections::BTreeMap;

use base64::Engine;
use chrono::{DateTime, Utc};
use serde_json::{json, Map, Value};

use crate::rest::media::matches_media_type;
use crate::routes::RouteMatch;
use crate::text::percent_decode;
use localcloud_core::HttpRequest;

/// What the gateway knows about a request beyond the request itself.
#[derive(Debug, Clone)]
pub struct RestEventContext<'a> {
    pub api_id: &'a str,
    pub account_id: &'a str,
    pub stage: &'a str,
    /// A UUID, as REST APIs print request ids.
    pub request_id: &'a str,
    pub extended_request_id: &'a str,
    pub source_ip: &'a str,
    pub now: DateTime<Utc>,
    pub stage_variables: &'a BTreeMap<String, String>,
    pub binary_media_types: &'a [String],
    pub trace_id: &'a str,
}

/// Builds the event for `request`; `path` is the request path without the
/// stage, as the event's `path` shows it.
pub fn build_rest_event(
    request: &HttpRequest,
    path: &str,
    route: &RouteMatch<'_>,
    ctx: &RestEventContext<'_>,
) -> Value {
    let (headers, multi_headers) = headers(request, ctx);
    let (query, multi_query) = query(request.uri().query().unwrap_or_default());
    let (body, is_base64) = body(request, ctx.binary_media_types);
    let mut event = Map::new();
    event.insert("resource".into(), json!(route.resource));
    event.insert("path".into(), json!(path));
    event.insert("httpMethod".into(), json!(request.method().as_str()));
    event.insert("headers".into(), non_empty(headers));
    event.insert("multiValueHeaders".into(), non_empty(multi_headers));
    event.insert("queryStringParameters".into(), non_empty(query));
    event.insert(
        "multiValueQueryStringParameters".into(),
        non_empty(multi_query),
    );
    event.insert(
        "pathParameters".into(),
        non_empty(route.path_parameters.clone()),
    );
    event.insert(
        "stageVariables".into(),
        non_empty(ctx.stage_variables.clone()),
    );
    event.insert(
        "requestContext".into(),
        request_context(request, route, ctx),
    );
    event.insert("body".into(), body.map_or(Value::Null, Value::String));
    event.insert("isBase64Encoded".into(), json!(is_base64));
    Value::Object(event)
}

fn non_empty<V: serde::Serialize>(map: BTreeMap<String, V>) -> Value {
    if map.is_empty() {
        Value::Null
    } else {
        json!(map)
    }
}

/// `headers` keeps the last value of a repeated header, `multiValueHeaders`
/// all of them; the gateway adds `X-Forwarded-*` and `X-Amzn-Trace-Id`.
fn headers(
    request: &HttpRequest,
    ctx: &RestEventContext<'_>,
) -> (BTreeMap<String, String>, BTreeMap<String, Vec<String>>) {
    let mut multi: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (name, value) in request.headers() {
        multi
            .entry(name.as_str().to_string())
            .or_default()
            .push(String::from_utf8_lossy(value.as_bytes()).into_owned());
    }
    let forwarded_for = match multi.remove("x-forwarded-for") {
        Some(existing) => format!("{}, {}", existing.join(", "), ctx.source_ip),
        None => ctx.source_ip.to_string(),
    };
    let port = host(request)
        .and_then(|h| h.rsplit_once(':'))
        .map_or("80", |(_, port)| port)
        .to_string();
    multi.remove("x-amzn-trace-id");
    for (name, value) in [
        ("X-Forwarded-For", forwarded_for),
        ("X-Forwarded-Port", port),
        ("X-Forwarded-Proto", "http".to_string()),
        ("X-Amzn-Trace-Id", ctx.trace_id.to_string()),
    ] {
        multi.insert(name.to_string(), vec![value]);
    }
    let single = multi
        .iter()
        .filter_map(|(k, v)| Some((k.clone(), v.last()?.clone())))
        .collect();
    (single, multi)
}

/// Decoded names and values; a repeated key keeps its last value in
/// `queryStringParameters` and all of them in the multi-value map.
fn query(raw: &str) -> (BTreeMap<String, String>, BTreeMap<String, Vec<String>>) {
    let mut multi: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for pair in raw.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        multi
            .entry(percent_decode(key))
            .or_default()
            .push(percent_decode(value));
    }
    let single = multi
        .iter()
        .filter_map(|(k, v)| Some((k.clone(), v.last()?.clone())))
        .collect();
    (single, multi)
}

fn host(request: &HttpRequest) -> Option<&str> {
    request
        .headers()
        .get(http::header::HOST)
        .and_then(|v| v.to_str().ok())
}

fn request_context(
    request: &HttpRequest,
    route: &RouteMatch<'_>,
    ctx: &RestEventContext<'_>,
) -> Value {
    let domain_name = host(request)
        .map(|h| h.rsplit_once(':').map_or(h, |(name, _)| name).to_string())
        .unwrap_or_else(|| format!("{}.execute-api.localhost", ctx.api_id));
    let domain_prefix = if domain_name.parse::<std::net::IpAddr>().is_ok() {
        ctx.api_id.to_string()
    } else {
        domain_name
            .split('.')
            .next()
            .unwrap_or_default()
            .to_string()
    };
    let user_agent = request
        .headers()
        .get(http::header::USER_AGENT)
        .and_then(|v| v.to_str().ok());
    json!({
        "accountId": ctx.account_id,
        "apiId": ctx.api_id,
        "domainName": domain_name,
        "domainPrefix": domain_prefix,
        "extendedRequestId": ctx.extended_request_id,
        "httpMethod": request.method().as_str(),
        "identity": {
            "accessKey": null,
            "accountId": null,
            "apiKey": null,
            "apiKeyId": null,
            "caller": null,
            "cognitoAuthenticationProvider": null,
            "cognitoAuthenticationType": null,
            "cognitoIdentityId": null,
            "cognitoIdentityPoolId": null,
            "principalOrgId": null,
            "sourceIp": ctx.source_ip,
            "user": null,
            "userAgent": user_agent,
            "userArn": null,
        },
        "path": request.uri().path(),
        "protocol": protocol(request.version()),
        "requestId": ctx.request_id,
        "requestTime": ctx.now.format("%d/%b/%Y:%H:%M:%S %z").to_string(),
        "requestTimeEpoch": ctx.now.timestamp_millis(),
        "resourceId": resource_id(route.resource),
        "resourcePath": route.resource,
        "stage": ctx.stage,
    })
}

/// A stable six-character id per resource, like the ones AWS assigns.
fn resource_id(resource: &str) -> String {
    crate::config::derive_api_id(resource)[..6].to_string()
}

fn protocol(version: http::Version) -> &'static str {
    match version {
        http::Version::HTTP_10 => "HTTP/1.0",
        http::Version::HTTP_2 => "HTTP/2.0",
        _ => "HTTP/1.1",
    }
}

/// A body whose `Content-Type` is one of the API's binary media types
/// travels base64-encoded; any other body is passed as text.
/// <https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-payload-encodings.html>
fn body(request: &HttpRequest, binary_media_types: &[String]) -> (Option<String>, bool) {
    let bytes = request.body();
    if bytes.is_empty() {
        return (None, false);
    }
    let content_type = request
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok());
    let binary = content_type.is_some_and(|t| matches_media_type(binary_media_types, t));
    if binary {
        let encoded = base64::engine::general_purpose::STANDARD.encode(bytes);
        return (Some(encoded), true);
    }
    (Some(String::from_utf8_lossy(bytes).into_owned()), false)
}
