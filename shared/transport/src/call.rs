//! What every transport is: one JSON request carried to the owner and its
//! JSON answer brought back, or why that failed.

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
