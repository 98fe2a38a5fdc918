//! One poller: assembles a batch from real `ReceiveMessage` calls, invokes
//! the function synchronously, and deletes what succeeded.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use tokio::sync::watch;
use tokio::time::Instant;

use crate::config::EsmConfig;
use crate::event::{approximate_size, sqs_event};
use crate::metrics::EsmMetrics;
use crate::outcome::{partial_batch_response, Settlement};
use localcloud_core::{AwsError, InvokeError, InvokeRequest, Invoker, QueueConsumer, QueueMessage};

/// Pollers long-poll for the SQS maximum while waiting for a first message.
pub const LONG_POLL: Duration = Duration::from_secs(20);
/// Lambda's synchronous payload limit bounds a batch.
pub const MAX_BATCH_BYTES: usize = 6 * 1024 * 1024;
/// SQS returns at most 10 messages per `ReceiveMessage`.
const MAX_PER_RECEIVE: usize = 10;
/// A receive slower than this waited for messages: there was no backlog.
const WAITED: Duration = Duration::from_millis(200);
const FIRST_BACKOFF: Duration = Duration::from_millis(100);
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// State every poller of one mapping shares.
pub struct Shared {
    pub config: EsmConfig,
    pub queue: Arc<dyn QueueConsumer>,
    pub invoker: Arc<dyn Invoker>,
    pub metrics: Mutex<EsmMetrics>,
    pub in_flight: AtomicU64,
    pub caller: String,
}

/// Poller `index` works while `index < target`; it stops when `stop` turns
/// true, after settling the batch in hand.
pub async fn run(
    index: u32,
    shared: Arc<Shared>,
    mut target: watch::Receiver<u32>,
    mut stop: watch::Receiver<bool>,
) {
    let mut carry: Vec<QueueMessage> = Vec::new();
    let mut backoff = Duration::ZERO;
    loop {
        if carry.is_empty() {
            tokio::select! {
                active = target.wait_for(|t| index < *t) => if active.is_err() { return },
                _ = stop.wait_for(|s| *s) => return,
            }
        }
        let batch = tokio::select! {
            batch = assemble(&shared, &mut carry) => batch,
            _ = stop.wait_for(|s| *s) => return,
        };
        let back_off = match batch {
            Ok(batch) if batch.is_empty() => false,
            Ok(batch) => process(&shared, batch).await,
            Err(err) => {
                tracing::warn!(queue = %shared.config.queue_arn, error = %err, "ReceiveMessage failed");
                true
            }
        };
        backoff = if back_off {
            (backoff * 2).clamp(FIRST_BACKOFF, MAX_BACKOFF)
        } else {
            Duration::ZERO
        };
        if !backoff.is_zero() {
            tokio::select! {
                _ = tokio::time::sleep(backoff) => {}
                _ = stop.wait_for(|s| *s) => return,
            }
        }
    }
}

/// Receives until the batch is full (size or 6 MB) or the batching window,
/// which opens with the first message, has passed. Messages that would
/// overflow 6 MB are carried into the next batch.
async fn assemble(
    shared: &Shared,
    carry: &mut Vec<QueueMessage>,
) -> Result<Vec<QueueMessage>, AwsError> {
    let config = &shared.config;
    let batch_size = config.batch_size as usize;
    let mut batch = std::mem::take(carry);
    let mut bytes: usize = batch.iter().map(approximate_size).sum();
    let mut window_end =
        (!batch.is_empty()).then(|| Instant::now() + config.maximum_batching_window);
    while batch.len() < batch_size && carry.is_empty() {
        let wait = match window_end {
            None => LONG_POLL,
            Some(end) => match end.checked_duration_since(Instant::now()) {
                Some(left) if !left.is_zero() => left.min(LONG_POLL),
                _ => break,
            },
        };
        let max = (batch_size - batch.len()).min(MAX_PER_RECEIVE);
        let started = Instant::now();
        let received = shared.queue.receive(&config.queue_arn, max, wait).await;
        record_receive(shared, &received, max, started.elapsed());
        let received = received?;
        if received.is_empty() && batch.is_empty() {
            return Ok(batch);
        }
        if !received.is_empty() && window_end.is_none() {
            window_end = Some(Instant::now() + config.maximum_batching_window);
        }
        for message in received {
            let size = approximate_size(&message);
            if !batch.is_empty() && bytes + size > MAX_BATCH_BYTES {
                carry.push(message);
            } else {
                bytes += size;
                batch.push(message);
            }
        }
    }
    Ok(batch)
}

fn record_receive(
    shared: &Shared,
    received: &Result<Vec<QueueMessage>, AwsError>,
    asked: usize,
    took: Duration,
) {
    let mut metrics = shared.metrics.lock();
    metrics.receive_calls += 1;
    if let Ok(messages) = received {
        metrics.received_messages += messages.len() as u64;
        metrics.empty_receives += u64::from(messages.is_empty());
        metrics.short_receives += u64::from(messages.len() < asked);
        metrics.waited_receives += u64::from(took >= WAITED);
    }
}

/// Invokes the function with `batch` and settles it; true when the poller
/// should back off (the invocation was throttled or could not be made).
async fn process(shared: &Shared, batch: Vec<QueueMessage>) -> bool {
    let config = &shared.config;
    let payload = sqs_event(&batch, &config.queue_arn, config.region());
    let payload = serde_json::to_vec(&payload).expect("a JSON value serialises");
    {
        let mut metrics = shared.metrics.lock();
        metrics.batches += 1;
        metrics.messages += batch.len() as u64;
        metrics.invocations += 1;
    }
    let concurrent = shared.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    {
        let mut metrics = shared.metrics.lock();
        metrics.max_concurrent_invocations = metrics.max_concurrent_invocations.max(concurrent);
    }
    let request = InvokeRequest::sync(&config.function, payload, &shared.caller);
    let result = shared.invoker.invoke(request).await;
    shared.in_flight.fetch_sub(1, Ordering::SeqCst);

    let (settlement, back_off) = settle(shared, &batch, result);
    let handles: Vec<String> = match settlement {
        Settlement::DeleteAll => batch.iter().map(|m| m.receipt_handle.clone()).collect(),
        Settlement::DeleteAllBut(failed) => {
            shared.metrics.lock().reported_failures += failed.len() as u64;
            batch
                .iter()
                .filter(|m| !failed.contains(&m.message_id))
                .map(|m| m.receipt_handle.clone())
                .collect()
        }
        Settlement::DeleteNone => Vec::new(),
    };
    delete(shared, &handles).await;
    back_off
}

fn settle(
    shared: &Shared,
    batch: &[QueueMessage],
    result: Result<localcloud_core::InvokeResponse, InvokeError>,
) -> (Settlement, bool) {
    let mut metrics = shared.metrics.lock();
    match result {
        Ok(response) if response.function_error.is_some() => {
            metrics.function_errors += 1;
            (Settlement::DeleteNone, false)
        }
        Ok(response) if shared.config.report_batch_item_failures => {
            let ids: HashSet<&str> = batch.iter().map(|m| m.message_id.as_str()).collect();
            (partial_batch_response(&response.payload, &ids), false)
        }
        Ok(_) => (Settlement::DeleteAll, false),
        Err(InvokeError::Throttled { .. }) => {
            metrics.throttled_invokes += 1;
            (Settlement::DeleteNone, true)
        }
        Err(err) => {
            tracing::warn!(function = %shared.config.function, error = %err, "event source mapping could not invoke");
            metrics.invoke_errors += 1;
            (Settlement::DeleteNone, true)
        }
    }
}

/// `DeleteMessageBatch` in chunks of 10; a failed delete leaves the messages
/// to come back, as it would on AWS.
async fn delete(shared: &Shared, handles: &[String]) {
    for chunk in handles.chunks(MAX_PER_RECEIVE) {
        let result = shared.queue.delete(&shared.config.queue_arn, chunk).await;
        let mut metrics = shared.metrics.lock();
        metrics.delete_calls += 1;
        match result {
            Ok(()) => metrics.deleted_messages += chunk.len() as u64,
            Err(err) => {
                tracing::warn!(queue = %shared.config.queue_arn, error = %err, "DeleteMessageBatch failed")
            }
        }
    }
}
