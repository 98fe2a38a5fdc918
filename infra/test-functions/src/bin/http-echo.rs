//! An HTTP function on `lambda_http` for the front-door tests: it answers
//! with what `lambda_http` made of the event (which API kind, method, path,
//! parameters, body) as JSON, with a header repeated twice and two cookies;
//! for a path ending in `/image` it answers a PNG (a binary body).

use lambda_http::request::RequestContext;
use lambda_http::{service_fn, Body, Error, Request, RequestExt, Response};
use serde_json::json;

/// The first bytes of a PNG file, with a zero and a 255 to catch text mangling.
const PNG: &[u8] = &[0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a, 0, 255];

async fn handle(request: Request) -> Result<Response<Body>, Error> {
    if request.uri().path().ends_with("/image") {
        return Ok(Response::builder()
            .status(200)
            .header("content-type", "image/png")
            .header("x-tag", "a")
            .header("x-tag", "b")
            .body(Body::from(PNG.to_vec()))?);
    }
    let kind = match request.request_context() {
        RequestContext::ApiGatewayV1(_) => "rest",
        RequestContext::ApiGatewayV2(_) => "http",
        _ => "other",
    };
    let parameters = request.query_string_parameters();
    let query: serde_json::Map<String, serde_json::Value> = parameters
        .iter()
        .map(|(k, _)| (k.to_string(), json!(parameters.all(k).unwrap_or_default())))
        .collect();
    let params: serde_json::Map<String, serde_json::Value> = request
        .path_parameters()
        .iter()
        .map(|(k, v)| (k.to_string(), json!(v)))
        .collect();
    let body = String::from_utf8_lossy(request.body().as_ref()).into_owned();
    let described = json!({
        "kind": kind,
        "method": request.method().as_str(),
        "path": request.uri().path(),
        "query": query,
        "pathParameters": params,
        "body": body,
    });
    Ok(Response::builder()
        .status(200)
        .header("content-type", "application/json")
        .header("x-tag", "a")
        .header("x-tag", "b")
        .header("set-cookie", "a=1; Path=/")
        .header("set-cookie", "b=2; Path=/")
        .body(Body::from(described.to_string()))?)
}

#[tokio::main]
async fn main() -> Result<(), Error> {
    lambda_http::run(service_fn(handle)).await
}
