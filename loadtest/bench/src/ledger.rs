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
    /// the end of the run: one ledger per request queue whose name `owns`
    /// accepts (a queue named `...-requests`: not a DLQ, not a reply queue),
    /// in name order.
    pub fn request_queues(metrics: &Value, owns: impl Fn(&str) -> bool) -> Vec<Self> {
        let Some(queues) = metrics["sqs"]["queues"].as_object() else {
            return Vec::new();
        };
        let mut ledgers: Vec<Self> = queues
            .iter()
            .map(|(arn, q)| (arn.rsplit(':').next().unwrap_or(arn), q))
            .filter(|(name, _)| name.ends_with("-requests") && owns(name))
            .map(|(name, q)| Self::of_queue(name, q))
            .collect();
        ledgers.sort_by(|a, b| a.queue.cmp(&b.queue));
        ledgers
    }

    /// One queue's entry of the metrics document.
    fn of_queue(name: &str, q: &Value) -> Self {
        let n = |field: &str| q[field].as_u64().unwrap_or(0);
        let visible = n("approximate_number_of_messages");
        let delayed = n("approximate_number_of_messages_delayed");
        let still_queued = visible + n("approximate_number_of_messages_not_visible") + delayed;
        let sent = n("messages_sent");
        // Every message but those waiting unreceived was received at least once.
        let received_once = sent.saturating_sub(visible + delayed);
        Self {
            queue: name.to_string(),
            sent,
            processed: n("messages_deleted"),
            dead_lettered: n("messages_moved_to_dlq"),
            still_queued,
            redeliveries: n("messages_received").saturating_sub(received_once),
        }
    }

    pub fn lost(&self) -> u64 {
        self.sent
            .saturating_sub(self.processed + self.dead_lettered + self.still_queued)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ledger {
    pub requests: RequestLedger,
    /// One per request queue of a queue variant (orders: one; Conduit
    /// micro-queue: one per service); empty for direct paths.
    #[serde(default, deserialize_with = "one_or_many")]
    pub messages: Vec<MessageLedger>,
}

impl Ledger {
    pub fn lost(&self) -> u64 {
        self.requests.lost() + self.messages.iter().map(MessageLedger::lost).sum::<u64>()
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
        for m in &self.messages {
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

/// `messages` was one request queue's ledger (or null) before the Conduit
/// fault scenario; results.json files of that time still read.
fn one_or_many<'de, D>(deserializer: D) -> Result<Vec<MessageLedger>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(MessageLedger),
        Many(Vec<MessageLedger>),
    }
    Ok(match Option::<OneOrMany>::deserialize(deserializer)? {
        None => Vec::new(),
        Some(OneOrMany::One(one)) => vec![one],
        Some(OneOrMany::Many(many)) => many,
    })
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

    /// A queue's entry of the metrics document.
    fn queue(sent: u64, deleted: u64, dlq: u64, received: u64, visible: u64, hidden: u64) -> Value {
        json!({
            "messages_sent": sent, "messages_deleted": deleted, "messages_moved_to_dlq": dlq,
            "messages_received": received, "approximate_number_of_messages": visible,
            "approximate_number_of_messages_not_visible": hidden,
            "approximate_number_of_messages_delayed": 0
        })
    }

    const ARN: &str = "arn:aws:sqs:us-east-1:000000000000:";

    #[test]
    fn request_messages_balance_against_processed_dead_lettered_and_queued() {
        // GIVEN the request queue after a run with kills: 10 sent, 7 deleted,
        // 1 dead-lettered, 1 in flight, 1 visible again; 14 receives
        let mut metrics = json!({"sqs": {"queues": {}}});
        let queues = &mut metrics["sqs"]["queues"];
        queues[format!("{ARN}bench-orders-requests")] = queue(10, 7, 1, 14, 1, 1);
        queues[format!("{ARN}bench-orders-requests-dlq")] = queue(1, 0, 0, 0, 1, 0);
        queues[format!("{ARN}bench-orders-reply-abc")] = queue(8, 8, 0, 8, 0, 0);
        let ledgers = MessageLedger::request_queues(&metrics, |q| q.contains("orders-"));
        // THEN only the request queue is in the ledger, nothing is lost, and
        // 5 receives were redeliveries
        assert_eq!(ledgers.len(), 1, "{ledgers:?}");
        let ledger = &ledgers[0];
        assert_eq!(ledger.queue, "bench-orders-requests");
        assert_eq!(ledger.still_queued, 2);
        assert_eq!(ledger.lost(), 0);
        assert_eq!(ledger.redeliveries, 5);
        // AND a message that vanished is counted lost
        metrics["sqs"]["queues"][format!("{ARN}bench-orders-requests")]["messages_deleted"] =
            json!(6);
        let ledger = Ledger {
            requests: RequestLedger::default(),
            messages: MessageLedger::request_queues(&metrics, |q| q.contains("orders-")),
        };
        assert_eq!(ledger.lost(), 1);
        assert!(
            ledger.describe().contains("lost 1"),
            "{}",
            ledger.describe()
        );
    }

    #[test]
    fn every_request_queue_of_the_variant_has_its_own_line_and_a_loss_in_any_counts() {
        // GIVEN two services' request queues, their shared DLQ, a reply
        // queue, and another variant's request queue
        let mut metrics = json!({"sqs": {"queues": {}}});
        let queues = &mut metrics["sqs"]["queues"];
        queues[format!("{ARN}bench-conduit-users-requests")] = queue(20, 18, 0, 20, 0, 2);
        queues[format!("{ARN}bench-conduit-articles-requests")] = queue(5, 3, 1, 5, 0, 0);
        queues[format!("{ARN}bench-conduit-requests-dlq")] = queue(1, 0, 0, 0, 1, 0);
        queues[format!("{ARN}bench-cr-articles-users-0f3a")] = queue(18, 18, 0, 18, 0, 0);
        queues[format!("{ARN}bench-orders-requests")] = queue(3, 0, 0, 0, 0, 0);
        // WHEN the Conduit queue variant's ledger is taken
        let ledger = Ledger {
            requests: RequestLedger::default(),
            messages: MessageLedger::request_queues(&metrics, |q| q.contains("conduit-")),
        };
        // THEN each request queue balances on its own, in name order
        let names: Vec<&str> = ledger.messages.iter().map(|m| m.queue.as_str()).collect();
        assert_eq!(
            names,
            [
                "bench-conduit-articles-requests",
                "bench-conduit-users-requests"
            ]
        );
        // AND the articles queue lost one message, which the run's total shows
        assert_eq!(ledger.messages[0].lost(), 1);
        assert_eq!(ledger.messages[1].lost(), 0);
        assert_eq!(ledger.lost(), 1);
        let line = ledger.describe();
        assert!(
            line.contains("bench-conduit-articles-requests messages sent 5: processed 3, DLQ 1"),
            "{line}"
        );
    }

    #[test]
    fn a_ledger_written_with_one_request_queue_still_reads() {
        // GIVEN the results.json form from before one ledger per queue
        let one = json!({"requests": {"sent": 2, "ok": 2, "failed": 0, "timed_out": 0},
            "messages": {"queue": "bench-orders-requests", "sent": 2, "processed": 2,
                "dead_lettered": 0, "still_queued": 0, "redeliveries": 0}});
        let none = json!({"requests": {"sent": 0, "ok": 0, "failed": 0, "timed_out": 0},
            "messages": null});
        // THEN it reads as a list of one, or none
        let one: Ledger = serde_json::from_value(one).unwrap();
        assert_eq!(one.messages.len(), 1);
        assert_eq!(one.messages[0].queue, "bench-orders-requests");
        let none: Ledger = serde_json::from_value(none).unwrap();
        assert!(none.messages.is_empty());
        // AND the current form round-trips
        let text = serde_json::to_string(&one).unwrap();
        assert_eq!(serde_json::from_str::<Ledger>(&text).unwrap(), one);
    }
}
