//! CORS as HTTP APIs and Lambda function URLs apply it: the gateway answers
//! preflight requests itself, without invoking the function, and adds the
//! configured `Access-Control-*` headers to the function's responses,
//! replacing any the function set.
//!
//! <https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-cors.html>:
//! "API Gateway automatically sends a response to preflight OPTIONS requests,
//! even if there isn't an OPTIONS route configured"; "API Gateway ignores
//! CORS headers returned from your backend integration"; "To return CORS
//! headers, your request must contain an origin header. For the OPTIONS
//! method, your request must contain an origin header and an
//! Access-Control-Request-Method header."
//! Function URLs take the same settings (`AllowOrigins`, `AllowMethods`,
//! `AllowHeaders`, `ExposeHeaders`, `MaxAge`, `AllowCredentials`):
//! <https://docs.aws.amazon.com/lambda/latest/dg/API_Cors.html>.
//!
//! REST APIs are different (SAM generates an `OPTIONS` method per path with
//! fixed headers, and adds nothing to proxy responses): see `rest::cors`.

use bytes::Bytes;
use http::header::{HeaderName, HeaderValue};
use http::{Method, StatusCode};
use serde::{Deserialize, Serialize};

use localcloud_core::{HttpRequest, HttpResponse};

const ALLOW_ORIGIN: &str = "access-control-allow-origin";
const ALLOW_METHODS: &str = "access-control-allow-methods";
const ALLOW_HEADERS: &str = "access-control-allow-headers";
const EXPOSE_HEADERS: &str = "access-control-expose-headers";
const MAX_AGE: &str = "access-control-max-age";
const ALLOW_CREDENTIALS: &str = "access-control-allow-credentials";

/// `CorsConfiguration` of an HTTP API, or `Cors` of a function URL.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CorsConfig {
    /// Origins as `scheme://host[:port]`, or `*`.
    pub allow_origins: Vec<String>,
    /// Methods, or `*`.
    pub allow_methods: Vec<String>,
    /// Request headers, or `*`.
    pub allow_headers: Vec<String>,
    pub expose_headers: Vec<String>,
    pub max_age: Option<u32>,
    pub allow_credentials: bool,
}

/// A browser's preflight: `OPTIONS` with `Origin` and
/// `Access-Control-Request-Method`.
pub fn is_preflight(request: &HttpRequest) -> bool {
    request.method() == Method::OPTIONS
        && request.headers().contains_key(http::header::ORIGIN)
        && request
            .headers()
            .contains_key(http::header::ACCESS_CONTROL_REQUEST_METHOD)
}

fn header<'a>(request: &'a HttpRequest, name: &str) -> Option<&'a str> {
    request.headers().get(name).and_then(|v| v.to_str().ok())
}

impl CorsConfig {
    /// The `Access-Control-Allow-Origin` value for `origin`, or `None` when
    /// the origin is not allowed (then no CORS header is sent at all).
    fn allowed_origin(&self, origin: &str) -> Option<String> {
        let wildcard = self.allow_origins.iter().any(|o| o == "*");
        if wildcard && !self.allow_credentials {
            return Some("*".to_string());
        }
        let listed = self
            .allow_origins
            .iter()
            .any(|o| o.eq_ignore_ascii_case(origin));
        (wildcard || listed).then(|| origin.to_string())
    }

    /// The gateway's answer to a preflight request: 204 with the allowed
    /// methods and headers when the origin is allowed, 204 without CORS
    /// headers otherwise (the browser then blocks the call).
    pub fn preflight(&self, request: &HttpRequest) -> HttpResponse {
        let mut response = HttpResponse::new(Bytes::new());
        *response.status_mut() = StatusCode::NO_CONTENT;
        let Some(origin) = header(request, "origin").and_then(|o| self.allowed_origin(o)) else {
            return response;
        };
        let requested_headers = header(request, "access-control-request-headers");
        let methods = join_or_echo(
            &self.allow_methods,
            header(request, "access-control-request-method"),
        );
        let headers = join_or_echo(&self.allow_headers, requested_headers);
        let out = response.headers_mut();
        insert(out, ALLOW_ORIGIN, &origin);
        if !methods.is_empty() {
            insert(out, ALLOW_METHODS, &methods);
        }
        if !headers.is_empty() {
            insert(out, ALLOW_HEADERS, &headers);
        }
        if let Some(age) = self.max_age {
            insert(out, MAX_AGE, &age.to_string());
        }
        if self.allow_credentials {
            insert(out, ALLOW_CREDENTIALS, "true");
        }
        if origin != "*" {
            insert(out, "vary", "Origin");
        }
        response
    }

    /// Replaces the function's CORS headers with the configured ones when the
    /// request came from an allowed origin.
    pub fn decorate(&self, request: &HttpRequest, response: &mut HttpResponse) {
        let out = response.headers_mut();
        for name in [
            ALLOW_ORIGIN,
            ALLOW_METHODS,
            ALLOW_HEADERS,
            EXPOSE_HEADERS,
            MAX_AGE,
            ALLOW_CREDENTIALS,
        ] {
            out.remove(name);
        }
        let Some(origin) = header(request, "origin").and_then(|o| self.allowed_origin(o)) else {
            return;
        };
        insert(out, ALLOW_ORIGIN, &origin);
        if !self.expose_headers.is_empty() {
            insert(out, EXPOSE_HEADERS, &self.expose_headers.join(","));
        }
        if self.allow_credentials {
            insert(out, ALLOW_CREDENTIALS, "true");
        }
        if origin != "*" {
            out.append("vary", HeaderValue::from_static("Origin"));
        }
    }
}

/// The configured list, or what the browser asked for when the list is `*`.
fn join_or_echo(configured: &[String], requested: Option<&str>) -> String {
    if configured.iter().any(|v| v == "*") {
        return requested.unwrap_or("*").to_string();
    }
    configured.join(",")
}

fn insert(headers: &mut http::HeaderMap, name: &'static str, value: &str) {
    if let Ok(value) = HeaderValue::from_str(value) {
        headers.insert(HeaderName::from_static(name), value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(origins: &[&str]) -> CorsConfig {
        CorsConfig {
            allow_origins: origins.iter().map(|s| s.to_string()).collect(),
            allow_methods: vec!["GET".into(), "POST".into()],
            allow_headers: vec!["authorization".into(), "content-type".into()],
            expose_headers: vec!["x-request-id".into()],
            max_age: Some(600),
            allow_credentials: false,
        }
    }

    fn preflight_from(origin: &str) -> HttpRequest {
        http::Request::options("/api/tags")
            .header("origin", origin)
            .header("access-control-request-method", "GET")
            .header("access-control-request-headers", "authorization")
            .body(Bytes::new())
            .unwrap()
    }

    #[test]
    fn preflight_from_an_allowed_origin_lists_methods_headers_and_max_age() {
        let response =
            config(&["https://app.example"]).preflight(&preflight_from("https://app.example"));
        assert_eq!(response.status(), 204);
        let h = response.headers();
        assert_eq!(h[ALLOW_ORIGIN], "https://app.example");
        assert_eq!(h[ALLOW_METHODS], "GET,POST");
        assert_eq!(h[ALLOW_HEADERS], "authorization,content-type");
        assert_eq!(h[MAX_AGE], "600");
        assert_eq!(h["vary"], "Origin");
    }

    #[test]
    fn preflight_from_another_origin_has_no_cors_headers() {
        let response =
            config(&["https://app.example"]).preflight(&preflight_from("https://evil.example"));
        assert_eq!(response.status(), 204);
        assert!(response.headers().get(ALLOW_ORIGIN).is_none());
    }

    #[test]
    fn wildcard_origin_answers_star_unless_credentials_are_allowed() {
        let mut cors = config(&["*"]);
        let response = cors.preflight(&preflight_from("http://localhost:3000"));
        assert_eq!(response.headers()[ALLOW_ORIGIN], "*");
        cors.allow_credentials = true;
        let response = cors.preflight(&preflight_from("http://localhost:3000"));
        assert_eq!(response.headers()[ALLOW_ORIGIN], "http://localhost:3000");
        assert_eq!(response.headers()[ALLOW_CREDENTIALS], "true");
    }

    #[test]
    fn wildcard_headers_echo_what_the_browser_asked_for() {
        let mut cors = config(&["*"]);
        cors.allow_headers = vec!["*".into()];
        let response = cors.preflight(&preflight_from("http://a"));
        assert_eq!(response.headers()[ALLOW_HEADERS], "authorization");
    }

    #[test]
    fn responses_get_the_configured_headers_and_lose_the_functions_own() {
        let cors = config(&["https://app.example"]);
        let request = http::Request::get("/api/tags")
            .header("origin", "https://app.example")
            .body(Bytes::new())
            .unwrap();
        let mut response = HttpResponse::new(Bytes::new());
        response
            .headers_mut()
            .insert(ALLOW_ORIGIN, HeaderValue::from_static("https://other"));
        cors.decorate(&request, &mut response);
        assert_eq!(response.headers()[ALLOW_ORIGIN], "https://app.example");
        assert_eq!(response.headers()[EXPOSE_HEADERS], "x-request-id");

        let no_origin = http::Request::get("/").body(Bytes::new()).unwrap();
        let mut response = HttpResponse::new(Bytes::new());
        response
            .headers_mut()
            .insert(ALLOW_ORIGIN, HeaderValue::from_static("*"));
        cors.decorate(&no_origin, &mut response);
        assert!(response.headers().get(ALLOW_ORIGIN).is_none());
    }

    #[test]
    fn only_options_with_origin_and_request_method_is_a_preflight() {
        assert!(is_preflight(&preflight_from("http://a")));
        let plain = http::Request::options("/")
            .header("origin", "http://a")
            .body(Bytes::new())
            .unwrap();
        assert!(!is_preflight(&plain));
    }
}
