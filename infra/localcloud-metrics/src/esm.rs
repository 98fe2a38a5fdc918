//! SQS event source mappings: what each poller did and what it cost.

use serde::{Deserialize, Serialize};

use crate::fields::field_names;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EsmMetrics {
    pub function: String,
    pub queue_arn: String,
    /// `ReceiveMessage` calls, each a billed SQS request.
    pub receive_calls: u64,
    pub empty_receives: u64,
    /// Receives that returned fewer messages than asked for, and receives
    /// that had to wait for messages: the signs that there is no backlog.
    pub short_receives: u64,
    pub waited_receives: u64,
    pub received_messages: u64,
    /// Batches handed to the function, and the messages in them.
    pub batches: u64,
    pub messages: u64,
    /// Invoke calls, each a billed Lambda request when it is not throttled.
    pub invocations: u64,
    pub function_errors: u64,
    pub throttled_invokes: u64,
    pub invoke_errors: u64,
    /// Messages a partial batch response reported as failed.
    pub reported_failures: u64,
    /// `DeleteMessageBatch` calls (billed) and the messages they deleted.
    pub delete_calls: u64,
    pub deleted_messages: u64,
    /// Current concurrency target (concurrent batches allowed).
    pub pollers: u64,
    pub max_concurrent_invocations: u64,
}

impl EsmMetrics {
    /// Its levels (see [`crate::is_gauge`]); the rest are totals.
    pub const GAUGES: &'static [&'static str] = field_names!(EsmMetrics {
        pollers,
        max_concurrent_invocations
    });

    pub fn new(function: &str, queue_arn: &str) -> Self {
        Self {
            function: function.to_string(),
            queue_arn: queue_arn.to_string(),
            ..Self::default()
        }
    }
}
