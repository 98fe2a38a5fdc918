//! The contract between the Lambda service and its in-process callers (the API
//! Gateway, event source mappings, the Invoke API). The Lambda service
//! implements [`Invoker`]; callers depend only on this trait.

use async_trait::async_trait;
use bytes::Bytes;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InvocationType {
    /// Synchronous: the caller waits for the function's response.
    RequestResponse,
    /// Asynchronous: queued, retried by the service; the caller gets 202 at once.
    Event,
    /// Validation only: nothing runs; 204.
    DryRun,
}

#[derive(Debug, Clone)]
pub struct InvokeRequest {
    /// Name, full ARN or partial ARN, as the Invoke API accepts.
    pub function: String,
    pub payload: Bytes,
    pub invocation_type: InvocationType,
    /// Who is calling, for metering (e.g. `apigw:ConduitApi`, `esm:OrdersQueue`, `sdk`).
    pub caller: String,
}

impl InvokeRequest {
    pub fn sync(
        function: impl Into<String>,
        payload: impl Into<Bytes>,
        caller: impl Into<String>,
    ) -> Self {
        Self {
            function: function.into(),
            payload: payload.into(),
            invocation_type: InvocationType::RequestResponse,
            caller: caller.into(),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct InvokeResponse {
    pub request_id: String,
    /// The function's response, or its error document (`errorMessage`, `errorType`).
    pub payload: Bytes,
    /// `Some("Unhandled")` when the function failed, crashed or timed out: the
    /// Invoke API still answers 200 and sets `X-Amz-Function-Error`.
    pub function_error: Option<String>,
    /// HTTP status the Invoke API answers with: 200, 202 (Event) or 204 (DryRun).
    pub status: u16,
}

/// Failures before the function runs; the Invoke API maps them to HTTP errors.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvokeError {
    #[error("Function not found: {function}")]
    FunctionNotFound { function: String },
    /// 429 `TooManyRequestsException`; `reason` is AWS's, e.g.
    /// `ReservedFunctionConcurrentInvocationLimitExceeded` or
    /// `ConcurrentInvocationLimitExceeded`.
    #[error("Rate Exceeded. ({reason})")]
    Throttled { reason: String },
    /// 413 `RequestTooLargeException` (6 MB synchronous, 1 MB asynchronous payloads).
    #[error("Request must be smaller than {limit} bytes for the {kind} invocation type")]
    RequestTooLarge { limit: usize, kind: &'static str },
    /// The service could not take the invocation (e.g. 503 `ServiceException`
    /// while shutting down). Failures of the function itself, init failures
    /// included, are not errors here: they come back as a 200 response with
    /// `function_error`, as on AWS.
    #[error("{code}: {message}")]
    Service {
        status: u16,
        code: String,
        message: String,
    },
}

#[async_trait]
pub trait Invoker: Send + Sync + 'static {
    async fn invoke(&self, request: InvokeRequest) -> Result<InvokeResponse, InvokeError>;
}
