//! TTL sweep, metrics for the cost model, reset, snapshots, unknown operations.

use std::time::Duration;

use crate::common::*;
use aws_sdk_dynamodb::types::TimeToLiveSpecification;
use localcloud_core::RequestContext;
use localcloud_dynamodb::{DynamoDb, DynamoDbConfig};

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

#[tokio::test]
async fn the_ttl_sweep_deletes_expired_items_only() {
    // GIVEN a TTL table swept every 50 ms, with an expired and a live item
    let local = start_with(DynamoDbConfig {
        ttl_sweep_period: Some(Duration::from_millis(50)),
    })
    .await;
    create_simple(&local.client, "ttl-sweep").await;
    let spec = TimeToLiveSpecification::builder()
        .attribute_name("exp")
        .enabled(true)
        .build()
        .unwrap();
    local
        .client
        .update_time_to_live()
        .table_name("ttl-sweep")
        .time_to_live_specification(spec)
        .send()
        .await
        .unwrap();
    for (pk, exp) in [("old", now() - 10), ("live", now() + 3600)] {
        local
            .client
            .put_item()
            .table_name("ttl-sweep")
            .set_item(Some(item(&[("pk", s(pk)), ("exp", n(exp))])))
            .send()
            .await
            .unwrap();
    }
    // WHEN the sweep has run
    tokio::time::sleep(Duration::from_millis(300)).await;
    // THEN only the live item remains
    let scan = local
        .client
        .scan()
        .table_name("ttl-sweep")
        .send()
        .await
        .unwrap();
    assert_eq!(scan.items().len(), 1);
    assert_eq!(scan.items()[0]["pk"], s("live"));
}

#[tokio::test]
async fn metrics_count_units_and_requests_per_table_even_unrequested() {
    // GIVEN
    let local = start().await;
    create_simple(&local.client, "metered").await;
    local
        .client
        .put_item()
        .table_name("metered")
        .set_item(Some(item(&[("pk", s("a")), ("big", s(&"x".repeat(1500)))])))
        .send()
        .await
        .unwrap();
    local
        .client
        .get_item()
        .table_name("metered")
        .key("pk", s("a"))
        .send()
        .await
        .unwrap();
    local
        .client
        .get_item()
        .table_name("metered")
        .key("pk", s("a"))
        .consistent_read(true)
        .send()
        .await
        .unwrap();
    let m = local.db.metrics();
    // WHEN
    let t = &m.tables["metered"];
    // THEN
    assert_eq!(t.write_units, 2.0, "1.5 KB rounds up to 2 write units");
    assert_eq!(t.read_units, 1.5, "eventual 0.5 + strong 1");
    assert_eq!(t.requests["GetItem"], 2);
    assert_eq!(t.requests["PutItem"], 1);
    local.db.reset();
    assert!(local.db.metrics().tables.is_empty());
    assert!(local
        .client
        .list_tables()
        .send()
        .await
        .unwrap()
        .table_names()
        .is_empty());
}

#[tokio::test]
async fn a_snapshot_restores_tables_items_indexes_and_ttl() {
    // GIVEN a table with an indexed item and TTL
    let local = start().await;
    create_indexed(&local.client, "saved").await;
    local
        .client
        .put_item()
        .table_name("saved")
        .set_item(Some(item(&[
            ("pk", s("a")),
            ("sk", n(1)),
            ("email", s("e@x")),
        ])))
        .send()
        .await
        .unwrap();
    let spec = TimeToLiveSpecification::builder()
        .attribute_name("exp")
        .enabled(true)
        .build()
        .unwrap();
    local
        .client
        .update_time_to_live()
        .table_name("saved")
        .time_to_live_specification(spec)
        .send()
        .await
        .unwrap();
    // WHEN it is saved and loaded into a new service
    let text = serde_json::to_string(&local.db.snapshot()).unwrap();
    let snapshot = serde_json::from_str(&text).unwrap();
    let restored = DynamoDb::restore(snapshot, DynamoDbConfig::default()).unwrap();
    // THEN the index answers and TTL is still on
    let ctx = RequestContext::new("us-east-1", "000000000000");
    let out = restored
        .call(
            &ctx,
            "Query",
            br#"{"TableName":"saved","IndexName":"by-email","KeyConditionExpression":"email = :e","ExpressionAttributeValues":{":e":{"S":"e@x"}}}"#,
        )
        .unwrap();
    let out: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(out["Count"], 1);
    let ttl = restored
        .call(&ctx, "DescribeTimeToLive", br#"{"TableName":"saved"}"#)
        .unwrap();
    assert!(String::from_utf8(ttl).unwrap().contains("ENABLED"));
}

#[tokio::test]
async fn ensure_table_is_idempotent() {
    // GIVEN
    let db = DynamoDb::new(DynamoDbConfig::default());
    let ctx = RequestContext::new("us-east-1", "000000000000");
    let body = br#"{"TableName":"tmpl","BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}]}"#;
    db.ensure_table(&ctx, body).unwrap();
    db.ensure_table(&ctx, body).unwrap();
    // WHEN
    let list = db.call(&ctx, "ListTables", b"{}").unwrap();
    // THEN
    assert_eq!(list, br#"{"TableNames":["tmpl"]}"#);
}

#[tokio::test]
async fn non_json_bodies_are_serialization_errors() {
    // GIVEN
    let db = DynamoDb::new(DynamoDbConfig::default());
    let ctx = RequestContext::new("us-east-1", "000000000000");
    // WHEN
    let err = db.call(&ctx, "GetItem", b"not json").unwrap_err();
    // THEN
    assert!(matches!(
        err,
        localcloud_dynamodb::DdbError::Serialization(_)
    ));
    let err = db
        .call(&ctx, "GetItem", br#"{"TableName": 5}"#)
        .unwrap_err();
    assert!(matches!(
        err,
        localcloud_dynamodb::DdbError::Serialization(_)
    ));
}

#[tokio::test]
async fn ensure_ttl_is_idempotent_but_refuses_another_attribute() {
    // GIVEN
    let db = DynamoDb::new(DynamoDbConfig::default());
    let ctx = RequestContext::new("us-east-1", "000000000000");
    let body = br#"{"TableName":"ttl-tmpl","BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}]}"#;
    db.ensure_table(&ctx, body).unwrap();
    db.ensure_ttl("ttl-tmpl", "expires").unwrap();
    // WHEN
    db.ensure_ttl("ttl-tmpl", "expires").unwrap();
    // THEN
    assert!(db.ensure_ttl("ttl-tmpl", "other").is_err());
    let described = db
        .call(&ctx, "DescribeTimeToLive", br#"{"TableName":"ttl-tmpl"}"#)
        .unwrap();
    assert!(String::from_utf8(described)
        .unwrap()
        .contains("\"AttributeName\":\"expires\""));
}
