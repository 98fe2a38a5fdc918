//! Fault injection: environments killed while they hold an invocation, and
//! what each kind of caller then sees, as on AWS (`infra/localcloud-lambda/src/faults.rs`).

use std::path::Path;
use std::time::{Duration, Instant};

use aws_sdk_lambda::primitives::Blob;
use localcloud::{LocalCloud, LocalCloudConfig, StackConfig};
use serde_json::{json, Value};

use crate::common::{get_json, http_call, sdk_config, test_function_binaries};

async fn start(log_dir: &Path) -> LocalCloud {
    let mut stack = StackConfig::new(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/faults-app.yaml"),
    );
    stack.binaries_dir = test_function_binaries();
    stack.log_dir = log_dir.to_path_buf();
    let config = LocalCloudConfig {
        stack: Some(stack),
        ..LocalCloudConfig::ephemeral()
    };
    LocalCloud::start(config)
        .await
        .expect("the application starts")
}

async fn faults(cloud: &LocalCloud, request: Value) -> Value {
    let url = format!("{}/_localcloud/faults", cloud.endpoint());
    let (status, body) = http_call("POST", &url, &request.to_string()).await;
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).unwrap()
}

async fn fault_stats(cloud: &LocalCloud, function: &str) -> Value {
    let all = get_json(&format!("{}/_localcloud/faults", cloud.endpoint())).await;
    all["functions"][function].clone()
}

#[tokio::test]
async fn a_kill_during_a_direct_invoke_gives_the_caller_runtime_exit_error() {
    // GIVEN a direct Invoke in progress (the function sleeps 3 s)
    let logs = tempfile::tempdir().unwrap();
    let cloud = start(logs.path()).await;
    let lambda = aws_sdk_lambda::Client::new(&sdk_config(&cloud.endpoint(), "us-east-1"));
    let call = tokio::spawn({
        let lambda = lambda.clone();
        async move {
            lambda
                .invoke()
                .function_name("sleeper")
                .payload(Blob::new(json!({"ms": 3000}).to_string()))
                .send()
                .await
                .unwrap()
        }
    });
    let waited = Instant::now();
    while fault_stats(&cloud, "sleeper").await["busy"] != 1 {
        assert!(waited.elapsed() < Duration::from_secs(5), "never busy");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    // WHEN its environment is killed
    let answer = faults(&cloud, json!({"function": "Sleeper", "kill": 5})).await;
    assert_eq!(answer["killed"], 1, "only the busy environment is killed");

    // THEN the caller gets Lambda's runtime exit error: status 200 with
    // X-Amz-Function-Error: Unhandled and a Runtime.ExitError document
    let output = call.await.unwrap();
    assert_eq!(output.status_code, 200);
    assert_eq!(output.function_error.as_deref(), Some("Unhandled"));
    let error: Value = serde_json::from_slice(output.payload.unwrap().as_ref()).unwrap();
    assert_eq!(error["errorType"], "Runtime.ExitError");
    let message = error["errorMessage"].as_str().unwrap();
    assert!(
        message.ends_with("Error: Runtime exited with error: signal: killed"),
        "{message}"
    );
    assert_eq!(fault_stats(&cloud, "sleeper").await["killed"], 1);
    // AND the next invocation gets a new environment and succeeds
    let output = lambda
        .invoke()
        .function_name("sleeper")
        .payload(Blob::new(r#"{"ms": 1}"#))
        .send()
        .await
        .unwrap();
    assert_eq!(output.function_error, None);
    cloud.shutdown().await.unwrap();
}

#[tokio::test]
async fn an_http_api_request_whose_environment_is_killed_gets_a_500() {
    // GIVEN every invocation of the API's function killed
    let logs = tempfile::tempdir().unwrap();
    let cloud = start(logs.path()).await;
    faults(&cloud, json!({"function": "sleeper", "killRate": 1.0})).await;
    let api = cloud.stack().unwrap().api_urls()["Api"].clone();
    // WHEN a client calls the route
    let (status, body) = http_call("GET", &format!("{api}/sleep"), "").await;
    // THEN the HTTP API answers as for any function error: 500 with its
    // generic body (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-troubleshooting-lambda.html;
    // a REST API would answer 502)
    assert_eq!(status, 500, "{body}");
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap(),
        json!({"message": "Internal Server Error"})
    );
    cloud.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_killed_sqs_batch_is_retried_after_its_visibility_timeout_then_dead_lettered() {
    // GIVEN a worker whose every environment is killed mid-batch, on a queue
    // with a 1 s visibility timeout and maxReceiveCount 2
    let logs = tempfile::tempdir().unwrap();
    let cloud = start(logs.path()).await;
    faults(&cloud, json!({"function": "Worker", "killRate": 1.0})).await;
    let sqs = aws_sdk_sqs::Client::new(&sdk_config(&cloud.endpoint(), "us-east-1"));
    let url = |name: &str| format!("{}/000000000000/{name}", cloud.endpoint());

    // WHEN a message is sent
    sqs.send_message()
        .queue_url(url("jobs"))
        .message_body(r#"{"ms": 50}"#)
        .send()
        .await
        .unwrap();

    // THEN it is delivered twice (both killed), then moved to the DLQ
    let waited = Instant::now();
    let dead = loop {
        let received = sqs
            .receive_message()
            .queue_url(url("jobs-dlq"))
            .wait_time_seconds(1)
            .send()
            .await
            .unwrap();
        if let Some(message) = received.messages.unwrap_or_default().pop() {
            break message;
        }
        assert!(
            waited.elapsed() < Duration::from_secs(15),
            "never dead-lettered"
        );
    };
    assert_eq!(dead.body(), Some(r#"{"ms": 50}"#));
    assert_eq!(fault_stats(&cloud, "worker").await["killed"], 2);
    let metrics = get_json(&format!("{}/_localcloud/metrics", cloud.endpoint())).await;
    let jobs = &metrics["sqs"]["queues"]["arn:aws:sqs:us-east-1:000000000000:jobs"];
    assert_eq!(jobs["messages_received"], 2, "{jobs}");
    assert_eq!(jobs["messages_moved_to_dlq"], 1, "{jobs}");
    assert_eq!(jobs["approximate_number_of_messages"], 0, "{jobs}");
    cloud.shutdown().await.unwrap();
}
