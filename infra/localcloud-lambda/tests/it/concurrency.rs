//! Concurrency: one invocation per environment, new environments under load,
//! and throttling at once at the reserved and the account limit.

use std::time::{Duration, Instant};

use crate::common::*;
use localcloud_core::InvokeError;
use localcloud_lambda::{LambdaConfig, Outcome, ACCOUNT_LIMIT_EXCEEDED, RESERVED_LIMIT_EXCEEDED};
use serde_json::json;

fn reserved(name: &str, bin: &str, limit: u32) -> localcloud_lambda::FunctionConfig {
    let mut config = function(name, bin);
    config.reserved_concurrency = Some(limit);
    config
}

#[tokio::test]
async fn concurrent_invocations_get_an_environment_each() {
    // GIVEN a function with room to scale
    let service = start(config(vec![function("sleep", "sleep")]));

    // WHEN three invocations overlap
    let calls = (0..3).map(|_| {
        let service = service.clone();
        tokio::spawn(async move { invoke(&service, "sleep", json!({"ms": 300})).await })
    });
    let responses: Vec<_> = futures_join(calls).await;

    // THEN each ran in its own process, all cold, with a peak of three
    let pids: std::collections::HashSet<_> = responses
        .iter()
        .map(|r| json(&r.payload)["pid"].clone())
        .collect();
    assert_eq!(pids.len(), 3);
    let metrics = service.metrics();
    assert_eq!(metrics.functions["sleep"].peak_concurrent_executions, 3);
    assert_eq!(metrics.peak_concurrent_executions, 3);
    assert_eq!(metrics.functions["sleep"].cold_starts, 3);
    assert_eq!(metrics.functions["sleep"].environments, 3);
    assert_eq!(metrics.concurrent_executions, 0);
    service.shutdown().await;
}

#[tokio::test]
async fn reserved_concurrency_throttles_at_once() {
    // GIVEN a function reserved to one execution, busy
    let service = start(config(vec![reserved("sleep", "sleep", 1)]));
    let busy = tokio::spawn({
        let service = service.clone();
        async move { invoke(&service, "sleep", json!({"ms": 500})).await }
    });
    assert!(eventually(|| service.metrics().concurrent_executions == 1).await);

    // WHEN a second invocation arrives
    let started = Instant::now();
    let throttled = invoke(&service, "sleep", json!({"ms": 1})).await;

    // THEN it is refused at once with AWS's reason, and metered as a throttle
    assert!(started.elapsed() < Duration::from_millis(100));
    assert_eq!(
        throttled.unwrap_err(),
        InvokeError::Throttled {
            reason: RESERVED_LIMIT_EXCEEDED.into()
        }
    );
    assert!(busy.await.unwrap().is_ok());
    let metrics = &service.metrics().functions["sleep"];
    assert_eq!((metrics.throttles, metrics.invocations), (1, 1));
    let throttle = service
        .records()
        .into_iter()
        .find(|r| r.outcome == Outcome::Throttled)
        .unwrap();
    assert_eq!(throttle.billed_ms, 0);
    service.shutdown().await;
}

#[tokio::test]
async fn reserved_zero_throttles_every_invocation() {
    let service = start(config(vec![reserved("off", "echo", 0)]));
    let result = invoke(&service, "off", json!({})).await;
    assert_eq!(
        result.unwrap_err(),
        InvokeError::Throttled {
            reason: RESERVED_LIMIT_EXCEEDED.into()
        }
    );
    assert!(service.process_ids().is_empty());
    service.shutdown().await;
}

#[tokio::test]
async fn account_limit_throttles_unreserved_functions_but_not_reservations() {
    // GIVEN an account limit of 3, one unit reserved for "kept", and two busy
    // invocations of unreserved functions
    let service = start(LambdaConfig {
        account_concurrency_limit: 3,
        ..config(vec![
            function("a", "sleep"),
            function("b", "sleep"),
            reserved("kept", "echo", 1),
        ])
    });
    let busy: Vec<_> = ["a", "b"]
        .into_iter()
        .map(|name| {
            let service = service.clone();
            tokio::spawn(async move { invoke(&service, name, json!({"ms": 500})).await })
        })
        .collect();
    assert!(eventually(|| service.metrics().concurrent_executions == 2).await);

    // WHEN another unreserved invocation and a reserved one arrive
    let unreserved = invoke(&service, "a", json!({"ms": 1})).await;
    let kept = invoke(&service, "kept", json!({})).await;

    // THEN the first is throttled at the account limit, the reservation still serves
    assert_eq!(
        unreserved.unwrap_err(),
        InvokeError::Throttled {
            reason: ACCOUNT_LIMIT_EXCEEDED.into()
        }
    );
    assert!(kept.is_ok());
    for call in busy {
        assert!(call.await.unwrap().is_ok());
    }
    service.shutdown().await;
}

async fn futures_join<T: Send + 'static>(
    handles: impl Iterator<Item = tokio::task::JoinHandle<Result<T, InvokeError>>>,
) -> Vec<T> {
    let mut out = Vec::new();
    for handle in handles.collect::<Vec<_>>() {
        out.push(handle.await.unwrap().unwrap());
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn many_overlapping_invocations_all_complete_and_reuse_environments() {
    // GIVEN an account limit of 10
    let service = start(LambdaConfig {
        account_concurrency_limit: 10,
        ..config(vec![function("echo", "echo")])
    });

    // WHEN 10 clients each invoke 20 times back to back
    let clients: Vec<_> = (0..10)
        .map(|client| {
            let service = service.clone();
            tokio::spawn(async move {
                for n in 0..20 {
                    let response = invoke(&service, "echo", json!({"client": client, "n": n}))
                        .await
                        .unwrap();
                    assert_eq!(json(&response.payload)["event"]["n"], n);
                }
            })
        })
        .collect();
    for client in clients {
        client.await.unwrap();
    }

    // THEN all 200 ran, in at most 10 environments, and nothing is left running
    let metrics = service.metrics();
    let echo = &metrics.functions["echo"];
    assert_eq!(echo.invocations, 200);
    assert_eq!(echo.throttles, 0);
    assert!(
        echo.cold_starts <= 10 && echo.environments <= 10,
        "{echo:?}"
    );
    assert_eq!(metrics.concurrent_executions, 0);
    service.shutdown().await;
}
