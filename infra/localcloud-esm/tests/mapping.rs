//! An event source mapping between a fake SQS queue and a fake function,
//! in real (short) time.

mod common;

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::{eventually, message_id, response, FakeQueue, FakeWorker, ARN};
use localcloud_esm::{start, EsmConfig};
use serde_json::json;
use tokio::time::Instant;

const SETTLE: Duration = Duration::from_secs(8);

fn config() -> EsmConfig {
    EsmConfig::new("worker", ARN)
}

#[tokio::test]
async fn successful_batches_are_deleted_and_never_exceed_the_batch_size() {
    // GIVEN 25 messages waiting
    let queue = FakeQueue::new(Duration::from_secs(5), None);
    let ids: Vec<String> = (0..25).map(|i| queue.send(&format!("order {i}"))).collect();
    let worker = FakeWorker::succeeding(Duration::from_millis(10));

    // WHEN a mapping with batch size 10 runs
    let handle = start(config(), queue.clone(), worker.clone()).unwrap();
    assert!(
        eventually(SETTLE, || queue.len() == 0).await,
        "queue drained"
    );
    let metrics = handle.metrics();
    handle.shutdown().await;

    // THEN every message was delivered once in batches of at most 10, and deleted
    assert!(worker.batch_sizes().iter().all(|&n| (1..=10).contains(&n)));
    assert!(ids.iter().all(|id| worker.delivered(id) == 1));
    assert_eq!(metrics.messages, 25);
    assert_eq!(metrics.deleted_messages, 25);
    assert_eq!(metrics.batches, worker.batch_sizes().len() as u64);
    assert_eq!(metrics.invocations, metrics.batches);
    assert!(metrics.delete_calls >= 3);
    assert!(metrics.receive_calls >= 3);
}

#[tokio::test]
async fn batching_window_gathers_several_receives_into_one_batch() {
    // GIVEN 25 messages and a mapping for batches of up to 25 within 500 ms
    let queue = FakeQueue::new(Duration::from_secs(5), None);
    for i in 0..25 {
        queue.send(&format!("order {i}"));
    }
    let worker = FakeWorker::succeeding(Duration::ZERO);
    let mut config = config();
    config.batch_size = 25;
    config.maximum_batching_window = Duration::from_millis(500);
    config.maximum_concurrency = Some(2);

    // WHEN it runs
    let handle = start(config, queue.clone(), worker.clone()).unwrap();
    assert!(eventually(SETTLE, || queue.len() == 0).await);
    handle.shutdown().await;

    // THEN a batch holds more than one ReceiveMessage (10) worth, none more than 25
    let sizes = worker.batch_sizes();
    assert!(sizes.iter().any(|&n| n > 10), "{sizes:?}");
    assert!(sizes.iter().all(|&n| n <= 25), "{sizes:?}");
    assert_eq!(sizes.iter().sum::<usize>(), 25);
}

#[tokio::test]
async fn batches_stay_under_the_6_mb_payload_limit_without_losing_messages() {
    // GIVEN twelve 1 MB messages (SQS accepts up to 1 MiB) and batches of up to 10
    let queue = FakeQueue::new(Duration::from_secs(10), None);
    let body = "x".repeat(1_000_000);
    let ids: Vec<String> = (0..12).map(|_| queue.send(&body)).collect();
    let worker = FakeWorker::succeeding(Duration::ZERO);
    let mut config = config();
    config.maximum_batching_window = Duration::from_millis(200);
    config.maximum_concurrency = Some(2);

    // WHEN the mapping drains the queue
    let handle = start(config, queue.clone(), worker.clone()).unwrap();
    assert!(eventually(SETTLE, || queue.len() == 0).await);
    handle.shutdown().await;

    // THEN no batch went over 6 MB (six such messages) and each message ran once
    let sizes = worker.batch_sizes();
    assert!(sizes.iter().all(|&n| n <= 6), "{sizes:?}");
    assert!(ids.iter().all(|id| worker.delivered(id) == 1));
}

#[tokio::test]
async fn a_lone_message_waits_for_the_batching_window() {
    let queue = FakeQueue::new(Duration::from_secs(5), None);
    let worker = FakeWorker::succeeding(Duration::ZERO);
    let mut config = config();
    config.maximum_batching_window = Duration::from_millis(400);
    let handle = start(config, queue.clone(), worker.clone()).unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;

    let sent = Instant::now();
    queue.send("only one");
    assert!(eventually(SETTLE, || queue.len() == 0).await);
    handle.shutdown().await;

    let invoked = worker.batches.lock()[0].0;
    let waited = invoked - sent;
    assert!(waited >= Duration::from_millis(380), "{waited:?}");
    assert!(waited < Duration::from_secs(2), "{waited:?}");
}

#[tokio::test]
async fn without_a_window_a_message_is_invoked_at_once() {
    let queue = FakeQueue::new(Duration::from_secs(5), None);
    let worker = FakeWorker::succeeding(Duration::ZERO);
    let handle = start(config(), queue.clone(), worker.clone()).unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;

    let sent = Instant::now();
    queue.send("fast");
    assert!(eventually(SETTLE, || queue.len() == 0).await);
    handle.shutdown().await;

    // (no window to wait for: only scheduling delays, far below a long poll)
    let waited = worker.batches.lock()[0].0 - sent;
    assert!(waited < Duration::from_millis(500), "{waited:?}");
}

#[tokio::test]
async fn maximum_concurrency_is_never_exceeded() {
    // GIVEN a backlog of single-message batches and MaximumConcurrency 2
    let queue = FakeQueue::new(Duration::from_secs(5), None);
    for i in 0..40 {
        queue.send(&format!("order {i}"));
    }
    let worker = FakeWorker::succeeding(Duration::from_millis(30));
    let mut config = config();
    config.batch_size = 1;
    config.maximum_concurrency = Some(2);

    // WHEN the mapping drains it
    let handle = start(config, queue.clone(), worker.clone()).unwrap();
    assert!(eventually(SETTLE, || queue.len() == 0).await);
    let metrics = handle.metrics();
    handle.shutdown().await;

    // THEN two batches ran at once at most, and two did run together
    assert_eq!(worker.max_in_flight.load(Ordering::SeqCst), 2);
    assert_eq!(metrics.max_concurrent_invocations, 2);
    assert_eq!(metrics.pollers, 2);
}

#[tokio::test]
async fn partial_batch_failures_are_kept_and_reach_the_dead_letter_queue() {
    // GIVEN a queue redriving after 2 receives and a function reporting "bad" messages
    let queue = FakeQueue::new(Duration::from_millis(200), Some(2));
    let good: Vec<String> = (0..8).map(|i| queue.send(&format!("good {i}"))).collect();
    let bad: Vec<String> = (0..2).map(|i| queue.send(&format!("bad {i}"))).collect();
    let worker = FakeWorker::new(Duration::ZERO, None, |records| {
        let failures: Vec<_> = records
            .iter()
            .filter(|r| r["body"].as_str().unwrap().starts_with("bad"))
            .map(|r| json!({ "itemIdentifier": message_id(r) }))
            .collect();
        Ok(response(
            &json!({ "batchItemFailures": failures }).to_string(),
            false,
        ))
    });
    let mut config = config();
    config.report_batch_item_failures = true;

    // WHEN the mapping runs until the queue is empty
    let handle = start(config, queue.clone(), worker.clone()).unwrap();
    assert!(eventually(SETTLE, || queue.len() == 0).await);
    let metrics = handle.metrics();
    handle.shutdown().await;

    // THEN good messages were processed once, bad ones twice and then dead-lettered
    assert!(good.iter().all(|id| worker.delivered(id) == 1));
    assert!(bad.iter().all(|id| worker.delivered(id) == 2));
    let dead: HashSet<String> = queue.dead_letters().into_iter().collect();
    assert_eq!(dead, bad.iter().cloned().collect());
    assert_eq!(metrics.deleted_messages, 8);
    assert_eq!(metrics.reported_failures, 4);
}

#[tokio::test]
async fn an_unknown_item_identifier_fails_the_whole_batch() {
    // GIVEN a function whose first answer names a message not in the batch
    let queue = FakeQueue::new(Duration::from_millis(200), None);
    let ids: Vec<String> = (0..3).map(|i| queue.send(&format!("m{i}"))).collect();
    let calls = Arc::new(AtomicU64::new(0));
    let counter = calls.clone();
    let worker = FakeWorker::new(Duration::ZERO, None, move |_| {
        let payload = if counter.fetch_add(1, Ordering::SeqCst) == 0 {
            r#"{"batchItemFailures":[{"itemIdentifier":"not-in-this-batch"}]}"#
        } else {
            r#"{"batchItemFailures":[]}"#
        };
        Ok(response(payload, false))
    });
    let mut config = config();
    config.report_batch_item_failures = true;
    config.maximum_concurrency = Some(2);

    // WHEN the mapping runs
    let handle = start(config, queue.clone(), worker.clone()).unwrap();
    assert!(eventually(SETTLE, || queue.len() == 0).await);
    handle.shutdown().await;

    // THEN every message of the first batch came back and was delivered again
    let first_batch = worker.batches.lock()[0].1.clone();
    assert!(first_batch.iter().all(|id| worker.delivered(id) == 2));
    assert!(ids
        .iter()
        .filter(|id| !first_batch.contains(id))
        .all(|id| worker.delivered(id) == 1));
}

#[tokio::test]
async fn a_function_error_returns_the_batch_after_the_visibility_timeout() {
    // GIVEN a function that fails each message's first delivery
    let queue = FakeQueue::new(Duration::from_millis(300), None);
    let id = queue.send("flaky");
    let seen = Arc::new(parking_lot::Mutex::new(HashSet::new()));
    let worker = FakeWorker::new(Duration::ZERO, None, move |records| {
        let first = seen.lock().insert(message_id(&records[0]));
        Ok(response(r#"{"errorMessage":"boom"}"#, first))
    });

    // WHEN the mapping runs
    let handle = start(config(), queue.clone(), worker.clone()).unwrap();
    assert!(eventually(SETTLE, || queue.len() == 0).await);
    let metrics = handle.metrics();
    handle.shutdown().await;

    // THEN it was delivered again, no sooner than the visibility timeout
    assert_eq!(worker.delivered(&id), 2);
    let batches = worker.batches.lock();
    assert!(batches[1].0 - batches[0].0 >= Duration::from_millis(280));
    assert_eq!(metrics.function_errors, 1);
    assert_eq!(metrics.deleted_messages, 1);
}

#[tokio::test]
async fn failing_messages_move_to_the_dead_letter_queue_after_max_receive_count() {
    let queue = FakeQueue::new(Duration::from_millis(150), Some(3));
    let id = queue.send("poison");
    let worker = FakeWorker::new(Duration::ZERO, None, |_| Ok(response("{}", true)));

    let handle = start(config(), queue.clone(), worker.clone()).unwrap();
    assert!(eventually(SETTLE, || queue.len() == 0).await);
    let metrics = handle.metrics();
    handle.shutdown().await;

    assert_eq!(worker.delivered(&id), 3);
    assert_eq!(queue.dead_letters(), vec![id]);
    assert_eq!(metrics.deleted_messages, 0);
    assert_eq!(metrics.function_errors, 3);
}

#[tokio::test]
async fn under_load_no_message_is_lost_or_processed_twice_while_in_flight() {
    // GIVEN 500 messages and a function taking 20 ms per batch
    let queue = FakeQueue::new(Duration::from_secs(3), None);
    let ids: Vec<String> = (0..500)
        .map(|i| queue.send(&format!("order {i}")))
        .collect();
    let worker = FakeWorker::succeeding(Duration::from_millis(20));

    // WHEN the mapping drains the queue
    let handle = start(config(), queue.clone(), worker.clone()).unwrap();
    assert!(eventually(SETTLE, || queue.len() == 0).await);
    let metrics = handle.metrics();
    handle.shutdown().await;

    // THEN each message was handled exactly once, never concurrently with itself
    assert_eq!(worker.duplicates.load(Ordering::SeqCst), 0);
    assert!(ids.iter().all(|id| worker.delivered(id) == 1));
    assert_eq!(metrics.deleted_messages, 500);
    assert_eq!(metrics.received_messages, 500);
}

#[tokio::test]
async fn throttled_invocations_leave_messages_for_later_and_are_counted() {
    // GIVEN a function with reserved concurrency 1 and five pollers
    let queue = FakeQueue::new(Duration::from_millis(200), None);
    let ids: Vec<String> = (0..20).map(|i| queue.send(&format!("order {i}"))).collect();
    let worker = FakeWorker::new(Duration::from_millis(30), Some(1), |_| {
        Ok(response("null", false))
    });
    let mut config = config();
    config.batch_size = 1;

    // WHEN the mapping drains the queue
    let handle = start(config, queue.clone(), worker.clone()).unwrap();
    assert!(eventually(SETTLE, || queue.len() == 0).await);
    let metrics = handle.metrics();
    handle.shutdown().await;

    // THEN throttles happened, were counted, and every message still ran once
    assert!(metrics.throttled_invokes > 0);
    assert_eq!(
        metrics.throttled_invokes,
        worker.throttles.load(Ordering::SeqCst)
    );
    assert!(ids.iter().all(|id| worker.delivered(id) == 1));
    assert_eq!(worker.max_in_flight.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_backlog_scales_the_pollers_beyond_five() {
    // GIVEN a deep backlog of slow single-message batches
    let queue = FakeQueue::new(Duration::from_secs(30), None);
    for i in 0..400 {
        queue.send(&format!("order {i}"));
    }
    let worker = FakeWorker::succeeding(Duration::from_millis(200));
    let mut config = config();
    config.batch_size = 1;

    // WHEN the mapping has run for a few scaling intervals
    let handle = start(config, queue.clone(), worker.clone()).unwrap();
    let scaled = eventually(Duration::from_secs(5), || {
        worker.max_in_flight.load(Ordering::SeqCst) > 5
    })
    .await;
    let metrics = handle.metrics();
    handle.shutdown().await;

    // THEN more than five batches ran at once
    assert!(scaled, "max in flight {:?}", worker.max_in_flight);
    assert!(metrics.pollers > 5);
}

#[tokio::test]
async fn empty_receives_are_billed_and_shutdown_stops_polling() {
    let queue = FakeQueue::new(Duration::from_secs(5), None);
    let worker = FakeWorker::succeeding(Duration::ZERO);
    let handle = start(config(), queue.clone(), worker.clone()).unwrap();

    assert!(eventually(SETTLE, || handle.metrics().empty_receives >= 5).await);
    let metrics = handle.metrics();
    handle.shutdown().await;
    let after_shutdown = queue.receive_calls();
    tokio::time::sleep(Duration::from_millis(300)).await;

    assert!(metrics.receive_calls >= metrics.empty_receives);
    assert_eq!(metrics.invocations, 0);
    assert_eq!(queue.receive_calls(), after_shutdown);
}

#[tokio::test]
async fn a_disabled_mapping_never_polls() {
    let queue = FakeQueue::new(Duration::from_secs(5), None);
    queue.send("waiting");
    let worker = FakeWorker::succeeding(Duration::ZERO);
    let mut config = config();
    config.enabled = false;

    let handle = start(config, queue.clone(), worker.clone()).unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    handle.shutdown().await;

    assert_eq!(queue.receive_calls(), 0);
    assert_eq!(queue.len(), 1);
}

#[tokio::test]
async fn invalid_config_is_rejected_before_polling() {
    let queue = FakeQueue::new(Duration::from_secs(5), None);
    let mut config = config();
    config.maximum_concurrency = Some(1);
    let result = start(
        config,
        queue.clone(),
        FakeWorker::succeeding(Duration::ZERO),
    );
    assert!(result.is_err());
    assert_eq!(queue.receive_calls(), 0);
}

#[tokio::test]
async fn metrics_reset_keeps_the_pollers() {
    let queue = FakeQueue::new(Duration::from_secs(5), None);
    queue.send("one");
    let handle = start(
        config(),
        queue.clone(),
        FakeWorker::succeeding(Duration::ZERO),
    )
    .unwrap();
    assert!(eventually(SETTLE, || queue.len() == 0).await);
    handle.reset_metrics();
    let metrics = handle.metrics();
    handle.shutdown().await;
    assert_eq!(metrics.deleted_messages, 0);
    assert_eq!(metrics.pollers, 5);
    let json = serde_json::to_value(&metrics).unwrap();
    assert_eq!(json["queue_arn"], ARN);
}
