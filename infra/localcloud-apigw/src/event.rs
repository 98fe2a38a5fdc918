//! The payload format 2.0 event an HTTP API sends to a Lambda proxy
//! integration, field by field as AWS builds it.

use std::borrow::Cow;
use std::collections::BTreeMap;

use base64::Engine;
use chrono::{DateTime, Utc};
use serde::ser::SerializeMap;
use serde::Serialize;

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

/// The event, borrowing what it can from the request, the route and the
/// context: serialised once, without a tree of JSON values in between (the
/// tree was 15 % of the local cloud's CPU per no-op request,
/// docs/benchmarks.md). Members that AWS leaves out when empty are left out.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Event<'a> {
    version: &'static str,
    route_key: &'a str,
    raw_path: &'a str,
    raw_query_string: &'a str,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    cookies: Vec<String>,
    headers: Headers<'a>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    query_string_parameters: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "no_entries")]
    path_parameters: &'a BTreeMap<String, String>,
    request_context: RequestContext<'a>,
    #[serde(skip_serializing_if = "no_entries")]
    stage_variables: &'a BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    body: Option<Cow<'a, str>>,
    is_base64_encoded: bool,
}

fn no_entries(map: &&BTreeMap<String, String>) -> bool {
    map.is_empty()
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct RequestContext<'a> {
    account_id: &'a str,
    api_id: &'a str,
    domain_name: String,
    domain_prefix: String,
    http: HttpContext<'a>,
    request_id: &'a str,
    route_key: &'a str,
    stage: &'a str,
    time: String,
    time_epoch: i64,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct HttpContext<'a> {
    method: &'a str,
    path: &'a str,
    protocol: &'static str,
    source_ip: &'a str,
    user_agent: &'a str,
}

/// Header names and values in the request's order, as a JSON object.
#[derive(Debug)]
struct Headers<'a>(Vec<(&'a str, String)>);

impl Headers<'_> {
    fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Sets `name` in place when it is there, else adds it last.
    fn set(&mut self, name: &'static str, value: String) {
        match self.0.iter_mut().find(|(n, _)| *n == name) {
            Some((_, v)) => *v = value,
            None => self.0.push((name, value)),
        }
    }
}

impl Serialize for Headers<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, value) in &self.0 {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}

/// Builds the event for `request`, which landed on `route`.
pub fn build_event<'a>(
    request: &'a HttpRequest,
    route: &'a RouteMatch<'a>,
    ctx: &'a EventContext<'a>,
) -> Event<'a> {
    let raw_query = request.uri().query().unwrap_or_default();
    let (body, is_base64_encoded) = body(request);
    Event {
        version: "2.0",
        route_key: route.route_key,
        raw_path: request.uri().path(),
        raw_query_string: raw_query,
        cookies: split_cookies(header_values(request, "cookie")),
        headers: headers(request, ctx),
        query_string_parameters: query_parameters(raw_query),
        path_parameters: &route.path_parameters,
        request_context: request_context(request, route, ctx),
        stage_variables: ctx.stage_variables,
        body,
        is_base64_encoded,
    }
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
fn headers<'a>(request: &'a HttpRequest, ctx: &EventContext<'_>) -> Headers<'a> {
    let mut out = Headers(Vec::with_capacity(request.headers().keys_len() + 4));
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
        out.0.push((name.as_str(), joined));
    }
    let forwarded_for = match out.get("x-forwarded-for") {
        Some(existing) => format!("{existing}, {}", ctx.source_ip),
        None => ctx.source_ip.to_string(),
    };
    out.set("x-forwarded-for", forwarded_for);
    out.set("x-forwarded-port", host_port(request));
    out.set("x-forwarded-proto", "http".into());
    if out.get("x-amzn-trace-id").is_none() {
        out.set("x-amzn-trace-id", trace_id(ctx.now));
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

fn request_context<'a>(
    request: &'a HttpRequest,
    route: &RouteMatch<'a>,
    ctx: &EventContext<'a>,
) -> RequestContext<'a> {
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
    RequestContext {
        account_id: ctx.account_id,
        api_id: ctx.api_id,
        domain_name,
        domain_prefix,
        http: HttpContext {
            method: request.method().as_str(),
            path: request.uri().path(),
            protocol: protocol(request.version()),
            source_ip: ctx.source_ip,
            user_agent: header_values(request, "user-agent")
                .next()
                .unwrap_or_default(),
        },
        request_id: ctx.request_id,
        route_key: route.route_key,
        stage: ctx.stage,
        time: ctx.now.format("%d/%b/%Y:%H:%M:%S %z").to_string(),
        time_epoch: ctx.now.timestamp_millis(),
    }
}

fn protocol(version: http::Version) -> &'static str {
    match version {
        http::Version::HTTP_10 => "HTTP/1.0",
        http::Version::HTTP_2 => "HTTP/2.0",
        _ => "HTTP/1.1",
    }
}

/// `(body, isBase64Encoded)`; no body member at all for an empty body.
fn body(request: &HttpRequest) -> (Option<Cow<'_, str>>, bool) {
    let bytes = request.body();
    if bytes.is_empty() {
        return (None, false);
    }
    let content_type = header_values(request, "content-type").next();
    if is_text_content_type(content_type) {
        if let Ok(text) = std::str::from_utf8(bytes) {
            return (Some(Cow::Borrowed(text)), false);
        }
    }
    let encoded = base64::engine::general_purpose::STANDARD.encode(bytes);
    (Some(Cow::Owned(encoded)), true)
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
