//! FIFO queues through the real aws-sdk-sqs client.

use crate::common::{code, start, Cloud};
use aws_sdk_sqs::types::{MessageSystemAttributeName as S, SendMessageBatchRequestEntry};

async fn fifo(cloud: &Cloud, name: &str, content_dedup: bool) -> String {
    let dedup = if content_dedup { "true" } else { "false" };
    cloud
        .queue(
            name,
            &[("FifoQueue", "true"), ("ContentBasedDeduplication", dedup)],
        )
        .await
}

async fn send(cloud: &Cloud, url: &str, body: &str, group: &str, dedup: &str) -> (String, String) {
    let out = cloud
        .client
        .send_message()
        .queue_url(url)
        .message_body(body)
        .message_group_id(group)
        .message_deduplication_id(dedup)
        .send()
        .await
        .unwrap();
    (out.message_id.unwrap(), out.sequence_number.unwrap())
}

async fn receive(cloud: &Cloud, url: &str, max: i32) -> Vec<aws_sdk_sqs::types::Message> {
    cloud
        .client
        .receive_message()
        .queue_url(url)
        .max_number_of_messages(max)
        .message_system_attribute_names(S::All)
        .send()
        .await
        .unwrap()
        .messages
        .unwrap_or_default()
}

fn bodies(messages: &[aws_sdk_sqs::types::Message]) -> Vec<&str> {
    messages.iter().filter_map(|m| m.body()).collect()
}

#[tokio::test]
async fn messages_of_a_group_arrive_in_order_with_increasing_sequence_numbers() {
    let cloud = start().await;
    let url = fifo(&cloud, "ordered.fifo", false).await;
    let mut sequence = Vec::new();
    for i in 0..5 {
        sequence.push(
            send(&cloud, &url, &format!("m{i}"), "g", &format!("d{i}"))
                .await
                .1,
        );
    }
    let mut sorted = sequence.clone();
    sorted.sort_by_key(|s| s.parse::<u128>().unwrap());
    assert_eq!(sequence, sorted);
    let got = receive(&cloud, &url, 10).await;
    assert_eq!(bodies(&got), ["m0", "m1", "m2", "m3", "m4"]);
    let attrs = got[0].attributes().unwrap();
    assert_eq!(attrs[&S::MessageGroupId], "g");
    assert_eq!(attrs[&S::MessageDeduplicationId], "d0");
    assert_eq!(attrs[&S::SequenceNumber], sequence[0]);
}

#[tokio::test]
async fn a_group_with_a_message_in_flight_is_blocked_other_groups_are_not() {
    let cloud = start().await;
    let url = fifo(&cloud, "groups.fifo", false).await;
    for (body, group) in [("a1", "a"), ("a2", "a"), ("b1", "b")] {
        send(&cloud, &url, body, group, body).await;
    }
    let first = receive(&cloud, &url, 1).await;
    assert_eq!(bodies(&first), ["a1"]);
    let second = receive(&cloud, &url, 10).await;
    assert_eq!(
        bodies(&second),
        ["b1"],
        "group a is blocked while a1 is in flight"
    );
    let handle = first[0].receipt_handle().unwrap();
    cloud
        .client
        .delete_message()
        .queue_url(&url)
        .receipt_handle(handle)
        .send()
        .await
        .unwrap();
    assert_eq!(bodies(&receive(&cloud, &url, 10).await), ["a2"]);
}

#[tokio::test]
async fn same_deduplication_id_within_five_minutes_is_accepted_but_not_enqueued() {
    let cloud = start().await;
    let url = fifo(&cloud, "dedup.fifo", false).await;
    let first = send(&cloud, &url, "one", "g", "same").await;
    let second = send(&cloud, &url, "two", "g", "same").await;
    assert_eq!(first, second, "the duplicate reports the original message");
    assert_eq!(bodies(&receive(&cloud, &url, 10).await), ["one"]);
}

#[tokio::test]
async fn content_based_deduplication_uses_the_body_hash() {
    let cloud = start().await;
    let url = fifo(&cloud, "cbd.fifo", true).await;
    for _ in 0..2 {
        cloud
            .client
            .send_message()
            .queue_url(&url)
            .message_body("same body")
            .message_group_id("g")
            .send()
            .await
            .unwrap();
    }
    let got = receive(&cloud, &url, 10).await;
    assert_eq!(got.len(), 1);
    // SHA-256 of "same body"
    assert_eq!(
        got[0].attributes().unwrap()[&S::MessageDeduplicationId],
        "8f6372a8b1509601faa57ff3a292cfcccb95aa2325c18b8e50b0c035ea1648fe"
    );
}

#[tokio::test]
async fn fifo_requires_group_and_deduplication_ids_and_rejects_per_message_delay() {
    let cloud = start().await;
    let url = fifo(&cloud, "strict.fifo", false).await;
    let no_group = cloud
        .client
        .send_message()
        .queue_url(&url)
        .message_body("x")
        .message_deduplication_id("d")
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert_eq!(code(&no_group), "MissingParameter");
    let no_dedup = cloud
        .client
        .send_message()
        .queue_url(&url)
        .message_body("x")
        .message_group_id("g")
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert_eq!(code(&no_dedup), "InvalidParameterValue");
    let delayed = cloud
        .client
        .send_message()
        .queue_url(&url)
        .message_body("x")
        .message_group_id("g")
        .message_deduplication_id("d")
        .delay_seconds(1)
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert_eq!(code(&delayed), "InvalidParameterValue");
    let batch = cloud
        .client
        .send_message_batch()
        .queue_url(&url)
        .entries(
            SendMessageBatchRequestEntry::builder()
                .id("a")
                .message_body("x")
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(batch.failed()[0].code(), "MissingParameter");
}

#[tokio::test]
async fn fifo_delete_with_a_handle_from_an_earlier_receive_fails() {
    let cloud = start().await;
    let url = fifo(&cloud, "handles.fifo", false).await;
    send(&cloud, &url, "x", "g", "d").await;
    let old = cloud
        .client
        .receive_message()
        .queue_url(&url)
        .visibility_timeout(0)
        .send()
        .await
        .unwrap();
    let old_handle = old.messages()[0].receipt_handle().unwrap();
    let new = receive(&cloud, &url, 1).await;
    let err = cloud
        .client
        .delete_message()
        .queue_url(&url)
        .receipt_handle(old_handle)
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_receipt_handle_is_invalid(), "{err:?}");
    let new_handle = new[0].receipt_handle().unwrap();
    cloud
        .client
        .delete_message()
        .queue_url(&url)
        .receipt_handle(new_handle)
        .send()
        .await
        .unwrap();
}
