//! Many clients at once: conditional writes are atomic.

use crate::common::*;
use aws_sdk_dynamodb::operation::put_item::PutItemError;
use aws_sdk_dynamodb::operation::update_item::UpdateItemError;

const TASKS: usize = 16;
const ROUNDS: usize = 25;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn optimistic_increments_lose_no_update() {
    // GIVEN a counter at 0
    let local = start().await;
    create_simple(&local.client, "ctr").await;
    local
        .client
        .put_item()
        .table_name("ctr")
        .set_item(Some(item(&[("pk", s("c")), ("v", n(0))])))
        .send()
        .await
        .unwrap();
    // WHEN many tasks read-then-conditionally-write v+1, retrying on conflict
    let mut tasks = Vec::new();
    for _ in 0..TASKS {
        let client = local.client.clone();
        tasks.push(tokio::spawn(async move {
            let mut conflicts = 0;
            for _ in 0..ROUNDS {
                loop {
                    let got = client
                        .get_item()
                        .table_name("ctr")
                        .key("pk", s("c"))
                        .consistent_read(true)
                        .send()
                        .await
                        .unwrap();
                    let v: i64 = got.item.unwrap()["v"].as_n().unwrap().parse().unwrap();
                    let res = client
                        .update_item()
                        .table_name("ctr")
                        .key("pk", s("c"))
                        .update_expression("SET v = :new")
                        .condition_expression("v = :old")
                        .expression_attribute_values(":new", n(v + 1))
                        .expression_attribute_values(":old", n(v))
                        .send()
                        .await;
                    match res {
                        Ok(_) => break,
                        Err(e) => match e.into_service_error() {
                            UpdateItemError::ConditionalCheckFailedException(_) => conflicts += 1,
                            other => panic!("unexpected {other:?}"),
                        },
                    }
                }
            }
            conflicts
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    // THEN every increment landed exactly once
    let got = local
        .client
        .get_item()
        .table_name("ctr")
        .key("pk", s("c"))
        .send()
        .await
        .unwrap();
    assert_eq!(got.item.unwrap()["v"], n(TASKS * ROUNDS));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn only_one_of_many_racing_creates_wins() {
    // GIVEN many tasks that each try to create the same keys
    let local = start().await;
    create_simple(&local.client, "race").await;
    let mut tasks = Vec::new();
    for task in 0..TASKS {
        let client = local.client.clone();
        tasks.push(tokio::spawn(async move {
            let mut wins = 0;
            for k in 0..ROUNDS {
                let res = client
                    .put_item()
                    .table_name("race")
                    .set_item(Some(item(&[
                        ("pk", s(&format!("k{k}"))),
                        ("owner", n(task)),
                    ])))
                    .condition_expression("attribute_not_exists(pk)")
                    .send()
                    .await;
                match res {
                    Ok(_) => wins += 1,
                    Err(e) => assert!(matches!(
                        e.into_service_error(),
                        PutItemError::ConditionalCheckFailedException(_)
                    )),
                }
            }
            wins
        }));
    }
    let mut wins = 0;
    for t in tasks {
        wins += t.await.unwrap();
    }
    // THEN each key was created exactly once
    assert_eq!(wins, ROUNDS);
    let scan = local.client.scan().table_name("race").send().await.unwrap();
    assert_eq!(scan.count as usize, ROUNDS);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_cross_table_transactions_neither_deadlock_nor_lose_updates() {
    // GIVEN two tables, and transactions touching both in opposite orders
    let local = start().await;
    create_simple(&local.client, "tx-x").await;
    create_simple(&local.client, "tx-y").await;
    let add = |table: &str| {
        aws_sdk_dynamodb::types::TransactWriteItem::builder()
            .update(
                aws_sdk_dynamodb::types::Update::builder()
                    .table_name(table)
                    .key("pk", s("c"))
                    .update_expression("ADD v :one")
                    .expression_attribute_values(":one", n(1))
                    .build()
                    .unwrap(),
            )
            .build()
    };
    let mut tasks = Vec::new();
    for task in 0..TASKS {
        let client = local.client.clone();
        let (first, second) = if task % 2 == 0 {
            (add("tx-x"), add("tx-y"))
        } else {
            (add("tx-y"), add("tx-x"))
        };
        tasks.push(tokio::spawn(async move {
            for _ in 0..ROUNDS {
                client
                    .transact_write_items()
                    .transact_items(first.clone())
                    .transact_items(second.clone())
                    .send()
                    .await
                    .unwrap();
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    // THEN both counters saw every transaction
    for table in ["tx-x", "tx-y"] {
        let got = local
            .client
            .get_item()
            .table_name(table)
            .key("pk", s("c"))
            .send()
            .await
            .unwrap();
        assert_eq!(got.item.unwrap()["v"], n(TASKS * ROUNDS));
    }
}
