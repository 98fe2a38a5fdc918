//! The AWS JSON 1.0 front of the service (`X-Amz-Target: AmazonSQS.<Op>`):
//! reads each operation's members, calls [`SqsService`], writes the response.
//! Imports point down: `input.rs` (request members) and `queue_url.rs` (the queue a
//! request names) at the bottom, `queues.rs` and `messages.rs` (the operations) on
//! them, this file (the router) on top.

mod input;
mod messages;
mod queue_url;
mod queues;

use async_trait::async_trait;
use bytes::Bytes;

use crate::error;
use crate::service::SqsService;
use input::Input;
use localcloud_core::{AwsError, JsonService, RequestContext};

#[async_trait]
impl JsonService for SqsService {
    fn target_prefix(&self) -> &'static str {
        "AmazonSQS"
    }

    fn service_name(&self) -> &'static str {
        "sqs"
    }

    async fn handle(
        &self,
        ctx: &RequestContext,
        operation: &str,
        body: Bytes,
    ) -> Result<Bytes, AwsError> {
        let input = Input::parse(&body).inspect_err(|_| self.unattributed_call())?;
        let output = match operation {
            "CreateQueue" => queues::create_queue(self, ctx, &input),
            "GetQueueUrl" => queues::get_queue_url(self, ctx, &input),
            "ListQueues" => queues::list_queues(self, ctx, &input),
            "DeleteQueue" => queues::delete_queue(self, ctx, &input),
            "PurgeQueue" => queues::purge_queue(self, ctx, &input),
            "GetQueueAttributes" => queues::get_queue_attributes(self, ctx, &input),
            "SetQueueAttributes" => queues::set_queue_attributes(self, ctx, &input),
            "TagQueue" => queues::tag_queue(self, ctx, &input),
            "UntagQueue" => queues::untag_queue(self, ctx, &input),
            "ListQueueTags" => queues::list_queue_tags(self, ctx, &input),
            "ListDeadLetterSourceQueues" => {
                queues::list_dead_letter_source_queues(self, ctx, &input)
            }
            "SendMessage" => messages::send_message(self, ctx, &input),
            "SendMessageBatch" => messages::send_message_batch(self, ctx, &input),
            "ReceiveMessage" => messages::receive_message(self, ctx, &input).await,
            "DeleteMessage" => messages::delete_message(self, ctx, &input),
            "DeleteMessageBatch" => messages::delete_message_batch(self, ctx, &input),
            "ChangeMessageVisibility" => messages::change_message_visibility(self, ctx, &input),
            "ChangeMessageVisibilityBatch" => {
                messages::change_message_visibility_batch(self, ctx, &input)
            }
            "AddPermission" => queues::add_permission(self, ctx, &input),
            "RemovePermission" => queues::remove_permission(self, ctx, &input),
            "StartMessageMoveTask" | "CancelMessageMoveTask" | "ListMessageMoveTasks" => {
                self.unattributed_call();
                Err(error::unsupported_operation(format!(
                    "{operation} is not supported by the local cloud"
                )))
            }
            other => {
                self.unattributed_call();
                Err(self.unknown_operation(other))
            }
        }?;
        Ok(Bytes::from(
            serde_json::to_vec(&output).expect("JSON values serialise"),
        ))
    }
}
