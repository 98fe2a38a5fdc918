//! Responses as the Rust runtime serialises them (`ApiGatewayV2httpResponse`)
//! reach the client intact.

use crate::common::{api, get, FakeLambda};
use aws_lambda_events::apigw::ApiGatewayV2httpResponse;
use aws_lambda_events::encodings::Body;
use bytes::Bytes;
use http::header::{HeaderValue, CONTENT_TYPE};
use localcloud_core::Handler;

fn serialised(response: &ApiGatewayV2httpResponse) -> String {
    serde_json::to_string(response).unwrap()
}

#[tokio::test]
async fn a_runtime_text_response_keeps_status_headers_cookies_and_body() {
    // GIVEN a function answering the way lambda_http serialises a response
    let mut response = ApiGatewayV2httpResponse::default();
    response.status_code = 422;
    response
        .headers
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
        .multi_value_headers
        .append("x-trace", HeaderValue::from_static("a"));
    response
        .multi_value_headers
        .append("x-trace", HeaderValue::from_static("b"));
    response.cookies = vec!["token=abc; Path=/".into()];
    response.body = Some(Body::Text(
        r#"{"errors":{"body":["can't be empty"]}}"#.into(),
    ));
    let lambda = FakeLambda::answering(&serialised(&response));
    let gateway = api(&[("POST", "/api/articles")], lambda);

    // WHEN the client calls the route
    let reply = gateway
        .call(
            http::Request::post("/api/articles")
                .body(Bytes::new())
                .unwrap(),
        )
        .await;

    // THEN the client gets exactly what the function built
    assert_eq!(reply.status(), 422);
    assert_eq!(reply.headers()["content-type"], "application/json");
    let traces: Vec<_> = reply.headers().get_all("x-trace").iter().collect();
    assert_eq!(traces, ["a", "b"]);
    assert_eq!(reply.headers()["set-cookie"], "token=abc; Path=/");
    assert_eq!(
        &reply.body()[..],
        br#"{"errors":{"body":["can't be empty"]}}"#
    );
}

#[tokio::test]
async fn a_runtime_binary_response_is_decoded_for_the_client() {
    let mut response = ApiGatewayV2httpResponse::default();
    response.status_code = 200;
    response
        .headers
        .insert(CONTENT_TYPE, HeaderValue::from_static("image/png"));
    response.body = Some(Body::Binary(vec![0x89, b'P', b'N', b'G', 0, 255]));
    response.is_base64_encoded = true;
    let lambda = FakeLambda::answering(&serialised(&response));
    let gateway = api(&[("GET", "/logo.png")], lambda);

    let reply = gateway
        .call(get("/logo.png").body(Bytes::new()).unwrap())
        .await;

    assert_eq!(reply.status(), 200);
    assert_eq!(&reply.body()[..], &[0x89, b'P', b'N', b'G', 0, 255]);
}

#[tokio::test]
async fn a_runtime_response_without_body_is_empty() {
    let mut response = ApiGatewayV2httpResponse::default();
    response.status_code = 204;
    let lambda = FakeLambda::answering(&serialised(&response));
    let gateway = api(&[("DELETE", "/api/articles/{slug}")], lambda);

    let reply = gateway
        .call(
            http::Request::delete("/api/articles/x")
                .body(Bytes::new())
                .unwrap(),
        )
        .await;

    assert_eq!(reply.status(), 204);
    assert!(reply.body().is_empty());
}
