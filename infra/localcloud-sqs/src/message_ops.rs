//! Message operations of [`SqsService`]: send, receive (with long polling
//! and redrive), delete and visibility changes by receipt handle.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::time::Duration;

use tokio::time::Instant;

use crate::error;
use crate::handle::HandleParts;
use crate::message_attrs;
use crate::queue::{HandleOutcome, Message, Sent};
use crate::registry::Queue;
use crate::service::{ReceivedMessage, SendRequest, SendResult, SqsService};
use crate::settings::MAX_VISIBILITY_TIMEOUT;
use localcloud_core::AwsError;

impl SqsService {
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
        let target = target_arn.and_then(|arn| self.registry().by_arn(&arn).ok());
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
                    HandleOutcome::Expired
                    | HandleOutcome::NotInFlight
                    | HandleOutcome::BeyondTwelveHours => Err(error::receipt_handle_invalid(
                        "The receipt handle has expired.",
                    )),
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
                    HandleOutcome::BeyondTwelveHours => Err(error::invalid_parameter_value(format!(
                        "Value {seconds} for parameter VisibilityTimeout is invalid. Reason: Total VisibilityTimeout for the message is beyond the limit [43200 seconds]"
                    ))),
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
}
