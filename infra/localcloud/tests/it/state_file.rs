//! `--state-file`: SQS queues and messages survive a clean restart beside the
//! DynamoDB tables; the file is replaced whole; a damaged file is refused.

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use aws_sdk_sqs::types::{MessageAttributeValue, MessageSystemAttributeName, QueueAttributeName};
use localcloud::{LocalCloud, LocalCloudConfig, StartError};

fn config(state: &Path) -> LocalCloudConfig {
    LocalCloudConfig {
        state_file: Some(state.to_path_buf()),
        ..LocalCloudConfig::ephemeral()
    }
}

fn sqs(cloud: &LocalCloud) -> aws_sdk_sqs::Client {
    aws_sdk_sqs::Client::new(&crate::common::sdk_config(&cloud.endpoint(), "us-east-1"))
}

async fn queue_url(sqs: &aws_sdk_sqs::Client, name: &str) -> String {
    sqs.get_queue_url()
        .queue_name(name)
        .send()
        .await
        .expect("the queue exists")
        .queue_url
        .unwrap()
}

async fn receive(sqs: &aws_sdk_sqs::Client, url: &str) -> Vec<aws_sdk_sqs::types::Message> {
    sqs.receive_message()
        .queue_url(url)
        .max_number_of_messages(10)
        .message_system_attribute_names(MessageSystemAttributeName::All)
        .message_attribute_names("All")
        .send()
        .await
        .unwrap()
        .messages
        .unwrap_or_default()
}

/// The work queue's visibility timeout: long enough that a restart (a few
/// milliseconds in-process) cannot outlast it.
const VISIBILITY: Duration = Duration::from_secs(2);

/// A local cloud with a work queue (2 s visibility, DLQ after 3 receives),
/// holding one message in flight and one visible, then stopped cleanly.
/// [`saved_state`] in `state.json` of a fresh directory.
async fn saved_state_file() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.json");
    saved_state(&state).await;
    (dir, state)
}

async fn saved_state(state: &Path) {
    let cloud = LocalCloud::start(config(state)).await.unwrap();
    let sqs = sqs(&cloud);
    let dlq = sqs
        .create_queue()
        .queue_name("work-dlq")
        .send()
        .await
        .unwrap();
    let dlq_arn = sqs
        .get_queue_attributes()
        .queue_url(dlq.queue_url.unwrap())
        .attribute_names(QueueAttributeName::QueueArn)
        .send()
        .await
        .unwrap()
        .attributes
        .unwrap()[&QueueAttributeName::QueueArn]
        .clone();
    let policy = format!(r#"{{"deadLetterTargetArn":"{dlq_arn}","maxReceiveCount":"3"}}"#);
    let url = sqs
        .create_queue()
        .queue_name("work")
        .attributes(
            QueueAttributeName::VisibilityTimeout,
            VISIBILITY.as_secs().to_string(),
        )
        .attributes(QueueAttributeName::RedrivePolicy, policy)
        .tags("team", "orders")
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    let attribute = MessageAttributeValue::builder()
        .data_type("String")
        .string_value("abc-1")
        .build()
        .unwrap();
    sqs.send_message()
        .queue_url(&url)
        .message_body("first")
        .message_attributes("correlation", attribute)
        .send()
        .await
        .unwrap();
    let taken = receive(&sqs, &url).await;
    assert_eq!(taken.len(), 1, "the first message is now in flight");
    sqs.send_message()
        .queue_url(&url)
        .message_body("second")
        .send()
        .await
        .unwrap();
    cloud.shutdown().await.unwrap();
}

#[tokio::test]
async fn queues_and_messages_survive_a_clean_restart_and_in_flight_ones_come_back() {
    // GIVEN a state file saved with one message in flight and one visible
    let (_dir, state) = saved_state_file().await;

    // WHEN a new local cloud starts from it
    let cloud = LocalCloud::start(config(&state)).await.unwrap();
    let sqs = sqs(&cloud);
    let url = queue_url(&sqs, "work").await;

    // THEN the queue keeps its attributes and tags
    let attributes = sqs
        .get_queue_attributes()
        .queue_url(&url)
        .attribute_names(QueueAttributeName::All)
        .send()
        .await
        .unwrap()
        .attributes
        .unwrap();
    assert_eq!(attributes[&QueueAttributeName::VisibilityTimeout], "2");
    assert!(attributes[&QueueAttributeName::RedrivePolicy].contains("work-dlq"));
    let tags = sqs.list_queue_tags().queue_url(&url).send().await.unwrap();
    assert_eq!(tags.tags.unwrap()["team"], "orders");
    // AND the visible message is there at once, the in-flight one is not yet
    let now = receive(&sqs, &url).await;
    let bodies: Vec<_> = now.iter().map(|m| m.body().unwrap()).collect();
    assert_eq!(bodies, ["second"]);
    // AND once its visibility timeout ends it is back, received a second
    // time, with its message attribute
    tokio::time::sleep(VISIBILITY + Duration::from_millis(200)).await;
    let later = receive(&sqs, &url).await;
    let first = later
        .iter()
        .find(|m| m.body() == Some("first"))
        .expect("the in-flight message becomes visible again");
    let system: HashMap<_, _> = first.attributes().cloned().unwrap_or_default();
    assert_eq!(
        system[&MessageSystemAttributeName::ApproximateReceiveCount],
        "2"
    );
    assert_eq!(
        first.message_attributes().unwrap()["correlation"].string_value(),
        Some("abc-1")
    );
    cloud.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_restored_queue_still_moves_a_message_to_its_dlq_after_max_receives() {
    // GIVEN the saved work queue, whose first message was received once
    let (_dir, state) = saved_state_file().await;
    let cloud = LocalCloud::start(config(&state)).await.unwrap();
    let sqs = sqs(&cloud);
    let url = queue_url(&sqs, "work").await;
    // WHEN, once visible again, it is received until maxReceiveCount (3),
    // each time given back at once (as a consumer that fails does)
    tokio::time::sleep(VISIBILITY + Duration::from_millis(200)).await;
    let mut receives_of_first = 1;
    for _ in 0..2 {
        let got = receive(&sqs, &url).await;
        for message in got.iter().filter(|m| m.body() == Some("first")) {
            receives_of_first += 1;
            sqs.change_message_visibility()
                .queue_url(&url)
                .receipt_handle(message.receipt_handle().unwrap())
                .visibility_timeout(0)
                .send()
                .await
                .unwrap();
        }
    }
    assert_eq!(receives_of_first, 3);
    let got = receive(&sqs, &url).await;
    // THEN the next receive moves it to the dead-letter queue
    assert!(got.iter().all(|m| m.body() != Some("first")));
    let dlq = queue_url(&sqs, "work-dlq").await;
    let dead = receive(&sqs, &dlq).await;
    assert_eq!(dead.len(), 1);
    assert_eq!(dead[0].body(), Some("first"));
    cloud.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_truncated_state_file_is_refused_with_an_error_naming_it() {
    // GIVEN a good state file cut in half (as a disk-full or a copy would)
    let (_dir, state) = saved_state_file().await;
    let bytes = std::fs::read(&state).unwrap();
    std::fs::write(&state, &bytes[..bytes.len() / 2]).unwrap();

    // WHEN the local cloud starts from it
    let error = LocalCloud::start(config(&state))
        .await
        .err()
        .expect("a truncated state file must not start");

    // THEN the start fails, naming the file and what is wrong with it
    assert!(matches!(error, StartError::LoadState(_)), "{error}");
    let message = error.to_string();
    assert!(message.contains(&state.display().to_string()), "{message}");
    assert!(message.contains("truncated or corrupt"), "{message}");
    // AND the file is left as it was, for the operator to inspect
    assert_eq!(std::fs::read(&state).unwrap().len(), bytes.len() / 2);
}

#[tokio::test]
async fn a_file_of_another_kind_is_refused_rather_than_read_as_empty() {
    // GIVEN a JSON document that is not a state file (e.g. the old DynamoDB-only layout)
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.json");
    std::fs::write(&state, r#"{"tables": []}"#).unwrap();
    // WHEN the local cloud starts from it THEN it says what it expected
    let error = LocalCloud::start(config(&state)).await.err().unwrap();
    let message = error.to_string();
    assert!(
        message.contains("not a local cloud state file"),
        "{message}"
    );
    assert!(message.contains(&state.display().to_string()), "{message}");
}

#[tokio::test]
async fn saving_replaces_the_file_whole_and_a_killed_save_leaves_the_old_one_usable() {
    // GIVEN a saved state and the leftover of a save killed half-way
    let (dir, state) = saved_state_file().await;
    let tmp = dir.path().join("state.json.tmp");
    std::fs::write(&tmp, b"{\"format\":\"localcloud-state/1\",\"dyn").unwrap();

    // WHEN the local cloud starts, gets a new queue and stops cleanly
    let cloud = LocalCloud::start(config(&state)).await.unwrap();
    let client = sqs(&cloud);
    client
        .create_queue()
        .queue_name("later")
        .send()
        .await
        .unwrap();
    cloud.shutdown().await.unwrap();

    // THEN the leftover was never read, the new file is whole and no
    // temporary file remains
    assert!(!tmp.exists());
    let cloud = LocalCloud::start(config(&state)).await.unwrap();
    let client = sqs(&cloud);
    queue_url(&client, "work").await;
    queue_url(&client, "later").await;
    cloud.shutdown().await.unwrap();
}
