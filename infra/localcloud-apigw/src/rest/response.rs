//! A function's payload format 1.0 response (`statusCode`, `headers`,
//! `multiValueHeaders`, `body`, `isBase64Encoded`) turned into the HTTP
//! response, and the REST API's own error answers.
//! <https://docs.aws.amazon.com/apigateway/latest/developerguide/set-up-lambda-proxy-integrations.html#api-gateway-simple-proxy-for-lambda-output-format>

use base64::Engine;
use bytes::Bytes;
use http::header::{HeaderValue, CONTENT_TYPE};
use http::StatusCode;
use serde_json::{Map, Value};

use crate::response::{header_name, header_value, status_code, MalformedResponse};
use crate::rest::media::{first_accepted, matches_media_type};
use localcloud_core::HttpResponse;

/// Maps the payload. Unlike HTTP APIs, REST APIs have no "simple" form:
/// anything but an object with a valid `statusCode` is a malformed response
/// (502).
pub fn map_rest_response(
    payload: &[u8],
    accept: Option<&str>,
    binary_media_types: &[String],
) -> Result<HttpResponse, MalformedResponse> {
    let value: Value = serde_json::from_slice(payload).map_err(|_| MalformedResponse::NotJson)?;
    let Value::Object(fields) = value else {
        return Err(MalformedResponse::StatusCode);
    };
    let status = fields
        .get("statusCode")
        .and_then(status_code)
        .ok_or(MalformedResponse::StatusCode)?;
    let mut response = HttpResponse::new(Bytes::new());
    *response.status_mut() = status;
    headers(&fields, response.headers_mut())?;
    let body = match fields.get("body") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(body)) => body.clone(),
        Some(_) => return Err(MalformedResponse::Body),
    };
    let encoded = fields.get("isBase64Encoded").and_then(Value::as_bool) == Some(true);
    let content_type = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok());
    // The body goes out as binary when the client's first Accept type or the
    // response's Content-Type is a binary media type; otherwise the base64
    // text itself is the body.
    // <https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-payload-encodings.html>
    let binary = encoded
        && (accept.is_some_and(|a| matches_media_type(binary_media_types, first_accepted(a)))
            || content_type.is_some_and(|t| matches_media_type(binary_media_types, t)));
    let body = if binary {
        base64::engine::general_purpose::STANDARD
            .decode(body.as_bytes())
            .map_err(|_| MalformedResponse::Base64)?
    } else {
        body.into_bytes()
    };
    *response.body_mut() = Bytes::from(body);
    if !response.headers().contains_key(CONTENT_TYPE) {
        response
            .headers_mut()
            .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    }
    Ok(response)
}

/// "If you specify values for both headers and multiValueHeaders, API
/// Gateway merges them into a single list. If the same key-value pair is
/// specified in both, only the values from multiValueHeaders will appear."
fn headers(
    fields: &Map<String, Value>,
    out: &mut http::HeaderMap,
) -> Result<(), MalformedResponse> {
    if let Some(Value::Object(multi)) = fields.get("multiValueHeaders") {
        for (name, values) in multi {
            let Value::Array(values) = values else {
                return Err(MalformedResponse::Header(name.clone()));
            };
            let header = header_name(name)?;
            for value in values {
                out.append(header.clone(), header_value(name, value)?);
            }
        }
    }
    if let Some(Value::Object(single)) = fields.get("headers") {
        for (name, value) in single {
            let header = header_name(name)?;
            let value = header_value(name, value)?;
            let present = out.get_all(&header).iter().any(|v| v == value);
            if !present {
                out.append(header, value);
            }
        }
    }
    Ok(())
}

/// REST's gateway responses and their default bodies:
/// <https://docs.aws.amazon.com/apigateway/latest/developerguide/supported-gateway-response-types.html>.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RestError {
    /// MISSING_AUTHENTICATION_TOKEN: no such resource or method.
    MissingAuthenticationToken,
    /// A stage the API does not have.
    Forbidden,
    /// The function failed or answered something that is not a proxy response.
    BadGateway,
    /// INTEGRATION_FAILURE from Lambda itself (throttled, not found): 500.
    InternalServerError,
    /// INTEGRATION_TIMEOUT.
    Timeout,
    /// REQUEST_TOO_LARGE.
    TooLarge,
    /// THROTTLED.
    Throttled,
}

impl RestError {
    pub fn response(self) -> HttpResponse {
        let (status, body): (StatusCode, &'static [u8]) = match self {
            RestError::MissingAuthenticationToken => (
                StatusCode::FORBIDDEN,
                br#"{"message":"Missing Authentication Token"}"#,
            ),
            RestError::Forbidden => (StatusCode::FORBIDDEN, br#"{"message":"Forbidden"}"#),
            RestError::BadGateway => (
                StatusCode::BAD_GATEWAY,
                br#"{"message": "Internal server error"}"#,
            ),
            RestError::InternalServerError => (
                StatusCode::INTERNAL_SERVER_ERROR,
                br#"{"message": "Internal server error"}"#,
            ),
            RestError::Timeout => (
                StatusCode::GATEWAY_TIMEOUT,
                br#"{"message": "Endpoint request timed out"}"#,
            ),
            RestError::TooLarge => (
                StatusCode::PAYLOAD_TOO_LARGE,
                br#"{"message":"Request Too Long"}"#,
            ),
            RestError::Throttled => (
                StatusCode::TOO_MANY_REQUESTS,
                br#"{"message":"Too Many Requests"}"#,
            ),
        };
        let mut response = HttpResponse::new(Bytes::from_static(body));
        *response.status_mut() = status;
        response
            .headers_mut()
            .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        response.headers_mut().insert(
            "x-amzn-errortype",
            HeaderValue::from_static(self.error_type()),
        );
        response
    }

    fn error_type(self) -> &'static str {
        match self {
            RestError::MissingAuthenticationToken => "MissingAuthenticationTokenException",
            RestError::Forbidden => "ForbiddenException",
            RestError::BadGateway | RestError::InternalServerError => {
                "InternalServerErrorException"
            }
            RestError::Timeout => "InternalServerErrorException",
            RestError::TooLarge => "RequestTooLargeException",
            RestError::Throttled => "TooManyRequestsException",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(payload: &str, accept: Option<&str>, types: &[&str]) -> HttpResponse {
        let types: Vec<String> = types.iter().map(|s| s.to_string()).collect();
        map_rest_response(payload.as_bytes(), accept, &types).unwrap()
    }

    #[test]
    fn headers_and_multi_value_headers_merge() {
        let response = map(
            r#"{"statusCode":200,"headers":{"x-a":"1","x-b":"b"},
               "multiValueHeaders":{"x-a":["1","2"],"set-cookie":["a=1","b=2"]},"body":"ok"}"#,
            None,
            &[],
        );
        let all = |n| response.headers().get_all(n).iter().collect::<Vec<_>>();
        assert_eq!(all("x-a"), ["1", "2"]);
        assert_eq!(all("x-b"), ["b"]);
        assert_eq!(all("set-cookie"), ["a=1", "b=2"]);
        assert_eq!(&response.body()[..], b"ok");
    }

    #[test]
    fn base64_body_is_decoded_only_for_binary_media_types() {
        let payload = r#"{"statusCode":200,"headers":{"content-type":"image/png"},"body":"AAEC/w==","isBase64Encoded":true}"#;
        assert_eq!(
            &map(payload, None, &["image/png"]).body()[..],
            &[0, 1, 2, 255]
        );
        assert_eq!(
            &map(payload, Some("image/*"), &["image/*"]).body()[..],
            &[0, 1, 2, 255]
        );
        assert_eq!(&map(payload, None, &[]).body()[..], b"AAEC/w==");
    }

    #[test]
    fn anything_but_a_proxy_response_is_malformed() {
        for payload in [
            r#""hello""#,
            r#"{"body":"x"}"#,
            "[1]",
            "nope",
            r#"{"statusCode":200,"body":{}}"#,
        ] {
            assert!(
                map_rest_response(payload.as_bytes(), None, &[]).is_err(),
                "{payload}"
            );
        }
    }

    #[test]
    fn gateway_errors_have_rest_bodies() {
        let response = RestError::MissingAuthenticationToken.response();
        assert_eq!(response.status(), 403);
        assert_eq!(
            &response.body()[..],
            br#"{"message":"Missing Authentication Token"}"#
        );
        assert_eq!(RestError::BadGateway.response().status(), 502);
        assert_eq!(RestError::Timeout.response().status(), 504);
        assert_eq!(RestError::Throttled.response().status(), 429);
        assert_eq!(RestError::TooLarge.response().status(), 413);
    }
}
