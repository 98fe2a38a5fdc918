//! The contract between the SQS service and the Lambda event source mapping
//! pollers. The pollers make the same (billed) requests a real poller makes.

use std::time::Duration;

use async_trait::async_trait;

use crate::AwsError;

/// One message attribute as the SQS event record carries it.
#[derive(Debug, Clone, PartialEq)]
pub struct MessageAttribute {
    pub name: String,
    /// `String`, `Number`, `Binary`, or those with a custom suffix (`Number.int`).
    pub data_type: String,
    pub string_value: Option<String>,
    pub binary_value: Option<Vec<u8>>,
}

/// A received message with everything the Lambda SQS event record needs.
#[derive(Debug, Clone, PartialEq)]
pub struct QueueMessage {
    pub message_id: String,
    pub receipt_handle: String,
    pub body: String,
    pub md5_of_body: String,
    pub md5_of_message_attributes: Option<String>,
    /// System attributes: `ApproximateReceiveCount`, `SentTimestamp`, `SenderId`,
    /// `ApproximateFirstReceiveTimestamp`, and for FIFO `MessageGroupId`,
    /// `MessageDeduplicationId`, `SequenceNumber`.
    pub attributes: Vec<(String, String)>,
    pub message_attributes: Vec<MessageAttribute>,
}

#[async_trait]
pub trait QueueConsumer: Send + Sync + 'static {
    /// One `ReceiveMessage` call (long polling up to `wait`), billed like one.
    async fn receive(
        &self,
        queue_arn: &str,
        max_messages: usize,
        wait: Duration,
    ) -> Result<Vec<QueueMessage>, AwsError>;

    /// One `DeleteMessageBatch` call (at most 10 handles per call).
    async fn delete(&self, queue_arn: &str, receipt_handles: &[String]) -> Result<(), AwsError>;

    /// The queue's visibility timeout, which bounds a batch's processing time.
    async fn visibility_timeout(&self, queue_arn: &str) -> Result<Duration, AwsError>;
}
