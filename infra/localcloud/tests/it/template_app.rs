//! A whole SAM application brought up from its template: the HTTP API calls
//! the real function binary, the queue feeds a worker through its event source
//! mapping, the table exists, the Invoke API works through `aws-sdk-lambda`,
//! and shutdown leaves no process behind.

use std::path::Path;
use std::time::{Duration, Instant};

use aws_sdk_sqs::types::QueueAttributeName;
use localcloud::{LocalCloud, LocalCloudConfig, StackConfig};

use crate::common::{get_json, http_call, sdk_config, test_function_binaries};

fn stack_config(log_dir: &Path) -> StackConfig {
    let mut config = StackConfig::new(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/echo-app.yaml"),
    );
    config.stack_name = "testapp".into();
    config.binaries_dir = test_function_binaries();
    config.log_dir = log_dir.to_path_buf();
    config
        .parameter_overrides
        .insert("Greeting".into(), "bonjour".into());
    config
}

async fn start(log_dir: &Path) -> LocalCloud {
    let config = LocalCloudConfig {
        stack: Some(stack_config(log_dir)),
        ..LocalCloudConfig::ephemeral()
    };
    LocalCloud::start(config)
        .await
        .expect("the application starts")
}

#[tokio::test]
async fn http_api_route_runs_the_function_binary_with_a_v2_event_and_the_aws_environment() {
    // GIVEN the application running
    let logs = tempfile::tempdir().unwrap();
    let cloud = start(logs.path()).await;
    let stack = cloud.stack().unwrap();
    let api = stack.api_urls()["Api"].clone();

    // WHEN a client calls the route with a path parameter and a query string
    let echoed = get_json(&format!("{api}/echo/world?x=1&x=2")).await;

    // THEN the function saw a payload 2.0 event for that route...
    let event = &echoed["event"];
    assert_eq!(event["version"], "2.0");
    assert_eq!(event["routeKey"], "GET /echo/{name}");
    assert_eq!(event["rawPath"], "/echo/world");
    assert_eq!(event["rawQueryString"], "x=1&x=2");
    assert_eq!(event["queryStringParameters"]["x"], "1,2");
    assert_eq!(event["pathParameters"]["name"], "world");
    assert_eq!(
        event["requestContext"]["apiId"],
        stack.app.http_api("Api").unwrap().api_id,
        "events carry the id Ref gives the template"
    );
    // ...and the environment the template and AWS give it
    let env = &echoed["env"];
    assert_eq!(
        env["GREETING"], "bonjour",
        "parameter override reaches Globals"
    );
    assert_eq!(env["AWS_ENDPOINT_URL"], cloud.endpoint());
    assert_eq!(env["AWS_LAMBDA_FUNCTION_MEMORY_SIZE"], "256");
    assert_eq!(env["AWS_LAMBDA_FUNCTION_NAME"], "testapp-EchoFunction");

    // AND an unknown route is API Gateway's 404
    let (status, body) = http_call("GET", &format!("{api}/nothing/here"), "").await;
    assert_eq!(status, 404);
    assert_eq!(body, r#"{"message":"Not Found"}"#);
    cloud.shutdown().await.unwrap();
}

#[tokio::test]
async fn template_resources_exist_and_outputs_point_at_the_local_api() {
    let logs = tempfile::tempdir().unwrap();
    let cloud = start(logs.path()).await;
    let config = sdk_config(&cloud.endpoint(), "us-east-1");

    // The table, named through !Sub with the stack name
    let table = aws_sdk_dynamodb::Client::new(&config)
        .describe_table()
        .table_name("testapp-items")
        .send()
        .await
        .expect("table from the template exists");
    assert_eq!(table.table.unwrap().table_name.unwrap(), "testapp-items");

    // The queue, with its redrive policy to the DLQ created first
    let sqs = aws_sdk_sqs::Client::new(&config);
    let url = sqs
        .get_queue_url()
        .queue_name("testapp-Jobs")
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    let attributes = sqs
        .get_queue_attributes()
        .queue_url(&url)
        .attribute_names(QueueAttributeName::RedrivePolicy)
        .send()
        .await
        .unwrap()
        .attributes
        .unwrap();
    assert!(
        attributes[&QueueAttributeName::RedrivePolicy].contains("testapp-JobsDlq"),
        "{attributes:?}"
    );

    // The output spelled as an AWS URL is rewritten to the local API
    let stack = cloud.stack().unwrap();
    assert_eq!(stack.app.outputs["ApiUrl"], stack.api_urls()["Api"]);
    cloud.shutdown().await.unwrap();
}

#[tokio::test]
async fn queue_messages_reach_the_worker_through_the_event_source_mapping_and_are_deleted() {
    // GIVEN the application running and five messages sent to its queue
    let logs = tempfile::tempdir().unwrap();
    let cloud = start(logs.path()).await;
    let sqs = aws_sdk_sqs::Client::new(&sdk_config(&cloud.endpoint(), "us-east-1"));
    let url = sqs
        .get_queue_url()
        .queue_name("testapp-Jobs")
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    for i in 0..5 {
        sqs.send_message()
            .queue_url(&url)
            .message_body(format!("job {i}"))
            .send()
            .await
            .unwrap();
    }

    // WHEN the pollers have had time to work
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut processed = 0;
    while Instant::now() < deadline {
        let metrics = get_json(&format!("{}/_localcloud/metrics", cloud.endpoint())).await;
        let queue = &metrics["sqs"]["queues"]["arn:aws:sqs:us-east-1:000000000000:testapp-Jobs"];
        processed = queue["messages_deleted"].as_u64().unwrap_or(0);
        if processed == 5 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // THEN every message was processed by the worker and deleted
    assert_eq!(
        processed, 5,
        "all five messages deleted after successful batches"
    );
    let metrics = get_json(&format!("{}/_localcloud/metrics", cloud.endpoint())).await;
    let worker = metrics["lambda"].to_string();
    assert!(worker.contains("testapp-WorkerFunction"), "{worker}");
    let log = std::fs::read_to_string(logs.path().join("testapp-WorkerFunction.log")).unwrap();
    assert!(
        log.contains("REPORT RequestId:"),
        "worker log has REPORT lines: {log}"
    );
    assert!(log.contains("Billed Duration:"), "{log}");
    cloud.shutdown().await.unwrap();
}

#[tokio::test]
async fn invoke_api_works_through_the_lambda_sdk_and_shutdown_leaves_no_process() {
    // GIVEN the application running
    let logs = tempfile::tempdir().unwrap();
    let cloud = start(logs.path()).await;
    let lambda = aws_sdk_lambda::Client::new(&sdk_config(&cloud.endpoint(), "us-east-1"));

    // WHEN the function is invoked directly
    let output = lambda
        .invoke()
        .function_name("testapp-EchoFunction")
        .payload(aws_sdk_lambda::primitives::Blob::new(r#"{"direct":true}"#))
        .send()
        .await
        .expect("invoke");

    // THEN it answers with its event, and its process runs until shutdown
    assert_eq!(output.status_code, 200);
    assert!(output.function_error.is_none());
    let payload: serde_json::Value =
        serde_json::from_slice(output.payload.unwrap().as_ref()).unwrap();
    assert_eq!(payload["event"]["direct"], true);
    let stack = cloud.stack().unwrap().clone();
    let pids = stack.lambda.process_ids();
    assert!(!pids.is_empty(), "a warm environment is running");
    cloud.shutdown().await.unwrap();
    for pid in pids {
        assert!(
            !Path::new(&format!("/proc/{pid}")).exists()
                || std::fs::read_to_string(format!("/proc/{pid}/stat"))
                    .is_ok_and(|s| s.contains(") Z ")),
            "function process {pid} still running after shutdown"
        );
    }
}

#[tokio::test]
async fn a_missing_function_binary_is_a_clear_start_error() {
    let logs = tempfile::tempdir().unwrap();
    let mut stack = stack_config(logs.path());
    stack.binaries_dir = logs.path().join("no-such-dir");
    let config = LocalCloudConfig {
        stack: Some(stack),
        ..LocalCloudConfig::ephemeral()
    };
    let err = LocalCloud::start(config).await.err().expect("start fails");
    let message = err.to_string();
    assert!(message.contains("EchoFunction"), "{message}");
    assert!(message.contains("cargo build"), "{message}");
}
