//! The Lambda adapter: API Gateway proxy events <-> `ApiRequest`/`ApiResponse`.

use bytes::Bytes;
use lambda_http::{Request, RequestExt};

use crate::app::App;
use crate::http::{handle, ApiRequest, ApiResponse};

/// The request as our HTTP layer sees it. The raw body is kept whatever the
/// `Content-Type` (RealWorld clients do not always send one).
fn to_api_request(req: Request) -> ApiRequest {
    let raw_path = req.raw_http_path();
    let path = if raw_path.is_empty() {
        req.uri().path().to_owned()
    } else {
        raw_path.to_owned()
    };
    let query = req
        .query_string_parameters()
        .iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
    let (parts, body) = req.into_parts();
    ApiRequest {
        method: parts.method,
        path,
        query,
        headers: parts.headers,
        body: Bytes::copy_from_slice(body.as_ref()),
    }
}

/// An event that is no API Gateway proxy event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadEvent(pub String);

impl std::fmt::Display for BadEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "not an API Gateway event: {}", self.0)
    }
}

impl std::error::Error for BadEvent {}

/// The request an API Gateway proxy event carries (HTTP API payload v2,
/// REST API payload v1, function URL), decoded as `lambda_http` decodes it.
pub fn event_request(event: &[u8]) -> Result<ApiRequest, BadEvent> {
    let text = std::str::from_utf8(event).map_err(|e| BadEvent(e.to_string()))?;
    let request = lambda_http::request::from_str(text).map_err(|e| BadEvent(e.to_string()))?;
    Ok(to_api_request(request))
}

/// The proxy integration's response document. Its fields are common to the
/// REST API's payload v1 and the HTTP API's payload v2 (repeated headers
/// joined by commas, as v2 does):
/// <https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-develop-integrations-lambda.html>
/// <https://docs.aws.amazon.com/apigateway/latest/developerguide/set-up-lambda-proxy-integrations.html#api-gateway-simple-proxy-for-lambda-output-format>
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct ProxyResponse<'a> {
    status_code: u16,
    headers: std::collections::BTreeMap<&'a str, String>,
    is_base64_encoded: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    body: Option<std::borrow::Cow<'a, str>>,
}

/// `response` as the function's answer to API Gateway.
pub fn proxy_response(response: &ApiResponse) -> Vec<u8> {
    let headers = response
        .headers
        .keys()
        .map(|name| {
            let values: Vec<&str> = response
                .headers
                .get_all(name)
                .iter()
                .filter_map(|v| v.to_str().ok())
                .collect();
            (name.as_str(), values.join(","))
        })
        .collect();
    let document = ProxyResponse {
        status_code: response.status.as_u16(),
        headers,
        is_base64_encoded: false,
        body: (!response.body.is_empty()).then(|| String::from_utf8_lossy(&response.body)),
    };
    serde_json::to_vec(&document).expect("strings and numbers serialize")
}

/// The whole monolith: an API Gateway event in, its response document out.
pub async fn invoke(app: &App, event: &[u8]) -> Result<Vec<u8>, BadEvent> {
    let request = event_request(event)?;
    Ok(proxy_response(&handle(app, request).await))
}
