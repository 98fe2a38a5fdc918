//! The SQS service: queue and message operations with SQS's rules and
//! billing. The JSON API (`api`) and in-process callers (the Lambda event
//! source mapping pollers) both go through these methods, so both are billed
//! the same way.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::RwLock;
use serde::Serialize;
use tokio::time::Instant;

use crate::error;
use crate::handle::{HandleCodec, HandleParts};
use crate::message_attrs::{self, MessageAttributes};
use crate::metrics::{QueueMetrics, SqsMetrics};
use crate::queue::{epoch_ms, Counts, HandleOutcome, Message, Sent};
use crate::registry::{Queue, Registry};
use crate::settings::{self, QueueSettings, MAX_VISIBILITY_TIMEOUT};
use localcloud_core::{context, AwsError};

/// A message to send, as SendMessage and each SendMessageBatch entry give it.
#[derive(Debug, Clone, Default)]
pub struct SendRequest {
    pub body: String,
    pub delay_seconds: Option<u32>,
    pub attributes: MessageAttributes,
    pub system_attributes: MessageAttributes,
    pub group_id: Option<String>,
    pub dedup_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SendResult {
    pub message_id: String,
    pub md5_of_body: String,
    pub md5_of_attributes: Option<String>,
    pub md5_of_system_attributes: Option<String>,
    pub sequence_number: Option<String>,
}

/// A received message with every system attribute and message attribute; the
/// JSON API filters them by the names the caller asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceivedMessage {
    pub message_id: String,
    pub receipt_handle: String,
    pub body: String,
    pub md5_of_body: String,
    /// `SenderId`, `SentTimestamp`, `ApproximateReceiveCount`,
    /// `ApproximateFirstReceiveTimestamp`, and for FIFO `MessageGroupId`,
    /// `MessageDeduplicationId`, `SequenceNumber`; `AWSTraceHeader` if sent.
    pub attributes: BTreeMap<String, String>,
    pub message_attributes: MessageAttributes,
    pub md5_of_message_attributes: Option<String>,
    /// Body plus attributes, in bytes.
    pub size: usize,
}

/// Queue URL and ARN, as a template start-up or a test needs them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueInfo {
    pub url: String,
    pub arn: String,
}

pub struct SqsService {
    endpoint: RwLock<String>,
    registry: Registry,
    handles: HandleCodec,
    unattributed: AtomicU64,
}

impl SqsService {
    /// `endpoint` is the base of queue URLs, e.g. `http://127.0.0.1:4566`.
    pub fn new(endpoint: impl Into<String>) -> Self {
        Self {
            endpoint: RwLock::new(endpoint.into().trim_end_matches('/').to_string()),
            registry: Registry::default(),
            handles: HandleCodec::new(),
            unattributed: AtomicU64::new(0),
        }
    }

    /// Sets the base of queue URLs once the server's port is known.
    pub fn set_endpoint(&self, endpoint: impl Into<String>) {
        *self.endpoint.write() = endpoint.into().trim_end_matches('/').to_string();
    }

    pub fn queue_url(&self, queue: &Queue) -> String {
        format!("{}/{}/{}", self.endpoint.read(), queue.account, queue.name)
    }

    pub(crate) fn info(&self, queue: &Queue) -> QueueInfo {
        QueueInfo {
            url: self.queue_url(queue),
            arn: queue.arn.clone(),
        }
    }

    pub(crate) fn registry(&self) -> &Registry {
        &self.registry
    }

    /// Counts a call that reached no queue (ListQueues, unknown queues).
    pub(crate) fn unattributed_call(&self) {
        self.unattributed.fetch_add(1, Ordering::Relaxed);
    }

    /// Finds a queue by URL (`http://host:port/{account}/{name}`) or bare name.
    pub fn queue_by_url(
        &self,
        region: &str,
        account: &str,
        url: &str,
    ) -> Result<Arc<Queue>, AwsError> {
        let path = url.split_once("://").map_or(url, |(_, rest)| rest);
        let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        // The last two path segments are account and name, whatever the
        // host (and any path prefix) a caller's URL carries.
        match segments.as_slice() {
            [name] => self.registry.get(region, account, name),
            [_host, .., owner, name] => self.registry.get(region, owner, name),
            _ => Err(error::queue_does_not_exist()),
        }
    }

    pub fn queue_by_arn(&self, arn: &str) -> Result<Arc<Queue>, AwsError> {
        self.registry.by_arn(arn)
    }

    /// CreateQueue. `attributes` may include `FifoQueue`.
    pub fn create_queue_in(
        &self,
        region: &str,
        account: &str,
        name: &str,
        attributes: &BTreeMap<String, String>,
        tags: BTreeMap<String, String>,
    ) -> Result<Arc<Queue>, AwsError> {
        settings::validate_queue_name(name)?;
        let mut attributes = attributes.clone();
        let fifo = settings::fifo_flag(name, &mut attributes)?;
        let mut queue_settings = QueueSettings::new(fifo);
        queue_settings.apply(&attributes)?;
        self.check_dead_letter_target(&queue_settings)?;
        let queue =
            self.registry
                .create(region, account, name, queue_settings, &attributes, tags)?;
        queue.counters.call("CreateQueue", 0);
        Ok(queue)
    }

    /// Creates a queue from a template definition in the default region and
    /// account; idempotent like CreateQueue.
    pub fn create_queue(
        &self,
        name: &str,
        attributes: &BTreeMap<String, String>,
    ) -> Result<QueueInfo, AwsError> {
        let queue = self.create_queue_in(
            context::DEFAULT_REGION,
            context::DEFAULT_ACCOUNT,
            name,
            attributes,
            BTreeMap::new(),
        )?;
        Ok(self.info(&queue))
    }

    fn check_dead_letter_target(&self, settings: &QueueSettings) -> Result<(), AwsError> {
        let Some(policy) = &settings.redrive_policy else {
            return Ok(());
        };
        let target = self.registry.by_arn(&policy.dead_letter_target_arn).map_err(|_| {
            error::invalid_parameter_value(format!(
                "Value {} for parameter RedrivePolicy is invalid. Reason: Dead letter target does not exist.",
                policy.to_json_string()
            ))
        })?;
        if target.is_fifo() != settings.fifo {
            return Err(error::invalid_parameter_value(format!(
                "Value {} for parameter RedrivePolicy is invalid. Reason: Dead-letter queue must be same type of queue as the source.",
                policy.to_json_string()
            )));
        }
        Ok(())
    }

    pub fn delete_queue(&self, queue: &Queue) {
        queue.counters.call("DeleteQueue", 0);
        self.registry.remove(queue);
        queue.state.lock().purge();
    }

    /// PurgeQueue; at most one per queue every 60 seconds.
    pub fn purge_queue(&self, queue: &Queue) -> Result<(), AwsError> {
        queue.counters.call("PurgeQueue", 0);
        let now = Instant::now();
        let mut state = queue.state.lock();
        if state
            .last_purge
            .is_some_and(|at| now.duration_since(at) < Duration::from_secs(60))
        {
            return Err(error::purge_queue_in_progress(&queue.arn));
        }
        state.last_purge = Some(now);
        state.purge();
        Ok(())
    }

    /// GetQueueAttributes: `names` may contain `All`; unknown names fail.
    pub fn queue_attributes(
        &self,
        queue: &Queue,
        names: &[String],
    ) -> Result<BTreeMap<String, String>, AwsError> {
        queue.counters.call("GetQueueAttributes", 0);
        let mut state = queue.state.lock();
        let counts = state.counts(Instant::now());
        let mut all = state.settings.render();
        all.insert("QueueArn".into(), queue.arn.clone());
        all.insert(
            "ApproximateNumberOfMessages".into(),
            counts.visible.to_string(),
        );
        all.insert(
            "ApproximateNumberOfMessagesNotVisible".into(),
            counts.not_visible.to_string(),
        );
        all.insert(
            "ApproximateNumberOfMessagesDelayed".into(),
            counts.delayed.to_string(),
        );
        all.insert("CreatedTimestamp".into(), state.created_epoch_s.to_string());
        all.insert(
            "LastModifiedTimestamp".into(),
            state.modified_epoch_s.to_string(),
        );
        if names.iter().any(|n| n == "All") {
            return Ok(all);
        }
        let mut out = BTreeMap::new();
        for name in names {
            if let Some(value) = all.get(name) {
                out.insert(name.clone(), value.clone());
            } else if !KNOWN_ATTRIBUTE_NAMES.contains(&name.as_str()) {
                return Err(error::invalid_attribute_name(name));
            }
        }
        Ok(out)
    }

    pub fn set_queue_attributes(
        &self,
        queue: &Queue,
        attributes: &BTreeMap<String, String>,
    ) -> Result<(), AwsError> {
        queue.counters.call("SetQueueAttributes", 0);
        if attributes.contains_key("FifoQueue") {
            return Err(error::invalid_attribute_name("FifoQueue"));
        }
        let mut updated = queue.state.lock().settings.clone();
        updated.apply(attributes)?;
        self.check_dead_letter_target(&updated)?;
        let mut state = queue.state.lock();
        state.settings = updated;
        state.modified_epoch_s = epoch_ms() / 1000;
        drop(state);
        queue.notify.notify_waiters();
        Ok(())
    }

    /// Validates and enqueues one message; the error is the entry's error.
    fn send_one(
        &self,
        queue: &Queue,
        request: SendRequest,
        now: Instant,
    ) -> Result<(SendResult, usize), AwsError> {
        let mut state = queue.state.lock();
        let message = crate::send::build_message(queue, &state.settings, &request)?;
        let size = message.size;
        let result = |sent: Sent, m: &Message| SendResult {
            message_id: sent.message_id,
            md5_of_body: m.md5_of_body.clone(),
            md5_of_attributes: m.md5_of_attributes.clone(),
            md5_of_system_attributes: m.md5_of_system_attributes.clone(),
            sequence_number: sent.sequence_number,
        };
        if let Some(earlier) = message
            .dedup_id
            .as_deref()
            .and_then(|id| state.deduplicated(id, now))
        {
            return Ok((result(earlier, &message), size));
        }
        let delay = request
            .delay_seconds
            .unwrap_or(state.settings.delay_seconds);
        let sent = state.push(message.clone(), Duration::from_secs(delay as u64), now);
        Ok((result(sent, &message), size))
    }

    /// SendMessage / SendMessageBatch: one result per entry, billed as one
    /// call over the total payload.
    pub fn send(
        &self,
        queue: &Queue,
        operation: &'static str,
        requests: Vec<SendRequest>,
    ) -> Vec<Result<SendResult, AwsError>> {
        let now = Instant::now();
        let mut payload = 0;
        let results: Vec<_> = requests
            .into_iter()
            .map(|r| {
                self.send_one(queue, r, now).map(|(result, size)| {
                    payload += size;
                    result
                })
            })
            .collect();
        let sent = results.iter().filter(|r| r.is_ok()).count();
        queue.counters.call(operation, payload);
        queue.counters.sent(sent);
        if sent > 0 {
            queue.notify.notify_waiters();
        }
        results
    }

    /// ReceiveMessage: waits up to `wait` for at least one message without
    /// polling (woken by sends and by the next visibility deadline).
    pub async fn receive_from(
        &self,
        queue: &Queue,
        max: usize,
        wait: Duration,
        visibility: Option<Duration>,
    ) -> Result<Vec<ReceivedMessage>, AwsError> {
        if !(1..=10).contains(&max) {
            return Err(error::invalid_parameter_value(format!(
                "Value {max} for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 10, if provided."
            )));
        }
        let deadline = Instant::now() + wait;
        let received = loop {
            let notified = queue.notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let now = Instant::now();
            let (taken, moved, next_wake) = {
                let mut state = queue.state.lock();
                let visibility = visibility.unwrap_or(Duration::from_secs(
                    state.settings.visibility_timeout as u64,
                ));
                let (taken, moved) = state.receive(max, visibility, now);
                (taken, moved, state.next_wake())
            };
            self.move_to_dead_letter_queue(queue, moved, now);
            let gone = queue.deleted.load(Ordering::SeqCst);
            if !taken.is_empty() || now >= deadline || gone {
                break taken;
            }
            let wake = next_wake.map_or(deadline, |t| t.min(deadline));
            tokio::select! {
                _ = &mut notified => {}
                _ = tokio::time::sleep_until(wake) => {}
            }
        };
        let messages: Vec<ReceivedMessage> = received
            .into_iter()
            .map(|t| self.to_received(queue, t.seq, t.message))
            .collect();
        queue
            .counters
            .call("ReceiveMessage", messages.iter().map(|m| m.size).sum());
        queue.counters.received(messages.len());
        Ok(messages)
    }

    fn to_received(&self, queue: &Queue, seq: u64, m: Message) -> ReceivedMessage {
        let receipt_handle = self.handles.encode(HandleParts {
            queue_id: queue.id,
            seq,
            nonce: m.receive_nonce,
        });
        let mut attributes = BTreeMap::new();
        attributes.insert("SenderId".to_string(), m.sender_id.clone());
        attributes.insert("SentTimestamp".to_string(), m.sent_epoch_ms.to_string());
        attributes.insert(
            "ApproximateReceiveCount".to_string(),
            m.receive_count.to_string(),
        );
        if let Some(first) = m.first_receive_epoch_ms {
            attributes.insert(
                "ApproximateFirstReceiveTimestamp".to_string(),
                first.to_string(),
            );
        }
        let optional = [
            ("MessageGroupId", &m.group_id),
            ("MessageDeduplicationId", &m.dedup_id),
            ("SequenceNumber", &m.sequence_number),
        ];
        for (name, value) in optional {
            if let Some(v) = value {
                attributes.insert(name.to_string(), v.clone());
            }
        }
        if let Some(trace) = m.system_attributes.get("AWSTraceHeader") {
            if let message_attrs::AttributeValue::String(s) = &trace.value {
                attributes.insert("AWSTraceHeader".to_string(), s.clone());
            }
        }
        ReceivedMessage {
            message_id: m.message_id,
            receipt_handle,
            body: m.body,
            md5_of_body: m.md5_of_body,
            attributes,
            md5_of_message_attributes: m.md5_of_attributes,
            message_attributes: m.attributes,
            size: m.size,
        }
    }

    fn move_to_dead_letter_queue(&self, source: &Queue, moved: Vec<Message>, now: Instant) {
        if moved.is_empty() {
            return;
        }
        // The policy is read under its own short lock: no queue lock is ever
        // held while taking the registry's (CreateQueue takes them the other
        // way round).
        let target_arn = source
            .state
            .lock()
            .settings
            .redrive_policy
            .as_ref()
            .map(|p| p.dead_letter_target_arn.clone());
        let target = target_arn.and_then(|arn| self.registry.by_arn(&arn).ok());
        source.counters.moved_to_dlq(moved.len());
        // A dead-letter queue deleted since the policy was set: the messages
        // are dropped, as SQS cannot deliver them anywhere either.
        let Some(target) = target else { return };
        let mut state = target.state.lock();
        for message in moved {
            state.accept_dead_letter(message, now);
        }
        drop(state);
        target.notify.notify_waiters();
    }

    fn decode_handle(&self, queue: &Queue, handle: &str) -> Result<HandleParts, AwsError> {
        self.handles
            .decode(handle)
            .filter(|p| p.queue_id == queue.id)
            .ok_or_else(|| {
                error::receipt_handle_invalid(format!(
                    "The input receipt handle \"{handle}\" is not a valid receipt handle."
                ))
            })
    }

    /// DeleteMessage / DeleteMessageBatch: one result per handle.
    pub fn delete_from(
        &self,
        queue: &Queue,
        operation: &'static str,
        handles: &[String],
    ) -> Vec<Result<(), AwsError>> {
        let now = Instant::now();
        let mut deleted = 0;
        let results = handles
            .iter()
            .map(|handle| {
                let parts = self.decode_handle(queue, handle)?;
                match queue.state.lock().delete(parts.seq, parts.nonce, now) {
                    HandleOutcome::Done => {
                        deleted += 1;
                        Ok(())
                    }
                    HandleOutcome::AlreadyGone => Ok(()),
                    HandleOutcome::Expired | HandleOutcome::NotInFlight => Err(
                        error::receipt_handle_invalid("The receipt handle has expired."),
                    ),
                }
            })
            .collect();
        queue.counters.call(operation, 0);
        queue.counters.deleted(deleted);
        if deleted > 0 && queue.is_fifo() {
            queue.notify.notify_waiters();
        }
        results
    }

    /// ChangeMessageVisibility(Batch): one result per (handle, seconds).
    pub fn change_visibility_of(
        &self,
        queue: &Queue,
        operation: &'static str,
        entries: &[(String, u32)],
    ) -> Vec<Result<(), AwsError>> {
        let now = Instant::now();
        let mut released = false;
        let results = entries
            .iter()
            .map(|(handle, seconds)| {
                if *seconds > MAX_VISIBILITY_TIMEOUT {
                    return Err(error::invalid_parameter_value(format!(
                        "Value {seconds} for parameter VisibilityTimeout is invalid. Reason: Must be between 0 and 43200."
                    )));
                }
                let parts = self.decode_handle(queue, handle)?;
                let timeout = Duration::from_secs(*seconds as u64);
                match queue.state.lock().change_visibility(parts.seq, parts.nonce, timeout, now) {
                    HandleOutcome::Done => {
                        released |= *seconds == 0;
                        Ok(())
                    }
                    HandleOutcome::NotInFlight => Err(error::message_not_inflight()),
                    HandleOutcome::AlreadyGone | HandleOutcome::Expired => Err(error::receipt_handle_invalid(format!(
                        "Value {handle} for parameter ReceiptHandle is invalid. Reason: Message does not exist or is not available for visibility timeout change."
                    ))),
                }
            })
            .collect();
        queue.counters.call(operation, 0);
        if released {
            queue.notify.notify_waiters();
        }
        results
    }

    /// Counts a call by operation name without other effect (tags, listing
    /// dead-letter sources, calls that failed validation).
    pub(crate) fn count_call(&self, queue: &Queue, operation: &'static str) {
        queue.counters.call(operation, 0);
    }

    /// Billed requests and message flow per queue, for the cost model.
    pub fn metrics(&self) -> SqsMetrics {
        let now = Instant::now();
        let live: BTreeMap<String, Counts> = self
            .registry
            .all()
            .into_iter()
            .map(|q| {
                let counts = q.state.lock().counts(now);
                (q.arn.clone(), counts)
            })
            .collect();
        let queues: BTreeMap<String, QueueMetrics> = self
            .registry
            .counters()
            .into_iter()
            .map(|(arn, counters)| {
                let counts = live.get(&arn).copied();
                let snapshot = counters.snapshot(counts.unwrap_or_default(), counts.is_some());
                (arn, snapshot)
            })
            .collect();
        let unattributed = self.unattributed.load(Ordering::Relaxed);
        SqsMetrics {
            billed_requests: unattributed + queues.values().map(|q| q.billed_requests).sum::<u64>(),
            unattributed_requests: unattributed,
            queues,
        }
    }

    /// Zeroes every counter; queues and messages stay.
    pub fn reset(&self) {
        self.unattributed.store(0, Ordering::Relaxed);
        for (_, counters) in self.registry.counters() {
            counters.reset();
        }
    }
}

/// Every attribute name GetQueueAttributes accepts (some only have a value
/// when set, or on FIFO queues).
const KNOWN_ATTRIBUTE_NAMES: &[&str] = &[
    "All",
    "Policy",
    "VisibilityTimeout",
    "MaximumMessageSize",
    "MessageRetentionPeriod",
    "ApproximateNumberOfMessages",
    "ApproximateNumberOfMessagesNotVisible",
    "CreatedTimestamp",
    "LastModifiedTimestamp",
    "QueueArn",
    "ApproximateNumberOfMessagesDelayed",
    "DelaySeconds",
    "ReceiveMessageWaitTimeSeconds",
    "RedrivePolicy",
    "FifoQueue",
    "ContentBasedDeduplication",
    "KmsMasterKeyId",
    "KmsDataKeyReusePeriodSeconds",
    "DeduplicationScope",
    "FifoThroughputLimit",
    "RedriveAllowPolicy",
    "SqsManagedSseEnabled",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queues_are_found_by_any_url_ending_in_account_and_name_or_by_name() {
        let service = SqsService::new("http://127.0.0.1:4566/");
        let info = service.create_queue("q1", &BTreeMap::new()).unwrap();
        assert_eq!(info.url, "http://127.0.0.1:4566/000000000000/q1");
        let (region, account) = (context::DEFAULT_REGION, context::DEFAULT_ACCOUNT);
        for url in [
            info.url.as_str(),
            "https://sqs.us-east-1.amazonaws.com/000000000000/q1",
            "http://localhost:4566/queue/us-east-1/000000000000/q1",
            "q1",
        ] {
            let queue = service.queue_by_url(region, account, url).unwrap();
            assert_eq!(queue.arn, info.arn, "{url}");
        }
        for url in ["http://host/111111111111/q1", "http://host/", ""] {
            let Err(err) = service.queue_by_url(region, account, url) else {
                panic!("{url} should not resolve");
            };
            assert_eq!(err.code(), "QueueDoesNotExist", "{url}");
        }
    }
}
