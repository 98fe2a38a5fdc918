//! The statuses the gateway answers when the integration cannot, and what it
//! meters for each request.

use std::time::Duration;

use crate::common::{api, api_with, get, ok, FakeLambda};
use bytes::Bytes;
use localcloud_apigw::{HttpApi, HttpApiConfig, RouteConfig, MAX_PAYLOAD_BYTES};
use localcloud_core::{Handler, HttpResponse, InvokeError, InvokeResponse};

fn body_json(response: &HttpResponse) -> serde_json::Value {
    serde_json::from_slice(response.body()).unwrap()
}

#[tokio::test]
async fn unknown_route_is_404_not_found_without_invoking() {
    let lambda = FakeLambda::answering("{}");
    let gateway = api(&[("GET", "/api/tags")], lambda.clone());

    let response = gateway
        .call(get("/api/nothing").body(Bytes::new()).unwrap())
        .await;

    assert_eq!(response.status(), 404);
    assert_eq!(
        body_json(&response),
        serde_json::json!({"message": "Not Found"})
    );
    assert_eq!(lambda.call_count(), 0);
}

#[tokio::test]
async fn function_error_is_500_internal_server_error() {
    let lambda = FakeLambda::new(|_| {
        Ok(InvokeResponse {
            function_error: Some("Unhandled".into()),
            ..ok(r#"{"errorMessage":"boom","errorType":"Panic"}"#)
        })
    });
    let gateway = api(&[("ANY", "$default")], lambda);

    let response = gateway.call(get("/").body(Bytes::new()).unwrap()).await;

    assert_eq!(response.status(), 500);
    assert_eq!(
        body_json(&response),
        serde_json::json!({"message": "Internal Server Error"})
    );
}

#[tokio::test]
async fn malformed_proxy_response_is_500() {
    let lambda = FakeLambda::answering(r#"{"statusCode":"teapot"}"#);
    let gateway = api(&[("ANY", "$default")], lambda);

    let response = gateway.call(get("/").body(Bytes::new()).unwrap()).await;

    assert_eq!(response.status(), 500);
    assert_eq!(gateway.metrics().malformed_responses, 1);
}

#[tokio::test]
async fn lambda_throttle_is_reported_as_500_and_counted() {
    let lambda = FakeLambda::new(|_| {
        Err(InvokeError::Throttled {
            reason: "ReservedFunctionConcurrentInvocationLimitExceeded".into(),
        })
    });
    let gateway = api(&[("ANY", "$default")], lambda);

    let response = gateway.call(get("/").body(Bytes::new()).unwrap()).await;

    assert_eq!(response.status(), 500);
    assert_eq!(
        body_json(&response),
        serde_json::json!({"message": "Internal Server Error"})
    );
    assert_eq!(gateway.metrics().throttled, 1);
}

#[tokio::test]
async fn integration_slower_than_the_timeout_is_503_service_unavailable() {
    // GIVEN a function that takes 5 s behind an API with a 100 ms timeout
    let lambda = FakeLambda::slow(Duration::from_secs(5), "{}");
    let gateway = api_with(&[("ANY", "$default")], lambda, |c| {
        c.timeout = Duration::from_millis(100)
    });

    // WHEN it is called
    let started = tokio::time::Instant::now();
    let response = gateway.call(get("/").body(Bytes::new()).unwrap()).await;

    // THEN the client gets 503 after the timeout, not after the function
    assert_eq!(response.status(), 503);
    assert_eq!(
        body_json(&response),
        serde_json::json!({"message": "Service Unavailable"})
    );
    let elapsed = started.elapsed();
    assert!(elapsed >= Duration::from_millis(100), "{elapsed:?}");
    assert!(elapsed < Duration::from_secs(2), "{elapsed:?}");
    assert_eq!(gateway.metrics().timeouts, 1);
}

#[tokio::test]
async fn a_route_timeout_overrides_the_api_timeout() {
    // GIVEN a 2 s API timeout but a 100 ms integration timeout on the route
    let lambda = FakeLambda::slow(Duration::from_secs(5), "{}");
    let route = RouteConfig::new("GET", "/slow", "f").with_timeout(Duration::from_millis(100));
    let mut config = HttpApiConfig::new("Api", vec![route]);
    config.timeout = Duration::from_secs(2);
    let gateway = HttpApi::new(config, lambda).unwrap();

    // WHEN the route is called
    let started = std::time::Instant::now();
    let response = gateway.call(get("/slow").body(Bytes::new()).unwrap()).await;

    // THEN the route's timeout applied
    assert_eq!(response.status(), 503);
    assert!(started.elapsed() < Duration::from_secs(1));
}

#[test]
fn timeouts_outside_50_ms_to_30_s_are_rejected() {
    let lambda = FakeLambda::answering("{}");
    let route = RouteConfig::new("GET", "/a", "f").with_timeout(Duration::from_secs(31));
    let result = HttpApi::new(HttpApiConfig::new("Api", vec![route]), lambda.clone());
    assert!(result.is_err());
    let mut config = HttpApiConfig::new("Api", vec![]);
    config.timeout = Duration::from_millis(10);
    assert!(HttpApi::new(config, lambda).is_err());
}

#[tokio::test]
async fn integration_within_the_timeout_answers_normally() {
    let lambda = FakeLambda::slow(Duration::from_millis(50), r#"{"ok":true}"#);
    let gateway = api_with(&[("ANY", "$default")], lambda, |c| {
        c.timeout = Duration::from_secs(2)
    });
    let response = gateway.call(get("/").body(Bytes::new()).unwrap()).await;
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn body_over_10_mb_is_413_without_invoking() {
    let lambda = FakeLambda::answering("{}");
    let gateway = api(&[("ANY", "$default")], lambda.clone());

    let body = Bytes::from(vec![b'a'; MAX_PAYLOAD_BYTES + 1]);
    let response = gateway
        .call(http::Request::post("/").body(body).unwrap())
        .await;

    assert_eq!(response.status(), 413);
    assert_eq!(
        body_json(&response),
        serde_json::json!({"message": "Request Entity Too Large"})
    );
    assert_eq!(lambda.call_count(), 0);
}

#[tokio::test]
async fn unknown_function_is_500() {
    let lambda = FakeLambda::new(|_| {
        Err(InvokeError::FunctionNotFound {
            function: "conduit".into(),
        })
    });
    let gateway = api(&[("ANY", "$default")], lambda);
    let response = gateway.call(get("/").body(Bytes::new()).unwrap()).await;
    assert_eq!(response.status(), 500);
}

#[tokio::test]
async fn every_response_carries_the_request_id_the_function_saw() {
    let lambda = FakeLambda::answering("{}");
    let gateway = api(&[("ANY", "$default")], lambda.clone());

    let response = gateway.call(get("/").body(Bytes::new()).unwrap()).await;

    let header = response.headers()["apigw-requestid"].to_str().unwrap();
    assert_eq!(header.len(), 16);
    assert_eq!(lambda.last_event()["requestContext"]["requestId"], header);
    let missing = gateway.call(get("/x/y").body(Bytes::new()).unwrap()).await;
    assert!(missing.headers().contains_key("apigw-requestid"));
}

#[tokio::test]
async fn invocations_are_attributed_to_the_api() {
    let lambda = FakeLambda::answering("{}");
    let gateway = api(&[("ANY", "$default")], lambda.clone());
    gateway.call(get("/").body(Bytes::new()).unwrap()).await;
    let calls = lambda.calls.lock();
    assert_eq!(calls[0].caller, "apigw:ConduitApi");
    assert_eq!(calls[0].function, "conduit");
}

#[tokio::test]
async fn metrics_count_requests_bytes_and_statuses_until_reset() {
    // GIVEN an API answering a 12-byte body
    let lambda = FakeLambda::answering(r#"{"statusCode":201,"body":"twelve bytes"}"#);
    let gateway = api(&[("POST", "/items")], lambda);

    // WHEN one request is routed and one is not
    let post = http::Request::post("/items")
        .header("content-type", "application/json")
        .body(Bytes::from_static(b"{\"a\":1}"))
        .unwrap();
    gateway.call(post).await;
    gateway.call(get("/nope").body(Bytes::new()).unwrap()).await;

    // THEN both are metered, only one invoked the function
    let metrics = gateway.metrics();
    assert_eq!(metrics.requests, 2);
    assert_eq!(metrics.metered_requests, 2);
    assert_eq!(metrics.invocations, 1);
    assert_eq!(metrics.request_bytes, 7);
    assert_eq!(
        metrics.response_bytes,
        12 + br#"{"message":"Not Found"}"#.len() as u64
    );
    assert_eq!(metrics.statuses[&201], 1);
    assert_eq!(metrics.statuses[&404], 1);
    let json = serde_json::to_value(&metrics).unwrap();
    assert_eq!(json["metered_requests"], 2);
    assert_eq!(json["kind"], "http");

    gateway.reset_metrics();
    assert_eq!(gateway.metrics().requests, 0);
}
