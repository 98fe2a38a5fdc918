//! Fakes for the mapping tests: a queue that behaves like an SQS standard
//! queue where a poller can observe it (visibility timeouts, receive counts,
//! redrive to a dead-letter queue, long polling), and a function that
//! records what it was given and how many batches ran at once.

#![allow(dead_code)]

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use async_trait::async_trait;
use bytes::Bytes;
use localcloud_core::{
    AwsError, InvokeError, InvokeRequest, InvokeResponse, Invoker, QueueConsumer, QueueMessage,
};
use md5::{Digest, Md5};
use parking_lot::Mutex;
use serde_json::Value;
use tokio::sync::Notify;
use tokio::time::Instant;

pub const ARN: &str = "arn:aws:sqs:us-east-1:000000000000:orders";

struct Stored {
    id: String,
    body: String,
    sent_ms: u128,
    receive_count: u32,
    first_receive_ms: Option<u128>,
    invisible_until: Option<Instant>,
    handle: Option<String>,
}

#[derive(Default)]
struct QueueState {
    messages: VecDeque<Stored>,
    dead_letters: Vec<String>,
    next: u64,
    receive_calls: u64,
}

pub struct FakeQueue {
    state: Mutex<QueueState>,
    arrived: Notify,
    visibility: Duration,
    max_receive_count: Option<u32>,
    /// Caps each long poll so that empty receives come quickly in tests.
    long_poll_cap: Duration,
}

fn epoch_ms() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis()
}

impl FakeQueue {
    pub fn new(visibility: Duration, max_receive_count: Option<u32>) -> Arc<Self> {
        Arc::new(Self {
            state: Mutex::new(QueueState::default()),
            arrived: Notify::new(),
            visibility,
            max_receive_count,
            long_poll_cap: Duration::from_millis(100),
        })
    }

    pub fn send(&self, body: &str) -> String {
        let mut state = self.state.lock();
        state.next += 1;
        let id = format!("00000000-0000-4000-8000-{:012}", state.next);
        state.messages.push_back(Stored {
            id: id.clone(),
            body: body.to_string(),
            sent_ms: epoch_ms(),
            receive_count: 0,
            first_receive_ms: None,
            invisible_until: None,
            handle: None,
        });
        drop(state);
        self.arrived.notify_waiters();
        id
    }

    /// Messages still in the queue, visible or in flight.
    pub fn len(&self) -> usize {
        self.state.lock().messages.len()
    }

    pub fn dead_letters(&self) -> Vec<String> {
        self.state.lock().dead_letters.clone()
    }

    pub fn receive_calls(&self) -> u64 {
        self.state.lock().receive_calls
    }

    /// Takes up to `max` visible messages, redriving those received too
    /// often; also says when the next hidden message becomes visible.
    fn take(&self, max: usize) -> (Vec<QueueMessage>, Option<Instant>) {
        let now = Instant::now();
        let mut state = self.state.lock();
        let mut taken = Vec::new();
        let mut next_visible: Option<Instant> = None;
        let mut i = 0;
        while i < state.messages.len() && taken.len() < max {
            let stored = &mut state.messages[i];
            if let Some(until) = stored.invisible_until.filter(|u| *u > now) {
                next_visible = Some(next_visible.map_or(until, |n| n.min(until)));
                i += 1;
                continue;
            }
            if self
                .max_receive_count
                .is_some_and(|max| stored.receive_count >= max)
            {
                let dead = state.messages.remove(i).expect("index is in range");
                state.dead_letters.push(dead.id);
                continue;
            }
            stored.receive_count += 1;
            stored.first_receive_ms.get_or_insert_with(epoch_ms);
            stored.invisible_until = Some(now + self.visibility);
            let handle = format!("{}#{}", stored.id, stored.receive_count);
            stored.handle = Some(handle.clone());
            taken.push(QueueMessage {
                message_id: stored.id.clone(),
                receipt_handle: handle,
                body: stored.body.clone(),
                md5_of_body: hex::encode(Md5::digest(stored.body.as_bytes())),
                md5_of_message_attributes: None,
                attributes: vec![
                    (
                        "ApproximateReceiveCount".into(),
                        stored.receive_count.to_string(),
                    ),
                    ("SentTimestamp".into(), stored.sent_ms.to_string()),
                    ("SenderId".into(), "AIDAIENQZJOLO23YVJ4VO".into()),
                    (
                        "ApproximateFirstReceiveTimestamp".into(),
                        stored.first_receive_ms.unwrap_or_default().to_string(),
                    ),
                ],
                message_attributes: Vec::new(),
            });
            i += 1;
        }
        (taken, next_visible)
    }
}

#[async_trait]
impl QueueConsumer for FakeQueue {
    async fn receive(
        &self,
        queue_arn: &str,
        max_messages: usize,
        wait: Duration,
    ) -> Result<Vec<QueueMessage>, AwsError> {
        assert_eq!(queue_arn, ARN);
        assert!(
            (1..=10).contains(&max_messages),
            "SQS allows 1-10, asked {max_messages}"
        );
        self.state.lock().receive_calls += 1;
        let deadline = Instant::now() + wait.min(self.long_poll_cap);
        loop {
            let arrived = self.arrived.notified();
            let (taken, next_visible) = self.take(max_messages);
            if !taken.is_empty() || Instant::now() >= deadline {
                return Ok(taken);
            }
            let until = next_visible.map_or(deadline, |n| n.min(deadline));
            tokio::select! {
                _ = arrived => {}
                _ = tokio::time::sleep_until(until) => {}
            }
        }
    }

    async fn delete(&self, queue_arn: &str, receipt_handles: &[String]) -> Result<(), AwsError> {
        assert_eq!(queue_arn, ARN);
        assert!(
            receipt_handles.len() <= 10,
            "DeleteMessageBatch takes at most 10"
        );
        let mut state = self.state.lock();
        state.messages.retain(|m| {
            !m.handle
                .as_ref()
                .is_some_and(|h| receipt_handles.contains(h))
        });
        Ok(())
    }

    async fn visibility_timeout(&self, _queue_arn: &str) -> Result<Duration, AwsError> {
        Ok(self.visibility)
    }
}

type Handler = dyn Fn(&[Value]) -> Result<InvokeResponse, InvokeError> + Send + Sync;

/// A function behind a fake Lambda service. `reserved` plays reserved
/// concurrency: invocations beyond it are throttled.
pub struct FakeWorker {
    handler: Box<Handler>,
    delay: Duration,
    reserved: Option<u64>,
    in_flight: AtomicU64,
    pub max_in_flight: AtomicU64,
    in_flight_ids: Mutex<HashSet<String>>,
    pub duplicates: AtomicU64,
    pub deliveries: Mutex<HashMap<String, u32>>,
    pub batches: Mutex<Vec<(Instant, Vec<String>)>>,
    pub throttles: AtomicU64,
}

impl FakeWorker {
    pub fn new(
        delay: Duration,
        reserved: Option<u64>,
        handler: impl Fn(&[Value]) -> Result<InvokeResponse, InvokeError> + Send + Sync + 'static,
    ) -> Arc<Self> {
        Arc::new(Self {
            handler: Box::new(handler),
            delay,
            reserved,
            in_flight: AtomicU64::new(0),
            max_in_flight: AtomicU64::new(0),
            in_flight_ids: Mutex::new(HashSet::new()),
            duplicates: AtomicU64::new(0),
            deliveries: Mutex::new(HashMap::new()),
            batches: Mutex::new(Vec::new()),
            throttles: AtomicU64::new(0),
        })
    }

    pub fn succeeding(delay: Duration) -> Arc<Self> {
        Self::new(delay, None, |_| Ok(response("null", false)))
    }

    pub fn batch_sizes(&self) -> Vec<usize> {
        self.batches
            .lock()
            .iter()
            .map(|(_, ids)| ids.len())
            .collect()
    }

    pub fn delivered(&self, id: &str) -> u32 {
        self.deliveries.lock().get(id).copied().unwrap_or(0)
    }
}

pub fn response(payload: &str, function_error: bool) -> InvokeResponse {
    InvokeResponse {
        request_id: "req".into(),
        payload: Bytes::from(payload.to_string()),
        function_error: function_error.then(|| "Unhandled".to_string()),
        status: 200,
    }
}

pub fn message_id(record: &Value) -> String {
    record["messageId"].as_str().unwrap().to_string()
}

#[async_trait]
impl Invoker for FakeWorker {
    async fn invoke(&self, request: InvokeRequest) -> Result<InvokeResponse, InvokeError> {
        let event: Value = serde_json::from_slice(&request.payload).unwrap();
        let records = event["Records"].as_array().unwrap().clone();
        let running = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        if self.reserved.is_some_and(|r| running > r) {
            self.in_flight.fetch_sub(1, Ordering::SeqCst);
            self.throttles.fetch_add(1, Ordering::SeqCst);
            return Err(InvokeError::Throttled {
                reason: "ReservedFunctionConcurrentInvocationLimitExceeded".into(),
            });
        }
        self.max_in_flight.fetch_max(running, Ordering::SeqCst);
        let ids: Vec<String> = records.iter().map(message_id).collect();
        {
            let mut in_flight = self.in_flight_ids.lock();
            let mut deliveries = self.deliveries.lock();
            for id in &ids {
                if !in_flight.insert(id.clone()) {
                    self.duplicates.fetch_add(1, Ordering::SeqCst);
                }
                *deliveries.entry(id.clone()).or_default() += 1;
            }
        }
        self.batches.lock().push((Instant::now(), ids.clone()));
        tokio::time::sleep(self.delay).await;
        let result = (self.handler)(&records);
        {
            let mut in_flight = self.in_flight_ids.lock();
            for id in &ids {
                in_flight.remove(id);
            }
        }
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
        result
    }
}

/// Polls `condition` every 20 ms until it holds or `timeout` passes.
pub async fn eventually(timeout: Duration, condition: impl Fn() -> bool) -> bool {
    let deadline = Instant::now() + timeout;
    while Instant::now() < deadline {
        if condition() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    condition()
}
