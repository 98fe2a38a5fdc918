//! CreateTable, DescribeTable, ListTables, DeleteTable and TTL through the SDK.

use crate::common::*;
use aws_sdk_dynamodb::operation::create_table::CreateTableError;
use aws_sdk_dynamodb::operation::describe_table::DescribeTableError;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, IndexStatus, KeySchemaElement, KeyType,
    ProvisionedThroughput, ScalarAttributeType, TableStatus, TimeToLiveSpecification,
    TimeToLiveStatus,
};

#[tokio::test]
async fn describe_shows_an_active_table_with_counts_arn_and_indexes() {
    // GIVEN a table with indexes and two items
    let local = start().await;
    create_indexed(&local.client, "described").await;
    for pk in ["a", "b"] {
        local
            .client
            .put_item()
            .table_name("described")
            .set_item(Some(item(&[
                ("pk", s(pk)),
                ("sk", n(1)),
                ("email", s("e")),
            ])))
            .send()
            .await
            .unwrap();
    }
    // WHEN it is described
    let table = local
        .client
        .describe_table()
        .table_name("described")
        .send()
        .await
        .unwrap()
        .table
        .unwrap();
    // THEN it is ACTIVE, counts its items and names its indexes
    assert_eq!(table.table_status, Some(TableStatus::Active));
    assert_eq!(table.item_count, Some(2));
    assert!(table.table_size_bytes.unwrap() > 0);
    assert_eq!(
        table.table_arn.as_deref(),
        Some("arn:aws:dynamodb:us-east-1:000000000000:table/described")
    );
    let gsi = &table.global_secondary_indexes()[0];
    assert_eq!(gsi.index_name.as_deref(), Some("by-email"));
    assert_eq!(gsi.index_status, Some(IndexStatus::Active));
    assert_eq!(gsi.item_count, Some(2));
    let lsi = &table.local_secondary_indexes()[0];
    assert_eq!(lsi.item_count, Some(0), "no item has a score");
    assert_eq!(
        table.billing_mode_summary.unwrap().billing_mode,
        Some(BillingMode::PayPerRequest)
    );
}

#[tokio::test]
async fn creating_an_existing_table_is_resource_in_use() {
    // GIVEN
    let local = start().await;
    create_simple(&local.client, "twice").await;
    // WHEN
    let err = local
        .client
        .create_table()
        .table_name("twice")
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
        .unwrap_err();
    // THEN
    assert_eq!(code_message(&err).1, "Table already exists: twice");
    assert!(matches!(
        err.into_service_error(),
        CreateTableError::ResourceInUseException(_)
    ));
}

#[tokio::test]
async fn provisioned_tables_need_throughput_and_keep_it() {
    // GIVEN
    let local = start().await;
    let create = || {
        local
            .client
            .create_table()
            .table_name("prov")
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
    };
    // WHEN
    let err = create().send().await.unwrap_err();
    // THEN
    assert_eq!(
        code_message(&err).1,
        "One or more parameter values were invalid: ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED"
    );
    let throughput = ProvisionedThroughput::builder()
        .read_capacity_units(5)
        .write_capacity_units(7)
        .build()
        .unwrap();
    let out = create()
        .provisioned_throughput(throughput)
        .send()
        .await
        .unwrap();
    let pt = out
        .table_description
        .unwrap()
        .provisioned_throughput
        .unwrap();
    assert_eq!(
        (pt.read_capacity_units, pt.write_capacity_units),
        (Some(5), Some(7))
    );
}

#[tokio::test]
async fn bad_table_names_are_validation_errors() {
    // GIVEN
    let local = start().await;
    // WHEN
    let err = local
        .client
        .describe_table()
        .table_name("x")
        .send()
        .await
        .unwrap_err();
    // THEN
    assert_eq!(code_message(&err).0, "ValidationException");
    assert!(code_message(&err)
        .1
        .starts_with("Invalid table/index name."));
}

#[tokio::test]
async fn list_tables_pages_in_name_order() {
    // GIVEN
    let local = start().await;
    for name in ["tbl-c", "tbl-a", "tbl-b"] {
        create_simple(&local.client, name).await;
    }
    // WHEN
    let first = local.client.list_tables().limit(2).send().await.unwrap();
    // THEN
    assert_eq!(first.table_names(), ["tbl-a", "tbl-b"]);
    assert_eq!(first.last_evaluated_table_name.as_deref(), Some("tbl-b"));
    let rest = local
        .client
        .list_tables()
        .exclusive_start_table_name("tbl-b")
        .send()
        .await
        .unwrap();
    assert_eq!(rest.table_names(), ["tbl-c"]);
    assert!(rest.last_evaluated_table_name.is_none());
}

#[tokio::test]
async fn deleted_tables_are_gone() {
    // GIVEN
    let local = start().await;
    create_simple(&local.client, "doomed").await;
    // WHEN
    let out = local
        .client
        .delete_table()
        .table_name("doomed")
        .send()
        .await
        .unwrap();
    // THEN
    assert_eq!(
        out.table_description.unwrap().table_status,
        Some(TableStatus::Deleting)
    );
    let err = local
        .client
        .describe_table()
        .table_name("doomed")
        .send()
        .await
        .unwrap_err();
    assert!(matches!(
        err.into_service_error(),
        DescribeTableError::ResourceNotFoundException(_)
    ));
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
async fn ttl_can_be_enabled_once_and_is_described() {
    // GIVEN
    let local = start().await;
    create_simple(&local.client, "ttl-t").await;
    let spec = TimeToLiveSpecification::builder()
        .attribute_name("expires")
        .enabled(true)
        .build()
        .unwrap();
    // WHEN
    let before = local
        .client
        .describe_time_to_live()
        .table_name("ttl-t")
        .send()
        .await
        .unwrap();
    // THEN
    assert_eq!(
        before.time_to_live_description.unwrap().time_to_live_status,
        Some(TimeToLiveStatus::Disabled)
    );
    local
        .client
        .update_time_to_live()
        .table_name("ttl-t")
        .time_to_live_specification(spec.clone())
        .send()
        .await
        .unwrap();
    let after = local
        .client
        .describe_time_to_live()
        .table_name("ttl-t")
        .send()
        .await
        .unwrap();
    let description = after.time_to_live_description.unwrap();
    assert_eq!(
        description.time_to_live_status,
        Some(TimeToLiveStatus::Enabled)
    );
    assert_eq!(description.attribute_name.as_deref(), Some("expires"));
    let err = local
        .client
        .update_time_to_live()
        .table_name("ttl-t")
        .time_to_live_specification(spec)
        .send()
        .await
        .unwrap_err();
    assert_eq!(code_message(&err).1, "TimeToLive is already enabled");
}
