//! The realistic fixture: two functions, an API, a queue with its DLQ, an SQS
//! event, tables with a GSI, parameters, !Sub and !GetAtt.

use std::path::PathBuf;

use localcloud_template::{load, Target};
use serde_json::json;

use crate::ctx;

fn sample() -> localcloud_template::Application {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sample.yaml");
    let mut ctx = ctx();
    ctx.generate_no_echo = true;
    load(&path, &ctx).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn sample_queues_come_dead_letter_queue_first_with_redrive_policy_as_json_string() {
    // GIVEN the sample, whose DLQ is declared before its source queue
    // WHEN it is loaded
    let app = sample();
    // THEN the DLQ is created first and the source points at its ARN
    let names: Vec<_> = app.queues.iter().map(|q| q.name.as_str()).collect();
    assert_eq!(names, ["test-orders-dlq", "test-orders"]);
    let orders = app.queue("OrdersQueue").unwrap();
    let redrive: serde_json::Value =
        serde_json::from_str(&orders.attributes["RedrivePolicy"]).unwrap();
    assert_eq!(
        redrive,
        json!({"deadLetterTargetArn": "arn:aws:sqs:eu-west-1:123456789012:test-orders-dlq", "maxReceiveCount": 3})
    );
    assert_eq!(orders.attributes["VisibilityTimeout"], "60");
    assert_eq!(orders.url, "http://127.0.0.1:4566/123456789012/test-orders");
}

#[test]
fn sample_table_becomes_a_create_table_body_with_its_gsi_and_ttl() {
    let app = sample();
    let table = app.table("OrdersTable").unwrap();
    assert_eq!(table.create_table["TableName"], "test-orders");
    assert_eq!(table.create_table["BillingMode"], "PAY_PER_REQUEST");
    assert_eq!(
        table.create_table["GlobalSecondaryIndexes"][0]["IndexName"],
        "by-customer"
    );
    assert_eq!(table.ttl_attribute.as_deref(), Some("expires_at"));
    let simple = app.table("SessionsTable").unwrap();
    assert_eq!(simple.name, "test-SessionsTable");
    assert_eq!(
        simple.create_table["KeySchema"],
        json!([{"AttributeName": "token", "KeyType": "HASH"}])
    );
}

#[test]
fn sample_functions_merge_globals_and_resolve_references() {
    let app = sample();
    let api = app.function("ApiFunction").unwrap();
    assert_eq!(api.name, "test-ApiFunction");
    assert_eq!(api.architecture, "arm64");
    assert_eq!(api.timeout, 10);
    assert_eq!(api.environment["RUST_LOG"], "info");
    assert_eq!(api.environment["STAGE"], "dev");
    assert_eq!(
        api.environment["QUEUE_URL"],
        "http://127.0.0.1:4566/123456789012/test-orders"
    );
    assert_eq!(api.environment["JWT_SECRET"].len(), 32);
    assert_eq!(app.generated_parameters(), ["JwtSecret"]);
    assert_eq!(
        api.build.as_ref().unwrap().binary.as_deref(),
        Some("orders-api")
    );
    let worker = app.function("WorkerFunction").unwrap();
    assert_eq!(worker.name, "test-worker");
    assert_eq!(worker.memory_size, 256);
    assert_eq!(worker.reserved_concurrency, Some(5));
}

#[test]
fn sample_worker_consumes_the_queue_with_partial_batch_failures() {
    let app = sample();
    let worker = app.function("WorkerFunction").unwrap();
    let [event] = worker.sqs_events.as_slice() else {
        panic!("one SQS event expected")
    };
    assert_eq!(event.queue.as_deref(), Some("OrdersQueue"));
    assert_eq!(
        event.queue_arn,
        "arn:aws:sqs:eu-west-1:123456789012:test-orders"
    );
    assert_eq!(
        (event.batch_size, event.maximum_batching_window_seconds),
        (5, 1)
    );
    assert_eq!(event.maximum_concurrency, Some(2));
    assert!(event.report_batch_item_failures && event.enabled);
}

#[test]
fn sample_policies_grant_least_privilege_per_function() {
    let app = sample();
    let api = app.function("ApiFunction").unwrap();
    let orders = Target::table("test-orders");
    assert!(api.actions_on(&orders).contains(&"dynamodb:GetItem"));
    assert!(!api.actions_on(&orders).contains(&"dynamodb:PutItem"));
    assert_eq!(
        api.actions_on(&Target::Queue("test-orders".into())),
        ["sqs:SendMessage*"]
    );
    let worker = app.function("WorkerFunction").unwrap();
    assert!(worker.actions_on(&orders).contains(&"dynamodb:PutItem"));
    assert!(worker
        .actions_on(&Target::Queue("test-orders".into()))
        .contains(&"sqs:DeleteMessage"));
    assert_eq!(
        worker.actions_on(&Target::table("test-SessionsTable")),
        ["dynamodb:GetItem"]
    );
}

#[test]
fn sample_routes_land_on_the_explicit_and_the_implicit_api() {
    let app = sample();
    let orders = app.http_api("OrdersApi").unwrap();
    let keys: Vec<_> = orders.routes.iter().map(|r| r.route_key()).collect();
    assert_eq!(keys, ["POST /orders", "GET /orders/{id}"]);
    assert_eq!(orders.stage_name, "$default");
    assert_eq!(orders.cors.as_ref().unwrap()["AllowOrigins"], json!(["*"]));
    let implicit = app.http_api("ServerlessHttpApi").unwrap();
    assert!(implicit.implicit);
    assert_eq!(implicit.routes[0].route_key(), "ANY /{proxy+}");
    assert_eq!(implicit.routes[0].function, "ApiFunction");
}

#[test]
fn sample_outputs_resolve_and_aws_api_urls_become_local_ones() {
    let app = sample();
    assert_eq!(
        app.outputs["OrdersApiUrl"],
        "http://127.0.0.1:4566/_api/ordersapi"
    );
    assert_eq!(
        app.outputs["ImplicitApiUrl"],
        "http://127.0.0.1:4566/_api/serverlesshttpapi/"
    );
    assert_eq!(
        app.outputs["WorkerArn"],
        "arn:aws:lambda:eu-west-1:123456789012:function:test-worker"
    );
    assert!(!app.outputs.contains_key("ProdOnly"));
}

#[test]
fn sample_warns_about_what_it_ignores_with_lines() {
    let app = sample();
    let tracing = app
        .warnings
        .iter()
        .find(|w| w.path.ends_with("Tracing"))
        .expect("Tracing warning");
    assert_eq!(tracing.logical_id.as_deref(), Some("ApiFunction"));
    assert_eq!(tracing.line, 107);
    assert!(app.warnings.iter().any(|w| w.path == "DeletionPolicy"));
}

#[test]
fn sample_exports_are_resolved_by_output() {
    let app = sample();
    assert_eq!(
        app.exports.get("WorkerArn").map(String::as_str),
        Some("worker-arn")
    );
    assert_eq!(app.exports.len(), 1);
}
