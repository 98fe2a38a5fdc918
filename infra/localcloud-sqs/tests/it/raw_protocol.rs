//! The JSON protocol below the SDK: error shapes as AWS sends them, and
//! malformed input answered with errors, never panics.

use bytes::Bytes;
use localcloud_core::{JsonService, RequestContext};
use localcloud_sqs::SqsService;
use serde_json::{json, Value};

const OPERATIONS: &[&str] = &[
    "CreateQueue",
    "GetQueueUrl",
    "ListQueues",
    "DeleteQueue",
    "PurgeQueue",
    "GetQueueAttributes",
    "SetQueueAttributes",
    "TagQueue",
    "UntagQueue",
    "ListQueueTags",
    "ListDeadLetterSourceQueues",
    "SendMessage",
    "SendMessageBatch",
    "ReceiveMessage",
    "DeleteMessage",
    "DeleteMessageBatch",
    "ChangeMessageVisibility",
    "ChangeMessageVisibilityBatch",
];

async fn call(
    service: &SqsService,
    operation: &str,
    body: &str,
) -> Result<Value, localcloud_core::AwsError> {
    let ctx = RequestContext::new("us-east-1", "000000000000");
    let out = service
        .handle(&ctx, operation, Bytes::from(body.to_string()))
        .await?;
    Ok(serde_json::from_slice(&out).expect("responses are JSON"))
}

#[tokio::test]
async fn missing_queue_error_has_the_aws_json_shape_and_query_header() {
    let service = SqsService::new("http://127.0.0.1:1");
    let err = call(&service, "GetQueueUrl", r#"{"QueueName":"nope"}"#)
        .await
        .unwrap_err();
    let body: Value = serde_json::from_slice(&err.body()).unwrap();
    assert_eq!(body["__type"], "com.amazonaws.sqs#QueueDoesNotExist");
    assert!(body["message"].as_str().unwrap().contains("does not exist"));
    assert_eq!(err.status, 400);
    assert_eq!(
        err.headers,
        [(
            "x-amzn-query-error".to_string(),
            "AWS.SimpleQueueService.NonExistentQueue;Sender".to_string()
        )]
    );
}

#[tokio::test]
async fn malformed_requests_to_every_operation_are_errors_not_panics() {
    // GIVEN a queue that exists, so requests get past the queue lookup
    let service = SqsService::new("http://127.0.0.1:1");
    let url = call(&service, "CreateQueue", r#"{"QueueName":"q"}"#)
        .await
        .unwrap()["QueueUrl"]
        .as_str()
        .unwrap()
        .to_string();
    let garbage = [
        json!("not an object"),
        json!([1, 2]),
        json!({"QueueUrl": 5}),
        json!({"QueueUrl": url, "QueueName": ["x"]}),
        json!({"QueueUrl": url, "Entries": "x"}),
        json!({"QueueUrl": url, "Entries": [1, null]}),
        json!({"QueueUrl": url, "Entries": [{"Id": 7}]}),
        json!({"QueueUrl": url, "Entries": [{"Id": "a", "VisibilityTimeout": -1, "ReceiptHandle": "x"}]}),
        json!({"QueueUrl": url, "MaxNumberOfMessages": 1e300}),
        json!({"QueueUrl": url, "MaxNumberOfMessages": -5, "WaitTimeSeconds": "2"}),
        json!({"QueueUrl": url, "VisibilityTimeout": 4_294_967_296_i64, "ReceiptHandle": "x"}),
        json!({"QueueUrl": url, "MessageBody": "x", "DelaySeconds": -1}),
        json!({"QueueUrl": url, "MessageBody": "x", "DelaySeconds": 99_999_999_999_i64}),
        json!({"QueueUrl": url, "MessageBody": "x", "MessageAttributes": {"a": 1}}),
        json!({"QueueUrl": url, "MessageBody": "x", "MessageAttributes": {"a": {"DataType": "Binary", "BinaryValue": "%%%"}}}),
        json!({"QueueUrl": url, "MessageBody": "x", "MessageSystemAttributes": {"Other": {"DataType": "String", "StringValue": "v"}}}),
        json!({"QueueUrl": url, "Attributes": {"VisibilityTimeout": 5}}),
        json!({"QueueUrl": url, "Attributes": {"RedrivePolicy": "{not json"}}),
        json!({"QueueUrl": url, "AttributeNames": "All"}),
        json!({"QueueUrl": url, "Tags": {}, "TagKeys": []}),
        json!({"QueueUrl": url, "ReceiptHandle": "", "NextToken": "%%%", "MaxResults": 0}),
        json!({"QueueName": "", "Attributes": {"FifoQueue": "maybe"}}),
    ];
    for operation in OPERATIONS {
        for body in &garbage {
            let text = match body {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            // THEN each answer is either a JSON object or an error with a code
            match call(&service, operation, &text).await {
                Ok(out) => assert!(out.is_object(), "{operation} {text}"),
                Err(err) => {
                    assert_eq!(err.status, 400, "{operation} {text}");
                    assert!(
                        err.type_name.starts_with("com.amazonaws.sqs#"),
                        "{operation} {text}: {err}"
                    );
                }
            }
        }
    }
    // AND the service still works (DeleteQueue above removed the queue)
    let created = call(&service, "CreateQueue", r#"{"QueueName":"after"}"#)
        .await
        .unwrap();
    let after = created["QueueUrl"].as_str().unwrap();
    let sent = call(
        &service,
        "SendMessage",
        &json!({"QueueUrl": after, "MessageBody": "ok"}).to_string(),
    )
    .await;
    assert!(sent.unwrap()["MessageId"].is_string());
}

#[tokio::test]
async fn unknown_operations_are_rejected() {
    let service = SqsService::new("http://127.0.0.1:1");
    let err = call(&service, "FlyToTheMoon", "{}").await.unwrap_err();
    assert_eq!(err.code(), "UnknownOperationException");
    let err = call(&service, "StartMessageMoveTask", "{}")
        .await
        .unwrap_err();
    assert_eq!(err.code(), "UnsupportedOperation");
}
