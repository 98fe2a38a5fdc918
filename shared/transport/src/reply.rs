//! Request/reply over SQS.
//!
//! The reply path: every execution environment (every process) creates its own
//! reply queue the first time it calls, named `{prefix}{random}`. A request
//! carries a correlation id and the reply queue's URL; the worker sends the
//! answer there. One poller per process receives from the reply queue while
//! calls are pending and hands each reply to the waiting call by correlation
//! id, so concurrent calls in one process each get their own answer, and a
//! reply that arrives after its caller gave up is dropped.
//!
//! Replies are never deleted (a DeleteMessageBatch per batch would cost the
//! caller CPU on every call): the reply queue hides a received reply for
//! [`REPLY_HIDDEN_FOR`], far longer than its [`REPLY_RETENTION`], and SQS
//! deletes every message older than the retention period, in flight or not
//! (see [`REPLY_RETENTION`]). So a reply is received once and then left to
//! expire.
//!
//! Clean-up: the queue is tagged with a heartbeat (refreshed at most every
//! [`HEARTBEAT_EVERY`]); queues whose heartbeat is stale (environments that
//! are gone) are deleted off the request path, by the scheduled sweeper
//! ([`crate::sweep`]). A caller never lists queues nor reads their tags.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use aws_sdk_sqs::types::QueueAttributeName;
use aws_sdk_sqs::Client;
use parking_lot::Mutex;
use serde_json::Value;
use tokio::sync::{oneshot, OnceCell};

use crate::call::{Transport, TransportError};
use crate::envelope::{now_ms, Reply, ReplyOutcome, Request};

pub const HEARTBEAT_TAG: &str = "heartbeat-ms";
pub const HEARTBEAT_EVERY: Duration = Duration::from_secs(60);

/// Reply queues keep a message for the shortest time SQS allows (60 s): the
/// poller of a waiting caller receives its reply within a second or so, and
/// a reply nobody received for a minute has nobody left to take it. SQS
/// "automatically deletes messages left in a queue longer than the retention
/// period"
/// (<https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_DeleteMessage.html>),
/// received ones included: they "remain in the queue" while hidden
/// (<https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-visibility-timeout.html>).
/// That keeps the in-flight replies of a queue to those of the last minute,
/// far below the quota of about 120,000 in flight per queue
/// (<https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/quotas-queues.html>).
pub const REPLY_RETENTION: Duration = Duration::from_secs(60);

/// A received reply stays hidden for the longest time SQS allows (12 hours),
/// so it is never received again before its retention ends it.
pub const REPLY_HIDDEN_FOR: Duration = Duration::from_secs(43_200);

#[derive(Debug, Clone)]
pub struct RequestReplyConfig {
    /// Where requests go (the owner's request queue).
    pub request_queue_url: String,
    /// Reply queue names start with this (at most 40 characters, so names fit SQS's 80).
    pub reply_queue_prefix: String,
    /// How long a call waits for its reply before it fails with a timeout.
    pub wait_limit: Duration,
}

pub struct RequestReply {
    inner: Arc<Inner>,
}

struct Inner {
    sqs: Client,
    config: RequestReplyConfig,
    reply_queue: OnceCell<String>,
    pending: Mutex<Pending>,
    last_heartbeat_ms: AtomicU64,
}

#[derive(Default)]
struct Pending {
    waiting: HashMap<String, oneshot::Sender<ReplyOutcome>>,
    poller_running: bool,
}

impl RequestReply {
    pub fn new(sqs: Client, config: RequestReplyConfig) -> Self {
        Self {
            inner: Arc::new(Inner {
                sqs,
                config,
                reply_queue: OnceCell::new(),
                pending: Mutex::new(Pending::default()),
                last_heartbeat_ms: AtomicU64::new(0),
            }),
        }
    }

    pub fn config(&self) -> &RequestReplyConfig {
        &self.inner.config
    }

    /// The reply queue of this environment, if created yet.
    pub fn reply_queue_url(&self) -> Option<&str> {
        self.inner.reply_queue.get().map(String::as_str)
    }

    /// Deletes this environment's reply queue (for tests and orderly shutdown).
    pub async fn close(&self) -> Result<(), TransportError> {
        if let Some(url) = self.inner.reply_queue.get() {
            self.inner
                .sqs
                .delete_queue()
                .queue_url(url)
                .send()
                .await
                .map_err(|e| unavailable("DeleteQueue", e))?;
        }
        Ok(())
    }
}

impl Transport for RequestReply {
    async fn call(&self, payload: Value) -> Result<Value, TransportError> {
        let inner = &self.inner;
        let reply_to = inner.reply_queue().await?.clone();
        inner.heartbeat(&reply_to).await;
        let correlation_id = uuid::Uuid::new_v4().to_string();
        let wait_limit = inner.config.wait_limit;
        let request = Request {
            correlation_id: correlation_id.clone(),
            reply_to,
            expires_at_ms: now_ms() + wait_limit.as_millis() as u64,
            payload,
        };
        let (sender, receiver) = oneshot::channel();
        let start_poller = {
            let mut pending = inner.pending.lock();
            pending.waiting.insert(correlation_id.clone(), sender);
            !std::mem::replace(&mut pending.poller_running, true)
        };
        if start_poller {
            tokio::spawn(poll_replies(inner.clone()));
        }
        let body = serde_json::to_string(&request)
            .map_err(|e| TransportError::BadAnswer(e.to_string()))?;
        if let Err(e) = inner
            .sqs
            .send_message()
            .queue_url(&inner.config.request_queue_url)
            .message_body(body)
            .send()
            .await
        {
            inner.pending.lock().waiting.remove(&correlation_id);
            return Err(unavailable("SendMessage", e));
        }
        match tokio::time::timeout(wait_limit, receiver).await {
            Ok(Ok(ReplyOutcome::Ok { payload })) => Ok(payload),
            Ok(Ok(ReplyOutcome::Error {
                error_type,
                message,
            })) => Err(TransportError::CalleeFailed {
                error_type,
                message,
            }),
            Ok(Err(_)) => Err(TransportError::Unavailable(
                "the reply poller stopped".into(),
            )),
            Err(_) => {
                inner.pending.lock().waiting.remove(&correlation_id);
                Err(TransportError::Timeout {
                    waited_ms: wait_limit.as_millis() as u64,
                })
            }
        }
    }
}

impl Inner {
    async fn reply_queue(&self) -> Result<&String, TransportError> {
        self.reply_queue
            .get_or_try_init(|| async {
                let name = format!(
                    "{}{}",
                    self.config.reply_queue_prefix,
                    uuid::Uuid::new_v4().simple()
                );
                // The attributes need no permission beyond sqs:CreateQueue
                // (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-api-permissions-reference.html).
                let output = self
                    .sqs
                    .create_queue()
                    .queue_name(&name)
                    .attributes(
                        QueueAttributeName::MessageRetentionPeriod,
                        REPLY_RETENTION.as_secs().to_string(),
                    )
                    .attributes(
                        QueueAttributeName::VisibilityTimeout,
                        REPLY_HIDDEN_FOR.as_secs().to_string(),
                    )
                    .tags(HEARTBEAT_TAG, now_ms().to_string())
                    .send()
                    .await
                    .map_err(|e| unavailable("CreateQueue", e))?;
                self.last_heartbeat_ms.store(now_ms(), Ordering::Relaxed);
                tracing::info!(queue = name, "created the reply queue of this environment");
                output
                    .queue_url
                    .ok_or_else(|| TransportError::BadAnswer("CreateQueue returned no URL".into()))
            })
            .await
    }

    async fn heartbeat(&self, queue_url: &str) {
        let now = now_ms();
        let last = self.last_heartbeat_ms.load(Ordering::Relaxed);
        if now.saturating_sub(last) < HEARTBEAT_EVERY.as_millis() as u64 {
            return;
        }
        self.last_heartbeat_ms.store(now, Ordering::Relaxed);
        let tagged = self
            .sqs
            .tag_queue()
            .queue_url(queue_url)
            .tags(HEARTBEAT_TAG, now.to_string())
            .send()
            .await;
        if let Err(e) = tagged {
            tracing::warn!("cannot refresh the reply queue heartbeat: {e}");
        }
    }
}

/// Receives replies while calls are pending, then stops. Exactly one runs
/// per process at a time (`poller_running`). Received replies are not
/// deleted: they stay hidden until their retention ends (see the module doc).
async fn poll_replies(inner: Arc<Inner>) {
    let Some(queue_url) = inner.reply_queue.get().cloned() else {
        inner.pending.lock().poller_running = false;
        return;
    };
    loop {
        {
            let mut pending = inner.pending.lock();
            if pending.waiting.is_empty() {
                pending.poller_running = false;
                return;
            }
        }
        let received = inner
            .sqs
            .receive_message()
            .queue_url(&queue_url)
            .max_number_of_messages(10)
            .wait_time_seconds(1)
            .send()
            .await;
        let messages = match received {
            Ok(output) => output.messages.unwrap_or_default(),
            Err(e) => {
                tracing::warn!(
                    "receiving replies failed: {}",
                    aws_sdk_sqs::error::DisplayErrorContext(&e)
                );
                tokio::time::sleep(Duration::from_millis(200)).await;
                continue;
            }
        };
        for message in &messages {
            hand_out(&inner, message);
        }
    }
}

/// Gives a reply to the call waiting for it, if any.
fn hand_out(inner: &Inner, message: &aws_sdk_sqs::types::Message) {
    let Some(reply) = message
        .body
        .as_deref()
        .and_then(|b| serde_json::from_str::<Reply>(b).ok())
    else {
        tracing::warn!("dropping a malformed reply");
        return;
    };
    let waiter = inner.pending.lock().waiting.remove(&reply.correlation_id);
    match waiter {
        Some(sender) => {
            let _ = sender.send(reply.outcome);
        }
        None => tracing::info!(
            correlation_id = reply.correlation_id,
            "dropping a reply nobody waits for (its caller timed out)"
        ),
    }
}

fn unavailable(operation: &str, error: impl std::error::Error) -> TransportError {
    TransportError::Unavailable(format!(
        "{operation}: {}",
        aws_sdk_sqs::error::DisplayErrorContext(error)
    ))
}
