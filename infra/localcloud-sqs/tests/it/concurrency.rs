//! Many consumers on one queue: no message is handed out twice while it is
//! in flight, and every sent message ends up deleted or in the DLQ.

use std::collections::HashMap;
use std::sync::Arc;

use crate::common::start;
use aws_sdk_sqs::types::{MessageSystemAttributeName as S, SendMessageBatchRequestEntry};
use tally::Counter;

mod tally {
    //! Receipts per message body, shared by the consumer tasks.
    use std::collections::HashMap;
    use std::sync::Mutex;

    #[derive(Default)]
    pub struct Counter(Mutex<HashMap<String, u32>>);

    impl Counter {
        pub fn add(&self, key: &str) {
            *self.0.lock().unwrap().entry(key.to_string()).or_default() += 1;
        }
        pub fn snapshot(&self) -> HashMap<String, u32> {
            self.0.lock().unwrap().clone()
        }
    }
}

const MESSAGES: usize = 200;
const CONSUMERS: usize = 8;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_consumers_each_message_is_received_once_or_redriven() {
    // GIVEN a queue whose odd-numbered messages are never deleted and go to a
    // DLQ after 2 receives, and 200 messages sent in batches
    let cloud = start().await;
    let dlq = cloud.queue("conc-dlq", &[]).await;
    let dlq_arn = cloud.arn(&dlq).await;
    let policy = format!(r#"{{"deadLetterTargetArn":"{dlq_arn}","maxReceiveCount":2}}"#);
    let url = cloud.queue("conc", &[("RedrivePolicy", &policy)]).await;
    for chunk in (0..MESSAGES).collect::<Vec<_>>().chunks(10) {
        let entries = chunk
            .iter()
            .map(|i| {
                SendMessageBatchRequestEntry::builder()
                    .id(format!("e{i}"))
                    .message_body(i.to_string())
                    .build()
                    .unwrap()
            })
            .collect();
        let out = cloud
            .client
            .send_message_batch()
            .queue_url(&url)
            .set_entries(Some(entries))
            .send()
            .await
            .unwrap();
        assert_eq!(out.successful().len(), chunk.len());
    }
    // WHEN 8 consumers receive concurrently: they delete even bodies, and
    // release odd ones at once (visibility 0) so they come back
    let receipts = Arc::new(Counter::default());
    let mut tasks = Vec::new();
    for _ in 0..CONSUMERS {
        let client = cloud.client.clone();
        let url = url.clone();
        let receipts = receipts.clone();
        tasks.push(tokio::spawn(async move {
            let mut idle = 0;
            while idle < 3 {
                let got = client
                    .receive_message()
                    .queue_url(&url)
                    .max_number_of_messages(10)
                    .wait_time_seconds(0)
                    .message_system_attribute_names(S::ApproximateReceiveCount)
                    .send()
                    .await
                    .unwrap();
                if got.messages().is_empty() {
                    idle += 1;
                    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                    continue;
                }
                idle = 0;
                for m in got.messages() {
                    let body = m.body().unwrap();
                    receipts.add(body);
                    let handle = m.receipt_handle().unwrap();
                    if body.parse::<usize>().unwrap() % 2 == 0 {
                        client
                            .delete_message()
                            .queue_url(&url)
                            .receipt_handle(handle)
                            .send()
                            .await
                            .unwrap();
                    } else {
                        client
                            .change_message_visibility()
                            .queue_url(&url)
                            .receipt_handle(handle)
                            .visibility_timeout(0)
                            .send()
                            .await
                            .unwrap();
                    }
                }
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    // THEN each even message was received exactly once (its 30 s visibility
    // never expired), each odd one exactly twice, and all odd ones are in the DLQ
    let receipts: HashMap<String, u32> = receipts.snapshot();
    assert_eq!(receipts.len(), MESSAGES);
    for (body, count) in &receipts {
        let expected = if body.parse::<usize>().unwrap() % 2 == 0 {
            1
        } else {
            2
        };
        assert_eq!(*count, expected, "message {body}");
    }
    let metrics = cloud.service.metrics();
    let src = &metrics.queues[&cloud.arn(&url).await];
    assert_eq!(src.messages_sent, MESSAGES as u64);
    assert_eq!(src.messages_deleted, (MESSAGES / 2) as u64);
    assert_eq!(src.messages_moved_to_dlq, (MESSAGES / 2) as u64);
    assert_eq!(
        src.approximate_number_of_messages + src.approximate_number_of_messages_not_visible,
        0
    );
    let dead = &metrics.queues[&dlq_arn];
    assert_eq!(dead.approximate_number_of_messages, (MESSAGES / 2) as u64);
}
