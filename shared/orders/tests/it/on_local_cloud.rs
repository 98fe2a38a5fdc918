//! The orders experiment on the local cloud, from the project's template.yaml:
//! both paths give the same orders; at the concurrency cap the direct path is
//! throttled while the queue path queues; nothing is lost.

use std::path::PathBuf;

use localcloud::{LocalCloud, LocalCloudConfig, StackConfig};
use serde_json::Value;

fn workspace() -> PathBuf {
    localcloud::testing::workspace_root()
}

/// `target/<profile>` with the template's function binaries.
fn binaries_dir() -> PathBuf {
    localcloud::testing::template_binaries(&workspace().join("template.yaml"))
}

async fn start(overrides: &[(&str, &str)]) -> (LocalCloud, tempfile::TempDir) {
    let logs = tempfile::tempdir().unwrap();
    let mut stack = StackConfig::new(workspace().join("template.yaml"));
    stack.binaries_dir = binaries_dir();
    stack.log_dir = logs.path().to_path_buf();
    for (name, value) in overrides {
        stack
            .parameter_overrides
            .insert(name.to_string(), value.to_string());
    }
    let config = LocalCloudConfig {
        stack: Some(stack),
        ..LocalCloudConfig::ephemeral()
    };
    let cloud = LocalCloud::start(config).await.expect("template starts");
    // As the bench does before any run: the functions only read the table.
    let table = &cloud
        .stack()
        .unwrap()
        .app
        .table("OrdersTable")
        .unwrap()
        .name;
    orders::table::seed(&crate::common::client(&cloud.endpoint()), table)
        .await
        .expect("the orders table is seeded");
    (cloud, logs)
}

/// GET through a fresh connection: (status, body).
async fn get(url: &str) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let rest = url.strip_prefix("http://").unwrap();
    let (host, path) = rest.split_at(rest.find('/').unwrap());
    let mut stream = tokio::net::TcpStream::connect(host).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nhost: {host}\r\nconnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    let status = response[9..12].parse().unwrap();
    let body = response
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}

fn urls(cloud: &LocalCloud) -> (String, String) {
    let apis = cloud.stack().unwrap().api_urls();
    (
        apis["OrdersDirectApi"].clone(),
        apis["OrdersQueueApi"].clone(),
    )
}

#[tokio::test]
async fn both_paths_return_the_same_orders_and_reject_bad_sizes() {
    let (cloud, _logs) = start(&[("OrdersDelayMs", "20")]).await;
    let (direct, queue) = urls(&cloud);

    let (status, by_direct) = get(&format!("{direct}/orders/5")).await;
    assert_eq!(status, 200, "{by_direct}");
    let (status, by_queue) = get(&format!("{queue}/orders/5")).await;
    assert_eq!(status, 200, "{by_queue}");
    let orders: Vec<Value> = serde_json::from_str(&by_direct).unwrap();
    assert_eq!(orders.len(), 5);
    assert_eq!(by_direct, by_queue, "same orders by both paths");

    let (status, body) = get(&format!("{queue}/orders/100")).await;
    assert_eq!(status, 200);
    assert_eq!(
        serde_json::from_str::<Vec<Value>>(&body).unwrap().len(),
        100
    );

    for bad in ["0", "1001", "abc", "-1"] {
        for base in [&direct, &queue] {
            let (status, body) = get(&format!("{base}/orders/{bad}")).await;
            assert_eq!(status, 400, "size {bad}: {body}");
            assert!(body.contains("size must be"), "{body}");
        }
    }
    cloud.shutdown().await.unwrap();
}

async fn burst(url: &str, n: usize) -> Vec<u16> {
    let tasks: Vec<_> = (0..n)
        .map(|_| {
            let url = url.to_string();
            tokio::spawn(async move { get(&url).await.0 })
        })
        .collect();
    let mut statuses = Vec::new();
    for task in tasks {
        statuses.push(task.await.unwrap());
    }
    statuses
}

#[tokio::test]
async fn at_the_cap_the_direct_path_throttles_and_the_queue_path_queues_without_loss() {
    // GIVEN both paths capped at 2 concurrent back-end executions, 1 s each
    // (long enough that the whole burst arrives while both are busy, even on
    // a loaded machine where cold starts spread the burst out)
    let (cloud, _logs) = start(&[
        ("OrdersDelayMs", "1000"),
        ("OrdersBackendConcurrency", "2"),
        ("OrdersQueueMaxConcurrency", "2"),
    ])
    .await;
    let (direct, queue) = urls(&cloud);
    // Warm both paths so cold starts do not blur the comparison.
    assert_eq!(get(&format!("{direct}/orders/1")).await.0, 200);
    assert_eq!(get(&format!("{queue}/orders/1")).await.0, 200);

    // WHEN 12 requests arrive at once on each path
    let direct_statuses = burst(&format!("{direct}/orders/5"), 12).await;
    let queue_statuses = burst(&format!("{queue}/orders/5"), 12).await;

    // THEN the direct path answers some and throttles the rest with 503...
    let ok = direct_statuses.iter().filter(|s| **s == 200).count();
    let throttled = direct_statuses.iter().filter(|s| **s == 503).count();
    assert_eq!(
        ok + throttled,
        12,
        "only successes and throttles: {direct_statuses:?}"
    );
    assert!(
        throttled >= 6,
        "most of the burst is over the cap of 2: {direct_statuses:?}"
    );
    assert!(ok >= 2, "{direct_statuses:?}");
    // ...and the queue path answers every request, later
    assert!(
        queue_statuses.iter().all(|s| *s == 200),
        "{queue_statuses:?}"
    );

    // AND every request the queue accepted is accounted for: answered, none in the DLQ
    let metrics = cloud.stack().unwrap().metrics();
    let lambda = &metrics["lambda"]["functions"];
    assert_eq!(
        lambda["local-OrdersBackendFunction"]["throttles"], throttled as u64,
        "{lambda}"
    );
    // (the event source deletes a batch just after its reply went out)
    let requests = settled_request_queue(&cloud).await;
    assert_eq!(requests["messages_sent"], 13, "{requests}");
    assert_eq!(requests["messages_deleted"], 13, "{requests}");
    assert_eq!(requests["messages_moved_to_dlq"], 0, "{requests}");
    cloud.shutdown().await.unwrap();
}

/// The request queue's metrics once no message is in flight (at most 5 s).
async fn settled_request_queue(cloud: &LocalCloud) -> Value {
    let started = std::time::Instant::now();
    loop {
        let sqs = serde_json::to_value(cloud.sqs().metrics()).unwrap();
        let requests =
            sqs["queues"]["arn:aws:sqs:us-east-1:000000000000:local-orders-requests"].clone();
        let in_flight = requests["approximate_number_of_messages_not_visible"].as_u64();
        if in_flight == Some(0) || started.elapsed() > std::time::Duration::from_secs(5) {
            return requests;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// Kills `n` of `function`'s environments, each while it holds an invocation
/// (whenever they come: an event source may start its batches one by one).
async fn kill_when_busy(cloud: &LocalCloud, function: &str, n: usize) -> usize {
    let lambda = &cloud.stack().unwrap().lambda;
    let started = std::time::Instant::now();
    let mut killed = 0;
    while killed < n {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(15),
            "{function}: only {killed} of {n} invocations came to be killed"
        );
        killed += lambda.kill_busy(function, n - killed).unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    killed
}

#[tokio::test]
async fn environments_killed_mid_request_lose_nothing_on_either_path() {
    // GIVEN both paths with back ends of 2 environments taking 2 s per request
    let (cloud, _logs) = start(&[
        ("OrdersDelayMs", "2000"),
        ("OrdersBackendConcurrency", "2"),
        ("OrdersQueueMaxConcurrency", "2"),
    ])
    .await;
    let (direct, queue) = urls(&cloud);
    assert_eq!(get(&format!("{direct}/orders/1")).await.0, 200);
    assert_eq!(get(&format!("{queue}/orders/1")).await.0, 200);

    // WHEN 2 requests arrive on each path and one back-end environment of
    // each is killed while it holds its request
    let direct_burst = tokio::spawn(burst_owned(format!("{direct}/orders/5"), 2));
    let queue_burst = tokio::spawn(burst_owned(format!("{queue}/orders/5"), 2));
    tokio::join!(
        kill_when_busy(&cloud, "local-OrdersBackendFunction", 2),
        kill_when_busy(&cloud, "local-OrdersWorkerFunction", 2),
    );
    let direct_statuses = direct_burst.await.unwrap();
    let queue_statuses = queue_burst.await.unwrap();

    // THEN on the direct path a caller whose back end was killed gets its
    // failure (502, from the Runtime.ExitError Invoke returned), never a wrong
    // answer; on the queue path it times out (504): its request stays hidden
    // for the queue's visibility timeout, to be retried. A kill that lands
    // after the reply went out leaves that caller answered (200), so each
    // status is one of the two, and the kills show on the callers.
    assert!(
        direct_statuses.iter().all(|s| [200, 502].contains(s)),
        "{direct_statuses:?}"
    );
    assert!(
        queue_statuses.iter().all(|s| [200, 504].contains(s)),
        "{queue_statuses:?}"
    );
    assert!(
        direct_statuses.contains(&502) || queue_statuses.contains(&504),
        "no caller saw a kill: {direct_statuses:?} {queue_statuses:?}"
    );
    // AND every request message is accounted for: processed, dead-lettered
    // or still in the queue
    let sqs = serde_json::to_value(cloud.sqs().metrics()).unwrap();
    let requests = &sqs["queues"]["arn:aws:sqs:us-east-1:000000000000:local-orders-requests"];
    let count = |field: &str| requests[field].as_u64().unwrap();
    assert_eq!(count("messages_sent"), 3, "{requests}");
    assert_eq!(
        count("messages_deleted")
            + count("messages_moved_to_dlq")
            + count("approximate_number_of_messages")
            + count("approximate_number_of_messages_not_visible")
            + count("approximate_number_of_messages_delayed"),
        3,
        "{requests}"
    );
    // AND the request of every caller that timed out is still held, to be
    // retried after the visibility timeout (a kill that lands once the worker
    // has answered may or may not find its message deleted yet, so only the
    // timed-out callers' messages are certain to be in flight)
    let timed_out = queue_statuses.iter().filter(|s| **s == 504).count() as u64;
    let in_flight = count("approximate_number_of_messages_not_visible");
    assert!(
        (timed_out..=2).contains(&in_flight),
        "{timed_out} callers timed out, {in_flight} messages in flight: {requests}"
    );
    cloud.shutdown().await.unwrap();
}

async fn burst_owned(url: String, n: usize) -> Vec<u16> {
    burst(&url, n).await
}
