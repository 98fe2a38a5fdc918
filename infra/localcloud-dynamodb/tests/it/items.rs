//! GetItem, PutItem, UpdateItem, DeleteItem through the real SDK.

use crate::common::*;
use aws_sdk_dynamodb::operation::delete_item::DeleteItemError;
use aws_sdk_dynamodb::operation::get_item::GetItemError;
use aws_sdk_dynamodb::operation::put_item::PutItemError;
use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use aws_sdk_dynamodb::types::{
    ReturnConsumedCapacity, ReturnValue, ReturnValuesOnConditionCheckFailure,
};

#[tokio::test]
async fn put_then_get_returns_the_item_with_canonical_numbers() {
    // GIVEN a table
    let local = start().await;
    create_composite(&local.client, "items").await;
    // WHEN an item is put and read back
    local
        .client
        .put_item()
        .table_name("items")
        .set_item(Some(item(&[
            ("pk", s("a")),
            ("sk", n("1.50")),
            ("tags", Av::Ss(vec!["x".into()])),
        ])))
        .send()
        .await
        .unwrap();
    let got = local
        .client
        .get_item()
        .table_name("items")
        .key("pk", s("a"))
        .key("sk", n(1.5))
        .consistent_read(true)
        .send()
        .await
        .unwrap();
    // THEN it comes back, the number in DynamoDB's canonical form
    let got = got.item.expect("item found");
    assert_eq!(got["sk"], n("1.5"));
    assert_eq!(got["tags"], Av::Ss(vec!["x".into()]));
}

#[tokio::test]
async fn get_of_a_missing_item_has_no_item_and_costs_half_a_unit() {
    // GIVEN
    let local = start().await;
    create_composite(&local.client, "items").await;
    // WHEN
    let got = local
        .client
        .get_item()
        .table_name("items")
        .key("pk", s("nope"))
        .key("sk", n(1))
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await
        .unwrap();
    // THEN
    assert!(got.item.is_none());
    assert_eq!(got.consumed_capacity.unwrap().capacity_units, Some(0.5));
}

#[tokio::test]
async fn projection_expression_returns_only_the_named_attributes() {
    // GIVEN
    let local = start().await;
    create_simple(&local.client, "proj").await;
    local
        .client
        .put_item()
        .table_name("proj")
        .set_item(Some(item(&[
            ("pk", s("a")),
            ("name", s("n")),
            ("other", s("o")),
        ])))
        .send()
        .await
        .unwrap();
    // WHEN
    let got = local
        .client
        .get_item()
        .table_name("proj")
        .key("pk", s("a"))
        .projection_expression("#n")
        .expression_attribute_names("#n", "name")
        .send()
        .await
        .unwrap();
    // THEN
    assert_eq!(got.item.unwrap(), item(&[("name", s("n"))]));
}

#[tokio::test]
async fn conditional_put_fails_with_the_old_item_when_asked() {
    // GIVEN an existing item
    let local = start().await;
    create_simple(&local.client, "cond").await;
    let put = || {
        local
            .client
            .put_item()
            .table_name("cond")
            .set_item(Some(item(&[("pk", s("a")), ("v", n(1))])))
    };
    put().send().await.unwrap();
    // WHEN it is put again on condition that it does not exist
    let err = put()
        .condition_expression("attribute_not_exists(pk)")
        .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
        .send()
        .await
        .unwrap_err();
    // THEN the condition fails, naming the old item
    let (code, message) = code_message(&err);
    assert_eq!(
        (code.as_str(), message.as_str()),
        (
            "ConditionalCheckFailedException",
            "The conditional request failed"
        )
    );
    match err.into_service_error() {
        PutItemError::ConditionalCheckFailedException(e) => assert_eq!(e.item.unwrap()["v"], n(1)),
        other => panic!("unexpected {other:?}"),
    }
}

#[tokio::test]
async fn put_returns_all_old_attributes() {
    // GIVEN
    let local = start().await;
    create_simple(&local.client, "olds").await;
    local
        .client
        .put_item()
        .table_name("olds")
        .set_item(Some(item(&[("pk", s("a")), ("v", n(1))])))
        .send()
        .await
        .unwrap();
    // WHEN
    let out = local
        .client
        .put_item()
        .table_name("olds")
        .set_item(Some(item(&[("pk", s("a")), ("v", n(2))])))
        .return_values(ReturnValue::AllOld)
        .send()
        .await
        .unwrap();
    // THEN
    assert_eq!(out.attributes.unwrap()["v"], n(1));
}

#[tokio::test]
async fn put_validates_keys_like_aws() {
    // GIVEN
    let local = start().await;
    create_composite(&local.client, "keys").await;
    let put = |it| {
        local
            .client
            .put_item()
            .table_name("keys")
            .set_item(Some(it))
            .send()
    };
    // WHEN
    let cases = [
        (item(&[("pk", n(1)), ("sk", n(1))]), "One or more parameter values were invalid: Type mismatch for key pk expected: S actual: N"),
        (item(&[("pk", s("a"))]), "One or more parameter values were invalid: Missing the key sk in the item"),
        (
            item(&[("pk", s("")), ("sk", n(1))]),
            "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk",
        ),
        (
            item(&[("pk", s("a")), ("sk", n(1)), ("big", s(&"x".repeat(400 * 1024)))]),
            "Item size has exceeded the maximum allowed size",
        ),
    ];
    // THEN
    for (it, expected) in cases {
        let err = put(it).await.unwrap_err();
        assert_eq!(
            code_message(&err),
            ("ValidationException".to_string(), expected.to_string())
        );
    }
}

#[tokio::test]
async fn operations_on_a_missing_table_are_resource_not_found() {
    // GIVEN
    let local = start().await;
    // WHEN
    let err = local
        .client
        .get_item()
        .table_name("missing")
        .key("pk", s("a"))
        .send()
        .await
        .unwrap_err();
    // THEN
    assert_eq!(
        code_message(&err).1,
        "Requested resource not found: Table: missing not found"
    );
    assert!(matches!(
        err.into_service_error(),
        GetItemError::ResourceNotFoundException(_)
    ));
}

#[tokio::test]
async fn get_with_a_wrong_key_is_a_validation_error() {
    // GIVEN
    let local = start().await;
    create_composite(&local.client, "wrongkey").await;
    // WHEN
    let err = local
        .client
        .get_item()
        .table_name("wrongkey")
        .key("pk", s("a"))
        .send()
        .await
        .unwrap_err();
    // THEN
    assert_eq!(
        code_message(&err).1,
        "The provided key element does not match the schema"
    );
}

#[tokio::test]
async fn unused_expression_values_are_rejected() {
    // GIVEN
    let local = start().await;
    create_simple(&local.client, "unused").await;
    // WHEN
    let err = local
        .client
        .put_item()
        .table_name("unused")
        .set_item(Some(item(&[("pk", s("a"))])))
        .condition_expression("attribute_not_exists(pk)")
        .expression_attribute_values(":x", s("1"))
        .send()
        .await
        .unwrap_err();
    // THEN
    assert_eq!(
        code_message(&err),
        (
            "ValidationException".to_string(),
            "Value provided in ExpressionAttributeValues unused in expressions: keys: {:x}"
                .to_string()
        )
    );
}

#[tokio::test]
async fn update_creates_increments_and_returns_updated_new() {
    // GIVEN no item
    let local = start().await;
    create_simple(&local.client, "counter").await;
    let bump = || {
        local
            .client
            .update_item()
            .table_name("counter")
            .key("pk", s("c"))
            .update_expression("ADD hits :one SET label = if_not_exists(label, :l)")
            .expression_attribute_values(":one", n(1))
            .expression_attribute_values(":l", s("first"))
            .return_values(ReturnValue::UpdatedNew)
            .send()
    };
    // WHEN it is updated twice
    bump().await.unwrap();
    let out = bump().await.unwrap();
    // THEN the update created it and the counter is 2
    let attrs = out.attributes.unwrap();
    assert_eq!(attrs["hits"], n(2));
    assert_eq!(attrs["label"], s("first"));
    assert!(!attrs.contains_key("pk"));
}

#[tokio::test]
async fn update_of_a_key_attribute_is_rejected() {
    // GIVEN
    let local = start().await;
    create_simple(&local.client, "upkey").await;
    // WHEN
    let err = local
        .client
        .update_item()
        .table_name("upkey")
        .key("pk", s("a"))
        .update_expression("SET pk = :v")
        .expression_attribute_values(":v", s("b"))
        .send()
        .await
        .unwrap_err();
    // THEN
    assert_eq!(
        code_message(&err).1,
        "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key"
    );
    assert_eq!(code_message(&err).0, "ValidationException");
}

#[tokio::test]
async fn failed_update_condition_leaves_the_item_unchanged() {
    // GIVEN
    let local = start().await;
    create_simple(&local.client, "upcond").await;
    local
        .client
        .put_item()
        .table_name("upcond")
        .set_item(Some(item(&[("pk", s("a")), ("v", n(1))])))
        .send()
        .await
        .unwrap();
    // WHEN
    let err = local
        .client
        .update_item()
        .table_name("upcond")
        .key("pk", s("a"))
        .update_expression("SET v = :two")
        .condition_expression("v = :zero")
        .expression_attribute_values(":two", n(2))
        .expression_attribute_values(":zero", n(0))
        .send()
        .await
        .unwrap_err();
    // THEN
    assert!(matches!(
        err.into_service_error(),
        UpdateItemError::ConditionalCheckFailedException(_)
    ));
    let got = local
        .client
        .get_item()
        .table_name("upcond")
        .key("pk", s("a"))
        .send()
        .await
        .unwrap();
    assert_eq!(got.item.unwrap()["v"], n(1));
}

#[tokio::test]
async fn delete_returns_the_old_item_and_removes_it() {
    // GIVEN
    let local = start().await;
    create_simple(&local.client, "del").await;
    local
        .client
        .put_item()
        .table_name("del")
        .set_item(Some(item(&[("pk", s("a")), ("v", n(1))])))
        .send()
        .await
        .unwrap();
    // WHEN
    let out = local
        .client
        .delete_item()
        .table_name("del")
        .key("pk", s("a"))
        .condition_expression("attribute_exists(pk)")
        .return_values(ReturnValue::AllOld)
        .send()
        .await
        .unwrap();
    // THEN
    assert_eq!(out.attributes.unwrap()["v"], n(1));
    let err = local
        .client
        .delete_item()
        .table_name("del")
        .key("pk", s("a"))
        .condition_expression("attribute_exists(pk)")
        .send()
        .await
        .unwrap_err();
    assert!(matches!(
        err.into_service_error(),
        DeleteItemError::ConditionalCheckFailedException(_)
    ));
}

#[tokio::test]
async fn put_reports_index_write_units_with_indexes() {
    // GIVEN a table with a GSI (ALL) and an LSI
    let local = start().await;
    create_indexed(&local.client, "capidx").await;
    // WHEN an item carrying both index keys is put
    let out = local
        .client
        .put_item()
        .table_name("capidx")
        .set_item(Some(item(&[
            ("pk", s("a")),
            ("sk", n(1)),
            ("email", s("e")),
            ("score", n(3)),
        ])))
        .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
        .send()
        .await
        .unwrap();
    // THEN table, GSI and LSI each consume one unit
    let cc = out.consumed_capacity.unwrap();
    assert_eq!(cc.capacity_units, Some(3.0));
    assert_eq!(cc.table.unwrap().capacity_units, Some(1.0));
    assert_eq!(
        cc.global_secondary_indexes.unwrap()["by-email"].capacity_units,
        Some(1.0)
    );
    assert_eq!(
        cc.local_secondary_indexes.unwrap()["by-score"].capacity_units,
        Some(1.0)
    );
}

#[tokio::test]
async fn bad_update_expressions_are_validation_errors_with_aws_messages() {
    // GIVEN
    let local = start().await;
    create_simple(&local.client, "badexpr").await;
    // WHEN
    let err = local
        .client
        .update_item()
        .table_name("badexpr")
        .key("pk", s("a"))
        .update_expression("SET v = :undefined")
        .expression_attribute_values(":x", n(1))
        .send()
        .await
        .unwrap_err();
    // THEN
    assert_eq!(
        code_message(&err),
        (
            "ValidationException".to_string(),
            "Invalid UpdateExpression: An expression attribute value used in expression is not defined; attribute value: :undefined".to_string()
        )
    );
}

#[tokio::test]
async fn an_update_growing_an_item_past_400_kb_is_rejected() {
    // GIVEN
    let local = start().await;
    create_simple(&local.client, "grow").await;
    local
        .client
        .put_item()
        .table_name("grow")
        .set_item(Some(item(&[
            ("pk", s("a")),
            ("a", s(&"x".repeat(300 * 1024))),
        ])))
        .send()
        .await
        .unwrap();
    // WHEN
    let err = local
        .client
        .update_item()
        .table_name("grow")
        .key("pk", s("a"))
        .update_expression("SET b = :big")
        .expression_attribute_values(":big", s(&"y".repeat(200 * 1024)))
        .send()
        .await
        .unwrap_err();
    // THEN
    assert_eq!(
        code_message(&err).1,
        "Item size to update has exceeded the maximum allowed size"
    );
}

#[tokio::test]
async fn key_values_over_the_size_limits_are_rejected() {
    // GIVEN
    let local = start().await;
    create_simple(&local.client, "bigkey").await;
    let put = |pk: String| {
        local
            .client
            .put_item()
            .table_name("bigkey")
            .set_item(Some(item(&[("pk", s(&pk))])))
            .send()
    };
    put("x".repeat(2048)).await.unwrap();
    // WHEN
    let err = put("x".repeat(2049)).await.unwrap_err();
    // THEN
    assert_eq!(
        code_message(&err).1,
        "One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of 2048 bytes"
    );
}
