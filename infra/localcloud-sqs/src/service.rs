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
use crate::handle::HandleCodec;
use crate::message_attrs::MessageAttributes;
use crate::metrics::{QueueMetrics, SqsMetrics};
use crate::queue::{epoch_ms, Counts};
use crate::registry::{Queue, Registry};
use crate::settings::{self, QueueSettings};
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
    pub(crate) handles: HandleCodec,
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

    /// Replaces the queue's `Policy` attribute with what `edit` makes of it
    /// (`None`: no policy), under the queue's lock so no edit is lost.
    pub(crate) fn edit_policy(
        &self,
        queue: &Queue,
        operation: &'static str,
        edit: impl FnOnce(Option<&str>) -> Result<Option<String>, AwsError>,
    ) -> Result<(), AwsError> {
        queue.counters.call(operation, 0);
        let mut state = queue.state.lock();
        let passthrough = &mut state.settings.passthrough;
        match edit(passthrough.get("Policy").map(String::as_str))? {
            Some(policy) => passthrough.insert("Policy".into(), policy),
            None => passthrough.remove("Policy"),
        };
        state.modified_epoch_s = epoch_ms() / 1000;
        Ok(())
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
