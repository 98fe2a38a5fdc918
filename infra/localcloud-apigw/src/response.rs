//! Turning a function's payload format 2.0 response into the HTTP response,
//! and the error responses the gateway itself produces.

use base64::Engine;
use bytes::Bytes;
use http::header::{HeaderName, HeaderValue, CONTENT_TYPE, SET_COOKIE};
use http::StatusCode;
use serde_json::Value;

use localcloud_core::HttpResponse;

/// Why a function's output could not become an HTTP response; API Gateway
/// answers 500 for all of them (`$context.integrationErrorMessage`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MalformedResponse {
    #[error("the response is not valid JSON")]
    NotJson,
    #[error("statusCode is not an HTTP status")]
    StatusCode,
    #[error("header {0} is invalid")]
    Header(String),
    #[error("body is not a string")]
    Body,
    #[error("body is not valid base64")]
    Base64,
}

/// Maps the payload: an object with `statusCode` is a full response; any
/// other JSON is the "simple" form, sent as a 200 `application/json` body.
pub fn map_response(payload: &[u8]) -> Result<HttpResponse, MalformedResponse> {
    let value: Value = serde_json::from_slice(payload).map_err(|_| MalformedResponse::NotJson)?;
    match value {
        Value::Object(fields) if fields.contains_key("statusCode") => full_response(fields),
        Value::String(text) => Ok(simple_response(Bytes::from(text))),
        _ => Ok(simple_response(Bytes::copy_from_slice(payload))),
    }
}

fn simple_response(body: Bytes) -> HttpResponse {
    let mut response = HttpResponse::new(body);
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

fn full_response(
    mut fields: serde_json::Map<String, Value>,
) -> Result<HttpResponse, MalformedResponse> {
    let status = status_code(&fields["statusCode"]).ok_or(MalformedResponse::StatusCode)?;
    // Taken, not copied: the body is most of the payload.
    let body = match fields.remove("body") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(body)) => body,
        Some(_) => return Err(MalformedResponse::Body),
    };
    let body = if fields.get("isBase64Encoded").and_then(Value::as_bool) == Some(true) {
        base64::engine::general_purpose::STANDARD
            .decode(body.as_bytes())
            .map_err(|_| MalformedResponse::Base64)?
    } else {
        body.into_bytes()
    };
    let mut response = HttpResponse::new(Bytes::from(body));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    if let Some(Value::Object(single)) = fields.get("headers") {
        for (name, value) in single {
            headers.insert(header_name(name)?, header_value(name, value)?);
        }
    }
    if let Some(Value::Object(multi)) = fields.get("multiValueHeaders") {
        for (name, values) in multi {
            let Value::Array(values) = values else {
                return Err(MalformedResponse::Header(name.clone()));
            };
            let header = header_name(name)?;
            headers.remove(&header);
            for value in values {
                headers.append(header.clone(), header_value(name, value)?);
            }
        }
    }
    if let Some(Value::Array(cookies)) = fields.get("cookies") {
        for cookie in cookies {
            headers.append(SET_COOKIE, header_value("set-cookie", cookie)?);
        }
    }
    Ok(response)
}

pub(crate) fn status_code(value: &Value) -> Option<StatusCode> {
    let code = match value {
        Value::Number(n) => n.as_u64()?,
        Value::String(s) => s.parse().ok()?,
        _ => return None,
    };
    u16::try_from(code)
        .ok()
        .filter(|c| (100..=599).contains(c))
        .and_then(|c| StatusCode::from_u16(c).ok())
}

pub(crate) fn header_name(name: &str) -> Result<HeaderName, MalformedResponse> {
    HeaderName::from_bytes(name.as_bytes()).map_err(|_| MalformedResponse::Header(name.into()))
}

/// Strings as they are; numbers and booleans as their JSON text.
pub(crate) fn header_value(name: &str, value: &Value) -> Result<HeaderValue, MalformedResponse> {
    let text = match value {
        Value::String(s) => s.clone(),
        Value::Number(_) | Value::Bool(_) => value.to_string(),
        _ => return Err(MalformedResponse::Header(name.into())),
    };
    HeaderValue::from_str(&text).map_err(|_| MalformedResponse::Header(name.into()))
}

/// The gateway's own errors: `{"message": "..."}` with the status AWS uses.
pub fn gateway_error(status: StatusCode, message: &str) -> HttpResponse {
    let body = serde_json::to_vec(&serde_json::json!({ "message": message }))
        .expect("a JSON object serialises");
    let mut response = simple_response(Bytes::from(body));
    *response.status_mut() = status;
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(payload: &str) -> HttpResponse {
        map_response(payload.as_bytes()).unwrap()
    }

    #[test]
    fn full_response_carries_status_headers_and_body() {
        let response = map(
            r#"{"statusCode":201,"headers":{"content-type":"text/plain","x-n":3},"body":"made"}"#,
        );
        assert_eq!(response.status(), StatusCode::CREATED);
        assert_eq!(response.headers()["content-type"], "text/plain");
        assert_eq!(response.headers()["x-n"], "3");
        assert_eq!(&response.body()[..], b"made");
    }

    #[test]
    fn cookies_become_set_cookie_headers() {
        let response = map(r#"{"statusCode":200,"cookies":["a=1; HttpOnly","b=2"]}"#);
        let cookies: Vec<_> = response.headers().get_all("set-cookie").iter().collect();
        assert_eq!(cookies, ["a=1; HttpOnly", "b=2"]);
        assert!(response.body().is_empty());
    }

    #[test]
    fn multi_value_headers_are_all_sent() {
        let response =
            map(r#"{"statusCode":200,"multiValueHeaders":{"x-tag":["a","b"]},"body":""}"#);
        let tags: Vec<_> = response.headers().get_all("x-tag").iter().collect();
        assert_eq!(tags, ["a", "b"]);
    }

    #[test]
    fn base64_bodies_are_decoded() {
        let response = map(r#"{"statusCode":200,"body":"AAEC/w==","isBase64Encoded":true}"#);
        assert_eq!(&response.body()[..], &[0u8, 1, 2, 255]);
    }

    #[test]
    fn object_without_status_code_is_the_simple_form() {
        let response = map(r#"{"user":{"username":"jake"}}"#);
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.headers()["content-type"], "application/json");
        assert_eq!(&response.body()[..], br#"{"user":{"username":"jake"}}"#);
    }

    #[test]
    fn bare_string_is_unwrapped_into_the_body() {
        let response = map(r#""Hello from Lambda!""#);
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(&response.body()[..], b"Hello from Lambda!");
    }

    #[test]
    fn bare_array_and_number_are_json_bodies() {
        assert_eq!(&map("[1,2]").body()[..], b"[1,2]");
        assert_eq!(&map("42").body()[..], b"42");
    }

    #[test]
    fn malformed_responses_are_rejected() {
        for (payload, expected) in [
            ("not json", MalformedResponse::NotJson),
            (r#"{"statusCode":"abc"}"#, MalformedResponse::StatusCode),
            (r#"{"statusCode":1000}"#, MalformedResponse::StatusCode),
            (
                r#"{"statusCode":200,"body":{"a":1}}"#,
                MalformedResponse::Body,
            ),
            (
                r#"{"statusCode":200,"body":"%%%","isBase64Encoded":true}"#,
                MalformedResponse::Base64,
            ),
            (
                r#"{"statusCode":200,"headers":{"x":{"nested":1}}}"#,
                MalformedResponse::Header("x".into()),
            ),
        ] {
            assert_eq!(
                map_response(payload.as_bytes()).unwrap_err(),
                expected,
                "{payload}"
            );
        }
    }

    #[test]
    fn gateway_errors_are_json_messages() {
        let response = gateway_error(StatusCode::NOT_FOUND, "Not Found");
        assert_eq!(response.status(), StatusCode::NOT_FOUND);
        assert_eq!(&response.body()[..], br#"{"message":"Not Found"}"#);
    }
}
