//! In-process API for the Lambda event source mapping pollers: the same
//! semantics and billing as ReceiveMessage, DeleteMessageBatch and
//! ChangeMessageVisibilityBatch, addressed by queue ARN.

use std::time::Duration;

use crate::service::{ReceivedMessage, SendRequest, SendResult, SqsService};
use localcloud_core::AwsError;

impl SqsService {
    /// Receives up to `max` (1-10) messages from the queue `queue_arn`.
    pub async fn receive(
        &self,
        queue_arn: &str,
        max: usize,
        wait: Duration,
        visibility: Option<Duration>,
    ) -> Result<Vec<ReceivedMessage>, AwsError> {
        let queue = self.queue_by_arn(queue_arn)?;
        self.receive_from(&queue, max, wait, visibility).await
    }

    /// Deletes by receipt handles, billed as one DeleteMessageBatch.
    pub fn delete(
        &self,
        queue_arn: &str,
        receipt_handles: &[String],
    ) -> Result<Vec<Result<(), AwsError>>, AwsError> {
        let queue = self.queue_by_arn(queue_arn)?;
        Ok(self.delete_from(&queue, "DeleteMessageBatch", receipt_handles))
    }

    /// Changes visibility timeouts, billed as one ChangeMessageVisibilityBatch.
    pub fn change_visibility(
        &self,
        queue_arn: &str,
        entries: &[(String, Duration)],
    ) -> Result<Vec<Result<(), AwsError>>, AwsError> {
        let queue = self.queue_by_arn(queue_arn)?;
        let entries: Vec<(String, u32)> = entries
            .iter()
            .map(|(h, d)| (h.clone(), d.as_secs().min(u32::MAX as u64) as u32))
            .collect();
        Ok(self.change_visibility_of(&queue, "ChangeMessageVisibilityBatch", &entries))
    }

    /// Sends one message by queue ARN (tests, other services).
    pub fn send_message(
        &self,
        queue_arn: &str,
        request: SendRequest,
    ) -> Result<SendResult, AwsError> {
        let queue = self.queue_by_arn(queue_arn)?;
        self.send(&queue, "SendMessage", vec![request])
            .pop()
            .expect("one result per request")
    }
}
