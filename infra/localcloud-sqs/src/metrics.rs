//! Request counting as SQS bills it: every API call is at least one request,
//! and each started 64 KiB chunk of payload is one more.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;

pub const BILLING_CHUNK: usize = 64 * 1024;

/// Billed requests for one call carrying `payload` bytes.
pub fn billed_requests(payload: usize) -> u64 {
    payload.div_ceil(BILLING_CHUNK).max(1) as u64
}

/// Live counters of one queue; they outlive the queue until `reset`.
#[derive(Default)]
pub struct QueueCounters {
    billed: AtomicU64,
    sent: AtomicU64,
    received: AtomicU64,
    deleted: AtomicU64,
    moved_to_dlq: AtomicU64,
    calls: Mutex<BTreeMap<&'static str, u64>>,
}

impl QueueCounters {
    /// One call of `operation` that carried `payload` bytes.
    pub fn call(&self, operation: &'static str, payload: usize) {
        self.billed
            .fetch_add(billed_requests(payload), Ordering::Relaxed);
        *self.calls.lock().entry(operation).or_default() += 1;
    }

    pub fn sent(&self, n: usize) {
        self.sent.fetch_add(n as u64, Ordering::Relaxed);
    }
    pub fn received(&self, n: usize) {
        self.received.fetch_add(n as u64, Ordering::Relaxed);
    }
    pub fn deleted(&self, n: usize) {
        self.deleted.fetch_add(n as u64, Ordering::Relaxed);
    }
    pub fn moved_to_dlq(&self, n: usize) {
        self.moved_to_dlq.fetch_add(n as u64, Ordering::Relaxed);
    }

    pub fn reset(&self) {
        for c in [
            &self.billed,
            &self.sent,
            &self.received,
            &self.deleted,
            &self.moved_to_dlq,
        ] {
            c.store(0, Ordering::Relaxed);
        }
        self.calls.lock().clear();
    }

    pub fn snapshot(&self, approximate: crate::queue::Counts, exists: bool) -> QueueMetrics {
        QueueMetrics {
            exists,
            billed_requests: self.billed.load(Ordering::Relaxed),
            api_calls: self
                .calls
                .lock()
                .iter()
                .map(|(k, v)| (k.to_string(), *v))
                .collect(),
            messages_sent: self.sent.load(Ordering::Relaxed),
            messages_received: self.received.load(Ordering::Relaxed),
            messages_deleted: self.deleted.load(Ordering::Relaxed),
            messages_moved_to_dlq: self.moved_to_dlq.load(Ordering::Relaxed),
            approximate_number_of_messages: approximate.visible as u64,
            approximate_number_of_messages_not_visible: approximate.not_visible as u64,
            approximate_number_of_messages_delayed: approximate.delayed as u64,
        }
    }
}

pub use localcloud_metrics::{QueueMetrics, SqsMetrics};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_started_64k_chunk_is_one_request() {
        assert_eq!(billed_requests(0), 1);
        assert_eq!(billed_requests(1), 1);
        assert_eq!(billed_requests(65_536), 1);
        assert_eq!(billed_requests(65_537), 2);
        assert_eq!(billed_requests(256 * 1024), 4);
    }
}
