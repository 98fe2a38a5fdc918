//! The `lambda_http` adapter: API Gateway HTTP API (payload v2) <-> `ApiRequest`/`ApiResponse`.

use bytes::Bytes;
use lambda_http::{Body, Request, RequestExt, Response};

use crate::app::App;
use crate::http::{handle, ApiRequest, ApiResponse};

/// The request as our HTTP layer sees it. The raw body is kept whatever the
/// `Content-Type` (RealWorld clients do not always send one).
pub fn to_api_request(req: Request) -> ApiRequest {
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

pub fn to_lambda_response(resp: ApiResponse) -> Response<Body> {
    let mut response = Response::new(if resp.body.is_empty() {
        Body::Empty
    } else {
        Body::Text(String::from_utf8_lossy(&resp.body).into_owned())
    });
    *response.status_mut() = resp.status;
    *response.headers_mut() = resp.headers;
    response
}

/// The whole function body: errors are already HTTP responses, so this never fails.
pub async fn handler(app: &App, req: Request) -> Result<Response<Body>, lambda_http::Error> {
    Ok(to_lambda_response(handle(app, to_api_request(req)).await))
}
