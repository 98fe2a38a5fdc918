//! Seeding at cold start: many environments starting at once on an empty
//! table write the orders once, not once each.

use std::sync::Arc;
use std::time::Duration;

use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
};
use localcloud::{LocalCloud, LocalCloudConfig};
use orders::{OrdersBackend, MAX_SIZE};

fn client(endpoint: &str) -> aws_sdk_dynamodb::Client {
    let credentials =
        aws_credential_types::Credentials::new("AKIDTEST", "secret", None, None, "test");
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
        .region(aws_sdk_dynamodb::config::Region::new("us-east-1"))
        .credentials_provider(credentials)
        .endpoint_url(endpoint)
        .build();
    aws_sdk_dynamodb::Client::from_conf(config)
}

async fn orders_table(ddb: &aws_sdk_dynamodb::Client) {
    let attribute = |name: &str, t| {
        AttributeDefinition::builder()
            .attribute_name(name)
            .attribute_type(t)
            .build()
            .unwrap()
    };
    let key = |name: &str, t| {
        KeySchemaElement::builder()
            .attribute_name(name)
            .key_type(t)
            .build()
            .unwrap()
    };
    ddb.create_table()
        .table_name("orders")
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(attribute("pk", ScalarAttributeType::S))
        .attribute_definitions(attribute("sk", ScalarAttributeType::N))
        .key_schema(key("pk", KeyType::Hash))
        .key_schema(key("sk", KeyType::Range))
        .send()
        .await
        .unwrap();
}

#[tokio::test]
async fn twenty_cold_starts_at_once_seed_the_table_once() {
    // GIVEN an empty orders table
    let cloud = LocalCloud::start(LocalCloudConfig::ephemeral())
        .await
        .unwrap();
    let ddb = client(&cloud.endpoint());
    orders_table(&ddb).await;

    // WHEN twenty environments start at once
    let backend = Arc::new(OrdersBackend::new(ddb.clone(), "orders", Duration::ZERO));
    let starts: Vec<_> = (0..20)
        .map(|_| {
            let backend = backend.clone();
            tokio::spawn(async move { backend.ensure_seeded().await })
        })
        .collect();
    for start in starts {
        start.await.unwrap().expect("every environment starts");
    }

    // THEN every order is there, every environment can serve...
    assert_eq!(
        backend.get_orders(MAX_SIZE).await.unwrap().len(),
        MAX_SIZE as usize
    );
    // ...and the orders were written once: 1,000 items of under 1 KB, plus the claim
    let metrics = serde_json::to_value(cloud.dynamodb().metrics()).unwrap();
    let written = metrics["tables"]["orders"]["write_units"].as_f64().unwrap();
    assert!(
        (1000.0..1100.0).contains(&written),
        "written once, not once per environment: {written} write units"
    );
    cloud.shutdown().await.unwrap();
}
