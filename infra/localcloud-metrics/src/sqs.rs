//! SQS: billed requests and message flow per queue.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::fields::field_names;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SqsMetrics {
    /// Sum of `billed_requests` over all queues plus unattributed calls.
    pub billed_requests: u64,
    /// Calls that named no existing queue (ListQueues, failed lookups).
    pub unattributed_requests: u64,
    /// By queue ARN.
    pub queues: BTreeMap<String, QueueMetrics>,
}

impl SqsMetrics {
    /// Calls of one operation (`ListQueueTags`, ...) over every queue.
    pub fn calls_to_queues(&self, operation: &str) -> u64 {
        self.queues
            .values()
            .filter_map(|q| q.api_calls.get(operation))
            .sum()
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueueMetrics {
    /// False once the queue was deleted (its counters are kept).
    pub exists: bool,
    /// Requests as billed: one per started 64 KB of payload.
    pub billed_requests: u64,
    /// Calls per operation name (`SendMessageBatch`, ...), successful or not.
    pub api_calls: BTreeMap<String, u64>,
    pub messages_sent: u64,
    pub messages_received: u64,
    pub messages_deleted: u64,
    pub messages_moved_to_dlq: u64,
    pub approximate_number_of_messages: u64,
    pub approximate_number_of_messages_not_visible: u64,
    pub approximate_number_of_messages_delayed: u64,
}

impl QueueMetrics {
    /// Its levels (see [`crate::is_gauge`]); the rest are totals.
    pub const GAUGES: &'static [&'static str] = field_names!(QueueMetrics {
        exists,
        approximate_number_of_messages,
        approximate_number_of_messages_not_visible,
        approximate_number_of_messages_delayed,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_of_one_operation_are_summed_over_queues() {
        let queue = |calls: &[(&str, u64)]| QueueMetrics {
            api_calls: calls.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            ..QueueMetrics::default()
        };
        let metrics = SqsMetrics {
            queues: [
                (
                    "a".into(),
                    queue(&[("ListQueueTags", 2), ("SendMessage", 5)]),
                ),
                ("b".into(), queue(&[("ListQueueTags", 3)])),
            ]
            .into(),
            ..SqsMetrics::default()
        };
        assert_eq!(metrics.calls_to_queues("ListQueueTags"), 5);
        assert_eq!(metrics.calls_to_queues("DeleteQueue"), 0);
    }
}
