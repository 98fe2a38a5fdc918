//! Snapshots: every queue with its attributes, tags and messages, as one
//! serialisable value, written into the local cloud's state file
//! (`infra/localcloud/src/state.rs`) on a clean shutdown and restored at start.
//!
//! Times are saved relative to the moment of the snapshot: a message hidden
//! for 20 more seconds (in flight or delayed) is hidden for 20 seconds after
//! the restart, then visible again with its receive count, as on AWS when a
//! consumer never deletes it. Receipt handles of the earlier run are no longer
//! valid (their key is per process), and FIFO deduplication ids are forgotten.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::time::Instant;

use crate::message_attrs::MessageAttributes;
use crate::queue::Message;
use crate::service::SqsService;
use crate::settings::{self, QueueSettings};
use localcloud_core::AwsError;

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct SqsSnapshot {
    queues: Vec<QueueSnapshot>,
}

#[derive(Debug, Serialize, Deserialize)]
struct QueueSnapshot {
    region: String,
    account: String,
    name: String,
    /// As GetQueueAttributes renders the settable ones.
    attributes: BTreeMap<String, String>,
    tags: BTreeMap<String, String>,
    created_epoch_s: u64,
    modified_epoch_s: u64,
    messages: Vec<MessageSnapshot>,
}

#[derive(Debug, Serialize, Deserialize)]
struct MessageSnapshot {
    seq: u64,
    message_id: String,
    body: String,
    md5_of_body: String,
    attributes: MessageAttributes,
    md5_of_attributes: Option<String>,
    system_attributes: MessageAttributes,
    md5_of_system_attributes: Option<String>,
    sender_id: String,
    group_id: Option<String>,
    dedup_id: Option<String>,
    sequence_number: Option<String>,
    size: usize,
    sent_epoch_ms: u64,
    /// Since it was enqueued, for the retention period.
    age_ms: u64,
    receive_count: u32,
    first_receive_epoch_ms: Option<u64>,
    in_flight: bool,
    /// How much longer it stays hidden (delay or visibility timeout).
    hidden_for_ms: u64,
    /// Since the current receive, for the 12-hour visibility limit.
    received_ms_ago: Option<u64>,
}

impl SqsService {
    /// Every queue and message, as they are now.
    pub fn snapshot(&self) -> SqsSnapshot {
        let now = Instant::now();
        let mut queues: Vec<QueueSnapshot> = self
            .registry()
            .all()
            .iter()
            .map(|queue| {
                let state = queue.state.lock();
                QueueSnapshot {
                    region: queue.region.clone(),
                    account: queue.account.clone(),
                    name: queue.name.clone(),
                    attributes: state.settings.render(),
                    tags: queue.tags.lock().clone(),
                    created_epoch_s: state.created_epoch_s,
                    modified_epoch_s: state.modified_epoch_s,
                    messages: state
                        .messages_in_order()
                        .into_iter()
                        .map(|(seq, m)| MessageSnapshot::of(seq, m, now))
                        .collect(),
                }
            })
            .collect();
        queues.sort_by(|a, b| {
            (&a.region, &a.account, &a.name).cmp(&(&b.region, &b.account, &b.name))
        });
        SqsSnapshot { queues }
    }

    /// Recreates the queues and messages of `snapshot` in this (new, empty)
    /// service. Dead-letter targets are not checked again: they existed when
    /// the snapshot was taken and are restored with it.
    pub fn restore(&self, snapshot: SqsSnapshot) -> Result<(), AwsError> {
        let now = Instant::now();
        for saved in snapshot.queues {
            let mut attributes = saved.attributes;
            let fifo = settings::fifo_flag(&saved.name, &mut attributes)?;
            let mut queue_settings = QueueSettings::new(fifo);
            queue_settings.apply(&attributes)?;
            let queue = self.registry().create(
                &saved.region,
                &saved.account,
                &saved.name,
                queue_settings,
                &attributes,
                saved.tags,
            )?;
            let mut state = queue.state.lock();
            state.created_epoch_s = saved.created_epoch_s;
            state.modified_epoch_s = saved.modified_epoch_s;
            for message in saved.messages {
                let seq = message.seq;
                state.restore(seq, message.into_message(now), now);
            }
        }
        Ok(())
    }
}

impl MessageSnapshot {
    fn of(seq: u64, m: &Message, now: Instant) -> Self {
        Self {
            seq,
            message_id: m.message_id.clone(),
            body: m.body.clone(),
            md5_of_body: m.md5_of_body.clone(),
            attributes: m.attributes.clone(),
            md5_of_attributes: m.md5_of_attributes.clone(),
            system_attributes: m.system_attributes.clone(),
            md5_of_system_attributes: m.md5_of_system_attributes.clone(),
            sender_id: m.sender_id.clone(),
            group_id: m.group_id.clone(),
            dedup_id: m.dedup_id.clone(),
            sequence_number: m.sequence_number.clone(),
            size: m.size,
            sent_epoch_ms: m.sent_epoch_ms,
            age_ms: millis(now.saturating_duration_since(m.enqueued)),
            receive_count: m.receive_count,
            first_receive_epoch_ms: m.first_receive_epoch_ms,
            in_flight: m.in_flight,
            hidden_for_ms: millis(m.visible_at.saturating_duration_since(now)),
            received_ms_ago: m
                .received_at
                .map(|at| millis(now.saturating_duration_since(at))),
        }
    }

    fn into_message(self, now: Instant) -> Message {
        let ago = |ms: u64| now.checked_sub(Duration::from_millis(ms)).unwrap_or(now);
        Message {
            message_id: self.message_id,
            body: self.body,
            md5_of_body: self.md5_of_body,
            attributes: self.attributes,
            md5_of_attributes: self.md5_of_attributes,
            system_attributes: self.system_attributes,
            md5_of_system_attributes: self.md5_of_system_attributes,
            sender_id: self.sender_id,
            group_id: self.group_id,
            dedup_id: self.dedup_id,
            sequence_number: self.sequence_number,
            size: self.size,
            sent_epoch_ms: self.sent_epoch_ms,
            enqueued: ago(self.age_ms),
            receive_count: self.receive_count,
            first_receive_epoch_ms: self.first_receive_epoch_ms,
            visible_at: now + Duration::from_millis(self.hidden_for_ms),
            in_flight: self.in_flight,
            receive_nonce: 0,
            received_at: self.received_ms_ago.map(ago),
        }
    }
}

fn millis(d: Duration) -> u64 {
    d.as_millis().min(u64::MAX as u128) as u64
}
