//! One queue's messages and their life cycle: delayed, visible, in flight,
//! deleted, expired or moved to the dead-letter queue. Pure state under one
//! lock; time is passed in so the rules are testable without sleeping.
//!
//! Expiry is lazy: every operation first drops the messages older than the
//! retention period, the oldest first, whatever their state. SQS "automatically
//! deletes messages left in a queue longer than the retention period"
//! (<https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_DeleteMessage.html>),
//! and a received message "remains in the queue" while it is hidden
//! (<https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-visibility-timeout.html>),
//! so a message in flight past its retention is gone too: it is no longer
//! counted, never becomes visible again, and its receipt handle refers to a
//! message that no longer exists.

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, HashMap};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tokio::time::Instant;

use crate::message_attrs::MessageAttributes;
use crate::settings::QueueSettings;

/// FIFO deduplication interval.
pub const DEDUP_WINDOW: Duration = Duration::from_secs(300);

/// The longest a received message can stay hidden, counted from the receive.
pub const MAX_HIDDEN: Duration = Duration::from_secs(43_200);

/// Stale entries `pending` may hold beyond twice the live messages before it
/// is compacted (deleted or expired messages leave their entry behind, for up
/// to 12 hours with a long visibility timeout).
const PENDING_SLACK: usize = 1024;

#[derive(Debug, Clone)]
pub struct Message {
    pub message_id: String,
    pub body: String,
    pub md5_of_body: String,
    pub attributes: MessageAttributes,
    pub md5_of_attributes: Option<String>,
    pub system_attributes: MessageAttributes,
    pub md5_of_system_attributes: Option<String>,
    pub sender_id: String,
    pub group_id: Option<String>,
    pub dedup_id: Option<String>,
    pub sequence_number: Option<String>,
    /// Body plus attributes, in bytes: what SQS bills and limits.
    pub size: usize,
    pub sent_epoch_ms: u64,
    pub enqueued: Instant,
    pub receive_count: u32,
    pub first_receive_epoch_ms: Option<u64>,
    pub visible_at: Instant,
    pub in_flight: bool,
    /// Changes on every receive; part of the receipt handle.
    pub receive_nonce: u64,
    /// When the current receive happened: a message may stay hidden for at
    /// most 12 hours from then.
    pub received_at: Option<Instant>,
}

/// A message handed out by a receive, with its receipt handle parts.
#[derive(Debug, Clone)]
pub struct Taken {
    pub seq: u64,
    pub message: Message,
}

/// Outcome of a send, as the response reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sent {
    pub message_id: String,
    pub sequence_number: Option<String>,
}

/// Outcome of a delete or visibility change by receipt handle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HandleOutcome {
    Done,
    /// Deleting a message that is already gone succeeds, as on AWS.
    AlreadyGone,
    /// FIFO: the handle is from an earlier receive or its visibility expired.
    Expired,
    NotInFlight,
    /// The new timeout would end more than 12 hours after the receive.
    BeyondTwelveHours,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    pub visible: usize,
    pub not_visible: usize,
    pub delayed: usize,
}

pub struct QueueState {
    pub settings: QueueSettings,
    pub created_epoch_s: u64,
    pub modified_epoch_s: u64,
    pub last_purge: Option<Instant>,
    messages: HashMap<u64, Message>,
    /// Visible messages in send order (FIFO order for FIFO queues).
    ready: BTreeSet<u64>,
    /// Delayed or in-flight messages by the time they become visible; entries
    /// whose message changed since are skipped when popped.
    pending: BinaryHeap<Reverse<(Instant, u64)>>,
    /// Every message by the time it was enqueued: the oldest are the first
    /// to pass the retention period.
    by_age: BTreeSet<(Instant, u64)>,
    in_flight: usize,
    inflight_groups: HashMap<String, usize>,
    dedup: HashMap<String, (Instant, Sent)>,
    next_seq: u64,
    next_nonce: u64,
}

pub fn epoch_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

impl QueueState {
    pub fn new(settings: QueueSettings) -> Self {
        let now_s = epoch_ms() / 1000;
        Self {
            settings,
            created_epoch_s: now_s,
            modified_epoch_s: now_s,
            last_purge: None,
            messages: HashMap::new(),
            ready: BTreeSet::new(),
            pending: BinaryHeap::new(),
            by_age: BTreeSet::new(),
            in_flight: 0,
            inflight_groups: HashMap::new(),
            dedup: HashMap::new(),
            next_seq: 1,
            next_nonce: 1,
        }
    }

    /// For FIFO queues: the earlier send when this deduplication id was used
    /// within the last five minutes.
    pub fn deduplicated(&mut self, dedup_id: &str, now: Instant) -> Option<Sent> {
        self.dedup
            .retain(|_, (at, _)| now.duration_since(*at) < DEDUP_WINDOW);
        self.dedup.get(dedup_id).map(|(_, sent)| sent.clone())
    }

    /// Enqueues a message that becomes visible after `delay`.
    pub fn push(&mut self, mut message: Message, delay: Duration, now: Instant) -> Sent {
        self.catch_up(now);
        let seq = self.next_seq;
        self.next_seq += 1;
        if self.settings.fifo {
            message.sequence_number = Some(format!(
                "{:020}",
                18_000_000_000_000_000_000u128 + seq as u128
            ));
        }
        let sent = Sent {
            message_id: message.message_id.clone(),
            sequence_number: message.sequence_number.clone(),
        };
        if let Some(id) = &message.dedup_id {
            self.dedup.insert(id.clone(), (now, sent.clone()));
        }
        message.enqueued = now;
        message.visible_at = now + delay;
        message.in_flight = false;
        if delay.is_zero() {
            self.ready.insert(seq);
        } else {
            self.pending.push(Reverse((message.visible_at, seq)));
        }
        self.insert(seq, message);
        sent
    }

    fn insert(&mut self, seq: u64, message: Message) {
        self.by_age.insert((message.enqueued, seq));
        self.messages.insert(seq, message);
    }

    /// Brings the queue up to `now`: drops expired messages, makes visible
    /// those whose delay or visibility timeout has passed.
    fn catch_up(&mut self, now: Instant) {
        self.drop_expired(now);
        self.promote(now);
        self.compact_pending();
    }

    fn retention(&self) -> Duration {
        Duration::from_secs(self.settings.message_retention_period as u64)
    }

    /// Removes every message past the retention period, visible, delayed or
    /// in flight alike.
    fn drop_expired(&mut self, now: Instant) {
        let retention = self.retention();
        while let Some(&(enqueued, seq)) = self.by_age.first() {
            if now.duration_since(enqueued) < retention {
                break;
            }
            self.remove(seq);
        }
    }

    /// Drops the entries of messages that are gone or changed since, once
    /// they outnumber the live ones (amortised: each compaction is paid for
    /// by the stale entries it removes).
    fn compact_pending(&mut self) {
        if self.pending.len() <= 2 * self.messages.len() + PENDING_SLACK {
            return;
        }
        let messages = &self.messages;
        self.pending
            .retain(|Reverse((at, seq))| messages.get(seq).is_some_and(|m| m.visible_at == *at));
    }

    /// Moves messages whose delay or visibility timeout has passed back to
    /// the visible set.
    fn promote(&mut self, now: Instant) {
        while let Some(Reverse((at, seq))) = self.pending.peek().copied() {
            if at > now {
                break;
            }
            self.pending.pop();
            let Some(message) = self.messages.get_mut(&seq) else {
                continue;
            };
            if message.visible_at != at || self.ready.contains(&seq) {
                continue;
            }
            if message.in_flight {
                message.in_flight = false;
                self.in_flight -= 1;
                release_group(&mut self.inflight_groups, message.group_id.as_deref());
            }
            self.ready.insert(seq);
        }
    }

    /// The next instant a hidden message becomes visible, to bound a long poll.
    pub fn next_wake(&self) -> Option<Instant> {
        self.pending.peek().map(|Reverse((at, _))| *at)
    }

    /// Receives up to `max` messages, hiding them for `visibility`. Messages
    /// already received `maxReceiveCount` times are removed and returned in
    /// the second list, for the caller to move to the dead-letter queue.
    pub fn receive(
        &mut self,
        max: usize,
        visibility: Duration,
        now: Instant,
    ) -> (Vec<Taken>, Vec<Message>) {
        self.catch_up(now);
        let max_receives = self
            .settings
            .redrive_policy
            .as_ref()
            .map(|p| p.max_receive_count);
        let mut taken_groups: Vec<String> = Vec::new();
        let mut chosen = Vec::new();
        let mut to_dlq = Vec::new();
        for &seq in &self.ready {
            if chosen.len() >= max {
                break;
            }
            let message = &self.messages[&seq];
            if let Some(group) = message.group_id.as_deref().filter(|_| self.settings.fifo) {
                let blocked = self.inflight_groups.contains_key(group)
                    && !taken_groups.iter().any(|g| g == group);
                if blocked {
                    continue;
                }
                if !taken_groups.iter().any(|g| g == group) {
                    taken_groups.push(group.to_string());
                }
            }
            if max_receives.is_some_and(|limit| message.receive_count >= limit) {
                to_dlq.push(seq);
                continue;
            }
            chosen.push(seq);
        }
        let moved = to_dlq
            .into_iter()
            .filter_map(|seq| self.remove(seq))
            .collect();
        let taken = chosen
            .into_iter()
            .map(|seq| self.take(seq, visibility, now))
            .collect();
        (taken, moved)
    }

    fn take(&mut self, seq: u64, visibility: Duration, now: Instant) -> Taken {
        self.ready.remove(&seq);
        let nonce = self.next_nonce;
        self.next_nonce += 1;
        let message = self.messages.get_mut(&seq).expect("ready messages exist");
        message.receive_count += 1;
        message.first_receive_epoch_ms.get_or_insert_with(epoch_ms);
        message.receive_nonce = nonce;
        message.received_at = Some(now);
        message.in_flight = true;
        message.visible_at = now + visibility;
        self.in_flight += 1;
        if let Some(group) = &message.group_id {
            *self.inflight_groups.entry(group.clone()).or_default() += 1;
        }
        self.pending.push(Reverse((message.visible_at, seq)));
        Taken {
            seq,
            message: message.clone(),
        }
    }

    /// Deletes by receipt handle. Standard queues accept a handle from an
    /// earlier receive of the same message; FIFO queues only the latest one,
    /// while the message is still in flight.
    pub fn delete(&mut self, seq: u64, nonce: u64, now: Instant) -> HandleOutcome {
        self.catch_up(now);
        let Some(message) = self.messages.get(&seq) else {
            return HandleOutcome::AlreadyGone;
        };
        if self.settings.fifo && (message.receive_nonce != nonce || !message.in_flight) {
            return HandleOutcome::Expired;
        }
        self.remove(seq);
        HandleOutcome::Done
    }

    fn remove(&mut self, seq: u64) -> Option<Message> {
        let message = self.messages.remove(&seq)?;
        self.ready.remove(&seq);
        self.by_age.remove(&(message.enqueued, seq));
        if message.in_flight {
            self.in_flight -= 1;
            release_group(&mut self.inflight_groups, message.group_id.as_deref());
        }
        Some(message)
    }

    /// Changes the visibility timeout of an in-flight message, counted from now.
    pub fn change_visibility(
        &mut self,
        seq: u64,
        nonce: u64,
        timeout: Duration,
        now: Instant,
    ) -> HandleOutcome {
        self.catch_up(now);
        let fifo = self.settings.fifo;
        let Some(message) = self.messages.get_mut(&seq) else {
            return HandleOutcome::AlreadyGone;
        };
        if fifo && message.receive_nonce != nonce {
            return HandleOutcome::Expired;
        }
        if !message.in_flight {
            return HandleOutcome::NotInFlight;
        }
        let since_receive = message
            .received_at
            .map_or(Duration::ZERO, |at| now.duration_since(at));
        if since_receive + timeout > MAX_HIDDEN {
            return HandleOutcome::BeyondTwelveHours;
        }
        message.visible_at = now + timeout;
        self.pending.push(Reverse((message.visible_at, seq)));
        if timeout.is_zero() {
            self.promote(now);
        }
        HandleOutcome::Done
    }

    /// Adds a message moved here from a source queue's redrive: it keeps its
    /// id, body and sent time, and starts visible with no receives.
    pub fn accept_dead_letter(&mut self, mut message: Message, now: Instant) {
        message.receive_count = 0;
        message.first_receive_epoch_ms = None;
        message.in_flight = false;
        let seq = self.next_seq;
        self.next_seq += 1;
        message.visible_at = now;
        self.insert(seq, message);
        self.ready.insert(seq);
    }

    /// Every message with its sequence number, in send order (for snapshots).
    pub fn messages_in_order(&self) -> Vec<(u64, &Message)> {
        let mut all: Vec<(u64, &Message)> = self.messages.iter().map(|(s, m)| (*s, m)).collect();
        all.sort_by_key(|(seq, _)| *seq);
        all
    }

    /// Puts back a message from a snapshot under its sequence number: in
    /// flight, delayed or visible as its `in_flight` and `visible_at` say.
    pub fn restore(&mut self, seq: u64, message: Message, now: Instant) {
        self.next_seq = self.next_seq.max(seq + 1);
        if message.in_flight {
            self.in_flight += 1;
            if let Some(group) = &message.group_id {
                *self.inflight_groups.entry(group.clone()).or_default() += 1;
            }
        }
        if message.in_flight || message.visible_at > now {
            self.pending.push(Reverse((message.visible_at, seq)));
        } else {
            self.ready.insert(seq);
        }
        self.insert(seq, message);
    }

    /// Drops every message (PurgeQueue).
    pub fn purge(&mut self) -> usize {
        let n = self.messages.len();
        self.messages.clear();
        self.ready.clear();
        self.pending.clear();
        self.by_age.clear();
        self.in_flight = 0;
        self.inflight_groups.clear();
        n
    }

    /// Approximate counts after dropping expired messages.
    pub fn counts(&mut self, now: Instant) -> Counts {
        self.catch_up(now);
        Counts {
            visible: self.ready.len(),
            not_visible: self.in_flight,
            delayed: self.messages.len() - self.ready.len() - self.in_flight,
        }
    }
}

fn release_group(groups: &mut HashMap<String, usize>, group: Option<&str>) {
    let Some(group) = group else { return };
    if let Some(n) = groups.get_mut(group) {
        *n -= 1;
        if *n == 0 {
            groups.remove(group);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::RedrivePolicy;

    fn message(body: &str, group: Option<&str>) -> Message {
        let now = Instant::now();
        Message {
            message_id: format!("id-{body}"),
            body: body.to_string(),
            md5_of_body: String::new(),
            attributes: MessageAttributes::new(),
            md5_of_attributes: None,
            system_attributes: MessageAttributes::new(),
            md5_of_system_attributes: None,
            sender_id: "000000000000".into(),
            group_id: group.map(str::to_owned),
            dedup_id: None,
            sequence_number: None,
            size: body.len(),
            sent_epoch_ms: 0,
            enqueued: now,
            receive_count: 0,
            first_receive_epoch_ms: None,
            visible_at: now,
            in_flight: false,
            receive_nonce: 0,
            received_at: None,
        }
    }

    fn bodies(taken: &[Taken]) -> Vec<&str> {
        taken.iter().map(|t| t.message.body.as_str()).collect()
    }

    const VIS: Duration = Duration::from_secs(30);

    #[test]
    fn received_message_is_hidden_until_its_visibility_timeout_passes() {
        let mut q = QueueState::new(QueueSettings::new(false));
        let t0 = Instant::now();
        q.push(message("a", None), Duration::ZERO, t0);
        let (first, _) = q.receive(10, VIS, t0);
        assert_eq!(bodies(&first), ["a"]);
        assert!(q
            .receive(10, VIS, t0 + Duration::from_secs(29))
            .0
            .is_empty());
        let (again, _) = q.receive(10, VIS, t0 + Duration::from_secs(30));
        assert_eq!(again[0].message.receive_count, 2);
    }

    #[test]
    fn delayed_message_counts_as_delayed_then_visible() {
        let mut q = QueueState::new(QueueSettings::new(false));
        let t0 = Instant::now();
        q.push(message("a", None), Duration::from_secs(5), t0);
        assert_eq!(
            q.counts(t0),
            Counts {
                visible: 0,
                not_visible: 0,
                delayed: 1
            }
        );
        assert!(q.receive(1, VIS, t0).0.is_empty());
        assert_eq!(q.counts(t0 + Duration::from_secs(5)).visible, 1);
    }

    #[test]
    fn standard_queue_deletes_with_a_stale_handle_fifo_does_not() {
        let t0 = Instant::now();
        let mut std_q = QueueState::new(QueueSettings::new(false));
        std_q.push(message("a", None), Duration::ZERO, t0);
        let old = std_q.receive(1, Duration::ZERO, t0).0.remove(0);
        let _new = std_q.receive(1, VIS, t0).0.remove(0);
        assert_eq!(
            std_q.delete(old.seq, old.message.receive_nonce, t0),
            HandleOutcome::Done
        );
        assert_eq!(std_q.counts(t0), Counts::default());

        let mut fifo = QueueState::new(QueueSettings::new(true));
        fifo.push(message("a", Some("g")), Duration::ZERO, t0);
        let old = fifo.receive(1, Duration::ZERO, t0).0.remove(0);
        let new = fifo.receive(1, VIS, t0).0.remove(0);
        assert_eq!(
            fifo.delete(old.seq, old.message.receive_nonce, t0),
            HandleOutcome::Expired
        );
        assert_eq!(
            fifo.delete(new.seq, new.message.receive_nonce, t0),
            HandleOutcome::Done
        );
        assert_eq!(
            fifo.delete(new.seq, new.message.receive_nonce, t0),
            HandleOutcome::AlreadyGone
        );
    }

    #[test]
    fn fifo_group_is_blocked_while_one_of_its_messages_is_in_flight() {
        let t0 = Instant::now();
        let mut q = QueueState::new(QueueSettings::new(true));
        for (body, group) in [("a1", "a"), ("b1", "b"), ("a2", "a"), ("b2", "b")] {
            q.push(message(body, Some(group)), Duration::ZERO, t0);
        }
        let first = q.receive(1, VIS, t0).0;
        assert_eq!(bodies(&first), ["a1"]);
        let second = q.receive(10, VIS, t0).0;
        assert_eq!(bodies(&second), ["b1", "b2"], "group a stays blocked");
        let f = &first[0];
        q.delete(f.seq, f.message.receive_nonce, t0);
        assert_eq!(bodies(&q.receive(10, VIS, t0).0), ["a2"]);
    }

    #[test]
    fn fifo_message_returning_from_flight_keeps_its_place_in_the_group() {
        let t0 = Instant::now();
        let mut q = QueueState::new(QueueSettings::new(true));
        q.push(message("1", Some("g")), Duration::ZERO, t0);
        q.push(message("2", Some("g")), Duration::ZERO, t0);
        q.receive(1, Duration::from_secs(1), t0);
        let again = q.receive(10, VIS, t0 + Duration::from_secs(1)).0;
        assert_eq!(bodies(&again), ["1", "2"]);
        assert!(q
            .push(message("3", Some("g")), Duration::ZERO, t0)
            .sequence_number
            .is_some());
    }

    #[test]
    fn message_moves_out_after_max_receive_count_receives() {
        let t0 = Instant::now();
        let mut settings = QueueSettings::new(false);
        settings.redrive_policy = Some(RedrivePolicy {
            dead_letter_target_arn: "arn".into(),
            max_receive_count: 2,
        });
        let mut q = QueueState::new(settings);
        q.push(message("a", None), Duration::ZERO, t0);
        assert_eq!(q.receive(1, Duration::ZERO, t0).0.len(), 1);
        assert_eq!(q.receive(1, Duration::ZERO, t0).0.len(), 1);
        let (taken, moved) = q.receive(1, Duration::ZERO, t0);
        assert!(taken.is_empty());
        assert_eq!(moved.len(), 1);
        assert_eq!(q.counts(t0), Counts::default());
    }

    #[test]
    fn messages_past_retention_are_dropped() {
        let t0 = Instant::now();
        let mut settings = QueueSettings::new(false);
        settings.message_retention_period = 60;
        let mut q = QueueState::new(settings);
        q.push(message("a", None), Duration::ZERO, t0);
        assert!(q.receive(1, VIS, t0 + Duration::from_secs(60)).0.is_empty());
        assert_eq!(q.counts(t0 + Duration::from_secs(60)), Counts::default());
    }

    const MINUTE: Duration = Duration::from_secs(60);

    fn keeping_messages_a_minute(fifo: bool) -> QueueState {
        let mut settings = QueueSettings::new(fifo);
        settings.message_retention_period = 60;
        QueueState::new(settings)
    }

    #[test]
    fn messages_past_retention_are_gone_whether_visible_delayed_or_in_flight() {
        // GIVEN a visible, an in-flight (hidden for 12 hours) and a delayed message
        let t0 = Instant::now();
        let mut q = keeping_messages_a_minute(false);
        q.push(message("in flight", None), Duration::ZERO, t0);
        assert_eq!(q.receive(1, MAX_HIDDEN, t0).0.len(), 1);
        q.push(message("visible", None), Duration::ZERO, t0);
        q.push(message("delayed", None), Duration::from_secs(120), t0);
        let just_before = t0 + MINUTE - Duration::from_millis(1);
        assert_eq!(
            q.counts(just_before),
            Counts {
                visible: 1,
                not_visible: 1,
                delayed: 1
            }
        );
        // WHEN the retention period has passed
        // THEN none of them is counted, and none ever becomes visible again
        assert_eq!(q.counts(t0 + MINUTE), Counts::default());
        assert!(q.receive(10, VIS, t0 + MAX_HIDDEN).0.is_empty());
    }

    #[test]
    fn the_handle_of_a_message_expired_in_flight_names_a_message_that_is_gone() {
        // GIVEN a message received with a 12-hour visibility timeout
        let t0 = Instant::now();
        let mut q = keeping_messages_a_minute(false);
        q.push(message("a", None), Duration::ZERO, t0);
        let t = q.receive(1, MAX_HIDDEN, t0).0.remove(0);
        let nonce = t.message.receive_nonce;
        // WHEN its retention period has passed (nothing counted it meanwhile)
        let later = t0 + MINUTE;
        // THEN its handle cannot bring it back, and deleting it succeeds as
        // for any message already gone
        assert_eq!(
            q.change_visibility(t.seq, nonce, Duration::ZERO, later),
            HandleOutcome::AlreadyGone
        );
        assert_eq!(q.delete(t.seq, nonce, later), HandleOutcome::AlreadyGone);
        assert!(q.receive(10, VIS, later).0.is_empty());
    }

    #[test]
    fn fifo_message_expired_in_flight_no_longer_blocks_its_group() {
        // GIVEN a FIFO message in flight for 12 hours and the next of its group
        let t0 = Instant::now();
        let mut q = keeping_messages_a_minute(true);
        q.push(message("1", Some("g")), Duration::ZERO, t0);
        assert_eq!(bodies(&q.receive(1, MAX_HIDDEN, t0).0), ["1"]);
        q.push(message("2", Some("g")), Duration::ZERO, t0 + MINUTE / 2);
        // WHEN the first one's retention period has passed
        // THEN the group is free again
        assert_eq!(bodies(&q.receive(10, VIS, t0 + MINUTE).0), ["2"]);
    }

    #[test]
    fn entries_left_by_messages_expired_in_flight_do_not_pile_up() {
        // GIVEN many messages received with a 12-hour visibility timeout
        let t0 = Instant::now();
        let mut q = keeping_messages_a_minute(false);
        for i in 0..4 * PENDING_SLACK {
            q.push(message(&i.to_string(), None), Duration::ZERO, t0);
        }
        while !q.receive(10, MAX_HIDDEN, t0).0.is_empty() {}
        // WHEN they expire
        assert_eq!(q.counts(t0 + MINUTE), Counts::default());
        // THEN their visibility deadlines are not kept for 12 hours
        assert!(q.pending.len() <= PENDING_SLACK, "{}", q.pending.len());
    }

    #[test]
    fn visibility_change_needs_a_message_in_flight() {
        let t0 = Instant::now();
        let mut q = QueueState::new(QueueSettings::new(false));
        q.push(message("a", None), Duration::ZERO, t0);
        let t = q.receive(1, VIS, t0).0.remove(0);
        let nonce = t.message.receive_nonce;
        assert_eq!(
            q.change_visibility(t.seq, nonce, Duration::ZERO, t0),
            HandleOutcome::Done
        );
        assert_eq!(q.counts(t0).visible, 1);
        assert_eq!(
            q.change_visibility(t.seq, nonce, VIS, t0),
            HandleOutcome::NotInFlight
        );
    }

    #[test]
    fn visibility_cannot_extend_beyond_twelve_hours_from_the_receive() {
        let t0 = Instant::now();
        let mut q = QueueState::new(QueueSettings::new(false));
        q.push(message("a", None), Duration::ZERO, t0);
        let t = q.receive(1, VIS, t0).0.remove(0);
        let nonce = t.message.receive_nonce;
        let later = t0 + Duration::from_secs(20);
        assert_eq!(
            q.change_visibility(t.seq, nonce, MAX_HIDDEN, later),
            HandleOutcome::BeyondTwelveHours
        );
        let rest = MAX_HIDDEN - Duration::from_secs(20);
        assert_eq!(
            q.change_visibility(t.seq, nonce, rest, later),
            HandleOutcome::Done
        );
    }

    #[test]
    fn fifo_dedup_id_within_five_minutes_returns_the_first_send() {
        let t0 = Instant::now();
        let mut q = QueueState::new(QueueSettings::new(true));
        let mut m = message("a", Some("g"));
        m.dedup_id = Some("d".into());
        let first = q.push(m, Duration::ZERO, t0);
        assert_eq!(
            q.deduplicated("d", t0 + Duration::from_secs(299)),
            Some(first)
        );
        assert_eq!(q.deduplicated("d", t0 + DEDUP_WINDOW), None);
    }
}
