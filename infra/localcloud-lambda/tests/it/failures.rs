//! Timeouts, crashes, init failures and function errors: each fails its
//! invocation the way Lambda does, and nothing hangs.

use std::time::{Duration, Instant};

use crate::common::*;
use localcloud_core::{InvokeError, InvokeRequest, Invoker};
use localcloud_lambda::{CpuShare, FunctionConfig, LambdaConfig, Outcome};
use serde_json::json;

fn sleep_with_timeout(ms: u64) -> FunctionConfig {
    let mut config = function("sleep", "sleep");
    config.timeout = Duration::from_millis(ms);
    config
}

#[tokio::test]
async fn timeout_kills_the_environment_and_the_next_invocation_is_cold() {
    // GIVEN a warm function with a 300 ms timeout
    let service = start(config(vec![sleep_with_timeout(300)]));
    invoke(&service, "sleep", json!({"ms": 1})).await.unwrap();
    let pid = service.process_ids()[0];

    // WHEN an invocation runs longer than the timeout
    let started = Instant::now();
    let response = invoke(&service, "sleep", json!({"ms": 5000}))
        .await
        .unwrap();

    // THEN it fails at the timeout as an unhandled error, and the process is killed
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(response.status, 200);
    assert_eq!(response.function_error.as_deref(), Some("Unhandled"));
    let body = json(&response.payload);
    assert_eq!(body["errorType"], "Sandbox.Timedout");
    assert_eq!(
        body["errorMessage"],
        format!(
            "RequestId: {} Error: Task timed out after 0.30 seconds",
            response.request_id
        )
    );
    assert!(eventually(|| !is_running(pid)).await);
    let next = invoke(&service, "sleep", json!({"ms": 1})).await.unwrap();
    assert_eq!(next.function_error, None);
    let records = service.records();
    assert_eq!(records[1].outcome, Outcome::Timeout);
    assert!(records[1].duration_ms >= 300.0);
    assert!(
        records[2].init_duration_ms.is_some(),
        "after a timeout the environment is new"
    );
    assert_eq!(service.metrics().functions["sleep"].timeouts, 1);
    service.shutdown().await;
}

#[tokio::test]
async fn crash_fails_its_invocation_and_the_environment_is_replaced() {
    // GIVEN a function whose process exits mid-invocation
    let service = start(config(vec![function("crash", "crash")]));

    // WHEN it is invoked twice
    let first = invoke(&service, "crash", json!({"code": 7})).await.unwrap();
    let second = invoke(&service, "crash", json!({"code": 3})).await.unwrap();

    // THEN each fails with Runtime.ExitError and each ran in a new environment
    assert_eq!(first.function_error.as_deref(), Some("Unhandled"));
    let body = json(&first.payload);
    assert_eq!(body["errorType"], "Runtime.ExitError");
    assert_eq!(
        body["errorMessage"],
        format!(
            "RequestId: {} Error: Runtime exited with error: exit status 7",
            first.request_id
        )
    );
    assert_eq!(second.function_error.as_deref(), Some("Unhandled"));
    let records = service.records();
    assert!(records.iter().all(|r| r.outcome == Outcome::Crash));
    assert!(records.iter().all(|r| r.init_duration_ms.is_some()));
    let metrics = &service.metrics().functions["crash"];
    assert_eq!(
        (metrics.crashes, metrics.errors, metrics.cold_starts),
        (2, 2, 2)
    );
    assert!(service.process_ids().is_empty());
    service.shutdown().await;
}

#[tokio::test]
async fn exit_during_init_fails_the_invocation_without_hanging() {
    // GIVEN a function that exits before polling for its first event
    let service = start(config(vec![function("broken", "init-exit")]));

    // WHEN it is invoked
    let started = Instant::now();
    let response = invoke(&service, "broken", json!({})).await.unwrap();

    // THEN the invocation fails at once with the exit reported
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(response.function_error.as_deref(), Some("Unhandled"));
    let body = json(&response.payload);
    assert_eq!(body["errorType"], "Runtime.ExitError");
    assert!(body["errorMessage"]
        .as_str()
        .unwrap()
        .ends_with("exit status 2"));
    assert_eq!(service.records()[0].outcome, Outcome::InitError);
    assert_eq!(service.metrics().concurrent_executions, 0);
    service.shutdown().await;
}

#[tokio::test]
async fn missing_binary_is_an_invalid_entrypoint() {
    let service = start(config(vec![FunctionConfig::new(
        "ghost",
        "/nonexistent/bootstrap",
    )]));
    let response = invoke(&service, "ghost", json!({})).await.unwrap();
    assert_eq!(response.function_error.as_deref(), Some("Unhandled"));
    assert_eq!(
        json(&response.payload)["errorType"],
        "Runtime.InvalidEntrypoint"
    );
    service.shutdown().await;
}

#[tokio::test]
async fn init_longer_than_the_init_limit_times_out() {
    // GIVEN a 200 ms init limit and a function whose init takes 300 ms
    let service = start(localcloud_lambda::LambdaConfig {
        init_timeout: Duration::from_millis(200),
        ..config(vec![function("slow", "slow-init")])
    });

    // WHEN it is invoked
    let response = invoke(&service, "slow", json!({})).await.unwrap();

    // THEN the invocation times out and no process is left
    assert_eq!(json(&response.payload)["errorType"], "Sandbox.Timedout");
    assert_eq!(service.records()[0].outcome, Outcome::Timeout);
    assert!(service.process_ids().is_empty());
    service.shutdown().await;
}

#[tokio::test]
async fn function_error_comes_back_as_an_unhandled_error_document() {
    // GIVEN a function that returns an error
    let service = start(config(vec![function("fail", "fail")]));

    // WHEN it is invoked twice
    let response = invoke(&service, "fail", json!({"reason": "out of stock"}))
        .await
        .unwrap();
    invoke(&service, "fail", json!({})).await.unwrap();

    // THEN the caller gets the error document, and the environment stays warm
    assert_eq!(response.status, 200);
    assert_eq!(response.function_error.as_deref(), Some("Unhandled"));
    assert_eq!(
        json(&response.payload),
        json!({"errorType": "OrderRejected", "errorMessage": "order rejected: out of stock"})
    );
    let records = service.records();
    assert_eq!(records[0].outcome, Outcome::FunctionError);
    assert_eq!(records[0].error_type.as_deref(), Some("OrderRejected"));
    assert_eq!(records[1].init_duration_ms, None);
    assert_eq!(service.metrics().functions["fail"].errors, 2);
    service.shutdown().await;
}

#[tokio::test]
async fn unknown_function_and_bad_payloads_are_refused_before_running() {
    let service = start(config(vec![function("echo", "echo")]));

    let missing = invoke(&service, "nope", json!({})).await.unwrap_err();
    assert_eq!(
        missing,
        InvokeError::FunctionNotFound {
            function: "arn:aws:lambda:us-east-1:000000000000:function:nope".into()
        }
    );
    let version = invoke(&service, "echo:7", json!({})).await.unwrap_err();
    assert!(matches!(version, InvokeError::FunctionNotFound { .. }));
    let not_json = service
        .invoke(InvokeRequest::sync("echo", "{not json", "test"))
        .await
        .unwrap_err();
    assert!(
        matches!(not_json, InvokeError::Service { status: 400, ref code, .. } if code == "InvalidRequestContentException")
    );
    let too_large = service
        .invoke(InvokeRequest::sync(
            "echo",
            vec![b' '; 6 * 1024 * 1024 + 1],
            "test",
        ))
        .await
        .unwrap_err();
    assert!(matches!(too_large, InvokeError::RequestTooLarge { .. }));
    assert!(service.records().is_empty());
    service.shutdown().await;
}

#[tokio::test]
async fn empty_payload_reaches_the_function_as_an_empty_object() {
    let service = start(config(vec![function("echo", "echo")]));
    let response = service
        .invoke(InvokeRequest::sync("echo", "", "test"))
        .await
        .unwrap();
    assert_eq!(json(&response.payload)["event"], json!({}));
    service.shutdown().await;
}

#[tokio::test]
async fn exceeding_the_memory_size_kills_the_environment() {
    // GIVEN a 128 MB function, unthrottled: at 128 MB's CPU share touching
    // 200 MB of pages outlasted the 3-s timeout (6 runs of 6 alone, as root
    // where the kernel's quota applies), which is not what this test is about
    let service = start(LambdaConfig {
        cpu_share: CpuShare::Off,
        ..config(vec![function("sleep", "sleep")])
    });

    // WHEN an invocation fills 40 MB, then another 200 MB
    let fits = invoke(&service, "sleep", json!({"alloc_mb": 40, "ms": 50}))
        .await
        .unwrap();
    let too_much = invoke(&service, "sleep", json!({"alloc_mb": 200, "ms": 500}))
        .await
        .unwrap();

    // THEN the first succeeds and reports its memory, the second is killed
    assert_eq!(fits.function_error, None);
    assert!(service.records()[0].max_memory_used_mb.unwrap() >= 40);
    assert_eq!(too_much.function_error.as_deref(), Some("Unhandled"));
    let body = json(&too_much.payload);
    assert_eq!(body["errorType"], "Runtime.OutOfMemory");
    assert_eq!(
        body["errorMessage"],
        format!(
            "RequestId: {} Error: Runtime exited with error: signal: killed",
            too_much.request_id
        )
    );
    assert_eq!(service.records()[1].outcome, Outcome::Crash);
    assert!(service.process_ids().is_empty());
    service.shutdown().await;
}

#[tokio::test]
async fn a_fast_invocation_over_the_memory_size_is_killed_too() {
    // Unthrottled, so that the invocation is fast: at 128 MB's CPU share,
    // touching 200 MB of pages outlasted the 3-s timeout (see above).
    let service = start(LambdaConfig {
        cpu_share: CpuShare::Off,
        ..config(vec![function("sleep", "sleep")])
    });
    let response = invoke(&service, "sleep", json!({"alloc_mb": 200, "ms": 0}))
        .await
        .unwrap();
    assert_eq!(json(&response.payload)["errorType"], "Runtime.OutOfMemory");
    assert!(service.process_ids().is_empty());
    service.shutdown().await;
}
