//! The ledger of a run: every request the load generator sent and every
//! request message the queue path accepted, accounted for (issue 19). A
//! request is answered ok, answered with an error, or timed out; a message is
//! processed (deleted), dead-lettered, or still in the queue at the end.
//! Anything else is lost, and a run that lost anything fails the bench.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::recorder::Sample;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestLedger {
    pub sent: u64,
    pub ok: u64,
    /// Answered, but not with a valid answer (an error status or a wrong body).
    pub failed: u64,
    /// No response: client timeout or connection error.
    pub timed_out: u64,
}

impl RequestLedger {
    pub fn of(sent: u64, samples: &[Sample]) -> Self {
        let ok = samples.iter().filter(|s| s.ok).count() as u64;
        let timed_out = samples.iter().filter(|s| !s.ok && s.status == 0).count() as u64;
        Self {
            sent,
            ok,
            failed: samples.len() as u64 - ok - timed_out,
            timed_out,
        }
    }

    pub fn lost(&self) -> u64 {
        self.sent
            .saturating_sub(self.ok + self.failed + self.timed_out)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageLedger {
    pub queue: String,
    pub sent: u64,
    /// Deleted after a successful batch.
    pub processed: u64,
    pub dead_lettered: u64,
    /// Visible, in flight or delayed at the end.
    pub still_queued: u64,
    /// Receives beyond each message's first (at least): redeliveries after a
    /// failed or killed batch, which SQS's at-least-once delivery allows.
    pub redeliveries: u64,
}

impl MessageLedger {
    /// From the local cloud's metrics document (`/_localcloud/metrics`) at
    /// the end of the run, for the first queue whose ARN ends with `name`.
    pub fn from_metrics(metrics: &Value, name: &str) -> Option<Self> {
        let (arn, q) = metrics["sqs"]["queues"]
            .as_object()?
            .iter()
            .find(|(arn, _)| {
                arn.ends_with(&format!("-{name}")) || arn.ends_with(&format!(":{name}"))
            })?;
        let n = |field: &str| q[field].as_u64().unwrap_or(0);
        let visible = n("approximate_number_of_messages");
        let delayed = n("approximate_number_of_messages_delayed");
        let still_queued = visible + n("approximate_number_of_messages_not_visible") + delayed;
        let sent = n("messages_sent");
        // Every message but those waiting unreceived was received at least once.
        let received_once = sent.saturating_sub(visible + delayed);
        Some(Self {
            queue: arn.rsplit(':').next().unwrap_or(arn).to_string(),
            sent,
            processed: n("messages_deleted"),
            dead_lettered: n("messages_moved_to_dlq"),
            still_queued,
            redeliveries: n("messages_received").saturating_sub(received_once),
        })
    }

    pub fn lost(&self) -> u64 {
        self.sent
            .saturating_sub(self.processed + self.dead_lettered + self.still_queued)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ledger {
    pub requests: RequestLedger,
    /// The request queue of a queue variant; `None` for direct paths.
    pub messages: Option<MessageLedger>,
}

impl Ledger {
    pub fn lost(&self) -> u64 {
        self.requests.lost() + self.messages.as_ref().map_or(0, MessageLedger::lost)
    }

    /// One line for the summary.
    pub fn describe(&self) -> String {
        let r = &self.requests;
        let mut line = format!(
            "requests sent {}: ok {}, failed {}, timed out {}, lost {}",
            r.sent,
            r.ok,
            r.failed,
            r.timed_out,
            r.lost()
        );
        if let Some(m) = &self.messages {
            line.push_str(&format!(
                "; {} messages sent {}: processed {}, DLQ {}, still queued {}, redelivered {}, lost {}",
                m.queue,
                m.sent,
                m.processed,
                m.dead_lettered,
                m.still_queued,
                m.redeliveries,
                m.lost()
            ));
        }
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sample(ok: bool, status: u16) -> Sample {
        Sample {
            at_ms: 0,
            latency_ms: 1.0,
            ok,
            status,
        }
    }

    #[test]
    fn every_request_sent_is_ok_failed_or_timed_out_or_else_lost() {
        // GIVEN 5 requests sent, 4 of which came back: ok, 502, 504, no response
        let samples = [
            sample(true, 200),
            sample(false, 502),
            sample(false, 504),
            sample(false, 0),
        ];
        let ledger = RequestLedger::of(5, &samples);
        // THEN the fifth is lost
        assert_eq!((ledger.ok, ledger.failed, ledger.timed_out), (1, 2, 1));
        assert_eq!(ledger.lost(), 1);
        assert_eq!(RequestLedger::of(4, &samples).lost(), 0);
    }

    #[test]
    fn request_messages_balance_against_processed_dead_lettered_and_queued() {
        // GIVEN the request queue after a run with kills: 10 sent, 7 deleted,
        // 1 dead-lettered, 1 in flight, 1 visible again; 14 receives
        let metrics = json!({"sqs": {"queues": {
            "arn:aws:sqs:us-east-1:000000000000:bench-orders-requests": {
                "messages_sent": 10, "messages_deleted": 7, "messages_moved_to_dlq": 1,
                "messages_received": 14, "approximate_number_of_messages": 1,
                "approximate_number_of_messages_not_visible": 1,
                "approximate_number_of_messages_delayed": 0
            },
            "arn:aws:sqs:us-east-1:000000000000:bench-orders-requests-dlq": {"messages_sent": 0}
        }}});
        let ledger = MessageLedger::from_metrics(&metrics, "orders-requests").unwrap();
        // THEN nothing is lost, and 5 receives were redeliveries
        assert_eq!(ledger.queue, "bench-orders-requests");
        assert_eq!(ledger.still_queued, 2);
        assert_eq!(ledger.lost(), 0);
        assert_eq!(ledger.redeliveries, 5);
        // AND a message that vanished is counted lost
        let mut gone = metrics.clone();
        gone["sqs"]["queues"]["arn:aws:sqs:us-east-1:000000000000:bench-orders-requests"]
            ["messages_deleted"] = json!(6);
        let ledger = Ledger {
            requests: RequestLedger::default(),
            messages: MessageLedger::from_metrics(&gone, "orders-requests"),
        };
        assert_eq!(ledger.lost(), 1);
        assert!(
            ledger.describe().contains("lost 1"),
            "{}",
            ledger.describe()
        );
    }
}
