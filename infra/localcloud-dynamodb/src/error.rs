//! DynamoDB's errors, named and worded as AWS returns them.

use localcloud_core::AwsError;
use serde_json::Value;

const PREFIX: &str = "com.amazonaws.dynamodb.v20120810#";

/// The one error type of this crate; every variant maps to one AWS error shape.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DdbError {
    #[error("ValidationException: {0}")]
    Validation(String),
    #[error("SerializationException: {0}")]
    Serialization(String),
    #[error("ResourceNotFoundException: {0}")]
    ResourceNotFound(String),
    #[error("ResourceInUseException: {0}")]
    ResourceInUse(String),
    /// The old item rides along when `ReturnValuesOnConditionCheckFailure=ALL_OLD`.
    #[error("ConditionalCheckFailedException")]
    ConditionalCheckFailed { item: Option<Value> },
    /// `reasons` is the `CancellationReasons` array, one entry per action.
    #[error("TransactionCanceledException")]
    TransactionCanceled { reasons: Vec<Value> },
    /// The caller may not act on the resource (an ARN of another account or
    /// service, as AWS answers TagResource and its kin).
    #[error("AccessDeniedException: {0}")]
    AccessDenied(String),
    /// The continuous-backup operations' name for a missing table.
    #[error("TableNotFoundException: {0}")]
    TableNotFound(String),
    /// A PartiQL INSERT of an item that exists.
    /// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.insert.html
    #[error("DuplicateItemException: {0}")]
    DuplicateItem(String),
    #[error("IdempotentParameterMismatchException: {0}")]
    IdempotentParameterMismatch(String),
    #[error("InternalServerError: {0}")]
    Internal(String),
    /// The table the operation found was replaced by UpdateTable before
    /// the operation took its lock: nothing was read or written, and
    /// `DynamoDb::call` runs the operation again on the new table.
    #[error("InternalServerError: the table was replaced while the request ran")]
    TableReplaced,
}

pub type DdbResult<T> = Result<T, DdbError>;

pub fn validation(message: impl Into<String>) -> DdbError {
    DdbError::Validation(message.into())
}

/// AWS's current wording for a missing table.
pub fn table_not_found(table: &str) -> DdbError {
    DdbError::ResourceNotFound(format!(
        "Requested resource not found: Table: {table} not found"
    ))
}

impl From<dynamodb_lang::ExprError> for DdbError {
    fn from(err: dynamodb_lang::ExprError) -> Self {
        DdbError::Validation(err.message)
    }
}

impl From<DdbError> for AwsError {
    fn from(err: DdbError) -> Self {
        let client =
            |code: &str, message: String| AwsError::client(format!("{PREFIX}{code}"), message);
        match err {
            DdbError::Validation(m) => client("ValidationException", m),
            DdbError::Serialization(m) => client("SerializationException", m),
            DdbError::ResourceNotFound(m) => client("ResourceNotFoundException", m),
            DdbError::ResourceInUse(m) => client("ResourceInUseException", m),
            DdbError::AccessDenied(m) => client("AccessDeniedException", m),
            DdbError::TableNotFound(m) => client("TableNotFoundException", m),
            DdbError::DuplicateItem(m) => client("DuplicateItemException", m),
            DdbError::IdempotentParameterMismatch(m) => {
                client("IdempotentParameterMismatchException", m)
            }
            DdbError::ConditionalCheckFailed { item } => {
                let e = client(
                    "ConditionalCheckFailedException",
                    "The conditional request failed".into(),
                );
                match item {
                    Some(item) => e.with_extra("Item", item),
                    None => e,
                }
            }
            DdbError::TransactionCanceled { reasons } => {
                let codes: Vec<&str> = reasons
                    .iter()
                    .map(|r| r.get("Code").and_then(Value::as_str).unwrap_or("None"))
                    .collect();
                let message = format!(
                    "Transaction cancelled, please refer cancellation reasons for specific reasons [{}]",
                    codes.join(", ")
                );
                client("TransactionCanceledException", message)
                    .with_extra("CancellationReasons", Value::Array(reasons))
            }
            DdbError::Internal(m) => AwsError::new(
                http::StatusCode::INTERNAL_SERVER_ERROR,
                format!("{PREFIX}InternalServerError"),
                m,
            ),
            DdbError::TableReplaced => AwsError::new(
                http::StatusCode::INTERNAL_SERVER_ERROR,
                format!("{PREFIX}InternalServerError"),
                "Internal server error: the table was updated while the request ran; retry it",
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cancellation_message_lists_every_reason_code_in_order() {
        let err: AwsError = DdbError::TransactionCanceled {
            reasons: vec![
                serde_json::json!({"Code": "ConditionalCheckFailed", "Message": "The conditional request failed"}),
                serde_json::json!({"Code": "None"}),
            ],
        }
        .into();
        assert_eq!(
            err.message,
            "Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed, None]"
        );
        assert_eq!(err.code(), "TransactionCanceledException");
        assert_eq!(err.extra["CancellationReasons"][1]["Code"], "None");
    }

    #[test]
    fn missing_table_names_the_table() {
        let err: AwsError = table_not_found("orders").into();
        assert_eq!(
            err.type_name,
            "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException"
        );
        assert_eq!(
            err.message,
            "Requested resource not found: Table: orders not found"
        );
    }
}
