//! Synchronous Lambda `Invoke` of the owner's function.

use std::time::Duration;

use aws_sdk_lambda::error::SdkError;
use aws_sdk_lambda::operation::invoke::InvokeError;
use aws_sdk_lambda::primitives::Blob;
use serde_json::Value;

use crate::call::{Transport, TransportError};

pub struct InvokeTransport {
    client: aws_sdk_lambda::Client,
    function: String,
}

impl InvokeTransport {
    pub fn new(client: aws_sdk_lambda::Client, function: impl Into<String>) -> Self {
        Self {
            client,
            function: function.into(),
        }
    }

    /// A Lambda client with an explicit retry policy and timeout. With
    /// `max_attempts = 1` a throttle reaches the caller at once instead of
    /// being retried by the SDK (whose default is 3 attempts with backoff):
    /// the experiments must see the callee's limit, not the SDK's patience.
    pub fn client(
        config: &aws_config::SdkConfig,
        max_attempts: u32,
        timeout: Duration,
    ) -> aws_sdk_lambda::Client {
        let lambda_config = aws_sdk_lambda::config::Builder::from(config)
            .retry_config(
                aws_sdk_lambda::config::retry::RetryConfig::standard()
                    .with_max_attempts(max_attempts.max(1)),
            )
            .timeout_config(
                aws_sdk_lambda::config::timeout::TimeoutConfig::builder()
                    .operation_timeout(timeout)
                    .build(),
            )
            .build();
        aws_sdk_lambda::Client::from_conf(lambda_config)
    }
}

impl Transport for InvokeTransport {
    async fn call(&self, request: Value) -> Result<Value, TransportError> {
        let body =
            serde_json::to_vec(&request).map_err(|e| TransportError::BadAnswer(e.to_string()))?;
        let output = self
            .client
            .invoke()
            .function_name(&self.function)
            .payload(Blob::new(body))
            .send()
            .await
            .map_err(map_sdk_error)?;
        let payload = output.payload.map(Blob::into_inner).unwrap_or_default();
        if let Some(kind) = output.function_error {
            let error: Value = serde_json::from_slice(&payload).unwrap_or(Value::Null);
            return Err(TransportError::CalleeFailed {
                error_type: error["errorType"].as_str().unwrap_or(&kind).to_string(),
                message: error["errorMessage"].as_str().unwrap_or("").to_string(),
            });
        }
        serde_json::from_slice(&payload).map_err(|e| TransportError::BadAnswer(e.to_string()))
    }
}

fn map_sdk_error(error: SdkError<InvokeError>) -> TransportError {
    match &error {
        SdkError::ServiceError(service) => match service.err() {
            InvokeError::TooManyRequestsException(e) => TransportError::Throttled {
                reason: e
                    .reason()
                    .map(|r| r.as_str().to_string())
                    .unwrap_or_else(|| "TooManyRequestsException".into()),
            },
            other => TransportError::Unavailable(format!(
                "{}",
                aws_sdk_lambda::error::DisplayErrorContext(other)
            )),
        },
        SdkError::TimeoutError(_) => TransportError::Timeout { waited_ms: 0 },
        _ => TransportError::Unavailable(format!(
            "{}",
            aws_sdk_lambda::error::DisplayErrorContext(&error)
        )),
    }
}
