//! The owner's side of the queue transport: answer a request message by
//! sending the reply to the caller's reply queue.

use std::future::Future;

use aws_sdk_sqs::Client;
use serde_json::Value;

use crate::envelope::{now_ms, Reply, ReplyOutcome, Request};
use crate::TransportError;

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
