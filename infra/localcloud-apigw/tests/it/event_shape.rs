//! The payload format 2.0 events the gateway sends, checked against the
//! types and fixtures of the Rust runtime (`aws_lambda_events`, `lambda_http`).

use std::collections::BTreeSet;

use crate::common::{api, api_with, get, FakeLambda};
use aws_lambda_events::apigw::ApiGatewayV2httpRequest;
use base64::Engine;
use bytes::Bytes;
use lambda_http::RequestExt;
use localcloud_core::Handler;
use serde_json::Value;

const FIXTURE: &str = include_str!("../fixtures/example-apigw-v2-request-no-authorizer.json");

fn keys(value: &Value) -> BTreeSet<String> {
    value.as_object().unwrap().keys().cloned().collect()
}

#[tokio::test]
async fn event_has_the_members_of_a_real_http_api_event() {
    // GIVEN a fixture recorded from a real HTTP API and our event for the same request
    let fixture: Value = serde_json::from_str(FIXTURE).unwrap();
    let lambda = FakeLambda::answering(r#"{"statusCode":200}"#);
    let gateway = api(&[("ANY", "$default")], lambda.clone());

    // WHEN a bare GET / arrives
    gateway
        .call(
            get("/")
                .header("user-agent", "curl/7.58.0")
                .body(Bytes::new())
                .unwrap(),
        )
        .await;

    // THEN the top-level, requestContext and http members are the same
    let event = lambda.last_event();
    assert_eq!(keys(&event), keys(&fixture));
    let mut fixture_context = keys(&fixture["requestContext"]);
    fixture_context.remove("authentication"); // mutual TLS only
    assert_eq!(keys(&event["requestContext"]), fixture_context);
    assert_eq!(
        keys(&event["requestContext"]["http"]),
        keys(&fixture["requestContext"]["http"])
    );
    for header in [
        "host",
        "user-agent",
        "x-amzn-trace-id",
        "x-forwarded-for",
        "x-forwarded-port",
        "x-forwarded-proto",
    ] {
        assert!(event["headers"].get(header).is_some(), "missing {header}");
    }
    assert_eq!(event["routeKey"], "$default");
    assert_eq!(event["requestContext"]["stage"], "$default");
    assert_eq!(event["requestContext"]["http"]["userAgent"], "curl/7.58.0");
}

#[tokio::test]
async fn event_deserialises_into_the_runtime_type_with_route_parameters_and_query() {
    // GIVEN a route with a path parameter
    let lambda = FakeLambda::answering(r#"{"statusCode":200}"#);
    let gateway = api(&[("GET", "/api/articles/{slug}")], lambda.clone());

    // WHEN a request with repeated query keys, cookies and repeated headers arrives
    let request = get("/api/articles/how-to%20train?tag=dragons&tag=rust&limit=5")
        .header("cookie", "session=abc; theme=dark")
        .header("cookie", "lang=en")
        .header("x-Custom", "one")
        .header("x-custom", "two")
        .body(Bytes::new())
        .unwrap();
    gateway.call(request).await;

    // THEN the event parses into ApiGatewayV2httpRequest with AWS's values
    let raw = lambda.last_event();
    let event: ApiGatewayV2httpRequest = serde_json::from_value(raw.clone()).unwrap();
    assert_eq!(event.version.as_deref(), Some("2.0"));
    assert_eq!(event.route_key.as_deref(), Some("GET /api/articles/{slug}"));
    assert_eq!(
        event.raw_path.as_deref(),
        Some("/api/articles/how-to%20train")
    );
    assert_eq!(
        event.raw_query_string.as_deref(),
        Some("tag=dragons&tag=rust&limit=5")
    );
    assert_eq!(raw["queryStringParameters"]["tag"], "dragons,rust");
    assert_eq!(
        event.query_string_parameters.all("tag"),
        Some(vec!["dragons", "rust"])
    );
    assert_eq!(event.path_parameters["slug"], "how-to train");
    assert_eq!(
        event.cookies,
        Some(vec![
            "session=abc".into(),
            "theme=dark".into(),
            "lang=en".into()
        ])
    );
    assert_eq!(event.headers["x-custom"], "one,two");
    assert!(event.headers.get("cookie").is_none());
    assert_eq!(event.request_context.http.method, http::Method::GET);
    assert_eq!(
        event.request_context.http.path.as_deref(),
        Some("/api/articles/how-to%20train")
    );
    assert_eq!(
        event.request_context.route_key.as_deref(),
        Some("GET /api/articles/{slug}")
    );
    assert_eq!(
        event.request_context.account_id.as_deref(),
        Some("000000000000")
    );
    assert!(event.request_context.time_epoch > 1_700_000_000_000);
    assert!(!event.is_base64_encoded);
    assert!(event.body.is_none());
}

#[tokio::test]
async fn request_time_uses_the_access_log_format() {
    let lambda = FakeLambda::answering("{}");
    let gateway = api(&[("ANY", "$default")], lambda.clone());
    gateway.call(get("/").body(Bytes::new()).unwrap()).await;

    let context = &lambda.last_event()["requestContext"];
    let time = context["time"].as_str().unwrap();
    let parsed = chrono::DateTime::parse_from_str(time, "%d/%b/%Y:%H:%M:%S %z").unwrap();
    assert!(time.ends_with(" +0000"), "{time}");
    assert_eq!(
        parsed.timestamp(),
        context["timeEpoch"].as_i64().unwrap() / 1000
    );
}

#[tokio::test]
async fn lambda_http_sees_the_same_request_the_client_sent() {
    // GIVEN a Conduit-like route
    let lambda = FakeLambda::answering("{}");
    let gateway = api(&[("PUT", "/api/articles/{slug}")], lambda.clone());

    // WHEN a JSON body is sent with a query string and a cookie
    let request = http::Request::put("/api/articles/dragons?draft=true")
        .header("host", "127.0.0.1:4566")
        .header("content-type", "application/json")
        .header("cookie", "a=1")
        .body(Bytes::from_static(br#"{"article":{"title":"Dragons"}}"#))
        .unwrap();
    gateway.call(request).await;

    // THEN lambda_http rebuilds an equivalent http::Request
    let text = serde_json::to_string(&lambda.last_event()).unwrap();
    let request = lambda_http::request::from_str(&text).unwrap();
    assert_eq!(request.method(), http::Method::PUT);
    assert_eq!(request.uri().path(), "/api/articles/dragons");
    assert_eq!(request.uri().query(), Some("draft=true"));
    assert_eq!(request.path_parameters().first("slug"), Some("dragons"));
    assert_eq!(
        request.query_string_parameters().first("draft"),
        Some("true")
    );
    assert_eq!(request.headers()["cookie"], "a=1");
    let body: &[u8] = request.body().as_ref();
    assert_eq!(body, br#"{"article":{"title":"Dragons"}}"#);
}

#[tokio::test]
async fn binary_bodies_are_base64_encoded_and_text_bodies_are_not() {
    let lambda = FakeLambda::answering("{}");
    let gateway = api(&[("POST", "/upload")], lambda.clone());
    let bytes: &[u8] = &[0x89, b'P', b'N', b'G', 0, 255];

    // WHEN an image is posted
    gateway
        .call(
            http::Request::post("/upload")
                .header("content-type", "image/png")
                .body(Bytes::from_static(bytes))
                .unwrap(),
        )
        .await;

    // THEN it travels base64-encoded, and lambda_http decodes it back
    let event = lambda.last_event();
    assert_eq!(event["isBase64Encoded"], true);
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(event["body"].as_str().unwrap())
        .unwrap();
    assert_eq!(decoded, bytes);
    let request = lambda_http::request::from_str(&event.to_string()).unwrap();
    let body: &[u8] = request.body().as_ref();
    assert_eq!(body, bytes);

    // AND a plain-text body travels as text
    gateway
        .call(
            http::Request::post("/upload")
                .header("content-type", "text/plain; charset=utf-8")
                .body(Bytes::from_static(b"hello"))
                .unwrap(),
        )
        .await;
    let event = lambda.last_event();
    assert_eq!(event["isBase64Encoded"], false);
    assert_eq!(event["body"], "hello");
}

#[tokio::test]
async fn greedy_proxy_parameter_reaches_the_function() {
    let lambda = FakeLambda::answering("{}");
    let gateway = api(&[("ANY", "/{proxy+}")], lambda.clone());
    gateway
        .call(get("/api/profiles/jake/follow").body(Bytes::new()).unwrap())
        .await;
    let event = lambda.last_event();
    assert_eq!(event["routeKey"], "ANY /{proxy+}");
    assert_eq!(event["pathParameters"]["proxy"], "api/profiles/jake/follow");
}

#[tokio::test]
async fn named_stage_prefixes_raw_path_but_not_the_route() {
    // GIVEN an API deployed to stage "dev" with stage variables
    let lambda = FakeLambda::answering("{}");
    let gateway = api_with(&[("GET", "/api/tags")], lambda.clone(), |c| {
        c.stage = "dev".into();
        c.stage_variables
            .insert("table".into(), "conduit-dev".into());
    });

    // WHEN /dev/api/tags is called
    let response = gateway
        .call(get("/dev/api/tags").body(Bytes::new()).unwrap())
        .await;

    // THEN the route matched and the event keeps the stage in rawPath, as AWS does
    assert_eq!(response.status(), 200);
    let event = lambda.last_event();
    assert_eq!(event["rawPath"], "/dev/api/tags");
    assert_eq!(event["requestContext"]["stage"], "dev");
    assert_eq!(event["stageVariables"]["table"], "conduit-dev");

    // AND without the stage prefix there is no route
    let response = gateway
        .call(get("/api/tags").body(Bytes::new()).unwrap())
        .await;
    assert_eq!(response.status(), 404);
}
