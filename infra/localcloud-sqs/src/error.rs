//! SQS errors as the AWS JSON 1.0 protocol carries them. SQS is "query
//! compatible": `__type` names the Smithy shape (`com.amazonaws.sqs#QueueDoesNotExist`)
//! and the `x-amzn-query-error` header carries the legacy query code
//! (`AWS.SimpleQueueService.NonExistentQueue;Sender`). The SDKs take the error
//! code from that header, so the header decides which typed error they raise.

use localcloud_core::AwsError;

/// Builds an error from its Smithy shape name and its query-protocol code.
fn sqs(shape: &str, query_code: &str, message: impl Into<String>) -> AwsError {
    AwsError::client(format!("com.amazonaws.sqs#{shape}"), message)
        .with_header("x-amzn-query-error", format!("{query_code};Sender"))
}

/// Errors without a modelled shape (the SDKs surface them as unhandled errors
/// whose code is the query code).
fn common(code: &str, message: impl Into<String>) -> AwsError {
    sqs(code, code, message)
}

pub fn queue_does_not_exist() -> AwsError {
    sqs(
        "QueueDoesNotExist",
        "AWS.SimpleQueueService.NonExistentQueue",
        "The specified queue does not exist.",
    )
}

pub fn queue_name_exists(name: &str) -> AwsError {
    sqs(
        "QueueNameExists",
        "QueueAlreadyExists",
        format!("A queue already exists with the same name and a different value for attribute(s) of {name}"),
    )
}

pub fn invalid_parameter_value(message: impl Into<String>) -> AwsError {
    common("InvalidParameterValue", message)
}

pub fn missing_parameter(name: &str) -> AwsError {
    common(
        "MissingParameter",
        format!("The request must contain the parameter {name}."),
    )
}

/// A request body that is not JSON or whose members have the wrong types.
pub fn serialization(message: impl Into<String>) -> AwsError {
    common("SerializationException", message)
}

pub fn invalid_attribute_name(name: &str) -> AwsError {
    sqs(
        "InvalidAttributeName",
        "InvalidAttributeName",
        format!("Unknown Attribute {name}."),
    )
}

pub fn invalid_attribute_value(message: impl Into<String>) -> AwsError {
    sqs("InvalidAttributeValue", "InvalidAttributeValue", message)
}

pub fn receipt_handle_invalid(message: impl Into<String>) -> AwsError {
    sqs("ReceiptHandleIsInvalid", "ReceiptHandleIsInvalid", message)
}

pub fn message_not_inflight() -> AwsError {
    sqs(
        "MessageNotInflight",
        "AWS.SimpleQueueService.MessageNotInflight",
        "The message referred to isn't in flight.",
    )
}

pub fn batch_entry_ids_not_distinct(id: &str) -> AwsError {
    sqs(
        "BatchEntryIdsNotDistinct",
        "AWS.SimpleQueueService.BatchEntryIdsNotDistinct",
        format!("Id {id} repeated."),
    )
}

pub fn empty_batch_request(entry_shape: &str) -> AwsError {
    sqs(
        "EmptyBatchRequest",
        "AWS.SimpleQueueService.EmptyBatchRequest",
        format!("There should be at least one {entry_shape} in the request."),
    )
}

pub fn too_many_entries(count: usize) -> AwsError {
    sqs(
        "TooManyEntriesInBatchRequest",
        "AWS.SimpleQueueService.TooManyEntriesInBatchRequest",
        format!("Maximum number of entries per request are 10. You have sent {count}."),
    )
}

pub fn invalid_batch_entry_id() -> AwsError {
    sqs(
        "InvalidBatchEntryId",
        "AWS.SimpleQueueService.InvalidBatchEntryId",
        "A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most 80 letters long.",
    )
}

pub fn batch_request_too_long(limit: usize, length: usize) -> AwsError {
    sqs(
        "BatchRequestTooLong",
        "AWS.SimpleQueueService.BatchRequestTooLong",
        format!(
            "Batch requests cannot be longer than {limit} bytes. You have sent {length} bytes."
        ),
    )
}

pub fn purge_queue_in_progress(queue_arn: &str) -> AwsError {
    sqs(
        "PurgeQueueInProgress",
        "AWS.SimpleQueueService.PurgeQueueInProgress",
        format!("Only one PurgeQueue operation on {queue_arn} is allowed every 60 seconds."),
    )
}

pub fn invalid_message_contents(message: impl Into<String>) -> AwsError {
    sqs("InvalidMessageContents", "InvalidMessageContents", message)
}

/// A limit reached, e.g. AddPermission's seven actions.
pub fn over_limit(message: impl Into<String>) -> AwsError {
    sqs("OverLimit", "OverLimit", message)
}

pub fn unsupported_operation(message: impl Into<String>) -> AwsError {
    sqs(
        "UnsupportedOperation",
        "AWS.SimpleQueueService.UnsupportedOperation",
        message,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queue_does_not_exist_carries_the_query_code_the_sdk_matches() {
        let err = queue_does_not_exist();
        assert_eq!(err.type_name, "com.amazonaws.sqs#QueueDoesNotExist");
        assert_eq!(
            err.headers,
            vec![(
                "x-amzn-query-error".to_string(),
                "AWS.SimpleQueueService.NonExistentQueue;Sender".to_string()
            )]
        );
    }

    #[test]
    fn queue_name_exists_uses_the_legacy_queue_already_exists_code() {
        let err = queue_name_exists("q");
        assert_eq!(err.code(), "QueueNameExists");
        assert_eq!(err.headers[0].1, "QueueAlreadyExists;Sender");
    }
}
