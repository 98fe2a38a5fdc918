//! The orders table is seeded from outside the functions (`orders::table::seed`,
//! run by the bench): written once, read back by the back end as written; the
//! back end itself never writes.

use std::time::Duration;

use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
};
use localcloud::{LocalCloud, LocalCloudConfig};
use orders::table::{seed, Seeding};
use orders::{BackendError, Order, OrdersBackend, MAX_SIZE};

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

fn write_units(cloud: &LocalCloud) -> f64 {
    cloud
        .dynamodb()
        .metrics()
        .tables
        .get("orders")
        .map_or(0.0, |t| t.write_units)
}

#[tokio::test]
async fn the_seeder_writes_every_order_once_and_the_back_end_reads_them_as_written() {
    // GIVEN an empty orders table
    let cloud = LocalCloud::start(LocalCloudConfig::ephemeral())
        .await
        .unwrap();
    let ddb = crate::common::client(&cloud.endpoint());
    orders_table(&ddb).await;

    // WHEN it is seeded twice
    let first = seed(&ddb, "orders").await.unwrap();
    let written = write_units(&cloud);
    let second = seed(&ddb, "orders").await.unwrap();

    // THEN the first seeding wrote the 1,000 orders (items under 1 KB) and
    // the second wrote nothing
    assert_eq!(first, Seeding::Written(MAX_SIZE));
    assert_eq!(second, Seeding::AlreadySeeded);
    assert_eq!(written, f64::from(MAX_SIZE));
    assert_eq!(write_units(&cloud), written, "the second seeding wrote");
    // AND the back end reads exactly the orders the seeder stored, in order
    let backend = OrdersBackend::new(ddb, "orders", Duration::ZERO);
    let expected: Vec<Order> = (0..MAX_SIZE).map(Order::seeded).collect();
    assert_eq!(backend.get_orders(MAX_SIZE).await.unwrap(), expected);
    cloud.shutdown().await.unwrap();
}

#[tokio::test]
async fn an_unseeded_table_is_an_error_that_says_to_seed_and_nothing_is_written() {
    // GIVEN an empty orders table
    let cloud = LocalCloud::start(LocalCloudConfig::ephemeral())
        .await
        .unwrap();
    let ddb = crate::common::client(&cloud.endpoint());
    orders_table(&ddb).await;

    // WHEN the back end is asked for orders
    let backend = OrdersBackend::new(ddb, "orders", Duration::ZERO);
    let error = backend.get_orders(5).await.unwrap_err();

    // THEN it fails, naming the fix, and wrote nothing
    assert!(
        matches!(
            error,
            BackendError::Missing {
                wanted: 5,
                found: 0
            }
        ),
        "{error}"
    );
    assert!(error.to_string().contains("bench seed-orders"), "{error}");
    assert_eq!(write_units(&cloud), 0.0);
    cloud.shutdown().await.unwrap();
}
