//! [`QueueConsumer`], the core's contract for the Lambda event source mapping
//! pollers: the same calls, semantics and billing as the JSON API's
//! ReceiveMessage and DeleteMessageBatch.

use std::time::Duration;

use async_trait::async_trait;
use localcloud_core::{AwsError, MessageAttribute, QueueConsumer, QueueMessage};

use crate::error;
use crate::message_attrs::AttributeValue;
use crate::service::{ReceivedMessage, SqsService};

#[async_trait]
impl QueueConsumer for SqsService {
    async fn receive(
        &self,
        queue_arn: &str,
        max_messages: usize,
        wait: Duration,
    ) -> Result<Vec<QueueMessage>, AwsError> {
        let received = SqsService::receive(self, queue_arn, max_messages, wait, None).await?;
        Ok(received.into_iter().map(to_queue_message).collect())
    }

    /// One DeleteMessageBatch of 1 to 10 handles. Per-entry failures (a
    /// stale FIFO handle) are not the poller's concern: the message comes
    /// back, as on AWS.
    async fn delete(&self, queue_arn: &str, receipt_handles: &[String]) -> Result<(), AwsError> {
        if receipt_handles.is_empty() {
            return Err(error::empty_batch_request("DeleteMessageBatchRequestEntry"));
        }
        if receipt_handles.len() > 10 {
            return Err(error::too_many_entries(receipt_handles.len()));
        }
        SqsService::delete(self, queue_arn, receipt_handles).map(|_| ())
    }

    /// Read internally, as Lambda does; not a billed GetQueueAttributes.
    async fn visibility_timeout(&self, queue_arn: &str) -> Result<Duration, AwsError> {
        let queue = self.queue_by_arn(queue_arn)?;
        let seconds = queue.state.lock().settings.visibility_timeout;
        Ok(Duration::from_secs(seconds as u64))
    }
}

fn to_queue_message(m: ReceivedMessage) -> QueueMessage {
    QueueMessage {
        message_id: m.message_id,
        receipt_handle: m.receipt_handle,
        body: m.body,
        md5_of_body: m.md5_of_body,
        md5_of_message_attributes: m.md5_of_message_attributes,
        attributes: m.attributes.into_iter().collect(),
        message_attributes: m
            .message_attributes
            .into_iter()
            .map(|(name, a)| {
                let (string_value, binary_value) = match a.value {
                    AttributeValue::String(s) => (Some(s), None),
                    AttributeValue::Binary(b) => (None, Some(b)),
                };
                MessageAttribute {
                    name,
                    data_type: a.data_type,
                    string_value,
                    binary_value,
                }
            })
            .collect(),
    }
}
