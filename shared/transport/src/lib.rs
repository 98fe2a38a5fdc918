//! How one function calls another, with the same interface for both
//! transports the experiments compare:
//!
//! - [`InvokeTransport`]: a synchronous Lambda `Invoke` (RequestResponse) of
//!   the owner's function; throttling surfaces at once as [`TransportError::Throttled`].
//! - [`RequestReply`]: the request goes to the owner's SQS request queue; the
//!   reply comes back on a reply queue that belongs to this execution
//!   environment, so it reaches exactly the waiting caller.
//!
//! Which transport a function uses, and to whom, is read from its environment
//! by [`settings`]; the worker side of the queue transport is in [`worker`],
//! the clean-up of reply queues (a scheduled function's job) in [`sweep`].

pub mod envelope;
pub mod invoke;
pub mod reply;
pub mod settings;
pub mod sweep;
pub mod worker;

pub use envelope::{Reply, ReplyOutcome, Request};
pub use invoke::InvokeTransport;
pub use reply::{RequestReply, RequestReplyConfig};
pub use settings::{SettingsError, TransportSettings, Via};

use serde_json::Value;

/// Why a call to another function failed. Callers map these to HTTP statuses.
#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    /// The callee's concurrency limit was hit (Lambda 429 `TooManyRequestsException`).
    #[error("the callee is throttled ({reason})")]
    Throttled { reason: String },
    /// No answer within the caller's wait limit.
    #[error("no answer within {waited_ms} ms")]
    Timeout { waited_ms: u64 },
    /// The callee ran and failed (`X-Amz-Function-Error`, or an error reply).
    #[error("the callee failed: {error_type}: {message}")]
    CalleeFailed { error_type: String, message: String },
    /// The transport itself failed (network, permissions, missing queue...).
    #[error("transport failure: {0}")]
    Unavailable(String),
    /// The callee's answer was not the JSON we expect.
    #[error("unexpected answer: {0}")]
    BadAnswer(String),
}

/// Anything that can carry one JSON request to the owner and bring back its
/// JSON answer; services depend on this, not on a transport.
#[allow(async_fn_in_trait)]
pub trait Transport: Send + Sync {
    fn call(
        &self,
        request: Value,
    ) -> impl std::future::Future<Output = Result<Value, TransportError>> + Send;
}

/// One of the two transports, chosen per deployment (`Transport` is not
/// object-safe, so this enum stands in for `dyn Transport`).
pub enum AnyTransport {
    Invoke(InvokeTransport),
    Queue(RequestReply),
}

impl Transport for AnyTransport {
    async fn call(&self, request: Value) -> Result<Value, TransportError> {
        match self {
            AnyTransport::Invoke(t) => t.call(request).await,
            AnyTransport::Queue(t) => t.call(request).await,
        }
    }
}
