//! Request counting as SQS bills it, and the in-process API the event source
//! mapping pollers use (billed the same way as the HTTP API).

use std::collections::BTreeMap;
use std::time::Duration;

use crate::common::start;
use aws_sdk_sqs::types::SendMessageBatchRequestEntry;
use localcloud_sqs::SendRequest;

#[tokio::test]
async fn payloads_are_billed_per_64k_chunk_and_empty_receives_count() {
    // GIVEN a queue
    let cloud = start().await;
    let url = cloud.queue("bill", &[]).await;
    let arn = cloud.arn(&url).await;
    cloud.service.reset();
    // WHEN a 100 KB message, a batch of 10 x 10 KB, and an empty receive are made
    cloud
        .client
        .send_message()
        .queue_url(&url)
        .message_body("x".repeat(100 * 1024))
        .send()
        .await
        .unwrap();
    let entries = (0..10)
        .map(|i| {
            SendMessageBatchRequestEntry::builder()
                .id(format!("e{i}"))
                .message_body("y".repeat(10 * 1024))
                .build()
                .unwrap()
        })
        .collect();
    cloud
        .client
        .send_message_batch()
        .queue_url(&url)
        .set_entries(Some(entries))
        .send()
        .await
        .unwrap();
    let empty = cloud.service.metrics().queues[&arn].billed_requests;
    // THEN 100 KB bills 2 requests and the 100 KB batch 2 more
    assert_eq!(empty, 4);
    cloud
        .client
        .purge_queue()
        .queue_url(&url)
        .send()
        .await
        .unwrap();
    cloud
        .client
        .receive_message()
        .queue_url(&url)
        .send()
        .await
        .unwrap();
    let metrics = cloud.service.metrics();
    let q = &metrics.queues[&arn];
    assert_eq!(
        q.billed_requests, 6,
        "purge and the empty receive count one each"
    );
    assert_eq!(q.api_calls["SendMessage"], 1);
    assert_eq!(q.api_calls["SendMessageBatch"], 1);
    assert_eq!(q.api_calls["ReceiveMessage"], 1);
    assert_eq!(q.messages_sent, 11);
    assert!(metrics.billed_requests >= 6);
    // AND reset zeroes the counters but keeps the queue
    cloud.service.reset();
    let after = cloud.service.metrics();
    assert_eq!(after.queues[&arn].billed_requests, 0);
    assert!(after.queues[&arn].exists);
}

#[tokio::test]
async fn received_payload_is_billed_in_chunks() {
    let cloud = start().await;
    let url = cloud.queue("bigrecv", &[]).await;
    let arn = cloud.arn(&url).await;
    for _ in 0..3 {
        cloud
            .client
            .send_message()
            .queue_url(&url)
            .message_body("z".repeat(50 * 1024))
            .send()
            .await
            .unwrap();
    }
    cloud.service.reset();
    let got = cloud
        .client
        .receive_message()
        .queue_url(&url)
        .max_number_of_messages(10)
        .send()
        .await
        .unwrap();
    assert_eq!(got.messages().len(), 3);
    assert_eq!(
        cloud.service.metrics().queues[&arn].billed_requests,
        3,
        "150 KB returned"
    );
}

#[tokio::test]
async fn poller_api_receives_deletes_and_changes_visibility_by_arn() {
    // GIVEN a queue created from a template definition
    let cloud = start().await;
    let mut attributes = BTreeMap::new();
    attributes.insert("VisibilityTimeout".to_string(), "30".to_string());
    let info = cloud.service.create_queue("jobs", &attributes).unwrap();
    assert_eq!(info.arn, "arn:aws:sqs:us-east-1:000000000000:jobs");
    assert_eq!(
        cloud.service.create_queue("jobs", &attributes).unwrap(),
        info,
        "idempotent"
    );
    for body in ["a", "b", "c"] {
        let request = SendRequest {
            body: body.into(),
            ..Default::default()
        };
        cloud.service.send_message(&info.arn, request).unwrap();
    }
    cloud.service.reset();
    // WHEN a poller receives a batch, releases one message and deletes the rest
    let batch = cloud
        .service
        .receive(&info.arn, 10, Duration::from_secs(1), None)
        .await
        .unwrap();
    assert_eq!(batch.len(), 3);
    assert_eq!(batch[0].attributes["ApproximateReceiveCount"], "1");
    let release = vec![(batch[0].receipt_handle.clone(), Duration::ZERO)];
    let changed = cloud
        .service
        .change_visibility(&info.arn, &release)
        .unwrap();
    assert!(changed[0].is_ok());
    let rest: Vec<String> = batch[1..]
        .iter()
        .map(|m| m.receipt_handle.clone())
        .collect();
    let deleted = cloud.service.delete(&info.arn, &rest).unwrap();
    assert!(deleted.iter().all(Result::is_ok));
    // THEN only the released message is left, visible through the SDK too,
    // and the poller's calls were billed like API calls
    let left = cloud
        .client
        .receive_message()
        .queue_url(&info.url)
        .send()
        .await
        .unwrap();
    assert_eq!(left.messages()[0].body(), Some(batch[0].body.as_str()));
    let q = &cloud.service.metrics().queues[&info.arn];
    assert_eq!(q.api_calls["ReceiveMessage"], 2);
    assert_eq!(q.api_calls["DeleteMessageBatch"], 1);
    assert_eq!(q.api_calls["ChangeMessageVisibilityBatch"], 1);
    assert_eq!(q.billed_requests, 4);
    assert_eq!(q.messages_deleted, 2);
    let missing = cloud
        .service
        .receive(
            "arn:aws:sqs:us-east-1:000000000000:nope",
            1,
            Duration::ZERO,
            None,
        )
        .await;
    assert_eq!(missing.unwrap_err().code(), "QueueDoesNotExist");
}

#[tokio::test]
async fn a_long_poll_through_the_poller_api_is_woken_by_a_send() {
    let cloud = start().await;
    let info = cloud
        .service
        .create_queue("wake", &BTreeMap::new())
        .unwrap();
    let service = cloud.service.clone();
    let arn = info.arn.clone();
    let started = std::time::Instant::now();
    let poll = tokio::spawn(async move {
        service
            .receive(&arn, 10, Duration::from_secs(10), None)
            .await
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    cloud
        .client
        .send_message()
        .queue_url(&info.url)
        .message_body("now")
        .send()
        .await
        .unwrap();
    let got = poll.await.unwrap().unwrap();
    assert_eq!(got[0].body, "now");
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[tokio::test]
async fn metrics_serialise_for_the_cost_model() {
    let cloud = start().await;
    let url = cloud.queue("json", &[]).await;
    cloud
        .client
        .send_message()
        .queue_url(&url)
        .message_body("x")
        .send()
        .await
        .unwrap();
    let _ = cloud
        .client
        .get_queue_url()
        .queue_name("absent")
        .send()
        .await;
    let json = serde_json::to_value(cloud.service.metrics()).unwrap();
    let queue = &json["queues"]["arn:aws:sqs:us-east-1:000000000000:json"];
    assert_eq!(queue["messages_sent"], 1);
    assert_eq!(queue["approximate_number_of_messages"], 1);
    assert_eq!(queue["api_calls"]["SendMessage"], 1);
    assert_eq!(json["unattributed_requests"], 1, "the failed GetQueueUrl");
    let billed = json["billed_requests"].as_u64().unwrap();
    assert_eq!(billed, queue["billed_requests"].as_u64().unwrap() + 1);
}

#[tokio::test]
async fn queue_consumer_contract_receives_deletes_and_reports_visibility() {
    use localcloud_core::QueueConsumer;
    // GIVEN a queue with one message carrying a binary attribute
    let cloud = start().await;
    let mut attributes = BTreeMap::new();
    attributes.insert("VisibilityTimeout".to_string(), "45".to_string());
    let info = cloud.service.create_queue("consumed", &attributes).unwrap();
    let mut message_attributes = localcloud_sqs::MessageAttributes::new();
    message_attributes.insert(
        "blob".into(),
        localcloud_sqs::MessageAttribute {
            data_type: "Binary".into(),
            value: localcloud_sqs::AttributeValue::Binary(vec![1, 2]),
        },
    );
    let request = SendRequest {
        body: "payload".into(),
        attributes: message_attributes,
        ..Default::default()
    };
    cloud.service.send_message(&info.arn, request).unwrap();
    cloud.service.reset();
    let consumer: &dyn QueueConsumer = cloud.service.as_ref();
    // WHEN a poller uses the core contract
    let visibility = consumer.visibility_timeout(&info.arn).await.unwrap();
    let got = consumer
        .receive(&info.arn, 10, Duration::from_millis(50))
        .await
        .unwrap();
    let handles = vec![got[0].receipt_handle.clone()];
    consumer.delete(&info.arn, &handles).await.unwrap();
    // THEN it saw everything the SQS event needs, and was billed like API calls
    assert_eq!(visibility, Duration::from_secs(45));
    assert_eq!(got[0].body, "payload");
    assert!(got[0]
        .attributes
        .contains(&("ApproximateReceiveCount".to_string(), "1".to_string())));
    assert_eq!(got[0].message_attributes[0].binary_value, Some(vec![1, 2]));
    assert!(got[0].md5_of_message_attributes.is_some());
    let empty = consumer
        .receive(&info.arn, 10, Duration::ZERO)
        .await
        .unwrap();
    assert!(empty.is_empty());
    // A stale or bad handle is not the poller's error; too many handles is.
    consumer
        .delete(&info.arn, &["junk".to_string()])
        .await
        .unwrap();
    let too_many = vec![handles[0].clone(); 11];
    let err = consumer.delete(&info.arn, &too_many).await.unwrap_err();
    assert_eq!(err.code(), "TooManyEntriesInBatchRequest");
    let q = &cloud.service.metrics().queues[&info.arn];
    assert_eq!(q.api_calls["ReceiveMessage"], 2);
    assert_eq!(q.api_calls["DeleteMessageBatch"], 2);
    assert_eq!(q.billed_requests, 4);
    assert_eq!(q.messages_deleted, 1);
}
