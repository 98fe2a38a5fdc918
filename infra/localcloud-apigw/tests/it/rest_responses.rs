//! What a REST API answers: the function's payload 1.0 response (as
//! `lambda_http` serialises it for a REST request), and REST's own errors.

use std::time::Duration;

use crate::common::{get, ok, rest_api, FakeLambda};
use aws_lambda_events::apigw::ApiGatewayProxyResponse;
use aws_lambda_events::encodings::Body;
use bytes::Bytes;
use http::header::{HeaderValue, CONTENT_TYPE};
use localcloud_apigw::{RestCors, Throttle, MAX_PAYLOAD_BYTES};
use localcloud_core::{Handler, HttpResponse, InvokeError, InvokeResponse};

fn body_json(response: &HttpResponse) -> serde_json::Value {
    serde_json::from_slice(response.body()).unwrap()
}

fn binary_response() -> String {
    let mut response = ApiGatewayProxyResponse::default();
    response.status_code = 200;
    response
        .multi_value_headers
        .insert(CONTENT_TYPE, HeaderValue::from_static("image/png"));
    response
        .multi_value_headers
        .append("set-cookie", HeaderValue::from_static("a=1"));
    response
        .multi_value_headers
        .append("set-cookie", HeaderValue::from_static("b=2"));
    response.body = Some(Body::Binary(vec![0x89, b'P', b'N', b'G', 0, 255]));
    response.is_base64_encoded = true;
    serde_json::to_string(&response).unwrap()
}

#[tokio::test]
async fn multi_value_headers_and_a_binary_body_reach_the_client() {
    // GIVEN a function answering as lambda_http does for REST, and image/png binary
    let lambda = FakeLambda::answering(&binary_response());
    let api = rest_api(&[("GET", "/logo.png")], lambda, |c| {
        c.binary_media_types = vec!["image/png".into()];
    });

    // WHEN the client asks for the image
    let reply = api
        .call(get("/Prod/logo.png").body(Bytes::new()).unwrap())
        .await;

    // THEN it gets the bytes and both cookies
    assert_eq!(reply.status(), 200);
    assert_eq!(&reply.body()[..], &[0x89, b'P', b'N', b'G', 0, 255]);
    let cookies: Vec<_> = reply.headers().get_all("set-cookie").iter().collect();
    assert_eq!(cookies, ["a=1", "b=2"]);
    assert!(reply.headers().contains_key("x-amzn-requestid"));
}

#[tokio::test]
async fn a_base64_body_without_binary_media_types_stays_base64_text() {
    let lambda = FakeLambda::answering(&binary_response());
    let api = rest_api(&[("GET", "/logo.png")], lambda, |_| {});
    let reply = api
        .call(get("/Prod/logo.png").body(Bytes::new()).unwrap())
        .await;
    assert_eq!(&reply.body()[..], b"iVBORwD/");
}

#[tokio::test]
async fn unknown_resource_or_method_is_403_missing_authentication_token() {
    let lambda = FakeLambda::answering(r#"{"statusCode":200}"#);
    let api = rest_api(&[("GET", "/api/tags")], lambda.clone(), |_| {});
    for request in [
        get("/Prod/api/nothing").body(Bytes::new()).unwrap(),
        http::Request::post("/Prod/api/tags")
            .body(Bytes::new())
            .unwrap(),
        get("/Prod").body(Bytes::new()).unwrap(),
    ] {
        let response = api.call(request).await;
        assert_eq!(response.status(), 403);
        assert_eq!(
            body_json(&response),
            serde_json::json!({"message": "Missing Authentication Token"})
        );
    }
    assert_eq!(lambda.call_count(), 0);
}

#[tokio::test]
async fn another_stage_is_403_forbidden() {
    let lambda = FakeLambda::answering(r#"{"statusCode":200}"#);
    let api = rest_api(&[("GET", "/api/tags")], lambda.clone(), |_| {});
    let response = api
        .call(get("/Dev/api/tags").body(Bytes::new()).unwrap())
        .await;
    assert_eq!(response.status(), 403);
    assert_eq!(
        body_json(&response),
        serde_json::json!({"message": "Forbidden"})
    );
    let response = api.call(get("/api/tags").body(Bytes::new()).unwrap()).await;
    assert_eq!(response.status(), 403);
}

#[tokio::test]
async fn proxy_any_and_a_trailing_slash_route_as_aws_does() {
    let lambda = FakeLambda::answering(r#"{"statusCode":204}"#);
    let api = rest_api(
        &[("ANY", "/{proxy+}"), ("GET", "/hello")],
        lambda.clone(),
        |_| {},
    );

    let response = api
        .call(get("/Prod/hello/").body(Bytes::new()).unwrap())
        .await;
    assert_eq!(response.status(), 204);
    let event = lambda.last_event();
    assert_eq!(event["resource"], "/hello");
    assert_eq!(event["path"], "/hello/");

    let response = api
        .call(
            http::Request::delete("/Prod/a/b/c")
                .body(Bytes::new())
                .unwrap(),
        )
        .await;
    assert_eq!(response.status(), 204);
    assert_eq!(lambda.last_event()["pathParameters"]["proxy"], "a/b/c");
}

#[tokio::test]
async fn function_error_and_malformed_response_are_502() {
    let failing = FakeLambda::new(|_| {
        Ok(InvokeResponse {
            function_error: Some("Unhandled".into()),
            ..ok(r#"{"errorMessage":"boom"}"#)
        })
    });
    let api = rest_api(&[("GET", "/x")], failing, |_| {});
    let response = api.call(get("/Prod/x").body(Bytes::new()).unwrap()).await;
    assert_eq!(response.status(), 502);
    assert_eq!(
        body_json(&response),
        serde_json::json!({"message": "Internal server error"})
    );

    // REST has no "simple" response form: a bare JSON document is malformed
    let api = rest_api(
        &[("GET", "/x")],
        FakeLambda::answering(r#"{"user":1}"#),
        |_| {},
    );
    let response = api.call(get("/Prod/x").body(Bytes::new()).unwrap()).await;
    assert_eq!(response.status(), 502);
    assert_eq!(api_metrics(&api).malformed_responses, 1);
}

fn api_metrics(api: &localcloud_apigw::RestApi) -> localcloud_apigw::ApiMetrics {
    localcloud_apigw::MeteredApi::metrics(api)
}

#[tokio::test]
async fn lambda_throttle_is_500() {
    let lambda = FakeLambda::new(|_| {
        Err(InvokeError::Throttled {
            reason: "ReservedFunctionConcurrentInvocationLimitExceeded".into(),
        })
    });
    let api = rest_api(&[("GET", "/x")], lambda, |_| {});
    let response = api.call(get("/Prod/x").body(Bytes::new()).unwrap()).await;
    assert_eq!(response.status(), 500);
    assert_eq!(api_metrics(&api).throttled, 1);
}

#[tokio::test]
async fn integration_slower_than_the_timeout_is_504() {
    let lambda = FakeLambda::slow(Duration::from_secs(5), r#"{"statusCode":200}"#);
    let api = rest_api(&[("GET", "/slow")], lambda, |c| {
        c.timeout = Duration::from_millis(100)
    });
    let started = std::time::Instant::now();
    let response = api
        .call(get("/Prod/slow").body(Bytes::new()).unwrap())
        .await;
    assert_eq!(response.status(), 504);
    assert_eq!(
        body_json(&response),
        serde_json::json!({"message": "Endpoint request timed out"})
    );
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[tokio::test]
async fn body_over_10_mb_is_413_without_invoking() {
    let lambda = FakeLambda::answering(r#"{"statusCode":200}"#);
    let api = rest_api(&[("POST", "/x")], lambda.clone(), |_| {});
    let body = Bytes::from(vec![b'a'; MAX_PAYLOAD_BYTES + 1]);
    let response = api
        .call(http::Request::post("/Prod/x").body(body).unwrap())
        .await;
    assert_eq!(response.status(), 413);
    assert_eq!(lambda.call_count(), 0);
}

#[tokio::test]
async fn requests_over_the_stage_throttle_are_429_and_not_billed() {
    // GIVEN a burst of 2 and no refill
    let lambda = FakeLambda::answering(r#"{"statusCode":200}"#);
    let api = rest_api(&[("GET", "/x")], lambda.clone(), |c| {
        c.throttle = Throttle {
            rate_limit: 0.0,
            burst_limit: 2,
        }
    });

    // WHEN three requests arrive
    let mut statuses = Vec::new();
    for _ in 0..3 {
        statuses.push(
            api.call(get("/Prod/x").body(Bytes::new()).unwrap())
                .await
                .status(),
        );
    }

    // THEN the third is throttled before the function is invoked
    assert_eq!(statuses, [200, 200, 429]);
    assert_eq!(lambda.call_count(), 2);
    let metrics = api_metrics(&api);
    assert_eq!(metrics.requests, 3);
    assert_eq!(metrics.metered_requests, 2);
}

#[tokio::test]
async fn rest_requests_are_billed_one_each_whatever_their_size() {
    let lambda = FakeLambda::answering(r#"{"statusCode":200}"#);
    let api = rest_api(&[("POST", "/x")], lambda, |_| {});
    let body = Bytes::from(vec![b'a'; 2 * 1024 * 1024]);
    api.call(http::Request::post("/Prod/x").body(body).unwrap())
        .await;
    let metrics = api_metrics(&api);
    assert_eq!(metrics.metered_requests, 1);
    // AND they are metered as a REST API's, for the REST price
    assert_eq!(metrics.kind, localcloud_apigw::ApiKind::Rest);
}

#[tokio::test]
async fn sam_cors_options_method_answers_without_invoking_the_function() {
    // GIVEN an API with SAM's Cors and a GET/POST resource
    let lambda = FakeLambda::answering(r#"{"statusCode":200}"#);
    let api = rest_api(
        &[("GET", "/api/tags"), ("POST", "/api/tags")],
        lambda.clone(),
        |c| {
            c.cors = Some(RestCors {
                allow_origin: "*".into(),
                allow_headers: Some("Content-Type,Authorization".into()),
                ..RestCors::default()
            })
        },
    );

    // WHEN a browser sends its preflight
    let response = api
        .call(
            http::Request::options("/Prod/api/tags")
                .header("origin", "http://localhost:3000")
                .header("access-control-request-method", "POST")
                .body(Bytes::new())
                .unwrap(),
        )
        .await;

    // THEN the mock OPTIONS method answers with the configured headers
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["access-control-allow-origin"], "*");
    assert_eq!(
        response.headers()["access-control-allow-methods"],
        "GET,OPTIONS,POST"
    );
    assert_eq!(lambda.call_count(), 0);

    // AND an OPTIONS on a path that does not exist is still 403
    let response = api
        .call(
            http::Request::options("/Prod/nope")
                .body(Bytes::new())
                .unwrap(),
        )
        .await;
    assert_eq!(response.status(), 403);
}
