//! Both transports against the local cloud, through the real SDKs.

use std::path::Path;
use std::time::Duration;

use localcloud::{LocalCloud, LocalCloudConfig, StackConfig};
use localcloud_sqs::QueueMetrics;
use serde_json::{json, Value};
use transport::reply::{REPLY_HIDDEN_FOR, REPLY_RETENTION};
use transport::sweep::{delete_stale_reply_queues, STALE_AFTER};
use transport::worker::{answer, Answered};
use transport::{InvokeTransport, RequestReply, RequestReplyConfig, Transport, TransportError};

fn sdk_config(endpoint: &str) -> aws_config::SdkConfig {
    let credentials =
        aws_credential_types::Credentials::new("AKIDTEST", "secret", None, None, "test");
    aws_config::SdkConfig::builder()
        .behavior_version(aws_config::BehaviorVersion::latest())
        .region(aws_config::Region::new("us-east-1"))
        .credentials_provider(
            aws_credential_types::provider::SharedCredentialsProvider::new(credentials),
        )
        .endpoint_url(endpoint)
        .build()
}

fn binaries_dir() -> std::path::PathBuf {
    localcloud::testing::function_binaries(&["echo", "fail", "sleep"])
}

async fn cloud_with_callees() -> (LocalCloud, tempfile::TempDir) {
    let logs = tempfile::tempdir().unwrap();
    let mut stack =
        StackConfig::new(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/callees.yaml"));
    stack.binaries_dir = binaries_dir();
    stack.log_dir = logs.path().to_path_buf();
    let config = LocalCloudConfig {
        stack: Some(stack),
        ..LocalCloudConfig::ephemeral()
    };
    (LocalCloud::start(config).await.unwrap(), logs)
}

async fn data_cloud() -> (LocalCloud, aws_sdk_sqs::Client) {
    let cloud = LocalCloud::start(LocalCloudConfig::ephemeral())
        .await
        .unwrap();
    let sqs = aws_sdk_sqs::Client::new(&sdk_config(&cloud.endpoint()));
    (cloud, sqs)
}

async fn request_queue(sqs: &aws_sdk_sqs::Client) -> String {
    sqs.create_queue()
        .queue_name("requests")
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap()
}

fn config(request_queue_url: &str, prefix: &str, wait: Duration) -> RequestReplyConfig {
    RequestReplyConfig {
        request_queue_url: request_queue_url.to_string(),
        reply_queue_prefix: prefix.to_string(),
        wait_limit: wait,
    }
}

/// A worker that answers every request with its payload, after `delay` plus
/// the payload's `delay_ms`, and answers it again `duplicate_after_ms` later
/// when the payload asks (a redelivered request processed twice); it runs
/// until the test ends.
fn spawn_worker(sqs: aws_sdk_sqs::Client, queue_url: String, delay: Duration) {
    tokio::spawn(async move {
        loop {
            let Ok(output) = sqs
                .receive_message()
                .queue_url(&queue_url)
                .max_number_of_messages(10)
                .wait_time_seconds(1)
                .send()
                .await
            else {
                return;
            };
            for message in output.messages.unwrap_or_default() {
                let sqs = sqs.clone();
                let queue_url = queue_url.clone();
                tokio::spawn(async move {
                    let body = message.body.unwrap_or_default();
                    let handler = move |mut payload: Value| async move {
                        let extra = payload["delay_ms"].as_u64().unwrap_or(0);
                        if let Some(map) = payload.as_object_mut() {
                            map.remove("delay_ms");
                            map.remove("duplicate_after_ms");
                        }
                        tokio::time::sleep(delay + Duration::from_millis(extra)).await;
                        if payload["fail"] == true {
                            Err(("OrdersUnavailable".to_string(), "asked to fail".to_string()))
                        } else {
                            Ok(json!({"echo": payload}))
                        }
                    };
                    let outcome = answer(&sqs, &body, handler).await;
                    let duplicate_after = serde_json::from_str::<Value>(&body)
                        .ok()
                        .and_then(|r| r["payload"]["duplicate_after_ms"].as_u64());
                    if let Some(ms) = duplicate_after {
                        tokio::time::sleep(Duration::from_millis(ms)).await;
                        let _ = answer(&sqs, &body, handler).await;
                    }
                    if outcome.is_ok() {
                        let _ = sqs
                            .delete_message()
                            .queue_url(&queue_url)
                            .receipt_handle(message.receipt_handle.unwrap())
                            .send()
                            .await;
                    }
                });
            }
        }
    });
}

/// A request queue, a worker answering it at once, and one environment's
/// client that waits `wait` for each reply.
async fn answered_client(wait: Duration) -> (LocalCloud, aws_sdk_sqs::Client, RequestReply) {
    let (cloud, sqs) = data_cloud().await;
    let requests = request_queue(&sqs).await;
    spawn_worker(sqs.clone(), requests.clone(), Duration::ZERO);
    let client = RequestReply::new(sqs.clone(), config(&requests, "reply-", wait));
    (cloud, sqs, client)
}

#[tokio::test]
async fn fifty_concurrent_calls_each_get_their_own_reply() {
    // GIVEN one environment's request/reply client and a worker
    let (cloud, sqs) = data_cloud().await;
    let requests = request_queue(&sqs).await;
    spawn_worker(sqs.clone(), requests.clone(), Duration::from_millis(20));
    let client = std::sync::Arc::new(RequestReply::new(
        sqs.clone(),
        config(&requests, "reply-", Duration::from_secs(10)),
    ));

    // WHEN fifty calls are in flight at once
    let calls = (0..50).map(|i| {
        let client = client.clone();
        tokio::spawn(async move { (i, client.call(json!({"n": i})).await) })
    });
    let results = futures_join(calls).await;

    // THEN each gets the reply to its own request
    for (i, result) in results {
        let answer = result.unwrap_or_else(|e| panic!("call {i}: {e}"));
        assert_eq!(answer, json!({"echo": {"n": i}}));
    }
    // AND the process used exactly one reply queue
    let queues = sqs
        .list_queues()
        .queue_name_prefix("reply-")
        .send()
        .await
        .unwrap();
    assert_eq!(queues.queue_urls.unwrap().len(), 1);
    cloud.shutdown().await.unwrap();
}

#[tokio::test]
async fn two_environments_never_receive_each_others_replies() {
    let (cloud, sqs) = data_cloud().await;
    let requests = request_queue(&sqs).await;
    spawn_worker(sqs.clone(), requests.clone(), Duration::ZERO);
    let a = std::sync::Arc::new(RequestReply::new(
        sqs.clone(),
        config(&requests, "reply-", Duration::from_secs(10)),
    ));
    let b = std::sync::Arc::new(RequestReply::new(
        sqs.clone(),
        config(&requests, "reply-", Duration::from_secs(10)),
    ));

    let mut tasks = Vec::new();
    for i in 0..20 {
        for (name, client) in [("a", a.clone()), ("b", b.clone())] {
            tasks.push(tokio::spawn(async move {
                let answer = client.call(json!({"from": name, "n": i})).await.unwrap();
                assert_eq!(answer["echo"]["from"], name);
                assert_eq!(answer["echo"]["n"], i);
            }));
        }
    }
    for task in tasks {
        task.await.unwrap();
    }
    assert_ne!(a.reply_queue_url(), b.reply_queue_url());
    cloud.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_timed_out_call_fails_cleanly_and_its_late_reply_is_dropped_not_misdelivered() {
    // GIVEN a client that waits 1 s and a worker that takes 2 s for the first request
    let (cloud, _, client) = answered_client(Duration::from_millis(1000)).await;

    // WHEN the slow call times out
    let err = client
        .call(json!({"n": 1, "delay_ms": 2000}))
        .await
        .unwrap_err();
    assert!(
        matches!(err, TransportError::Timeout { waited_ms: 1000 }),
        "{err}"
    );

    // THEN the next calls, made while and after the late reply arrives, get their own answers
    for n in 2..=4 {
        let answer = client.call(json!({"n": n})).await.unwrap();
        assert_eq!(answer, json!({"echo": {"n": n}}));
        tokio::time::sleep(Duration::from_millis(150)).await;
    }
    cloud.shutdown().await.unwrap();
}

/// A queue's visible and in-flight message counts.
async fn waiting_messages(sqs: &aws_sdk_sqs::Client, queue_url: &str) -> Vec<String> {
    use aws_sdk_sqs::types::QueueAttributeName as Name;
    let names = [
        Name::ApproximateNumberOfMessages,
        Name::ApproximateNumberOfMessagesNotVisible,
    ];
    let attributes = sqs
        .get_queue_attributes()
        .queue_url(queue_url)
        .set_attribute_names(Some(names.to_vec()))
        .send()
        .await
        .unwrap()
        .attributes
        .unwrap_or_default();
    names.iter().map(|n| attributes[n].clone()).collect()
}

/// The local cloud's counters of one queue, by URL.
async fn queue_metrics(cloud: &LocalCloud, sqs: &aws_sdk_sqs::Client, url: &str) -> QueueMetrics {
    use aws_sdk_sqs::types::QueueAttributeName as Name;
    let attributes = sqs
        .get_queue_attributes()
        .queue_url(url)
        .attribute_names(Name::QueueArn)
        .send()
        .await
        .unwrap()
        .attributes
        .unwrap_or_default();
    cloud.sqs().metrics().queues[&attributes[&Name::QueueArn]].clone()
}

/// Polls (every 100 ms, `attempts` times) until the queue's visible and
/// in-flight counts are `expected`; returns the last counts seen.
async fn wait_for_counts(
    sqs: &aws_sdk_sqs::Client,
    queue_url: &str,
    expected: [&str; 2],
    attempts: usize,
) -> Vec<String> {
    let mut seen = Vec::new();
    for _ in 0..attempts {
        seen = waiting_messages(sqs, queue_url).await;
        if seen == expected {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    seen
}

#[tokio::test]
async fn the_reply_queue_hides_a_received_reply_until_its_retention_ends_it() {
    // GIVEN one environment's client after its first call
    let (cloud, sqs, client) = answered_client(Duration::from_secs(10)).await;
    client.call(json!({"n": 1})).await.unwrap();

    // WHEN its reply queue's attributes are read
    use aws_sdk_sqs::types::QueueAttributeName as Name;
    let attributes = sqs
        .get_queue_attributes()
        .queue_url(client.reply_queue_url().unwrap())
        .attribute_names(Name::MessageRetentionPeriod)
        .attribute_names(Name::VisibilityTimeout)
        .send()
        .await
        .unwrap()
        .attributes
        .unwrap_or_default();

    // THEN messages are kept for SQS's shortest retention (60 s) and a
    // received one stays hidden for its longest visibility timeout (12 h)
    assert_eq!(attributes[&Name::MessageRetentionPeriod], "60");
    assert_eq!(attributes[&Name::VisibilityTimeout], "43200");
    assert_eq!(REPLY_RETENTION, Duration::from_secs(60));
    assert_eq!(REPLY_HIDDEN_FOR, Duration::from_secs(43_200));
    cloud.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_request_answered_twice_gives_its_caller_one_answer_and_the_duplicate_to_nobody() {
    // GIVEN a worker that answers the first request again 500 ms later, as
    // when a request is redelivered after a kill and processed a second time
    let (cloud, sqs, client) = answered_client(Duration::from_secs(10)).await;
    let first = client
        .call(json!({"n": 1, "duplicate_after_ms": 500}))
        .await
        .unwrap();
    assert_eq!(first, json!({"echo": {"n": 1}}));

    // WHEN the next call is waiting (1.5 s) while the duplicate reply arrives
    let second = client.call(json!({"n": 2, "delay_ms": 1500})).await;

    // THEN it gets its own answer, not the duplicate
    assert_eq!(second.unwrap(), json!({"echo": {"n": 2}}));
    // AND the duplicate was taken off the reply queue and dropped: none of
    // the three replies is visible, each is held in flight until its
    // retention ends, and each was received exactly once, none deleted
    let reply_queue = client.reply_queue_url().unwrap().to_string();
    assert_eq!(
        wait_for_counts(&sqs, &reply_queue, ["0", "3"], 30).await,
        ["0", "3"],
        "visible, in flight"
    );
    let traffic = queue_metrics(&cloud, &sqs, &reply_queue).await;
    assert_eq!(
        (traffic.messages_sent, traffic.messages_received),
        (3, 3),
        "{traffic:?}"
    );
    assert_eq!(traffic.messages_deleted, 0, "{traffic:?}");
    assert!(
        !traffic.api_calls.contains_key("DeleteMessageBatch"),
        "{traffic:?}"
    );
    cloud.shutdown().await.unwrap();
}

#[tokio::test]
async fn callee_errors_come_back_as_callee_failed() {
    let (cloud, _, client) = answered_client(Duration::from_secs(10)).await;
    let err = client.call(json!({"fail": true})).await.unwrap_err();
    match err {
        TransportError::CalleeFailed {
            error_type,
            message,
        } => {
            assert_eq!(error_type, "OrdersUnavailable");
            assert_eq!(message, "asked to fail");
        }
        other => panic!("expected CalleeFailed, got {other}"),
    }
    cloud.shutdown().await.unwrap();
}

async fn reply_queue_names(sqs: &aws_sdk_sqs::Client) -> Vec<String> {
    let listed = sqs
        .list_queues()
        .queue_name_prefix("reply-")
        .send()
        .await
        .unwrap();
    listed
        .queue_urls
        .unwrap_or_default()
        .into_iter()
        .map(|u| u.rsplit('/').next().unwrap().to_string())
        .collect()
}

/// A reply queue left behind by a dead environment, and one of a live environment.
async fn dead_and_live_reply_queues(sqs: &aws_sdk_sqs::Client) {
    for (name, heartbeat) in [
        ("reply-dead", "1000".to_string()),
        ("reply-alive", transport::envelope::now_ms().to_string()),
    ] {
        sqs.create_queue()
            .queue_name(name)
            .tags("heartbeat-ms", heartbeat)
            .send()
            .await
            .unwrap();
    }
}

#[tokio::test]
async fn the_sweeper_deletes_reply_queues_whose_heartbeat_is_stale_and_keeps_live_ones() {
    // GIVEN a reply queue left behind by a dead environment, and a live one
    let (cloud, sqs) = data_cloud().await;
    dead_and_live_reply_queues(&sqs).await;
    // WHEN the sweeper runs over their prefix
    let swept = delete_stale_reply_queues(&sqs, &["reply-".into()], STALE_AFTER)
        .await
        .unwrap();
    // THEN the dead queue is gone and the live one kept
    assert_eq!(swept.seen, 2);
    assert_eq!(swept.deleted.len(), 1, "{swept:?}");
    assert_eq!(reply_queue_names(&sqs).await, ["reply-alive"]);
    cloud.shutdown().await.unwrap();
}

#[tokio::test]
async fn new_environments_calling_list_no_queue_and_read_no_tags() {
    // GIVEN reply queues of other environments, one of them dead
    let (cloud, sqs) = data_cloud().await;
    let requests = request_queue(&sqs).await;
    dead_and_live_reply_queues(&sqs).await;
    spawn_worker(sqs.clone(), requests.clone(), Duration::ZERO);
    let before = cloud.sqs().metrics();

    // WHEN three new environments make their first calls
    let mut environments = Vec::new();
    for _ in 0..3 {
        let client = RequestReply::new(
            sqs.clone(),
            config(&requests, "reply-", Duration::from_secs(10)),
        );
        client.call(json!({})).await.unwrap();
        environments.push(client);
    }

    // THEN none of them listed queues (ListQueues reaches no queue: it is
    // counted apart) or read a queue's tags, and the dead queue is left to
    // the sweeper
    let after = cloud.sqs().metrics();
    assert_eq!(after.unattributed_requests, before.unattributed_requests);
    assert_eq!(
        after.calls_to_queues("ListQueueTags"),
        0,
        "{:?}",
        after.queues
    );
    assert!(reply_queue_names(&sqs)
        .await
        .contains(&"reply-dead".to_string()));
    for client in environments {
        client.close().await.unwrap();
    }
    cloud.shutdown().await.unwrap();
}

#[tokio::test]
async fn worker_skips_expired_requests_and_rejects_malformed_ones() {
    let (cloud, sqs) = data_cloud().await;
    let expired =
        json!({"correlationId": "c", "replyTo": "http://nowhere", "expiresAtMs": 1, "payload": {}});
    let ran = std::sync::atomic::AtomicBool::new(false);
    let outcome = answer(&sqs, &expired.to_string(), |_| async {
        ran.store(true, std::sync::atomic::Ordering::SeqCst);
        Ok(Value::Null)
    })
    .await
    .unwrap();
    assert_eq!(outcome, Answered::Expired);
    assert!(
        !ran.load(std::sync::atomic::Ordering::SeqCst),
        "no work for a request nobody waits for"
    );
    let malformed = answer(&sqs, "not json", |_| async { Ok(Value::Null) }).await;
    assert!(matches!(malformed, Err(TransportError::BadAnswer(_))));
    cloud.shutdown().await.unwrap();
}

#[tokio::test]
async fn invoke_returns_the_answer_or_a_callee_failure() {
    let (cloud, _logs) = cloud_with_callees().await;
    let config = sdk_config(&cloud.endpoint());
    let client = InvokeTransport::client(&config, 1, Duration::from_secs(10));

    let echo = InvokeTransport::new(client.clone(), "echo");
    let answer = echo.call(json!({"size": 5})).await.unwrap();
    assert_eq!(answer["event"]["size"], 5);

    let fail = InvokeTransport::new(client, "fail");
    let err = fail.call(json!({})).await.unwrap_err();
    assert!(matches!(err, TransportError::CalleeFailed { .. }), "{err}");
    cloud.shutdown().await.unwrap();
}

#[tokio::test]
async fn invoke_over_reserved_concurrency_is_throttled_at_once_without_sdk_retries() {
    // GIVEN a callee with reserved concurrency 1, busy with a slow call
    let (cloud, _logs) = cloud_with_callees().await;
    let config = sdk_config(&cloud.endpoint());
    let client = InvokeTransport::client(&config, 1, Duration::from_secs(10));
    let slow = std::sync::Arc::new(InvokeTransport::new(client, "slow-single"));
    let busy = {
        let slow = slow.clone();
        tokio::spawn(async move { slow.call(json!({"ms": 4000})).await })
    };
    tokio::time::sleep(Duration::from_millis(1500)).await;

    // WHEN a second call arrives
    let err = slow.call(json!({"ms": 1})).await.unwrap_err();

    // THEN it is throttled with AWS's reason, at once
    match err {
        TransportError::Throttled { reason } => {
            assert_eq!(reason, "ReservedFunctionConcurrentInvocationLimitExceeded")
        }
        other => panic!("expected Throttled, got {other}"),
    }
    // AND the SDK did not retry: the function saw exactly one throttled attempt
    let metrics = cloud.stack().unwrap().metrics();
    assert_eq!(
        metrics["lambda"]["functions"]["slow-single"]["throttles"], 1,
        "one attempt, no retries: {}",
        metrics["lambda"]["functions"]["slow-single"]
    );
    assert!(busy.await.unwrap().is_ok());
    cloud.shutdown().await.unwrap();
}

async fn futures_join<T: Send + 'static>(
    tasks: impl Iterator<Item = tokio::task::JoinHandle<T>>,
) -> Vec<T> {
    let mut out = Vec::new();
    for task in tasks {
        out.push(task.await.unwrap());
    }
    out
}
