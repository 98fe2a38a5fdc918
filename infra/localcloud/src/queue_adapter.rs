//! The SQS service seen through the contract the event source mapping pollers
//! use: the same (billed) calls a real poller makes.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use localcloud_core::{AwsError, MessageAttribute, QueueConsumer, QueueMessage};
use localcloud_sqs::{AttributeValue, ReceivedMessage, SqsService};

pub struct SqsConsumer(pub Arc<SqsService>);

#[async_trait]
impl QueueConsumer for SqsConsumer {
    async fn receive(
        &self,
        queue_arn: &str,
        max_messages: usize,
        wait: Duration,
    ) -> Result<Vec<QueueMessage>, AwsError> {
        let messages = self.0.receive(queue_arn, max_messages, wait, None).await?;
        Ok(messages.into_iter().map(to_queue_message).collect())
    }

    async fn delete(&self, queue_arn: &str, receipt_handles: &[String]) -> Result<(), AwsError> {
        // Per-entry failures (a handle gone stale) are not the poller's
        // concern: the message simply comes back, as on AWS.
        self.0.delete(queue_arn, receipt_handles).map(|_| ())
    }

    async fn visibility_timeout(&self, queue_arn: &str) -> Result<Duration, AwsError> {
        let queue = self.0.queue_by_arn(queue_arn)?;
        let seconds = queue.state.lock().settings.visibility_timeout;
        Ok(Duration::from_secs(u64::from(seconds)))
    }
}

fn to_queue_message(message: ReceivedMessage) -> QueueMessage {
    QueueMessage {
        message_id: message.message_id,
        receipt_handle: message.receipt_handle,
        body: message.body,
        md5_of_body: message.md5_of_body,
        md5_of_message_attributes: message.md5_of_message_attributes,
        attributes: message.attributes.into_iter().collect(),
        message_attributes: message
            .message_attributes
            .into_iter()
            .map(|(name, attribute)| {
                let (string_value, binary_value) = match attribute.value {
                    AttributeValue::String(s) => (Some(s), None),
                    AttributeValue::Binary(b) => (None, Some(b)),
                };
                MessageAttribute {
                    name,
                    data_type: attribute.data_type,
                    string_value,
                    binary_value,
                }
            })
            .collect(),
    }
}
