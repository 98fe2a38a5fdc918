//! Cold and warm starts, the environment a function sees, idle reaping and
//! shutdown.

use std::time::Duration;

use crate::common::*;
use localcloud_lambda::{LambdaConfig, LambdaService, Outcome};
use serde_json::json;

#[tokio::test]
async fn first_invocation_is_cold_and_the_second_reuses_the_environment() {
    // GIVEN a service with the echo function
    let service = start(config(vec![function("echo", "echo")]));

    // WHEN it is invoked twice in a row
    let first = invoke(&service, "echo", json!({"n": 1})).await.unwrap();
    let second = invoke(&service, "echo", json!({"n": 2})).await.unwrap();

    // THEN both answer, from the same process, and only the first had an init phase
    assert_eq!(first.status, 200);
    assert_eq!(first.function_error, None);
    assert_eq!(json(&first.payload)["event"], json!({"n": 1}));
    assert_eq!(json(&second.payload)["event"], json!({"n": 2}));
    assert_eq!(json(&first.payload)["pid"], json(&second.payload)["pid"]);
    let records = service.records();
    assert_eq!(records.len(), 2);
    assert!(records[0].init_duration_ms.is_some_and(|ms| ms > 0.0));
    assert_eq!(records[1].init_duration_ms, None);
    let metrics = service.metrics();
    assert_eq!(metrics.functions["echo"].cold_starts, 1);
    assert_eq!(metrics.functions["echo"].invocations, 2);
    service.shutdown().await;
}

#[tokio::test]
async fn function_sees_the_lambda_environment_and_its_own_variables() {
    // GIVEN a function with its own variable and a configured endpoint
    let mut echo = function("echo", "echo");
    echo.memory_mb = 256;
    echo.environment.insert("GREETING".into(), "hello".into());
    let service = start(LambdaConfig {
        endpoint_url: Some("http://127.0.0.1:4566".into()),
        region: "eu-west-1".into(),
        account_id: "123456789012".into(),
        ..config(vec![echo])
    });

    // WHEN it is invoked
    let response = invoke(&service, "echo", json!({})).await.unwrap();

    // THEN its environment and context are those Lambda gives
    let body = json(&response.payload);
    let env = &body["env"];
    assert_eq!(env["AWS_LAMBDA_FUNCTION_NAME"], "echo");
    assert_eq!(env["AWS_LAMBDA_FUNCTION_MEMORY_SIZE"], "256");
    assert_eq!(env["AWS_LAMBDA_FUNCTION_VERSION"], "$LATEST");
    assert_eq!(env["AWS_LAMBDA_LOG_GROUP_NAME"], "/aws/lambda/echo");
    assert_eq!(env["AWS_REGION"], "eu-west-1");
    assert_eq!(env["AWS_DEFAULT_REGION"], "eu-west-1");
    assert_eq!(env["AWS_ENDPOINT_URL"], "http://127.0.0.1:4566");
    assert_eq!(env["_HANDLER"], "bootstrap");
    assert_eq!(env["GREETING"], "hello");
    assert!(env["AWS_ACCESS_KEY_ID"].is_string());
    assert!(env["AWS_LAMBDA_RUNTIME_API"]
        .as_str()
        .unwrap()
        .starts_with("127.0.0.1:"));
    let context = &body["context"];
    assert_eq!(context["request_id"], response.request_id.as_str());
    assert_eq!(
        context["invoked_function_arn"],
        "arn:aws:lambda:eu-west-1:123456789012:function:echo"
    );
    assert!(context["xray_trace_id"]
        .as_str()
        .unwrap()
        .starts_with("Root=1-"));
    let deadline = context["deadline_ms"].as_u64().unwrap();
    let now = chrono::Utc::now().timestamp_millis() as u64;
    assert!(
        deadline > now && deadline <= now + 3_000,
        "deadline {deadline} vs now {now}"
    );
    service.shutdown().await;
}

#[tokio::test]
async fn init_duration_covers_a_slow_init() {
    // GIVEN a function that sleeps 300 ms before polling for events
    let service = start(config(vec![function("slow", "slow-init")]));

    // WHEN it is invoked cold
    let response = invoke(&service, "slow", json!({})).await.unwrap();

    // THEN the init phase is measured, and not counted in the invoke duration
    assert_eq!(response.function_error, None);
    let record = &service.records()[0];
    let init = record.init_duration_ms.unwrap();
    assert!(init >= 300.0, "init {init} ms");
    assert!(
        record.duration_ms < 300.0,
        "duration {} ms",
        record.duration_ms
    );
    assert!(record.billed_ms as f64 >= init + record.duration_ms);
    service.shutdown().await;
}

#[tokio::test]
async fn idle_environments_are_reaped_and_the_next_invocation_is_cold() {
    // GIVEN a short idle timeout and one warm environment
    let service = start(LambdaConfig {
        idle_timeout: Duration::from_millis(100),
        ..config(vec![function("echo", "echo")])
    });
    invoke(&service, "echo", json!({})).await.unwrap();
    let pid = service.process_ids()[0];

    // WHEN it stays idle past the timeout
    assert!(
        eventually(|| !is_running(pid)).await,
        "idle process {pid} still runs"
    );

    // THEN its process is gone and the next invocation starts cold
    assert!(service.process_ids().is_empty());
    invoke(&service, "echo", json!({})).await.unwrap();
    let records = service.records();
    assert!(records[1].init_duration_ms.is_some());
    service.shutdown().await;
}

#[tokio::test]
async fn shutdown_leaves_no_process_behind() {
    // GIVEN one warm environment and one busy in a long invocation
    let service = start(config(vec![
        function("echo", "echo"),
        function("sleep", "sleep"),
    ]));
    invoke(&service, "echo", json!({})).await.unwrap();
    let busy = tokio::spawn({
        let service = service.clone();
        async move { invoke(&service, "sleep", json!({"ms": 2500})).await }
    });
    assert!(eventually(|| service.process_ids().len() == 2).await);
    assert_eq!(service.metrics().concurrent_executions, 1);
    let pids = service.process_ids();

    // WHEN the service shuts down
    service.shutdown().await;

    // THEN every process is gone and the busy invocation failed rather than hung
    for pid in pids {
        assert!(!is_running(pid), "process {pid} survived shutdown");
    }
    assert!(busy.await.unwrap().is_err());
    let after = invoke(&service, "echo", json!({})).await;
    assert!(after.is_err());
}

#[tokio::test]
async fn dropping_the_service_kills_idle_processes() {
    // GIVEN a warm environment
    let service = start(config(vec![function("echo", "echo")]));
    invoke(&service, "echo", json!({})).await.unwrap();
    let pid = service.process_ids()[0];

    // WHEN the service is dropped without a shutdown
    drop(service);

    // THEN its process is killed
    assert!(
        eventually(|| !is_running(pid)).await,
        "process {pid} outlived the service"
    );
}

#[tokio::test]
async fn records_say_who_called_and_what_happened() {
    let service = start(config(vec![function("echo", "echo")]));
    let response = invoke(&service, "echo", json!({})).await.unwrap();
    let record = &service.records()[0];
    assert_eq!(record.caller, "test");
    assert_eq!(record.request_id, response.request_id);
    assert_eq!(record.outcome, Outcome::Success);
    assert_eq!(record.invocation_type, "RequestResponse");
    assert_eq!(record.memory_mb, 128);
    assert!(record.max_memory_used_mb.is_some_and(|mb| mb > 0));
    service.shutdown().await;
}

#[tokio::test]
async fn invalid_names_regions_and_duplicates_are_refused_at_start() {
    let bad = LambdaService::start(config(vec![function("bad name", "echo")]));
    assert!(bad.is_err());
    let twice = LambdaService::start(config(vec![
        function("echo", "echo"),
        function("echo", "sleep"),
    ]));
    assert!(twice.is_err());
    let bad_region = LambdaService::start(LambdaConfig {
        region: "eu-west-1\n".into(),
        ..config(vec![])
    });
    assert!(bad_region.is_err());
}

#[tokio::test]
async fn invocation_runs_to_its_end_when_the_caller_stops_waiting() {
    // GIVEN a function that takes 300 ms
    let service = start(config(vec![function("sleep", "sleep")]));

    // WHEN the caller gives up after 100 ms, as an API Gateway timeout would
    let gave_up = tokio::time::timeout(
        Duration::from_millis(100),
        invoke(&service, "sleep", json!({"ms": 300})),
    )
    .await;

    // THEN the function still completes, is metered, and its environment stays warm
    assert!(gave_up.is_err());
    assert!(eventually(|| service.records().len() == 1).await);
    assert_eq!(service.records()[0].outcome, Outcome::Success);
    let pid = service.process_ids()[0];
    assert!(is_running(pid));
    let next = invoke(&service, "sleep", json!({"ms": 1})).await.unwrap();
    assert_eq!(json(&next.payload)["pid"], pid);
    service.shutdown().await;
}

#[tokio::test]
async fn relative_binary_paths_are_resolved_against_the_service_directory() {
    // GIVEN the echo binary named by a path relative to the current directory
    let cwd = std::env::current_dir().unwrap();
    let absolute = binary("echo");
    let common = cwd.ancestors().find(|a| absolute.starts_with(a)).unwrap();
    let ups = cwd.strip_prefix(common).unwrap().components().count();
    let relative: std::path::PathBuf = std::iter::repeat_n("..", ups)
        .collect::<std::path::PathBuf>()
        .join(absolute.strip_prefix(common).unwrap());
    let service = start(config(vec![localcloud_lambda::FunctionConfig::new(
        "echo", relative,
    )]));

    // WHEN it is invoked
    let response = invoke(&service, "echo", json!({})).await.unwrap();

    // THEN it runs, with its directory as LAMBDA_TASK_ROOT
    assert_eq!(response.function_error, None, "{:?}", response.payload);
    let task_root = json(&response.payload)["env"]["LAMBDA_TASK_ROOT"].clone();
    assert_eq!(task_root, absolute.parent().unwrap().to_str().unwrap());
    service.shutdown().await;
}
