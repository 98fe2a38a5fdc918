//! CORS on HTTP APIs and function URLs, answered by the gateway, and the
//! `AWS_IAM` auth type of function URLs.

use crate::common::{api_with, get, FakeLambda};
use bytes::Bytes;
use std::time::Duration;

use localcloud_apigw::{CorsConfig, HttpApi, HttpApiConfig, RouteConfig};
use localcloud_core::Handler;

fn cors(origins: &[&str]) -> CorsConfig {
    CorsConfig {
        allow_origins: origins.iter().map(|s| s.to_string()).collect(),
        allow_methods: vec!["*".into()],
        allow_headers: vec!["authorization".into(), "content-type".into()],
        max_age: Some(600),
        ..CorsConfig::default()
    }
}

#[tokio::test]
async fn http_api_preflight_is_answered_without_an_options_route_or_an_invocation() {
    // GIVEN an HTTP API with CORS and only a GET route
    let lambda = FakeLambda::answering(r#"{"statusCode":200}"#);
    let api = api_with(&[("GET", "/api/tags")], lambda.clone(), |c| {
        c.cors = Some(cors(&["http://localhost:3000"]))
    });

    // WHEN a browser on another origin sends its preflight
    let response = api
        .call(
            http::Request::options("/api/tags")
                .header("origin", "http://localhost:3000")
                .header("access-control-request-method", "GET")
                .header("access-control-request-headers", "authorization")
                .body(Bytes::new())
                .unwrap(),
        )
        .await;

    // THEN the gateway answers it itself
    assert_eq!(response.status(), 204);
    let h = response.headers();
    assert_eq!(h["access-control-allow-origin"], "http://localhost:3000");
    assert_eq!(h["access-control-allow-methods"], "GET");
    assert_eq!(
        h["access-control-allow-headers"],
        "authorization,content-type"
    );
    assert_eq!(h["access-control-max-age"], "600");
    assert_eq!(lambda.call_count(), 0);
}

#[tokio::test]
async fn http_api_responses_carry_the_allow_origin_header_for_allowed_origins() {
    let lambda = FakeLambda::answering(
        r#"{"statusCode":200,"headers":{"access-control-allow-origin":"https://ignored"}}"#,
    );
    let api = api_with(&[("GET", "/api/tags")], lambda, |c| {
        c.cors = Some(cors(&["*"]))
    });

    let response = api
        .call(
            get("/api/tags")
                .header("origin", "http://localhost:3000")
                .body(Bytes::new())
                .unwrap(),
        )
        .await;
    assert_eq!(response.headers()["access-control-allow-origin"], "*");

    // a request without Origin gets no CORS header, not even the function's
    let response = api.call(get("/api/tags").body(Bytes::new()).unwrap()).await;
    assert!(response
        .headers()
        .get("access-control-allow-origin")
        .is_none());
}

#[tokio::test]
async fn without_cors_an_options_request_is_routed_like_any_other() {
    let lambda = FakeLambda::answering(r#"{"statusCode":200}"#);
    let api = api_with(&[("GET", "/api/tags")], lambda, |_| {});
    let response = api
        .call(
            http::Request::options("/api/tags")
                .header("origin", "http://localhost:3000")
                .header("access-control-request-method", "GET")
                .body(Bytes::new())
                .unwrap(),
        )
        .await;
    assert_eq!(response.status(), 404);
}

#[tokio::test]
async fn iam_function_url_rejects_unsigned_calls_and_accepts_signed_ones() {
    // GIVEN a function URL with AuthType AWS_IAM
    let lambda = FakeLambda::answering(r#"{"statusCode":200,"body":"hi"}"#);
    let url = api_with(&[("ANY", "$default")], lambda.clone(), |c| {
        c.iam_auth = true
    });

    // WHEN called without a signature THEN 403, function not invoked
    let response = url.call(get("/anything").body(Bytes::new()).unwrap()).await;
    assert_eq!(response.status(), 403);
    assert_eq!(&response.body()[..], br#"{"Message":"Forbidden"}"#);
    assert_eq!(lambda.call_count(), 0);

    // WHEN called with a SigV4 Authorization header THEN the function answers
    let signed = get("/anything")
        .header(
            "authorization",
            "AWS4-HMAC-SHA256 Credential=x/20260101/us-east-1/lambda/aws4_request, SignedHeaders=host, Signature=abc",
        )
        .body(Bytes::new())
        .unwrap();
    let response = url.call(signed).await;
    assert_eq!(response.status(), 200);
    assert_eq!(&response.body()[..], b"hi");
}

#[test]
fn a_function_url_may_wait_for_a_fifteen_minute_function_but_an_http_api_may_not() {
    let config = || {
        let mut c = HttpApiConfig::new("FnUrl", vec![RouteConfig::new("ANY", "$default", "f")]);
        c.timeout = Duration::from_secs(901);
        c
    };
    let lambda = FakeLambda::answering("{}");
    assert!(HttpApi::new(config(), lambda.clone()).is_err());
    let mut url = config();
    url.function_url = true;
    assert!(HttpApi::new(url, lambda).is_ok());
}
