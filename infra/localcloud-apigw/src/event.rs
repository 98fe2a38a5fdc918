//! The payload format 2.0 event an HTTP API sends to a Lambda proxy
//! integration, field by field as AWS builds it.

use std::collections::BTreeMap;

use base64::Engine;
use chrono::{DateTime, Utc};
use serde_json::{json, Map, Value};

use crate::routes::RouteMatch;
use crate::text::{is_text_content_type, query_parameters, split_cookies};
use localcloud_core::HttpRequest;

/// What the gateway knows about a request beyond the request itself.
#[derive(Debug, Clone)]
pub struct EventContext<'a> {
    pub api_id: &'a str,
    pub account_id: &'a str,
    pub stage: &'a str,
    pub request_id: &'a str,
    pub source_ip: &'a str,
    pub now: DateTime<Utc>,
    pub stage_variables: &'a BTreeMap<String, String>,
}

/// Builds the event for `request`, which landed on `route`.
pub fn build_event(request: &HttpRequest, route: &RouteMatch<'_>, ctx: &EventContext<'_>) -> Value {
    let raw_path = request.uri().path();
    let raw_query = request.uri().query().unwrap_or_default();
    let mut event = Map::new();
    event.insert("version".into(), json!("2.0"));
    event.insert("routeKey".into(), json!(route.route_key));
    event.insert("rawPath".into(), json!(raw_path));
    event.insert("rawQueryString".into(), json!(raw_query));
    let cookies = split_cookies(header_values(request, "cookie"));
    if !cookies.is_empty() {
        event.insert("cookies".into(), json!(cookies));
    }
    event.insert("headers".into(), Value::Object(headers(request, ctx)));
    let query = query_parameters(raw_query);
    if !query.is_empty() {
        event.insert("queryStringParameters".into(), json!(query));
    }
    if !route.path_parameters.is_empty() {
        event.insert("pathParameters".into(), json!(route.path_parameters));
    }
    event.insert(
        "requestContext".into(),
        request_context(request, route, ctx),
    );
    if !ctx.stage_variables.is_empty() {
        event.insert("stageVariables".into(), json!(ctx.stage_variables));
    }
    let (body, is_base64) = body(request);
    if let Some(body) = body {
        event.insert("body".into(), json!(body));
    }
    event.insert("isBase64Encoded".into(), json!(is_base64));
    Value::Object(event)
}

fn header_values<'a>(request: &'a HttpRequest, name: &str) -> impl Iterator<Item = &'a str> {
    request
        .headers()
        .get_all(name)
        .into_iter()
        .filter_map(|v| v.to_str().ok())
}

/// Lower-cased names, repeated headers joined with commas, cookies moved to
/// `cookies`, and the `x-forwarded-*` and trace headers AWS adds.
fn headers(request: &HttpRequest, ctx: &EventContext<'_>) -> Map<String, Value> {
    let mut out = Map::new();
    for name in request.headers().keys() {
        if name == http::header::COOKIE {
            continue;
        }
        let mut values = request.headers().get_all(name).iter();
        let mut joined = values
            .next()
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
            .unwrap_or_default();
        for value in values {
            joined.push(',');
            joined.push_str(&String::from_utf8_lossy(value.as_bytes()));
        }
        out.insert(name.as_str().to_string(), json!(joined));
    }
    let forwarded_for = match out.get("x-forwarded-for").and_then(Value::as_str) {
        Some(existing) => format!("{existing}, {}", ctx.source_ip),
        None => ctx.source_ip.to_string(),
    };
    out.insert("x-forwarded-for".into(), json!(forwarded_for));
    out.insert("x-forwarded-port".into(), json!(host_port(request)));
    out.insert("x-forwarded-proto".into(), json!("http"));
    if !out.contains_key("x-amzn-trace-id") {
        out.insert("x-amzn-trace-id".into(), json!(trace_id(ctx.now)));
    }
    out
}

fn host(request: &HttpRequest) -> Option<&str> {
    request
        .headers()
        .get(http::header::HOST)
        .and_then(|v| v.to_str().ok())
        .or_else(|| request.uri().authority().map(|a| a.as_str()))
}

fn host_port(request: &HttpRequest) -> String {
    host(request)
        .and_then(|h| h.rsplit_once(':'))
        .map(|(_, port)| port.to_string())
        .unwrap_or_else(|| "80".to_string())
}

fn request_context(request: &HttpRequest, route: &RouteMatch<'_>, ctx: &EventContext<'_>) -> Value {
    let domain_name = host(request)
        .map(|h| h.rsplit_once(':').map_or(h, |(name, _)| name).to_string())
        .unwrap_or_else(|| format!("{}.execute-api.localhost", ctx.api_id));
    let is_ip = domain_name.parse::<std::net::IpAddr>().is_ok();
    let domain_prefix = if is_ip {
        ctx.api_id.to_string()
    } else {
        domain_name
            .split('.')
            .next()
            .unwrap_or_default()
            .to_string()
    };
    let user_agent = header_values(request, "user-agent")
        .next()
        .unwrap_or_default();
    json!({
        "accountId": ctx.account_id,
        "apiId": ctx.api_id,
        "domainName": domain_name,
        "domainPrefix": domain_prefix,
        "http": {
            "method": request.method().as_str(),
            "path": request.uri().path(),
            "protocol": protocol(request.version()),
            "sourceIp": ctx.source_ip,
            "userAgent": user_agent,
        },
        "requestId": ctx.request_id,
        "routeKey": route.route_key,
        "stage": ctx.stage,
        "time": ctx.now.format("%d/%b/%Y:%H:%M:%S %z").to_string(),
        "timeEpoch": ctx.now.timestamp_millis(),
    })
}

fn protocol(version: http::Version) -> &'static str {
    match version {
        http::Version::HTTP_10 => "HTTP/1.0",
        http::Version::HTTP_2 => "HTTP/2.0",
        _ => "HTTP/1.1",
    }
}

/// `(body, isBase64Encoded)`; no body member at all for an empty body.
fn body(request: &HttpRequest) -> (Option<String>, bool) {
    let bytes = request.body();
    if bytes.is_empty() {
        return (None, false);
    }
    let content_type = header_values(request, "content-type").next();
    if is_text_content_type(content_type) {
        if let Ok(text) = std::str::from_utf8(bytes) {
            return (Some(text.to_string()), false);
        }
    }
    let encoded = base64::engine::general_purpose::STANDARD.encode(bytes);
    (Some(encoded), true)
}

/// `Root=1-<epoch seconds, hex>-<96 random bits, hex>`, the X-Ray format.
fn trace_id(now: DateTime<Utc>) -> String {
    use std::fmt::Write;
    let random: [u8; 12] = rand::random();
    let mut id = format!("Root=1-{:08x}-", now.timestamp());
    for b in random {
        let _ = write!(id, "{b:02x}");
    }
    id
}

/// Request ids as HTTP APIs print them: 16 characters of base64, e.g.
/// `LV7fzho-PHcEJPw=`.
pub fn new_request_id() -> String {
    let random: [u8; 11] = rand::random();
    base64::engine::general_purpose::STANDARD
        .encode(random)
        .replace('/', "-")
        .replace('+', "_")
}
