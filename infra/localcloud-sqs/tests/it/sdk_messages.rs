//! Message operations on standard queues through the real aws-sdk-sqs client.

use std::time::{Duration, Instant};

use crate::common::{code, start};
use aws_sdk_sqs::primitives::Blob;
use aws_sdk_sqs::types::{
    ChangeMessageVisibilityBatchRequestEntry, DeleteMessageBatchRequestEntry,
    MessageAttributeValue, MessageSystemAttributeName as S, QueueAttributeName as A,
    SendMessageBatchRequestEntry,
};

fn string_attr(data_type: &str, value: &str) -> MessageAttributeValue {
    MessageAttributeValue::builder()
        .data_type(data_type)
        .string_value(value)
        .build()
        .unwrap()
}

/// The MD5 of message attributes, written here independently of the crate.
fn expected_attributes_md5(attrs: &[(&str, &str, &[u8], u8)]) -> String {
    let mut sorted = attrs.to_vec();
    sorted.sort_by_key(|a| a.0);
    let mut buf = Vec::new();
    for (name, data_type, value, transport) in sorted {
        for part in [name.as_bytes(), data_type.as_bytes()] {
            buf.extend((part.len() as u32).to_be_bytes());
            buf.extend(part);
        }
        buf.push(transport);
        buf.extend((value.len() as u32).to_be_bytes());
        buf.extend(value);
    }
    format!("{:032x}", md5_digest(&buf))
}

fn md5_digest(bytes: &[u8]) -> u128 {
    use md5::{Digest, Md5};
    u128::from_be_bytes(Md5::digest(bytes).into())
}

#[tokio::test]
async fn sent_message_is_received_with_its_attributes_and_exact_md5s() {
    // GIVEN a queue and a message with string, custom number and binary attributes
    let cloud = start().await;
    let url = cloud.queue("msgs", &[]).await;
    let sent = cloud
        .client
        .send_message()
        .queue_url(&url)
        .message_body("héllo")
        .message_attributes("color", string_attr("String", "red"))
        .message_attributes("count", string_attr("Number.int", "42"))
        .message_attributes(
            "blob",
            MessageAttributeValue::builder()
                .data_type("Binary")
                .binary_value(Blob::new(vec![0u8, 1, 255]))
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    let expected_md5 = expected_attributes_md5(&[
        ("color", "String", b"red", 1),
        ("count", "Number.int", b"42", 1),
        ("blob", "Binary", &[0, 1, 255], 2),
    ]);
    assert_eq!(
        sent.md5_of_message_body(),
        Some("be50e8478cf24ff3595bc7307fb91b50")
    );
    assert_eq!(
        sent.md5_of_message_attributes(),
        Some(expected_md5.as_str())
    );
    // WHEN it is received asking for everything
    let got = cloud
        .client
        .receive_message()
        .queue_url(&url)
        .message_system_attribute_names(S::All)
        .message_attribute_names("All")
        .send()
        .await
        .unwrap();
    // THEN body, id, attributes and MD5s match what was sent
    let m = &got.messages()[0];
    assert_eq!(m.body(), Some("héllo"));
    assert_eq!(m.message_id(), sent.message_id());
    assert_eq!(m.md5_of_body(), Some("be50e8478cf24ff3595bc7307fb91b50"));
    assert_eq!(m.md5_of_message_attributes(), Some(expected_md5.as_str()));
    let attrs = m.message_attributes().unwrap();
    assert_eq!(attrs["count"].string_value(), Some("42"));
    assert_eq!(attrs["blob"].binary_value().unwrap().as_ref(), &[0, 1, 255]);
    let system = m.attributes().unwrap();
    assert_eq!(system[&S::ApproximateReceiveCount], "1");
    assert!(system.contains_key(&S::SentTimestamp));
    assert!(system.contains_key(&S::ApproximateFirstReceiveTimestamp));
    assert_eq!(system[&S::SenderId], "000000000000");
}

#[tokio::test]
async fn message_attribute_names_filter_by_name_and_prefix() {
    let cloud = start().await;
    let url = cloud.queue("filter", &[]).await;
    cloud
        .client
        .send_message()
        .queue_url(&url)
        .message_body("b")
        .message_attributes("app.a", string_attr("String", "1"))
        .message_attributes("app.b", string_attr("String", "2"))
        .message_attributes("other", string_attr("String", "3"))
        .send()
        .await
        .unwrap();
    let got = cloud
        .client
        .receive_message()
        .queue_url(&url)
        .message_attribute_names("app.*")
        .send()
        .await
        .unwrap();
    let m = &got.messages()[0];
    let mut names: Vec<_> = m.message_attributes().unwrap().keys().cloned().collect();
    names.sort();
    assert_eq!(names, ["app.a", "app.b"]);
    let expected =
        expected_attributes_md5(&[("app.a", "String", b"1", 1), ("app.b", "String", b"2", 1)]);
    assert_eq!(m.md5_of_message_attributes(), Some(expected.as_str()));
    assert!(m.attributes().is_none(), "no system attributes asked for");
}

#[tokio::test]
async fn received_message_is_hidden_for_its_visibility_timeout_then_returns() {
    let cloud = start().await;
    let url = cloud.queue("vis", &[]).await;
    cloud
        .client
        .send_message()
        .queue_url(&url)
        .message_body("x")
        .send()
        .await
        .unwrap();
    let first = cloud
        .client
        .receive_message()
        .queue_url(&url)
        .visibility_timeout(1)
        .send()
        .await
        .unwrap();
    assert_eq!(first.messages().len(), 1);
    let hidden = cloud
        .client
        .receive_message()
        .queue_url(&url)
        .send()
        .await
        .unwrap();
    assert!(hidden.messages().is_empty());
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let again = cloud
        .client
        .receive_message()
        .queue_url(&url)
        .message_system_attribute_names(S::ApproximateReceiveCount)
        .send()
        .await
        .unwrap();
    assert_eq!(
        again.messages()[0].attributes().unwrap()[&S::ApproximateReceiveCount],
        "2"
    );
}

#[tokio::test]
async fn long_poll_returns_as_soon_as_a_message_arrives() {
    let cloud = start().await;
    let url = cloud.queue("long", &[]).await;
    let client = cloud.client.clone();
    let poll_url = url.clone();
    let started = Instant::now();
    let poll = tokio::spawn(async move {
        client
            .receive_message()
            .queue_url(poll_url)
            .wait_time_seconds(10)
            .send()
            .await
            .unwrap()
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    cloud
        .client
        .send_message()
        .queue_url(&url)
        .message_body("late")
        .send()
        .await
        .unwrap();
    let got = poll.await.unwrap();
    assert_eq!(got.messages()[0].body(), Some("late"));
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn empty_long_poll_waits_for_the_wait_time() {
    let cloud = start().await;
    let url = cloud
        .queue("idle", &[("ReceiveMessageWaitTimeSeconds", "1")])
        .await;
    let started = Instant::now();
    let got = cloud
        .client
        .receive_message()
        .queue_url(&url)
        .send()
        .await
        .unwrap();
    assert!(got.messages().is_empty());
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(950) && waited < Duration::from_secs(3),
        "{waited:?}"
    );
}

#[tokio::test]
async fn delayed_message_stays_invisible_until_its_delay_passes() {
    let cloud = start().await;
    let url = cloud.queue("delay", &[]).await;
    cloud
        .client
        .send_message()
        .queue_url(&url)
        .message_body("later")
        .delay_seconds(1)
        .send()
        .await
        .unwrap();
    let attrs = cloud
        .client
        .get_queue_attributes()
        .queue_url(&url)
        .attribute_names(A::ApproximateNumberOfMessagesDelayed)
        .send()
        .await
        .unwrap()
        .attributes
        .unwrap();
    assert_eq!(attrs[&A::ApproximateNumberOfMessagesDelayed], "1");
    assert!(cloud
        .client
        .receive_message()
        .queue_url(&url)
        .send()
        .await
        .unwrap()
        .messages()
        .is_empty());
    // A long poll is woken by the delay expiring, not by a send.
    let got = cloud
        .client
        .receive_message()
        .queue_url(&url)
        .wait_time_seconds(3)
        .send()
        .await
        .unwrap();
    assert_eq!(got.messages()[0].body(), Some("later"));
}

#[tokio::test]
async fn deleting_with_an_older_receipt_handle_still_deletes_on_a_standard_queue() {
    let cloud = start().await;
    let url = cloud.queue("stale", &[]).await;
    cloud
        .client
        .send_message()
        .queue_url(&url)
        .message_body("x")
        .send()
        .await
        .unwrap();
    let old = cloud
        .client
        .receive_message()
        .queue_url(&url)
        .visibility_timeout(0)
        .send()
        .await
        .unwrap();
    let old_handle = old.messages()[0].receipt_handle().unwrap().to_string();
    let new = cloud
        .client
        .receive_message()
        .queue_url(&url)
        .send()
        .await
        .unwrap();
    assert_ne!(new.messages()[0].receipt_handle().unwrap(), old_handle);
    cloud
        .client
        .delete_message()
        .queue_url(&url)
        .receipt_handle(&old_handle)
        .send()
        .await
        .unwrap();
    let attrs = cloud
        .client
        .get_queue_attributes()
        .queue_url(&url)
        .attribute_names(A::All)
        .send()
        .await
        .unwrap()
        .attributes
        .unwrap();
    assert_eq!(attrs[&A::ApproximateNumberOfMessages], "0");
    assert_eq!(attrs[&A::ApproximateNumberOfMessagesNotVisible], "0");
    // Deleting again with the same handle succeeds, as on AWS.
    cloud
        .client
        .delete_message()
        .queue_url(&url)
        .receipt_handle(&old_handle)
        .send()
        .await
        .unwrap();
}

#[tokio::test]
async fn garbage_receipt_handle_is_receipt_handle_is_invalid() {
    let cloud = start().await;
    let url = cloud.queue("garbage", &[]).await;
    let err = cloud
        .client
        .delete_message()
        .queue_url(&url)
        .receipt_handle("not-a-handle")
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_receipt_handle_is_invalid(), "{err:?}");
    let err = cloud
        .client
        .change_message_visibility()
        .queue_url(&url)
        .receipt_handle("not-a-handle")
        .visibility_timeout(5)
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_receipt_handle_is_invalid(), "{err:?}");
}

#[tokio::test]
async fn change_visibility_to_zero_makes_the_message_visible_at_once() {
    let cloud = start().await;
    let url = cloud.queue("cmv", &[]).await;
    cloud
        .client
        .send_message()
        .queue_url(&url)
        .message_body("x")
        .send()
        .await
        .unwrap();
    let got = cloud
        .client
        .receive_message()
        .queue_url(&url)
        .send()
        .await
        .unwrap();
    let handle = got.messages()[0].receipt_handle().unwrap().to_string();
    cloud
        .client
        .change_message_visibility()
        .queue_url(&url)
        .receipt_handle(&handle)
        .visibility_timeout(0)
        .send()
        .await
        .unwrap();
    let again = cloud
        .client
        .receive_message()
        .queue_url(&url)
        .send()
        .await
        .unwrap();
    assert_eq!(again.messages().len(), 1);
    // The first handle's message is now in flight under a newer receive; on a
    // standard queue the old handle still reaches it.
    let visible_again = cloud
        .client
        .change_message_visibility()
        .queue_url(&url)
        .receipt_handle(&handle)
        .visibility_timeout(0)
        .send()
        .await;
    assert!(visible_again.is_ok());
    let err = cloud
        .client
        .change_message_visibility()
        .queue_url(&url)
        .receipt_handle(&handle)
        .visibility_timeout(10)
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_message_not_inflight(), "{err:?}");
}

#[tokio::test]
async fn invalid_bodies_and_sizes_are_rejected() {
    let cloud = start().await;
    let url = cloud.queue("bad", &[("MaximumMessageSize", "1024")]).await;
    let err = cloud
        .client
        .send_message()
        .queue_url(&url)
        .message_body("bell\u{7}")
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_invalid_message_contents(), "{err:?}");
    let err = cloud
        .client
        .send_message()
        .queue_url(&url)
        .message_body("x".repeat(1025))
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert_eq!(code(&err), "InvalidParameterValue");
    let err = cloud
        .client
        .send_message()
        .queue_url(&url)
        .message_body("x")
        .message_attributes("n", string_attr("Number", "not-a-number"))
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert_eq!(code(&err), "InvalidParameterValue");
    let err = cloud
        .client
        .send_message()
        .queue_url(&url)
        .message_body("")
        .send()
        .await
        .unwrap_err();
    assert_eq!(code(&err.into_service_error()), "MissingParameter");
    let err = cloud
        .client
        .receive_message()
        .queue_url(&url)
        .max_number_of_messages(11)
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert_eq!(code(&err), "InvalidParameterValue");
}

fn entry(id: &str, body: &str) -> SendMessageBatchRequestEntry {
    SendMessageBatchRequestEntry::builder()
        .id(id)
        .message_body(body)
        .build()
        .unwrap()
}

#[tokio::test]
async fn send_batch_reports_per_entry_results() {
    let cloud = start().await;
    let url = cloud.queue("batch", &[]).await;
    let out = cloud
        .client
        .send_message_batch()
        .queue_url(&url)
        .entries(entry("ok-1", "a"))
        .entries(entry("bad", "bell\u{7}"))
        .entries(entry("ok_2", "b"))
        .send()
        .await
        .unwrap();
    let ok: Vec<_> = out.successful().iter().map(|e| e.id()).collect();
    assert_eq!(ok, ["ok-1", "ok_2"]);
    assert_eq!(
        out.successful()[0].md5_of_message_body(),
        "0cc175b9c0f1b6a831c399e269772661"
    );
    assert_eq!(out.failed().len(), 1);
    assert_eq!(out.failed()[0].id(), "bad");
    assert_eq!(out.failed()[0].code(), "InvalidMessageContents");
    assert!(out.failed()[0].sender_fault());
}

#[tokio::test]
async fn malformed_batches_fail_with_typed_errors() {
    let cloud = start().await;
    let url = cloud.queue("badbatch", &[]).await;
    let send = |entries: Vec<SendMessageBatchRequestEntry>| {
        cloud
            .client
            .send_message_batch()
            .queue_url(&url)
            .set_entries(Some(entries))
            .send()
    };
    let err = send(vec![]).await.unwrap_err().into_service_error();
    assert!(err.is_empty_batch_request(), "{err:?}");
    let eleven = (0..11).map(|i| entry(&format!("e{i}"), "x")).collect();
    let err = send(eleven).await.unwrap_err().into_service_error();
    assert!(err.is_too_many_entries_in_batch_request(), "{err:?}");
    let err = send(vec![entry("same", "a"), entry("same", "b")])
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_batch_entry_ids_not_distinct(), "{err:?}");
    let err = send(vec![entry("bad id!", "a")])
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_invalid_batch_entry_id(), "{err:?}");
    let big = "x".repeat(200_000);
    let too_long = (0..6).map(|i| entry(&format!("e{i}"), &big)).collect();
    let err = send(too_long).await.unwrap_err().into_service_error();
    assert!(err.is_batch_request_too_long(), "{err:?}");
}

#[tokio::test]
async fn delete_and_visibility_batches_report_bad_handles_per_entry() {
    let cloud = start().await;
    let url = cloud.queue("dbatch", &[]).await;
    for body in ["a", "b"] {
        cloud
            .client
            .send_message()
            .queue_url(&url)
            .message_body(body)
            .send()
            .await
            .unwrap();
    }
    let got = cloud
        .client
        .receive_message()
        .queue_url(&url)
        .max_number_of_messages(10)
        .send()
        .await
        .unwrap();
    let handles: Vec<String> = got
        .messages()
        .iter()
        .map(|m| m.receipt_handle().unwrap().to_string())
        .collect();
    assert_eq!(handles.len(), 2);
    let vis = cloud
        .client
        .change_message_visibility_batch()
        .queue_url(&url)
        .entries(
            ChangeMessageVisibilityBatchRequestEntry::builder()
                .id("v1")
                .receipt_handle(&handles[0])
                .visibility_timeout(60)
                .build()
                .unwrap(),
        )
        .entries(
            ChangeMessageVisibilityBatchRequestEntry::builder()
                .id("v2")
                .receipt_handle("junk")
                .visibility_timeout(60)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(vis.successful().len(), 1);
    assert_eq!(vis.failed()[0].code(), "ReceiptHandleIsInvalid");
    let del = cloud
        .client
        .delete_message_batch()
        .queue_url(&url)
        .entries(
            DeleteMessageBatchRequestEntry::builder()
                .id("d1")
                .receipt_handle(&handles[0])
                .build()
                .unwrap(),
        )
        .entries(
            DeleteMessageBatchRequestEntry::builder()
                .id("d2")
                .receipt_handle(&handles[1])
                .build()
                .unwrap(),
        )
        .entries(
            DeleteMessageBatchRequestEntry::builder()
                .id("d3")
                .receipt_handle("junk")
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    let ok: Vec<_> = del.successful().iter().map(|e| e.id()).collect();
    assert_eq!(ok, ["d1", "d2"]);
    assert_eq!(del.failed()[0].id(), "d3");
    assert_eq!(del.failed()[0].code(), "ReceiptHandleIsInvalid");
    let err = cloud
        .client
        .delete_message_batch()
        .queue_url(&url)
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_empty_batch_request(), "{err:?}");
}

#[tokio::test]
async fn message_is_moved_to_the_dead_letter_queue_after_max_receive_count() {
    // GIVEN a queue redriving to a DLQ after 2 receives
    let cloud = start().await;
    let dlq = cloud.queue("dead", &[]).await;
    let dlq_arn = cloud.arn(&dlq).await;
    let policy = format!(r#"{{"deadLetterTargetArn":"{dlq_arn}","maxReceiveCount":2}}"#);
    let src = cloud
        .queue(
            "work",
            &[("RedrivePolicy", &policy), ("VisibilityTimeout", "0")],
        )
        .await;
    let sent = cloud
        .client
        .send_message()
        .queue_url(&src)
        .message_body("poison")
        .send()
        .await
        .unwrap();
    // WHEN it is received twice without being deleted, then once more
    for _ in 0..2 {
        let got = cloud
            .client
            .receive_message()
            .queue_url(&src)
            .send()
            .await
            .unwrap();
        assert_eq!(got.messages().len(), 1);
    }
    let third = cloud
        .client
        .receive_message()
        .queue_url(&src)
        .send()
        .await
        .unwrap();
    // THEN the third receive finds nothing and the DLQ holds the message
    assert!(third.messages().is_empty());
    let dead = cloud
        .client
        .receive_message()
        .queue_url(&dlq)
        .send()
        .await
        .unwrap();
    assert_eq!(dead.messages()[0].message_id(), sent.message_id());
    assert_eq!(dead.messages()[0].body(), Some("poison"));
    let metrics = cloud.service.metrics();
    let src_arn = cloud.arn(&src).await;
    assert_eq!(metrics.queues[&src_arn].messages_moved_to_dlq, 1);
    assert_eq!(metrics.queues[&src_arn].messages_received, 2);
}

#[tokio::test]
async fn trace_header_system_attribute_is_returned_with_its_md5() {
    use aws_sdk_sqs::types::{MessageSystemAttributeNameForSends, MessageSystemAttributeValue};
    let cloud = start().await;
    let url = cloud.queue("trace", &[]).await;
    let trace = "Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1";
    let value = MessageSystemAttributeValue::builder()
        .data_type("String")
        .string_value(trace)
        .build()
        .unwrap();
    let sent = cloud
        .client
        .send_message()
        .queue_url(&url)
        .message_body("traced")
        .message_system_attributes(MessageSystemAttributeNameForSends::AwsTraceHeader, value)
        .send()
        .await
        .unwrap();
    let expected = expected_attributes_md5(&[("AWSTraceHeader", "String", trace.as_bytes(), 1)]);
    assert_eq!(
        sent.md5_of_message_system_attributes(),
        Some(expected.as_str())
    );
    let got = cloud
        .client
        .receive_message()
        .queue_url(&url)
        .message_system_attribute_names(S::AwsTraceHeader)
        .send()
        .await
        .unwrap();
    assert_eq!(
        got.messages()[0].attributes().unwrap()[&S::AwsTraceHeader],
        trace
    );
}

#[tokio::test]
async fn deleting_a_queue_ends_its_long_polls() {
    let cloud = start().await;
    let url = cloud.queue("doomed", &[]).await;
    let client = cloud.client.clone();
    let poll_url = url.clone();
    let started = Instant::now();
    let poll = tokio::spawn(async move {
        client
            .receive_message()
            .queue_url(poll_url)
            .wait_time_seconds(10)
            .send()
            .await
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    cloud
        .client
        .delete_queue()
        .queue_url(&url)
        .send()
        .await
        .unwrap();
    let got = poll.await.unwrap().unwrap();
    assert!(got.messages().is_empty());
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn visibility_timeouts_beyond_twelve_hours_are_rejected() {
    let cloud = start().await;
    let url = cloud.queue("twelve", &[]).await;
    cloud
        .client
        .send_message()
        .queue_url(&url)
        .message_body("x")
        .send()
        .await
        .unwrap();
    let got = cloud
        .client
        .receive_message()
        .queue_url(&url)
        .send()
        .await
        .unwrap();
    let err = cloud
        .client
        .change_message_visibility()
        .queue_url(&url)
        .receipt_handle(got.messages()[0].receipt_handle().unwrap())
        .visibility_timeout(43_201)
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert_eq!(code(&err), "InvalidParameterValue");
    let err = cloud
        .client
        .receive_message()
        .queue_url(&url)
        .wait_time_seconds(21)
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert_eq!(code(&err), "InvalidParameterValue");
}
