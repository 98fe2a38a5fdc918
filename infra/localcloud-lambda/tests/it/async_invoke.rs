//! `Event` and `DryRun` invocations.

use std::time::{Duration, Instant};

use crate::common::*;
use localcloud_core::{InvocationType, InvokeRequest, Invoker};
use localcloud_lambda::Outcome;
use serde_json::json;

fn request(function: &str, invocation_type: InvocationType) -> InvokeRequest {
    InvokeRequest {
        invocation_type,
        ..InvokeRequest::sync(function, json!({"reason": "async"}).to_string(), "test")
    }
}

#[tokio::test]
async fn event_is_accepted_at_once_and_runs_in_the_background() {
    // GIVEN a slow function
    let service = start(config(vec![function("sleep", "sleep")]));

    // WHEN it is invoked as an Event
    let started = Instant::now();
    let response = service
        .invoke(request("sleep", InvocationType::Event))
        .await
        .unwrap();

    // THEN the caller gets 202 before the function has run, and it runs once
    assert_eq!(response.status, 202);
    assert!(response.payload.is_empty());
    assert!(started.elapsed() < Duration::from_millis(100));
    assert!(eventually(|| service.records().len() == 1).await);
    let record = &service.records()[0];
    assert_eq!(record.request_id, response.request_id);
    assert_eq!(record.invocation_type, "Event");
    assert_eq!(record.outcome, Outcome::Success);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(service.records().len(), 1, "a success is not retried");
    service.shutdown().await;
}

#[tokio::test]
async fn failing_event_is_retried_twice_with_the_same_request_id() {
    // GIVEN a function that always fails and retry delays of 50 and 100 ms
    let service = start(config(vec![function("fail", "fail")]));

    // WHEN it is invoked as an Event
    let response = service
        .invoke(request("fail", InvocationType::Event))
        .await
        .unwrap();

    // THEN it runs three times in all, then gives up
    assert!(eventually(|| service.records().len() == 3).await);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let records = service.records();
    assert_eq!(records.len(), 3);
    assert!(records.iter().all(|r| r.request_id == response.request_id));
    assert!(records.iter().all(|r| r.outcome == Outcome::FunctionError));
    let gap = records[2].start - records[1].start;
    assert!(gap.num_milliseconds() >= 100, "second retry after {gap}");
    service.shutdown().await;
}

#[tokio::test]
async fn throttled_event_waits_for_capacity_without_using_a_retry() {
    // GIVEN a function reserved to one execution, busy for 300 ms
    let mut sleep = function("sleep", "sleep");
    sleep.reserved_concurrency = Some(1);
    let service = start(config(vec![sleep]));
    let busy = tokio::spawn({
        let service = service.clone();
        async move { invoke(&service, "sleep", json!({"ms": 300})).await }
    });
    assert!(eventually(|| service.metrics().concurrent_executions == 1).await);

    // WHEN an Event arrives meanwhile
    let response = service
        .invoke(request("sleep", InvocationType::Event))
        .await
        .unwrap();

    // THEN it is throttled at first and runs once the function is free
    assert_eq!(response.status, 202);
    let ran = |s: &localcloud_lambda::LambdaService| {
        s.records()
            .iter()
            .any(|r| r.request_id == response.request_id && r.outcome == Outcome::Success)
    };
    assert!(eventually(|| ran(&service)).await);
    let attempts: Vec<_> = service
        .records()
        .into_iter()
        .filter(|r| r.request_id == response.request_id)
        .collect();
    assert!(attempts.iter().any(|r| r.outcome == Outcome::Throttled));
    assert!(busy.await.unwrap().is_ok());
    service.shutdown().await;
}

#[tokio::test]
async fn dry_run_validates_without_running() {
    let service = start(config(vec![function("echo", "echo")]));
    let response = service
        .invoke(request("echo", InvocationType::DryRun))
        .await
        .unwrap();
    assert_eq!(response.status, 204);
    assert!(service.records().is_empty());
    assert!(service.process_ids().is_empty());
    let missing = service
        .invoke(request("nope", InvocationType::DryRun))
        .await;
    assert!(missing.is_err());
    service.shutdown().await;
}

#[tokio::test]
async fn event_payloads_over_one_megabyte_are_refused() {
    let service = start(config(vec![function("echo", "echo")]));
    let big = format!("\"{}\"", "x".repeat(1024 * 1024));
    let result = service
        .invoke(InvokeRequest {
            invocation_type: InvocationType::Event,
            ..InvokeRequest::sync("echo", big, "test")
        })
        .await;
    assert!(matches!(
        result,
        Err(localcloud_core::InvokeError::RequestTooLarge { .. })
    ));
    service.shutdown().await;
}
