//! The SQS event Lambda builds for a batch, record by record.

use base64::Engine;
use serde_json::{json, Map, Value};

use localcloud_core::{MessageAttribute, QueueMessage};

/// `{"Records": [...]}` for `messages`, received from `queue_arn` in `region`.
pub fn sqs_event(messages: &[QueueMessage], queue_arn: &str, region: &str) -> Value {
    let records: Vec<Value> = messages
        .iter()
        .map(|m| record(m, queue_arn, region))
        .collect();
    json!({ "Records": records })
}

fn record(message: &QueueMessage, queue_arn: &str, region: &str) -> Value {
    let mut record = Map::new();
    record.insert("messageId".into(), json!(message.message_id));
    record.insert("receiptHandle".into(), json!(message.receipt_handle));
    record.insert("body".into(), json!(message.body));
    let attributes: Map<String, Value> = message
        .attributes
        .iter()
        .map(|(k, v)| (k.clone(), json!(v)))
        .collect();
    record.insert("attributes".into(), Value::Object(attributes));
    let message_attributes: Map<String, Value> = message
        .message_attributes
        .iter()
        .map(|a| (a.name.clone(), attribute(a)))
        .collect();
    record.insert(
        "messageAttributes".into(),
        Value::Object(message_attributes),
    );
    record.insert("md5OfBody".into(), json!(message.md5_of_body));
    if let Some(md5) = &message.md5_of_message_attributes {
        record.insert("md5OfMessageAttributes".into(), json!(md5));
    }
    record.insert("eventSource".into(), json!("aws:sqs"));
    record.insert("eventSourceARN".into(), json!(queue_arn));
    record.insert("awsRegion".into(), json!(region));
    Value::Object(record)
}

fn attribute(attribute: &MessageAttribute) -> Value {
    let mut out = Map::new();
    if let Some(text) = &attribute.string_value {
        out.insert("stringValue".into(), json!(text));
    }
    if let Some(bytes) = &attribute.binary_value {
        let encoded = base64::engine::general_purpose::STANDARD.encode(bytes);
        out.insert("binaryValue".into(), json!(encoded));
    }
    out.insert("stringListValues".into(), json!([]));
    out.insert("binaryListValues".into(), json!([]));
    out.insert("dataType".into(), json!(attribute.data_type));
    Value::Object(out)
}

/// What a message adds to the invocation payload, near enough to keep a
/// batch under Lambda's 6 MB limit: its body and attributes plus the fixed
/// members of a record.
pub fn approximate_size(message: &QueueMessage) -> usize {
    const RECORD_OVERHEAD: usize = 600;
    let attributes: usize = message
        .message_attributes
        .iter()
        .map(|a| {
            a.name.len()
                + a.data_type.len()
                + a.string_value.as_ref().map_or(0, String::len)
                + a.binary_value.as_ref().map_or(0, |b| b.len() * 4 / 3 + 4)
                + 80
        })
        .sum();
    message.body.len() + message.receipt_handle.len() + attributes + RECORD_OVERHEAD
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_lambda_events::sqs::SqsEvent;

    const ARN: &str = "arn:aws:sqs:us-west-2:123456789012:SQSQueue";

    fn message() -> QueueMessage {
        QueueMessage {
            message_id: "059f36b4-87a3-44ab-83d2-661975830a7d".into(),
            receipt_handle: "AQEBwJnKyrHigUMZj6rYigCgxlaS3SLy0a".into(),
            body: "{\"orderId\":1}".into(),
            md5_of_body: "e4e68fb7bd0e697a0ae8f1bb342846b3".into(),
            md5_of_message_attributes: Some("582c92c5c5b6ac403040a4f3ab3115c9".into()),
            attributes: vec![
                ("ApproximateReceiveCount".into(), "1".into()),
                ("SentTimestamp".into(), "1545082649183".into()),
                ("SenderId".into(), "AIDAIENQZJOLO23YVJ4VO".into()),
                (
                    "ApproximateFirstReceiveTimestamp".into(),
                    "1545082649185".into(),
                ),
            ],
            message_attributes: vec![
                MessageAttribute {
                    name: "kind".into(),
                    data_type: "String".into(),
                    string_value: Some("order".into()),
                    binary_value: None,
                },
                MessageAttribute {
                    name: "blob".into(),
                    data_type: "Binary".into(),
                    string_value: None,
                    binary_value: Some(b"1100".to_vec()),
                },
            ],
        }
    }

    #[test]
    fn event_deserialises_into_the_runtime_sqs_event() {
        // GIVEN a received message with string and binary attributes
        let event = sqs_event(&[message(), message()], ARN, "us-west-2");

        // WHEN the function's runtime parses the event
        let parsed: SqsEvent = serde_json::from_value(event.clone()).unwrap();

        // THEN every member AWS sends is there, with AWS's values
        assert_eq!(parsed.records.len(), 2);
        let record = &parsed.records[0];
        assert_eq!(
            record.message_id.as_deref(),
            Some("059f36b4-87a3-44ab-83d2-661975830a7d")
        );
        assert_eq!(record.body.as_deref(), Some("{\"orderId\":1}"));
        assert_eq!(record.event_source.as_deref(), Some("aws:sqs"));
        assert_eq!(record.event_source_arn.as_deref(), Some(ARN));
        assert_eq!(record.aws_region.as_deref(), Some("us-west-2"));
        assert_eq!(record.attributes["ApproximateReceiveCount"], "1");
        assert_eq!(
            record.message_attributes["kind"].string_value.as_deref(),
            Some("order")
        );
        let blob = &record.message_attributes["blob"];
        assert_eq!(
            blob.binary_value.as_deref().map(|b| &b[..]),
            Some(&b"1100"[..])
        );
        assert_eq!(blob.data_type.as_deref(), Some("Binary"));
        assert_eq!(
            record.md5_of_message_attributes.as_deref(),
            Some("582c92c5c5b6ac403040a4f3ab3115c9")
        );
        // binary values travel base64-encoded, as in AWS's fixture ("MTEwMA==")
        assert_eq!(
            event["Records"][0]["messageAttributes"]["blob"]["binaryValue"],
            "MTEwMA=="
        );
    }

    #[test]
    fn record_members_match_the_aws_fixture() {
        let fixture: Value =
            serde_json::from_str(include_str!("../tests/fixtures/example-sqs-event.json")).unwrap();
        let event = sqs_event(&[message()], ARN, "us-west-2");
        let keys = |v: &Value| {
            v.as_object()
                .unwrap()
                .keys()
                .cloned()
                .collect::<std::collections::BTreeSet<_>>()
        };
        assert_eq!(keys(&event["Records"][0]), keys(&fixture["Records"][0]));
        assert_eq!(
            keys(&event["Records"][0]["attributes"]),
            keys(&fixture["Records"][0]["attributes"])
        );
    }

    #[test]
    fn messages_without_attributes_omit_their_md5() {
        let mut plain = message();
        plain.message_attributes.clear();
        plain.md5_of_message_attributes = None;
        let event = sqs_event(&[plain], ARN, "us-west-2");
        assert!(event["Records"][0].get("md5OfMessageAttributes").is_none());
        assert_eq!(event["Records"][0]["messageAttributes"], json!({}));
    }

    #[test]
    fn size_grows_with_the_body() {
        let small = message();
        let mut large = message();
        large.body = "x".repeat(100_000);
        assert!(approximate_size(&large) >= approximate_size(&small) + 99_000);
    }
}
