//! Each HTTP API on its own listener, spoken to over real HTTP.

use std::net::SocketAddr;

use crate::common::FakeLambda;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use localcloud_apigw::{start, HttpApiConfig, RouteConfig, StartError};

async fn send(request: http::Request<Full<Bytes>>) -> http::Response<Bytes> {
    let client = Client::builder(TokioExecutor::new()).build_http();
    let response = client.request(request).await.unwrap();
    let (parts, body) = response.into_parts();
    let body = body.collect().await.unwrap().to_bytes();
    http::Response::from_parts(parts, body)
}

fn ephemeral() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

#[tokio::test]
async fn api_on_its_own_port_routes_and_maps_the_response() {
    // GIVEN an API whose function sets a status, headers, cookies and a body
    let lambda = FakeLambda::answering(
        r#"{"statusCode":201,"headers":{"content-type":"application/json"},
            "cookies":["session=xyz; HttpOnly","theme=dark"],"body":"{\"id\":7}"}"#,
    );
    let config = HttpApiConfig::new(
        "OrdersApi",
        vec![RouteConfig::new("POST", "/orders/{size}", "front")],
    );
    let handle = start(config, lambda.clone(), ephemeral()).await.unwrap();

    // WHEN a client posts to it over HTTP
    let request = http::Request::post(format!("{}/orders/5?x=1", handle.url))
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from_static(b"{}")))
        .unwrap();
    let response = send(request).await;

    // THEN the response is the function's, with the request id header
    assert_eq!(response.status(), 201);
    assert_eq!(response.headers()["content-type"], "application/json");
    let cookies: Vec<_> = response.headers().get_all("set-cookie").iter().collect();
    assert_eq!(cookies, ["session=xyz; HttpOnly", "theme=dark"]);
    assert!(response.headers().contains_key("apigw-requestid"));
    assert_eq!(&response.body()[..], br#"{"id":7}"#);

    // AND the function saw the host and port the client used
    let event = lambda.last_event();
    assert_eq!(event["pathParameters"]["size"], "5");
    assert_eq!(
        event["headers"]["x-forwarded-port"],
        handle.addr.port().to_string()
    );
    assert_eq!(event["requestContext"]["domainName"], "127.0.0.1");
    assert_eq!(handle.metrics().requests, 1);
    handle.shutdown().await;
}

#[tokio::test]
async fn two_apis_get_two_base_urls() {
    let a = start(
        HttpApiConfig::new("A", vec![RouteConfig::new("GET", "/who", "a")]),
        FakeLambda::answering(r#""a""#),
        ephemeral(),
    )
    .await
    .unwrap();
    let b = start(
        HttpApiConfig::new("B", vec![RouteConfig::new("GET", "/who", "b")]),
        FakeLambda::answering(r#""b""#),
        ephemeral(),
    )
    .await
    .unwrap();
    assert_ne!(a.url, b.url);

    let from_a = send(
        http::Request::get(format!("{}/who", a.url))
            .body(Full::default())
            .unwrap(),
    )
    .await;
    let from_b = send(
        http::Request::get(format!("{}/who", b.url))
            .body(Full::default())
            .unwrap(),
    )
    .await;

    assert_eq!(&from_a.body()[..], b"a");
    assert_eq!(&from_b.body()[..], b"b");
    a.shutdown().await;
    b.shutdown().await;
}

#[tokio::test]
async fn named_stage_is_part_of_the_invoke_url() {
    let mut config = HttpApiConfig::new("Api", vec![RouteConfig::new("GET", "/ping", "f")]);
    config.stage = "prod".into();
    let handle = start(config, FakeLambda::answering(r#""pong""#), ephemeral())
        .await
        .unwrap();
    assert!(handle.url.ends_with("/prod"), "{}", handle.url);
    let response = send(
        http::Request::get(format!("{}/ping", handle.url))
            .body(Full::default())
            .unwrap(),
    )
    .await;
    assert_eq!(&response.body()[..], b"pong");
    handle.shutdown().await;
}

#[tokio::test]
async fn invalid_config_or_busy_port_fails_to_start() {
    let bad = HttpApiConfig::new("Bad", vec![RouteConfig::new("GET", "/{a+}/b", "f")]);
    let result = start(bad, FakeLambda::answering("{}"), ephemeral()).await;
    assert!(matches!(result, Err(StartError::Config(_))));

    let first = start(
        HttpApiConfig::new("One", vec![]),
        FakeLambda::answering("{}"),
        ephemeral(),
    )
    .await
    .unwrap();
    let second = start(
        HttpApiConfig::new("Two", vec![]),
        FakeLambda::answering("{}"),
        first.addr,
    )
    .await;
    assert!(matches!(second, Err(StartError::Bind { .. })));
    first.shutdown().await;
}
