//! The owner's side of the queue transport: answer a request message by
//! sending the reply to the caller's reply queue.

use std::future::Future;

use aws_lambda_events::sqs::{BatchItemFailure, SqsBatchResponse, SqsEvent};
use aws_sdk_sqs::Client;
use futures::future::join_all;
use serde_json::Value;

use crate::call::TransportError;
use crate::envelope::{now_ms, Reply, ReplyOutcome, Request};

/// What became of one request message.
#[derive(Debug, PartialEq, Eq)]
pub enum Answered {
    Replied,
    /// Nobody waits any more: the work was skipped and no reply sent.
    Expired,
}

/// Runs `handler` on the request in `body` and sends its outcome to the
/// request's reply queue. An `Err` means the message should be retried
/// (reported as a batch item failure); a malformed body is an `Err` too, so
/// that it ends in the dead-letter queue rather than vanishing.
pub async fn answer<F, Fut>(
    sqs: &Client,
    body: &str,
    handler: F,
) -> Result<Answered, TransportError>
where
    F: FnOnce(Value) -> Fut,
    Fut: Future<Output = Result<Value, (String, String)>>,
{
    let request: Request = serde_json::from_str(body)
        .map_err(|e| TransportError::BadAnswer(format!("malformed request: {e}")))?;
    if request.expires_at_ms < now_ms() {
        return Ok(Answered::Expired);
    }
    let outcome = match handler(request.payload).await {
        Ok(payload) => ReplyOutcome::Ok { payload },
        Err((error_type, message)) => ReplyOutcome::Error {
            error_type,
            message,
        },
    };
    let reply = Reply {
        correlation_id: request.correlation_id,
        outcome,
    };
    let reply_body =
        serde_json::to_string(&reply).map_err(|e| TransportError::BadAnswer(e.to_string()))?;
    sqs.send_message()
        .queue_url(&request.reply_to)
        .message_body(reply_body)
        .send()
        .await
        .map_err(|e| {
            TransportError::Unavailable(format!(
                "SendMessage to the reply queue: {}",
                aws_sdk_sqs::error::DisplayErrorContext(e)
            ))
        })?;
    Ok(Answered::Replied)
}

/// Answers every request of an SQS batch concurrently with `handler`. A
/// request that could not be answered (malformed, or its reply not sent) is
/// reported as a batch item failure, so that only it is retried and, after
/// `maxReceiveCount` receives, moved to the dead-letter queue.
pub async fn answer_batch<F, Fut>(sqs: &Client, batch: SqsEvent, handler: F) -> SqsBatchResponse
where
    F: Fn(Value) -> Fut,
    Fut: Future<Output = Result<Value, (String, String)>>,
{
    let handler = &handler;
    let outcomes = join_all(batch.records.into_iter().map(|record| async move {
        let id = record.message_id.unwrap_or_default();
        let body = record.body.unwrap_or_default();
        (id, answer(sqs, &body, handler).await)
    }))
    .await;
    let mut response = SqsBatchResponse::default();
    for (id, result) in outcomes {
        if let Err(e) = result {
            tracing::warn!(message_id = id, "request not answered, left for retry: {e}");
            let mut failure = BatchItemFailure::default();
            failure.item_identifier = id;
            response.batch_item_failures.push(failure);
        }
    }
    response
}
