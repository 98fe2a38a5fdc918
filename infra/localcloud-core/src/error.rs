//! Errors in the AWS JSON 1.0 shape: `{"__type": "...", "message": "..."}`.

use bytes::Bytes;
use http::{HeaderValue, StatusCode};
use serde_json::{Map, Value};

/// One error as an AWS service returns it. `type_name` is the full `__type`
/// (e.g. `com.amazonaws.dynamodb.v20120810#ResourceNotFoundException`).
#[derive(Debug, Clone, PartialEq)]
pub struct AwsError {
    pub status: StatusCode,
    pub type_name: String,
    pub message: String,
    /// Extra top-level members, e.g. `CancellationReasons` or `Item`.
    pub extra: Map<String, Value>,
    /// Extra response headers, e.g. SQS's `x-amzn-query-error`.
    pub headers: Vec<(String, String)>,
}

impl AwsError {
    pub fn new(
        status: StatusCode,
        type_name: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            status,
            type_name: type_name.into(),
            message: message.into(),
            extra: Map::new(),
            headers: Vec::new(),
        }
    }

    /// 400, the status of every client error in the JSON protocols.
    pub fn client(type_name: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, type_name, message)
    }

    pub fn with_extra(mut self, key: &str, value: Value) -> Self {
        self.extra.insert(key.to_string(), value);
        self
    }

    pub fn with_header(mut self, name: &str, value: impl Into<String>) -> Self {
        self.headers.push((name.to_string(), value.into()));
        self
    }

    /// The short name, after the `#`.
    pub fn code(&self) -> &str {
        self.type_name.rsplit('#').next().unwrap_or(&self.type_name)
    }

    pub fn body(&self) -> Bytes {
        let mut body = Map::new();
        body.insert("__type".into(), Value::String(self.type_name.clone()));
        body.insert("message".into(), Value::String(self.message.clone()));
        for (k, v) in &self.extra {
            body.insert(k.clone(), v.clone());
        }
        Bytes::from(serde_json::to_vec(&Value::Object(body)).expect("JSON map serialises"))
    }

    pub fn into_response(self, request_id: &str) -> crate::HttpResponse {
        let mut response = http::Response::builder()
            .status(self.status)
            .header("content-type", "application/x-amz-json-1.0")
            .header("x-amzn-requestid", request_id)
            .body(self.body())
            .expect("static response parts are valid");
        for (name, value) in &self.headers {
            if let (Ok(name), Ok(value)) = (
                http::header::HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(value),
            ) {
                response.headers_mut().insert(name, value);
            }
        }
        response
    }
}

impl std::fmt::Display for AwsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code(), self.message)
    }
}

impl std::error::Error for AwsError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_has_type_message_and_extras() {
        let err = AwsError::client(
            "com.amazonaws.dynamodb.v20120810#TransactionCanceledException",
            "cancelled",
        )
        .with_extra("CancellationReasons", serde_json::json!([{"Code": "None"}]));
        let body: Value = serde_json::from_slice(&err.body()).unwrap();
        assert_eq!(
            body["__type"],
            "com.amazonaws.dynamodb.v20120810#TransactionCanceledException"
        );
        assert_eq!(body["message"], "cancelled");
        assert_eq!(body["CancellationReasons"][0]["Code"], "None");
        assert_eq!(err.code(), "TransactionCanceledException");
    }

    #[test]
    fn response_carries_status_and_extra_headers() {
        let err = AwsError::client("com.amazonaws.sqs#QueueDoesNotExist", "no queue").with_header(
            "x-amzn-query-error",
            "AWS.SimpleQueueService.NonExistentQueue;Sender",
        );
        let response = err.into_response("rid");
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
        assert_eq!(
            response.headers()["x-amzn-query-error"],
            "AWS.SimpleQueueService.NonExistentQueue;Sender"
        );
        assert_eq!(response.headers()["x-amzn-requestid"], "rid");
    }
}
