//! Tags, UpdateTable, continuous backups and deletion protection through the
//! SDK: the table operations tools such as Terraform and CDK call.

use crate::common::*;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, CreateGlobalSecondaryIndexAction,
    DeleteGlobalSecondaryIndexAction, GlobalSecondaryIndexUpdate, KeySchemaElement, KeyType,
    PointInTimeRecoverySpecification, PointInTimeRecoveryStatus, Projection, ProjectionType,
    ProvisionedThroughput, ReturnConsumedCapacity, ReturnValue, ScalarAttributeType, Select,
    TableClass, TableStatus, Tag,
};

const ARN: &str = "arn:aws:dynamodb:us-east-1:000000000000:table/";

fn tag(key: &str, value: &str) -> Tag {
    Tag::builder().key(key).value(value).build().unwrap()
}

#[tokio::test]
async fn tags_are_added_replaced_listed_and_removed_by_arn() {
    // GIVEN a table created with one tag
    let local = start().await;
    local
        .client
        .create_table()
        .table_name("tagged")
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
        .tags(tag("team", "core"))
        .send()
        .await
        .unwrap();
    let arn = format!("{ARN}tagged");
    // WHEN two tags are put (one replacing) and one is removed
    local
        .client
        .tag_resource()
        .resource_arn(&arn)
        .tags(tag("team", "edge"))
        .tags(tag("env", "test"))
        .tags(tag("cost", "42"))
        .send()
        .await
        .unwrap();
    local
        .client
        .untag_resource()
        .resource_arn(&arn)
        .tag_keys("cost")
        .tag_keys("never-set")
        .send()
        .await
        .unwrap();
    // THEN the list has the two left, with the new value
    let tags = local
        .client
        .list_tags_of_resource()
        .resource_arn(&arn)
        .send()
        .await
        .unwrap()
        .tags
        .unwrap_or_default();
    let mut pairs: Vec<(String, String)> = tags.into_iter().map(|t| (t.key, t.value)).collect();
    pairs.sort();
    assert_eq!(
        pairs,
        vec![
            ("env".to_string(), "test".to_string()),
            ("team".to_string(), "edge".to_string())
        ]
    );
}

#[tokio::test]
async fn tag_operations_refuse_bad_arns_with_aws_errors() {
    // GIVEN no table named `missing`
    let local = start().await;
    create_simple(&local.client, "present").await;
    let list = |arn: &str| {
        let client = local.client.clone();
        let arn = arn.to_string();
        async move {
            let err = client
                .list_tags_of_resource()
                .resource_arn(arn)
                .send()
                .await
                .unwrap_err();
            code_message(&err)
        }
    };
    // WHEN / THEN a malformed ARN is a ValidationException
    let (code, message) = list("not-an-arn").await;
    assert_eq!(code, "ValidationException");
    assert_eq!(
        message,
        "Invalid TableArn: Invalid ResourceArn provided as input not-an-arn"
    );
    // another account's table is an AccessDeniedException
    let (code, _) = list("arn:aws:dynamodb:us-east-1:123456789012:table/present").await;
    assert_eq!(code, "AccessDeniedException");
    // a well-formed ARN of this account naming no table is not found
    let (code, message) = list(&format!("{ARN}missing")).await;
    assert_eq!(code, "ResourceNotFoundException");
    assert_eq!(
        message,
        format!("Requested resource not found: ResourcArn: {ARN}missing not found")
    );
    // and tagging with no tag, or a reserved key, is invalid
    let err = local
        .client
        .tag_resource()
        .resource_arn(format!("{ARN}present"))
        .tags(tag("aws:owner", "x"))
        .send()
        .await
        .unwrap_err();
    assert_eq!(code_message(&err).0, "ValidationException");
}

#[tokio::test]
async fn update_table_switches_billing_and_adds_and_removes_an_index_over_existing_items() {
    // GIVEN a table with items, some with an `email`
    let local = start().await;
    create_composite(&local.client, "evolving").await;
    for (pk, email) in [("a", Some("x@e")), ("b", None), ("c", Some("x@e"))] {
        let mut it = item(&[("pk", s(pk)), ("sk", n(1))]);
        if let Some(e) = email {
            it.insert("email".into(), s(e));
        }
        local
            .client
            .put_item()
            .table_name("evolving")
            .set_item(Some(it))
            .send()
            .await
            .unwrap();
    }
    // WHEN it becomes provisioned and gains a GSI on email
    let out = local
        .client
        .update_table()
        .table_name("evolving")
        .billing_mode(BillingMode::Provisioned)
        .provisioned_throughput(
            ProvisionedThroughput::builder()
                .read_capacity_units(3)
                .write_capacity_units(4)
                .build()
                .unwrap(),
        )
        .attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name("email")
                .attribute_type(ScalarAttributeType::S)
                .build()
                .unwrap(),
        )
        .global_secondary_index_updates(
            GlobalSecondaryIndexUpdate::builder()
                .create(
                    CreateGlobalSecondaryIndexAction::builder()
                        .index_name("by-email")
                        .key_schema(
                            KeySchemaElement::builder()
                                .attribute_name("email")
                                .key_type(KeyType::Hash)
                                .build()
                                .unwrap(),
                        )
                        .projection(
                            Projection::builder()
                                .projection_type(ProjectionType::KeysOnly)
                                .build(),
                        )
                        .provisioned_throughput(
                            ProvisionedThroughput::builder()
                                .read_capacity_units(1)
                                .write_capacity_units(1)
                                .build()
                                .unwrap(),
                        )
                        .build()
                        .unwrap(),
                )
                .build(),
        )
        .send()
        .await
        .unwrap();
    // THEN the answer says UPDATING, and the index holds the existing items
    let described = out.table_description.unwrap();
    assert_eq!(described.table_status, Some(TableStatus::Updating));
    let pt = described.provisioned_throughput.unwrap();
    assert_eq!(
        (pt.read_capacity_units, pt.write_capacity_units),
        (Some(3), Some(4))
    );
    let found = local
        .client
        .query()
        .table_name("evolving")
        .index_name("by-email")
        .key_condition_expression("email = :e")
        .expression_attribute_values(":e", s("x@e"))
        .select(Select::Count)
        .send()
        .await
        .unwrap();
    assert_eq!(found.count, 2);
    // AND the items are all still there
    let scanned = local
        .client
        .scan()
        .table_name("evolving")
        .send()
        .await
        .unwrap();
    assert_eq!(scanned.count, 3);

    // WHEN the index is deleted and the table goes back to on-demand
    local
        .client
        .update_table()
        .table_name("evolving")
        .billing_mode(BillingMode::PayPerRequest)
        .global_secondary_index_updates(
            GlobalSecondaryIndexUpdate::builder()
                .delete(
                    DeleteGlobalSecondaryIndexAction::builder()
                        .index_name("by-email")
                        .build()
                        .unwrap(),
                )
                .build(),
        )
        .send()
        .await
        .unwrap();
    // THEN DescribeTable shows no index, no email definition, on-demand, ACTIVE
    let table = local
        .client
        .describe_table()
        .table_name("evolving")
        .send()
        .await
        .unwrap()
        .table
        .unwrap();
    assert_eq!(table.table_status, Some(TableStatus::Active));
    assert!(table.global_secondary_indexes.is_none());
    assert_eq!(table.attribute_definitions().len(), 2);
    assert_eq!(
        table.billing_mode_summary.unwrap().billing_mode,
        Some(BillingMode::PayPerRequest)
    );
    assert_eq!(table.item_count, Some(3));
}

#[tokio::test]
async fn update_table_errors_as_aws() {
    let local = start().await;
    create_simple(&local.client, "fixed").await;
    // nothing to update
    let err = local
        .client
        .update_table()
        .table_name("fixed")
        .send()
        .await
        .unwrap_err();
    assert_eq!(code_message(&err).0, "ValidationException");
    // a missing table
    let err = local
        .client
        .update_table()
        .table_name("nope-table")
        .table_class(TableClass::StandardInfrequentAccess)
        .send()
        .await
        .unwrap_err();
    assert_eq!(code_message(&err).0, "ResourceNotFoundException");
    // deleting an index that does not exist
    let err = local
        .client
        .update_table()
        .table_name("fixed")
        .global_secondary_index_updates(
            GlobalSecondaryIndexUpdate::builder()
                .delete(
                    DeleteGlobalSecondaryIndexAction::builder()
                        .index_name("ghost")
                        .build()
                        .unwrap(),
                )
                .build(),
        )
        .send()
        .await
        .unwrap_err();
    assert_eq!(code_message(&err).0, "ResourceNotFoundException");
}

#[tokio::test]
async fn a_protected_table_cannot_be_deleted_until_protection_is_lifted() {
    // GIVEN a table, then deletion protection turned on by UpdateTable
    let local = start().await;
    create_simple(&local.client, "guarded").await;
    let out = local
        .client
        .update_table()
        .table_name("guarded")
        .deletion_protection_enabled(true)
        .table_class(TableClass::StandardInfrequentAccess)
        .send()
        .await
        .unwrap();
    let described = out.table_description.unwrap();
    assert_eq!(described.deletion_protection_enabled, Some(true));
    assert_eq!(
        described.table_class_summary.unwrap().table_class,
        Some(TableClass::StandardInfrequentAccess)
    );
    // WHEN it is deleted THEN AWS's ValidationException
    let err = local
        .client
        .delete_table()
        .table_name("guarded")
        .send()
        .await
        .unwrap_err();
    let (code, message) = code_message(&err);
    assert_eq!(code, "ValidationException");
    assert!(message.contains("protected against deletion"), "{message}");
    // AND once lifted, the delete goes through
    local
        .client
        .update_table()
        .table_name("guarded")
        .deletion_protection_enabled(false)
        .send()
        .await
        .unwrap();
    local
        .client
        .delete_table()
        .table_name("guarded")
        .send()
        .await
        .unwrap();
}

#[tokio::test]
async fn point_in_time_recovery_is_enabled_described_and_disabled() {
    let local = start().await;
    create_simple(&local.client, "recoverable").await;
    let status = |d: aws_sdk_dynamodb::types::ContinuousBackupsDescription| {
        d.point_in_time_recovery_description
            .unwrap()
            .point_in_time_recovery_status
    };
    // GIVEN a new table: recovery off
    let before = local
        .client
        .describe_continuous_backups()
        .table_name("recoverable")
        .send()
        .await
        .unwrap()
        .continuous_backups_description
        .unwrap();
    assert_eq!(status(before), Some(PointInTimeRecoveryStatus::Disabled));
    // WHEN it is enabled THEN it is reported with its period
    let enabled = local
        .client
        .update_continuous_backups()
        .table_name("recoverable")
        .point_in_time_recovery_specification(
            PointInTimeRecoverySpecification::builder()
                .point_in_time_recovery_enabled(true)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap()
        .continuous_backups_description
        .unwrap();
    let pitr = enabled.point_in_time_recovery_description.clone().unwrap();
    assert_eq!(pitr.recovery_period_in_days, Some(35));
    assert_eq!(status(enabled), Some(PointInTimeRecoveryStatus::Enabled));
    let described = local
        .client
        .describe_continuous_backups()
        .table_name("recoverable")
        .send()
        .await
        .unwrap()
        .continuous_backups_description
        .unwrap();
    assert_eq!(status(described), Some(PointInTimeRecoveryStatus::Enabled));
    // AND a missing table is TableNotFoundException
    let err = local
        .client
        .describe_continuous_backups()
        .table_name("absent-table")
        .send()
        .await
        .unwrap_err();
    assert_eq!(code_message(&err).0, "TableNotFoundException");
}

#[tokio::test]
async fn enum_parameters_are_checked_before_the_table_is_looked_up() {
    // GIVEN no table at all
    let local = start().await;
    // WHEN a write names a missing table with a bad ReturnValues
    let err = local
        .client
        .put_item()
        .table_name("no-such-table")
        .set_item(Some(item(&[("pk", s("a"))])))
        .return_values(ReturnValue::from("SOMETIMES"))
        .send()
        .await
        .unwrap_err();
    // THEN the enum is what is refused, as on AWS
    let (code, message) = code_message(&err);
    assert_eq!(code, "ValidationException");
    assert!(message.contains("'returnValues'"), "{message}");
    // AND the same for ReturnConsumedCapacity on a read
    let err = local
        .client
        .get_item()
        .table_name("no-such-table")
        .key("pk", s("a"))
        .return_consumed_capacity(ReturnConsumedCapacity::from("ALL"))
        .send()
        .await
        .unwrap_err();
    let (code, message) = code_message(&err);
    assert_eq!(code, "ValidationException");
    assert!(message.contains("'returnConsumedCapacity'"), "{message}");
}

#[tokio::test]
async fn item_collection_metrics_come_back_for_a_table_with_a_local_index() {
    // GIVEN a table with an LSI (create_indexed) and one without
    let local = start().await;
    create_indexed(&local.client, "with-lsi").await;
    create_composite(&local.client, "without-lsi").await;
    for table in ["with-lsi", "without-lsi"] {
        // WHEN an item is put with ReturnItemCollectionMetrics=SIZE
        let out = local
            .client
            .put_item()
            .table_name(table)
            .set_item(Some(item(&[("pk", s("p")), ("sk", n(1)), ("score", n(3))])))
            .return_item_collection_metrics(
                aws_sdk_dynamodb::types::ReturnItemCollectionMetrics::Size,
            )
            .send()
            .await
            .unwrap();
        // THEN only the LSI table answers the collection's key and size range
        match (table, out.item_collection_metrics) {
            ("with-lsi", Some(metrics)) => {
                assert_eq!(metrics.item_collection_key.unwrap()["pk"], s("p"));
                assert_eq!(metrics.size_estimate_range_gb.unwrap(), vec![0.0, 1.0]);
            }
            ("without-lsi", None) => {}
            (table, other) => panic!("{table}: {other:?}"),
        }
    }
}

#[tokio::test]
async fn operations_out_of_scope_name_themselves() {
    // GIVEN the service WHEN an operation it does not emulate is called
    let local = start().await;
    let err = local.client.describe_limits().send().await.unwrap_err();
    // THEN AWS's UnknownOperationException shape, naming the operation
    let (code, message) = code_message(&err);
    assert_eq!(code, "UnknownOperationException");
    assert!(message.contains("DescribeLimits"), "{message}");
}
