//! The payload format 1.0 events a REST API sends, checked against the AWS
//! documentation's example event and the Rust runtime (`aws_lambda_events`,
//! `lambda_http` with its `apigw_rest` feature).

use std::collections::BTreeSet;

use crate::common::{get, rest_api, FakeLambda};
use aws_lambda_events::apigw::ApiGatewayProxyRequest;
use base64::Engine;
use bytes::Bytes;
use lambda_http::request::RequestContext;
use lambda_http::RequestExt;
use localcloud_core::Handler;
use serde_json::Value;

const FIXTURE: &str = include_str!("../fixtures/example-apigw-request.json");

fn keys(value: &Value) -> BTreeSet<String> {
    value.as_object().unwrap().keys().cloned().collect()
}

#[tokio::test]
async fn event_has_the_members_of_the_documented_rest_event() {
    // GIVEN the event from the AWS guide and ours for a similar request
    let fixture: Value = serde_json::from_str(FIXTURE).unwrap();
    let lambda = FakeLambda::answering(r#"{"statusCode":200}"#);
    let api = rest_api(&[("ANY", "/{proxy+}")], lambda.clone(), |c| {
        c.stage_variables
            .insert("stageVariableName".into(), "v".into());
    });

    // WHEN POST /Prod/hello/world?name=me arrives
    api.call(
        http::Request::post("/Prod/hello/world?name=me")
            .header("host", "127.0.0.1:4566")
            .header("content-type", "application/json")
            .header("headerName", "headerValue")
            .body(Bytes::from_static(b"{\"a\": 1}"))
            .unwrap(),
    )
    .await;

    // THEN every documented member is there (plus the newer isBase64Encoded
    // and extendedRequestId), and nothing else
    let event = lambda.last_event();
    let mut ours = keys(&event);
    ours.remove("isBase64Encoded");
    assert_eq!(ours, keys(&fixture));
    let mut context = keys(&event["requestContext"]);
    context.remove("extendedRequestId");
    let mut documented = keys(&fixture["requestContext"]);
    documented.remove("authorizer"); // only with an authorizer
    assert_eq!(context, documented);
    let mut identity = keys(&event["requestContext"]["identity"]);
    identity.remove("principalOrgId");
    assert_eq!(identity, keys(&fixture["requestContext"]["identity"]));

    // AND the values are REST's: path without the stage, context path with it
    assert_eq!(event["resource"], "/{proxy+}");
    assert_eq!(event["path"], "/hello/world");
    assert_eq!(event["httpMethod"], "POST");
    assert_eq!(event["pathParameters"]["proxy"], "hello/world");
    assert_eq!(event["queryStringParameters"]["name"], "me");
    assert_eq!(event["multiValueQueryStringParameters"]["name"][0], "me");
    assert_eq!(event["stageVariables"]["stageVariableName"], "v");
    assert_eq!(event["requestContext"]["path"], "/Prod/hello/world");
    assert_eq!(event["requestContext"]["resourcePath"], "/{proxy+}");
    assert_eq!(event["requestContext"]["stage"], "Prod");
    assert_eq!(event["headers"]["headername"], "headerValue");
    assert_eq!(event["body"], "{\"a\": 1}");
    assert_eq!(event["isBase64Encoded"], false);
    let request_id = event["requestContext"]["requestId"].as_str().unwrap();
    assert_eq!(request_id.len(), 36, "a UUID: {request_id}");
}

#[tokio::test]
async fn absent_maps_and_body_are_null() {
    let lambda = FakeLambda::answering(r#"{"statusCode":200}"#);
    let api = rest_api(&[("GET", "/ping")], lambda.clone(), |_| {});
    api.call(get("/Prod/ping").body(Bytes::new()).unwrap())
        .await;
    let event = lambda.last_event();
    for member in [
        "queryStringParameters",
        "multiValueQueryStringParameters",
        "pathParameters",
        "stageVariables",
        "body",
    ] {
        assert!(event[member].is_null(), "{member}: {}", event[member]);
    }
}

#[tokio::test]
async fn repeated_headers_and_query_keys_keep_every_value_in_the_multi_value_maps() {
    let lambda = FakeLambda::answering(r#"{"statusCode":200}"#);
    let api = rest_api(&[("GET", "/api/articles")], lambda.clone(), |_| {});

    api.call(
        get("/Prod/api/articles?tag=dragons&tag=rust&limit=5")
            .header("x-custom", "one")
            .header("x-custom", "two")
            .body(Bytes::new())
            .unwrap(),
    )
    .await;

    let raw = lambda.last_event();
    assert_eq!(
        raw["queryStringParameters"]["tag"], "rust",
        "the last value"
    );
    let event: ApiGatewayProxyRequest = serde_json::from_value(raw).unwrap();
    assert_eq!(
        event.multi_value_query_string_parameters.all("tag"),
        Some(vec!["dragons", "rust"])
    );
    assert_eq!(event.headers["x-custom"], "two");
    let all: Vec<_> = event
        .multi_value_headers
        .get_all("x-custom")
        .iter()
        .collect();
    assert_eq!(all, ["one", "two"]);
    assert_eq!(event.http_method, http::Method::GET);
    assert_eq!(event.request_context.stage.as_deref(), Some("Prod"));
}

#[tokio::test]
async fn lambda_http_rebuilds_the_request_from_a_rest_event() {
    // GIVEN a Conduit-like REST method
    let lambda = FakeLambda::answering(r#"{"statusCode":200}"#);
    let api = rest_api(&[("PUT", "/api/articles/{slug}")], lambda.clone(), |_| {});

    // WHEN a JSON body is sent with a query string
    api.call(
        http::Request::put("/Prod/api/articles/how-to%20train?draft=true")
            .header("host", "127.0.0.1:4566")
            .header("content-type", "application/json")
            .body(Bytes::from_static(br#"{"article":{"title":"Dragons"}}"#))
            .unwrap(),
    )
    .await;

    // THEN lambda_http sees a REST request with the same parts
    let text = lambda.last_event().to_string();
    let request = lambda_http::request::from_str(&text).unwrap();
    assert!(matches!(
        request.request_context(),
        RequestContext::ApiGatewayV1(_)
    ));
    assert_eq!(request.method(), http::Method::PUT);
    assert_eq!(
        request.path_parameters().first("slug"),
        Some("how-to train")
    );
    assert_eq!(
        request.query_string_parameters().first("draft"),
        Some("true")
    );
    let body: &[u8] = request.body().as_ref();
    assert_eq!(body, br#"{"article":{"title":"Dragons"}}"#);
}

#[tokio::test]
async fn binary_media_types_decide_which_request_bodies_travel_base64_encoded() {
    let lambda = FakeLambda::answering(r#"{"statusCode":200}"#);
    let api = rest_api(&[("POST", "/upload")], lambda.clone(), |c| {
        c.binary_media_types = vec!["image/*".into()];
    });
    let png: &[u8] = &[0x89, b'P', b'N', b'G', 0, 255];

    api.call(
        http::Request::post("/Prod/upload")
            .header("content-type", "image/png")
            .body(Bytes::from_static(png))
            .unwrap(),
    )
    .await;
    let event = lambda.last_event();
    assert_eq!(event["isBase64Encoded"], true);
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(event["body"].as_str().unwrap())
        .unwrap();
    assert_eq!(decoded, png);

    // a type that is not binary travels as text
    api.call(
        http::Request::post("/Prod/upload")
            .header("content-type", "application/octet-stream")
            .body(Bytes::from_static(b"plain"))
            .unwrap(),
    )
    .await;
    let event = lambda.last_event();
    assert_eq!(event["isBase64Encoded"], false);
    assert_eq!(event["body"], "plain");
}
