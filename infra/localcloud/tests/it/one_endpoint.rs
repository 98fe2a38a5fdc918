//! The composed local cloud: both data services on ONE endpoint, told apart by
//! `X-Amz-Target`, driven by the real SDKs; the admin endpoints; persistence.

use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, KeySchemaElement, KeyType,
    ScalarAttributeType,
};
use localcloud::{LocalCloud, LocalCloudConfig};

use crate::common::{get_json, http_call};

fn shared_config(endpoint: &str) -> aws_config::SdkConfig {
    crate::common::sdk_config(endpoint, "eu-west-1")
}

async fn create_table(client: &aws_sdk_dynamodb::Client, name: &str) {
    client
        .create_table()
        .table_name(name)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name("pk")
                .attribute_type(ScalarAttributeType::S)
                .build()
                .unwrap(),
        )
        .key_schema(
            KeySchemaElement::builder()
                .attribute_name("pk")
                .key_type(KeyType::Hash)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .expect("create table");
}

#[tokio::test]
async fn dynamodb_and_sqs_share_one_endpoint_and_the_region_comes_from_the_request() {
    // GIVEN a local cloud and SDK clients for eu-west-1 on its single endpoint
    let cloud = LocalCloud::start(LocalCloudConfig::ephemeral())
        .await
        .unwrap();
    let config = shared_config(&cloud.endpoint());
    let ddb = aws_sdk_dynamodb::Client::new(&config);
    let sqs = aws_sdk_sqs::Client::new(&config);

    // WHEN both services are used
    create_table(&ddb, "orders").await;
    ddb.put_item()
        .table_name("orders")
        .item("pk", AttributeValue::S("o-1".into()))
        .send()
        .await
        .unwrap();
    let queue_url = sqs
        .create_queue()
        .queue_name("requests")
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    sqs.send_message()
        .queue_url(&queue_url)
        .message_body("hello")
        .send()
        .await
        .unwrap();

    // THEN each answers, with ARNs in the caller's region
    let table = ddb
        .describe_table()
        .table_name("orders")
        .send()
        .await
        .unwrap()
        .table
        .unwrap();
    assert_eq!(
        table.table_arn.unwrap(),
        "arn:aws:dynamodb:eu-west-1:000000000000:table/orders"
    );
    let attrs = sqs
        .get_queue_attributes()
        .queue_url(&queue_url)
        .attribute_names(aws_sdk_sqs::types::QueueAttributeName::QueueArn)
        .send()
        .await
        .unwrap()
        .attributes
        .unwrap();
    assert_eq!(
        attrs[&aws_sdk_sqs::types::QueueAttributeName::QueueArn],
        "arn:aws:sqs:eu-west-1:000000000000:requests"
    );
    assert!(queue_url.starts_with(&cloud.endpoint()), "{queue_url}");
    let received = sqs
        .receive_message()
        .queue_url(&queue_url)
        .send()
        .await
        .unwrap();
    assert_eq!(received.messages.unwrap()[0].body.as_deref(), Some("hello"));
    cloud.shutdown().await.unwrap();
}

#[tokio::test]
async fn metrics_count_per_table_and_queue_and_reset_zeroes_them_but_keeps_data() {
    // GIVEN a local cloud with one table written to and one queue used
    let cloud = LocalCloud::start(LocalCloudConfig::ephemeral())
        .await
        .unwrap();
    let config = shared_config(&cloud.endpoint());
    let ddb = aws_sdk_dynamodb::Client::new(&config);
    let sqs = aws_sdk_sqs::Client::new(&config);
    create_table(&ddb, "tab").await;
    for i in 0..3 {
        ddb.put_item()
            .table_name("tab")
            .item("pk", AttributeValue::S(format!("k{i}")))
            .send()
            .await
            .unwrap();
    }
    let queue_url = sqs
        .create_queue()
        .queue_name("q")
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    sqs.receive_message()
        .queue_url(&queue_url)
        .send()
        .await
        .unwrap();

    // WHEN the metrics are read
    let metrics = get_json(&format!("{}/_localcloud/metrics", cloud.endpoint())).await;

    // THEN three small puts are three write units, and the empty receive is billed
    let table = &metrics["dynamodb"]["tables"]["tab"];
    assert_eq!(table["write_units"], 3.0, "metrics: {metrics}");
    assert_eq!(table["requests"]["PutItem"], 3, "metrics: {metrics}");
    let queue = &metrics["sqs"]["queues"]["arn:aws:sqs:eu-west-1:000000000000:q"];
    assert_eq!(queue["api_calls"]["ReceiveMessage"], 1, "{metrics}");
    assert_eq!(
        queue["billed_requests"], 2,
        "CreateQueue + one empty receive: {metrics}"
    );

    // WHEN reset THEN every counter is zero and the data stays
    let (status, _) = http_call(
        "POST",
        &format!("{}/_localcloud/reset", cloud.endpoint()),
        "",
    )
    .await;
    assert_eq!(status, 200);
    let metrics = get_json(&format!("{}/_localcloud/metrics", cloud.endpoint())).await;
    let table = &metrics["dynamodb"]["tables"];
    assert!(
        table["tab"].is_null() || table["tab"]["write_units"] == 0.0,
        "{metrics}"
    );
    let queue = &metrics["sqs"]["queues"]["arn:aws:sqs:eu-west-1:000000000000:q"];
    assert!(
        queue.is_null() || queue["billed_requests"] == 0,
        "{metrics}"
    );
    let item = ddb
        .get_item()
        .table_name("tab")
        .key("pk", AttributeValue::S("k0".into()))
        .send()
        .await
        .unwrap();
    assert!(item.item.is_some(), "items survive a reset");
    let queues = sqs
        .list_queues()
        .send()
        .await
        .unwrap()
        .queue_urls
        .unwrap_or_default();
    assert_eq!(queues.len(), 1, "queues survive a reset");
    cloud.shutdown().await.unwrap();
}

#[tokio::test]
async fn admin_answers_health_and_rejects_unknown_paths_and_methods() {
    let cloud = LocalCloud::start(LocalCloudConfig::ephemeral())
        .await
        .unwrap();
    let health = get_json(&format!("{}/_localcloud/health", cloud.endpoint())).await;
    assert_eq!(health["status"], "ok");
    let (status, body) = http_call(
        "GET",
        &format!("{}/_localcloud/nothing", cloud.endpoint()),
        "",
    )
    .await;
    assert_eq!(status, 404, "{body}");
    let (status, _) = http_call(
        "GET",
        &format!("{}/_localcloud/reset", cloud.endpoint()),
        "",
    )
    .await;
    assert_eq!(status, 405, "reset must be a POST");
    cloud.shutdown().await.unwrap();
}

#[tokio::test]
async fn state_file_keeps_tables_and_items_across_restarts() {
    // GIVEN a local cloud persisting to a state file, with one item written
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.json");
    let config = LocalCloudConfig {
        state_file: Some(state.clone()),
        ..LocalCloudConfig::ephemeral()
    };
    let cloud = LocalCloud::start(config.clone()).await.unwrap();
    let ddb = aws_sdk_dynamodb::Client::new(&shared_config(&cloud.endpoint()));
    create_table(&ddb, "kept").await;
    ddb.put_item()
        .table_name("kept")
        .item("pk", AttributeValue::S("a".into()))
        .item(
            "n",
            AttributeValue::N("12345678901234567890123456789012345678".into()),
        )
        .send()
        .await
        .unwrap();
    cloud.shutdown().await.unwrap();
    assert!(state.exists(), "shutdown writes the state file");

    // WHEN a new local cloud starts from the same file
    let cloud = LocalCloud::start(config).await.unwrap();
    let ddb = aws_sdk_dynamodb::Client::new(&shared_config(&cloud.endpoint()));

    // THEN the item is there with its exact 38-digit number
    let item = ddb
        .get_item()
        .table_name("kept")
        .key("pk", AttributeValue::S("a".into()))
        .send()
        .await
        .unwrap()
        .item
        .expect("item survives the restart");
    assert_eq!(
        item["n"],
        AttributeValue::N("12345678901234567890123456789012345678".into())
    );
    cloud.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_taken_port_is_a_clear_error() {
    let first = LocalCloud::start(LocalCloudConfig::ephemeral())
        .await
        .unwrap();
    let config = LocalCloudConfig {
        bind: first.addr(),
        ..LocalCloudConfig::default()
    };
    let err = LocalCloud::start(config)
        .await
        .err()
        .expect("second bind fails");
    assert!(err.to_string().contains("cannot listen on"), "{err}");
    first.shutdown().await.unwrap();
}

#[tokio::test]
async fn the_shipped_latency_profile_loads_and_delays_sdk_calls() {
    // GIVEN the profile shipped with the local cloud, and a constant one
    let shipped = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("profiles/aws-us-east-1.json"),
    )
    .unwrap();
    let shipped =
        localcloud_core::LatencyProfile::from_json(&shipped).expect("shipped profile is valid");
    assert!(shipped.percentiles("dynamodb", "GetItem").is_some());
    assert!(shipped.percentiles("sqs", "SendMessage").is_some());
    assert!(shipped.percentiles("lambda", "Invoke").is_some());
    let constant = localcloud_core::LatencyProfile::from_json(
        r#"{"dynamodb": {"*": {"p50_ms": 150, "p99_ms": 150}}}"#,
    )
    .unwrap();
    let config = LocalCloudConfig {
        latency: Some(std::sync::Arc::new(constant)),
        ..LocalCloudConfig::ephemeral()
    };
    let cloud = LocalCloud::start(config).await.unwrap();
    let ddb = aws_sdk_dynamodb::Client::new(&shared_config(&cloud.endpoint()));

    // WHEN the SDK calls DynamoDB
    let started = std::time::Instant::now();
    ddb.list_tables().send().await.unwrap();

    // THEN the call took at least the injected latency
    assert!(
        started.elapsed() >= std::time::Duration::from_millis(150),
        "{:?}",
        started.elapsed()
    );
    cloud.shutdown().await.unwrap();
}
