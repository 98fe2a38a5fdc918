//! The Invoke API through the real `aws-sdk-lambda` client, on the shared
//! endpoint (`Dispatcher::with_path`).

use std::sync::Arc;

use crate::common::*;
use aws_sdk_lambda::config::{BehaviorVersion, Credentials, Region};
use aws_sdk_lambda::primitives::Blob;
use aws_sdk_lambda::types::{InvocationType, ThrottleReason};
use aws_sdk_lambda::Client;
use localcloud_core::{serve_on_ephemeral_port, Dispatcher, ServerHandle};
use localcloud_lambda::{FunctionConfig, LambdaService};
use serde_json::json;

/// A Lambda service behind the SDK's client (`versions` uses it too).
pub(crate) struct Local {
    pub(crate) service: Arc<LambdaService>,
    pub(crate) client: Client,
    pub(crate) server: ServerHandle,
}

pub(crate) async fn local(functions: Vec<FunctionConfig>) -> Local {
    let service = start(config(functions));
    let dispatcher = Dispatcher::new().with_path(service.clone());
    let server = serve_on_ephemeral_port(Arc::new(dispatcher))
        .await
        .expect("server starts");
    let sdk_config = aws_sdk_lambda::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .endpoint_url(format!("http://{}", server.addr))
        .credentials_provider(Credentials::new("AKIDLOCAL", "secret", None, None, "test"))
        // Throttles must reach the test instead of being retried.
        .retry_config(aws_sdk_lambda::config::retry::RetryConfig::disabled())
        .build();
    Local {
        service,
        client: Client::from_conf(sdk_config),
        server,
    }
}

impl Local {
    pub(crate) async fn stop(self) {
        self.service.shutdown().await;
        self.server.shutdown().await;
    }
}

fn payload(value: serde_json::Value) -> Blob {
    Blob::new(value.to_string())
}

#[tokio::test]
async fn sdk_invoke_returns_the_function_response() {
    let local = local(vec![function("echo", "echo")]).await;

    let output = local
        .client
        .invoke()
        .function_name("echo")
        .payload(payload(json!({"hello": "world"})))
        .send()
        .await
        .unwrap();

    assert_eq!(output.status_code(), 200);
    assert_eq!(output.executed_version(), Some("$LATEST"));
    assert_eq!(output.function_error(), None);
    let body = json(&output.payload().unwrap().as_ref().to_vec().into());
    assert_eq!(body["event"], json!({"hello": "world"}));
    assert_eq!(local.service.records()[0].caller, "api");
    local.stop().await;
}

#[tokio::test]
async fn sdk_invoke_by_arn_with_qualifier() {
    let local = local(vec![function("echo", "echo")]).await;

    let output = local
        .client
        .invoke()
        .function_name("arn:aws:lambda:us-east-1:000000000000:function:echo")
        .qualifier("$LATEST")
        .send()
        .await
        .unwrap();

    assert_eq!(output.status_code(), 200);
    local.stop().await;
}

#[tokio::test]
async fn sdk_sees_function_errors_as_unhandled() {
    let local = local(vec![function("fail", "fail")]).await;

    let output = local
        .client
        .invoke()
        .function_name("fail")
        .send()
        .await
        .unwrap();

    assert_eq!(output.status_code(), 200);
    assert_eq!(output.function_error(), Some("Unhandled"));
    let body = json(&output.payload().unwrap().as_ref().to_vec().into());
    assert_eq!(body["errorType"], "OrderRejected");
    local.stop().await;
}

#[tokio::test]
async fn sdk_event_and_dry_run_get_202_and_204() {
    let local = local(vec![function("echo", "echo")]).await;

    let event = local
        .client
        .invoke()
        .function_name("echo")
        .invocation_type(InvocationType::Event)
        .send()
        .await
        .unwrap();
    let dry = local
        .client
        .invoke()
        .function_name("echo")
        .invocation_type(InvocationType::DryRun)
        .send()
        .await
        .unwrap();

    assert_eq!(event.status_code(), 202);
    assert_eq!(dry.status_code(), 204);
    assert!(eventually(|| local.service.records().len() == 1).await);
    local.stop().await;
}

#[tokio::test]
async fn sdk_gets_resource_not_found_for_unknown_functions() {
    let local = local(vec![function("echo", "echo")]).await;

    let err = local
        .client
        .invoke()
        .function_name("nope")
        .send()
        .await
        .unwrap_err();

    let err = err.into_service_error();
    assert!(err.is_resource_not_found_exception(), "{err:?}");
    assert_eq!(
        aws_sdk_lambda::error::ProvideErrorMetadata::message(&err),
        Some("Function not found: arn:aws:lambda:us-east-1:000000000000:function:nope")
    );
    local.stop().await;
}

#[tokio::test]
async fn sdk_gets_too_many_requests_with_the_reason() {
    let mut off = function("off", "echo");
    off.reserved_concurrency = Some(0);
    let local = local(vec![off]).await;

    let err = local
        .client
        .invoke()
        .function_name("off")
        .send()
        .await
        .unwrap_err();

    let err = err.into_service_error();
    let throttle = match err {
        aws_sdk_lambda::operation::invoke::InvokeError::TooManyRequestsException(t) => t,
        other => panic!("expected a throttle, got {other:?}"),
    };
    assert_eq!(
        throttle.reason(),
        Some(&ThrottleReason::ReservedFunctionConcurrentInvocationLimitExceeded)
    );
    assert_eq!(throttle.r#type(), Some("User"));
    local.stop().await;
}

#[tokio::test]
async fn sdk_gets_invalid_request_content_for_non_json_payloads() {
    let local = local(vec![function("echo", "echo")]).await;

    let err = local
        .client
        .invoke()
        .function_name("echo")
        .payload(Blob::new("not json"))
        .send()
        .await
        .unwrap_err();

    assert!(err
        .into_service_error()
        .is_invalid_request_content_exception());
    local.stop().await;
}

#[tokio::test]
async fn sdk_get_function_describes_the_configuration() {
    let mut echo = function("echo", "echo");
    echo.memory_mb = 512;
    echo.reserved_concurrency = Some(5);
    echo.environment.insert("TABLE".into(), "Orders".into());
    let local = local(vec![echo]).await;

    let output = local
        .client
        .get_function()
        .function_name("echo")
        .send()
        .await
        .unwrap();

    let configuration = output.configuration().unwrap();
    assert_eq!(configuration.function_name(), Some("echo"));
    assert_eq!(
        configuration.function_arn(),
        Some("arn:aws:lambda:us-east-1:000000000000:function:echo")
    );
    assert_eq!(configuration.memory_size(), Some(512));
    assert_eq!(configuration.timeout(), Some(3));
    let variables = configuration.environment().unwrap().variables().unwrap();
    assert_eq!(variables["TABLE"], "Orders");
    assert_eq!(
        output
            .concurrency()
            .unwrap()
            .reserved_concurrent_executions(),
        Some(5)
    );
    let config_only = local
        .client
        .get_function_configuration()
        .function_name("echo")
        .send()
        .await
        .unwrap();
    assert_eq!(config_only.handler(), Some("bootstrap"));
    local.stop().await;
}

#[tokio::test]
async fn sdk_gets_resource_not_found_for_unpublished_versions_and_foreign_accounts() {
    let local = local(vec![function("echo", "echo")]).await;

    let version = local
        .client
        .invoke()
        .function_name("echo")
        .qualifier("live")
        .send()
        .await
        .unwrap_err();
    let foreign = local
        .client
        .invoke()
        .function_name("arn:aws:lambda:us-east-1:999999999999:function:echo")
        .send()
        .await
        .unwrap_err();

    let version = version.into_service_error();
    assert!(version.is_resource_not_found_exception(), "{version:?}");
    assert_eq!(
        aws_sdk_lambda::error::ProvideErrorMetadata::message(&version),
        Some("Function not found: arn:aws:lambda:us-east-1:000000000000:function:echo:live")
    );
    assert!(foreign
        .into_service_error()
        .is_resource_not_found_exception());
    assert!(local.service.records().is_empty());
    local.stop().await;
}

#[tokio::test]
async fn other_lambda_operations_are_refused_and_other_paths_fall_through() {
    use localcloud_core::Handler;
    let service = start(config(vec![function("echo", "echo")]));
    let dispatcher = Dispatcher::new().with_path(service.clone());
    let request = |method: &str, path: &str| {
        http::Request::builder()
            .method(method)
            .uri(path)
            .body(bytes::Bytes::new())
            .unwrap()
    };

    let delete = dispatcher
        .call(request("DELETE", "/2015-03-31/functions/echo"))
        .await;
    let elsewhere = dispatcher.call(request("GET", "/health")).await;
    let bad_type = dispatcher
        .call(
            http::Request::post("/2015-03-31/functions/echo/invocations")
                .header("x-amz-invocation-type", "Sometimes")
                .body(bytes::Bytes::new())
                .unwrap(),
        )
        .await;

    assert_eq!(delete.status(), 404);
    assert_eq!(
        delete.headers()["x-amzn-errortype"],
        "UnknownOperationException"
    );
    assert_eq!(elsewhere.status(), 404);
    assert!(!elsewhere.headers().contains_key("x-amzn-errortype"));
    assert_eq!(bad_type.status(), 400);
    assert_eq!(
        bad_type.headers()["x-amzn-errortype"],
        "InvalidParameterValueException"
    );
    service.shutdown().await;
}
