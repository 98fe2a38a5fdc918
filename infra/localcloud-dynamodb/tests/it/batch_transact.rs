//! BatchGetItem, BatchWriteItem, TransactGetItems, TransactWriteItems.

use crate::common::*;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::{
    ConditionCheck, Delete, Get, KeysAndAttributes, Put, PutRequest,
    ReturnValuesOnConditionCheckFailure, TransactGetItem, TransactWriteItem, Update, WriteRequest,
};

fn put_request(pk: &str) -> WriteRequest {
    WriteRequest::builder()
        .put_request(
            PutRequest::builder()
                .set_item(Some(item(&[("pk", s(pk))])))
                .build()
                .unwrap(),
        )
        .build()
}

#[tokio::test]
async fn batch_write_then_batch_get_across_tables() {
    // GIVEN two tables filled by one batch
    let local = start().await;
    create_simple(&local.client, "bat-a").await;
    create_simple(&local.client, "bat-b").await;
    let out = local
        .client
        .batch_write_item()
        .request_items("bat-a", vec![put_request("1"), put_request("2")])
        .request_items("bat-b", vec![put_request("3")])
        .send()
        .await
        .unwrap();
    assert!(out.unprocessed_items.unwrap_or_default().is_empty());
    // WHEN reading keys back, one of them missing
    let keys = |pks: &[&str]| {
        KeysAndAttributes::builder()
            .set_keys(Some(pks.iter().map(|p| item(&[("pk", s(p))])).collect()))
            .build()
            .unwrap()
    };
    let got = local
        .client
        .batch_get_item()
        .request_items("bat-a", keys(&["1", "2", "9"]))
        .request_items("bat-b", keys(&["3"]))
        .send()
        .await
        .unwrap();
    // THEN the found ones come back, nothing unprocessed
    let responses = got.responses.unwrap();
    assert_eq!(responses["bat-a"].len(), 2);
    assert_eq!(responses["bat-b"].len(), 1);
    assert!(got.unprocessed_keys.unwrap_or_default().is_empty());
}

#[tokio::test]
async fn batch_write_rejects_duplicates_and_more_than_25() {
    // GIVEN
    let local = start().await;
    create_simple(&local.client, "bat-lim").await;
    // WHEN
    let err = local
        .client
        .batch_write_item()
        .request_items("bat-lim", vec![put_request("1"), put_request("1")])
        .send()
        .await
        .unwrap_err();
    // THEN
    assert_eq!(
        code_message(&err).1,
        "Provided list of item keys contains duplicates"
    );
    let many = (0..26).map(|i| put_request(&i.to_string())).collect();
    let err = local
        .client
        .batch_write_item()
        .request_items("bat-lim", many)
        .send()
        .await
        .unwrap_err();
    assert_eq!(code_message(&err).0, "ValidationException");
    let scan = local
        .client
        .scan()
        .table_name("bat-lim")
        .send()
        .await
        .unwrap();
    assert_eq!(scan.count, 0, "a rejected batch writes nothing");
}

#[tokio::test]
async fn batch_get_rejects_more_than_100_keys() {
    // GIVEN
    let local = start().await;
    create_simple(&local.client, "bat-get").await;
    let keys = (0..101)
        .map(|i| item(&[("pk", s(&i.to_string()))]))
        .collect();
    // WHEN
    let err = local
        .client
        .batch_get_item()
        .request_items(
            "bat-get",
            KeysAndAttributes::builder()
                .set_keys(Some(keys))
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap_err();
    // THEN
    assert_eq!(
        code_message(&err).1,
        "Too many items requested for the BatchGetItem call"
    );
}

fn put_tx(table: &str, pk: &str) -> TransactWriteItem {
    TransactWriteItem::builder()
        .put(
            Put::builder()
                .table_name(table)
                .set_item(Some(item(&[("pk", s(pk)), ("v", n(1))])))
                .build()
                .unwrap(),
        )
        .build()
}

#[tokio::test]
async fn transaction_applies_every_action_across_tables() {
    // GIVEN
    let local = start().await;
    create_simple(&local.client, "tx-a").await;
    create_simple(&local.client, "tx-b").await;
    local
        .client
        .put_item()
        .table_name("tx-b")
        .set_item(Some(item(&[("pk", s("old")), ("v", n(5))])))
        .send()
        .await
        .unwrap();
    local
        .client
        .transact_write_items()
        .transact_items(put_tx("tx-a", "new"))
        .transact_items(
            TransactWriteItem::builder()
                .update(
                    Update::builder()
                        .table_name("tx-b")
                        .key("pk", s("old"))
                        .update_expression("SET v = v + :d")
                        .expression_attribute_values(":d", n(1))
                        .build()
                        .unwrap(),
                )
                .build(),
        )
        .send()
        .await
        .unwrap();
    let got = local
        .client
        .transact_get_items()
        .transact_items(
            TransactGetItem::builder()
                .get(
                    Get::builder()
                        .table_name("tx-a")
                        .key("pk", s("new"))
                        .build()
                        .unwrap(),
                )
                .build(),
        )
        .transact_items(
            TransactGetItem::builder()
                .get(
                    Get::builder()
                        .table_name("tx-b")
                        .key("pk", s("old"))
                        .build()
                        .unwrap(),
                )
                .build(),
        )
        .transact_items(
            TransactGetItem::builder()
                .get(
                    Get::builder()
                        .table_name("tx-b")
                        .key("pk", s("none"))
                        .build()
                        .unwrap(),
                )
                .build(),
        )
        .send()
        .await
        .unwrap();
    // WHEN
    let responses = got.responses();
    // THEN
    assert_eq!(responses[0].item.as_ref().unwrap()["v"], n(1));
    assert_eq!(responses[1].item.as_ref().unwrap()["v"], n(6));
    assert!(responses[2].item.is_none());
}

#[tokio::test]
async fn failed_condition_cancels_the_whole_transaction_with_reasons() {
    // GIVEN an item that a condition check will find
    let local = start().await;
    create_simple(&local.client, "tx-c").await;
    local
        .client
        .put_item()
        .table_name("tx-c")
        .set_item(Some(item(&[("pk", s("taken")), ("v", n(1))])))
        .send()
        .await
        .unwrap();
    // WHEN a transaction checks it does not exist and puts another item
    let err = local
        .client
        .transact_write_items()
        .transact_items(
            TransactWriteItem::builder()
                .condition_check(
                    ConditionCheck::builder()
                        .table_name("tx-c")
                        .key("pk", s("taken"))
                        .condition_expression("attribute_not_exists(pk)")
                        .return_values_on_condition_check_failure(
                            ReturnValuesOnConditionCheckFailure::AllOld,
                        )
                        .build()
                        .unwrap(),
                )
                .build(),
        )
        .transact_items(put_tx("tx-c", "other"))
        .send()
        .await
        .unwrap_err();
    // THEN it is cancelled with one reason per action and nothing is written
    assert_eq!(
        code_message(&err).1,
        "Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed, None]"
    );
    match err.into_service_error() {
        TransactWriteItemsError::TransactionCanceledException(e) => {
            let reasons = e.cancellation_reasons();
            assert_eq!(reasons[0].code.as_deref(), Some("ConditionalCheckFailed"));
            assert_eq!(reasons[0].item.as_ref().unwrap()["v"], n(1));
            assert_eq!(reasons[1].code.as_deref(), Some("None"));
        }
        other => panic!("unexpected {other:?}"),
    }
    let other = local
        .client
        .get_item()
        .table_name("tx-c")
        .key("pk", s("other"))
        .send()
        .await
        .unwrap();
    assert!(other.item.is_none());
}

#[tokio::test]
async fn two_actions_on_one_item_are_rejected() {
    // GIVEN
    let local = start().await;
    create_simple(&local.client, "tx-d").await;
    // WHEN
    let err = local
        .client
        .transact_write_items()
        .transact_items(put_tx("tx-d", "same"))
        .transact_items(
            TransactWriteItem::builder()
                .delete(
                    Delete::builder()
                        .table_name("tx-d")
                        .key("pk", s("same"))
                        .build()
                        .unwrap(),
                )
                .build(),
        )
        .send()
        .await
        .unwrap_err();
    // THEN
    assert_eq!(
        code_message(&err).1,
        "Transaction request cannot include multiple operations on one item"
    );
}

#[tokio::test]
async fn retried_client_request_token_applies_once() {
    // GIVEN
    let local = start().await;
    create_simple(&local.client, "tx-e").await;
    let send = || {
        local
            .client
            .transact_write_items()
            .client_request_token("token-1")
            .transact_items(
                TransactWriteItem::builder()
                    .update(
                        Update::builder()
                            .table_name("tx-e")
                            .key("pk", s("c"))
                            .update_expression("ADD n :one")
                            .expression_attribute_values(":one", n(1))
                            .build()
                            .unwrap(),
                    )
                    .build(),
            )
            .send()
    };
    send().await.unwrap();
    send().await.unwrap();
    // WHEN
    let got = local
        .client
        .get_item()
        .table_name("tx-e")
        .key("pk", s("c"))
        .send()
        .await
        .unwrap();
    // THEN
    assert_eq!(got.item.unwrap()["n"], n(1));
}
