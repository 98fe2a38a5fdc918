//! PartiQL through the AWS SDK: ExecuteStatement, BatchExecuteStatement and
//! ExecuteTransaction, with the errors AWS documents for them.

use std::collections::HashMap;

use aws_sdk_dynamodb::operation::execute_statement::ExecuteStatementError;
use aws_sdk_dynamodb::operation::execute_transaction::ExecuteTransactionError;
use aws_sdk_dynamodb::types::{
    BatchStatementErrorCodeEnum, BatchStatementRequest, ParameterizedStatement,
    ReturnConsumedCapacity, ReturnValuesOnConditionCheckFailure,
};
use aws_sdk_dynamodb::Client;

use crate::common::{code_message, create_composite, create_indexed, n, s, start, Av};

type Row = HashMap<String, Av>;

async fn run(client: &Client, statement: &str, parameters: Vec<Av>) -> Vec<Row> {
    client
        .execute_statement()
        .statement(statement)
        .set_parameters((!parameters.is_empty()).then_some(parameters))
        .send()
        .await
        .unwrap_or_else(|e| panic!("{statement}: {:?}", code_message(&e)))
        .items()
        .to_vec()
}

async fn seed(client: &Client, table: &str) {
    for (pk, sk, x) in [("a", 1, 5), ("a", 2, 6), ("b", 1, 7), ("c", 1, 8)] {
        run(
            client,
            &format!("INSERT INTO \"{table}\" VALUE {{'pk': ?, 'sk': ?, 'x': ?}}"),
            vec![s(pk), n(sk), n(x)],
        )
        .await;
    }
}

#[tokio::test]
async fn insert_select_update_and_delete_one_item_through_the_sdk() {
    // GIVEN a table WHEN an item is inserted with literals of every kind
    let local = start().await;
    let client = &local.client;
    create_composite(client, "pq-crud").await;
    run(
        client,
        "INSERT INTO \"pq-crud\" VALUE {'pk': 'a', 'sk': 1, 'n': 5, 'l': [1, 'x'], 'm': {'k': 'v'}, 'ss': <<'p', 'q'>>}",
        vec![],
    )
    .await;
    // THEN SELECT by key with a projection of nested paths finds it, named as AWS names them
    let rows = run(
        client,
        "SELECT n, l[1], m.k FROM \"pq-crud\" WHERE pk = ? AND sk = ?",
        vec![s("a"), n(1)],
    )
    .await;
    assert_eq!(
        rows,
        vec![HashMap::from([
            ("n".to_string(), n(5)),
            ("l[1]".to_string(), s("x")),
            ("k".to_string(), s("v")),
        ])]
    );
    // WHEN it is updated with arithmetic, list_append, set_add and REMOVE
    let rows = run(
        client,
        "UPDATE \"pq-crud\" SET n = n + 1 SET l = list_append(l, [2]) SET ss = set_add(ss, <<'r'>>) REMOVE m WHERE pk = 'a' AND sk = 1 RETURNING ALL NEW *",
        vec![],
    )
    .await;
    // THEN RETURNING ALL NEW * answers the new item
    let item = &rows[0];
    assert_eq!(item["n"], n(6));
    assert_eq!(item["l"], Av::L(vec![n(1), s("x"), n(2)]));
    assert_eq!(item["ss"].as_ss().unwrap().len(), 3);
    assert!(!item.contains_key("m"));
    // WHEN it is deleted with RETURNING ALL OLD * THEN the old item comes back and it is gone
    let rows = run(
        client,
        "DELETE FROM \"pq-crud\" WHERE pk = 'a' AND sk = 1 RETURNING ALL OLD *",
        vec![],
    )
    .await;
    assert_eq!(rows[0]["n"], n(6));
    assert!(run(client, "SELECT * FROM \"pq-crud\"", vec![])
        .await
        .is_empty());
}

#[tokio::test]
async fn a_partition_key_equality_is_a_query_and_pages_resume_with_next_token() {
    let local = start().await;
    let client = &local.client;
    create_composite(client, "pq-pages").await;
    seed(client, "pq-pages").await;
    // GIVEN items in partitions a, b and c WHEN Limit 1 reads pk = 'b'
    let out = client
        .execute_statement()
        .statement("SELECT * FROM \"pq-pages\" WHERE pk = 'b'")
        .limit(1)
        .send()
        .await
        .unwrap();
    // THEN it is b's item at once: a Query (a Scan's first item read would be a's)
    assert_eq!(out.items()[0]["pk"], s("b"));
    // WHEN a Scan is paged with Limit 1 THEN following NextToken finds every item once
    let mut seen = Vec::new();
    let mut token: Option<String> = None;
    for _ in 0..10 {
        let out = client
            .execute_statement()
            .statement("SELECT pk, sk FROM \"pq-pages\" WHERE x >= ?")
            .parameters(n(6))
            .limit(1)
            .set_next_token(token.clone())
            .send()
            .await
            .unwrap();
        seen.extend(
            out.items()
                .iter()
                .map(|i| format!("{:?}{:?}", i["pk"], i["sk"])),
        );
        token = out.next_token().map(str::to_string);
        if token.is_none() {
            break;
        }
    }
    assert_eq!(seen.len(), 3, "{seen:?}");
    // AND pk IN [...] with ORDER BY sk DESC walks the partitions named, each backwards
    let rows = run(
        client,
        "SELECT sk FROM \"pq-pages\" WHERE pk IN ['a', 'zz'] ORDER BY sk DESC",
        vec![],
    )
    .await;
    assert_eq!(
        rows,
        vec![
            HashMap::from([("sk".to_string(), n(2))]),
            HashMap::from([("sk".to_string(), n(1))])
        ]
    );
    // AND a NextToken that is not one is refused
    let err = client
        .execute_statement()
        .statement("SELECT * FROM \"pq-pages\"")
        .next_token("garbage")
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        code_message(&err),
        ("ValidationException".into(), "Invalid NextToken".into())
    );
}

#[tokio::test]
async fn an_index_is_read_as_table_dot_index_and_consumed_capacity_is_answered() {
    let local = start().await;
    let client = &local.client;
    create_indexed(client, "pq-index").await;
    run(
        client,
        "INSERT INTO \"pq-index\" VALUE {'pk': 'a', 'sk': 1, 'email': 'e@x', 'score': 3, 'title': 't'}",
        vec![],
    )
    .await;
    let out = client
        .execute_statement()
        .statement("SELECT * FROM \"pq-index\".\"by-email\" WHERE email = 'e@x'")
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await
        .unwrap();
    assert_eq!(out.items()[0]["title"], s("t"));
    assert!(out.consumed_capacity().unwrap().capacity_units().unwrap() > 0.0);
    let err = client
        .execute_statement()
        .statement("SELECT * FROM \"pq-index\".\"nope\"")
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        code_message(&err).1,
        "The table does not have the specified index: nope"
    );
}

#[tokio::test]
async fn writes_fail_with_the_errors_aws_documents() {
    let local = start().await;
    let client = &local.client;
    create_composite(client, "pq-errors").await;
    seed(client, "pq-errors").await;
    // An INSERT of an existing key: DuplicateItemException, or with ALL_OLD the old item
    let err = client
        .execute_statement()
        .statement("INSERT INTO \"pq-errors\" VALUE {'pk': 'a', 'sk': 1}")
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(
        matches!(err, ExecuteStatementError::DuplicateItemException(_)),
        "{err:?}"
    );
    let err = client
        .execute_statement()
        .statement("INSERT INTO \"pq-errors\" VALUE {'pk': 'a', 'sk': 1}")
        .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    let ExecuteStatementError::ConditionalCheckFailedException(failed) = err else {
        panic!("{err:?}")
    };
    assert_eq!(failed.item().unwrap()["x"], n(5));
    // An UPDATE of a missing item, or whose extra condition fails: ConditionalCheckFailed
    for statement in [
        "UPDATE \"pq-errors\" SET x = 1 WHERE pk = 'zz' AND sk = 1",
        "UPDATE \"pq-errors\" SET x = 1 WHERE pk = 'a' AND sk = 1 AND x = 100",
        "DELETE FROM \"pq-errors\" WHERE pk = 'zz' AND sk = 1 AND x = 1",
    ] {
        let err = client
            .execute_statement()
            .statement(statement)
            .send()
            .await
            .unwrap_err()
            .into_service_error();
        assert!(
            matches!(
                err,
                ExecuteStatementError::ConditionalCheckFailedException(_)
            ),
            "{statement}: {err:?}"
        );
    }
    // Validation errors in AWS's words
    for (statement, message) in [
        ("SELEC * FROM \"pq-errors\"", "Statement wasn't well formed, can't be processed: unexpected 'SELEC' at offset 0"),
        ("UPDATE \"pq-errors\" SET x = 1 WHERE pk = 'a'", "Where clause does not contain a mandatory equality on all key attributes"),
        ("DELETE FROM \"pq-errors\" WHERE pk = 'a' AND sk = 1 AND sk = 2", "Multiple conditions on same key sk. Only single item Update/Insert/Delete are supported"),
        ("UPDATE \"pq-errors\" SET pk = 'b' WHERE pk = 'a' AND sk = 1", "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key"),
        ("INSERT INTO \"pq-errors\" VALUE {'pk': 'a'}", "Key attribute should be present in the item: Key sk"),
        ("INSERT INTO \"pq-errors\" VALUE {'pk': 1, 'sk': 1}", "Key attribute's data type should match its data type in table's schema: Key pk"),
        ("SELECT * FROM \"pq-errors\" WHERE pk = ?", "Number of parameters in request and statement don't match."),
        ("SELECT * FROM \"pq-errors\" WHERE exists(x)", "Unrecognized function: exists"),
        ("EXISTS(SELECT * FROM \"pq-errors\" WHERE pk = 'a' AND sk = 1)", "EXISTS statements can only be used in ExecuteTransaction"),
    ] {
        let err = client.execute_statement().statement(statement).send().await.unwrap_err();
        assert_eq!(code_message(&err), ("ValidationException".to_string(), message.to_string()), "{statement}");
    }
    let err = client
        .execute_statement()
        .statement("SELECT * FROM \"pq-missing\"")
        .send()
        .await
        .unwrap_err();
    assert_eq!(code_message(&err).0, "ResourceNotFoundException");
}

fn batch_request(statement: &str) -> BatchStatementRequest {
    BatchStatementRequest::builder()
        .statement(statement)
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_batch_answers_each_statement_on_its_own() {
    let local = start().await;
    let client = &local.client;
    create_composite(client, "pq-batch").await;
    seed(client, "pq-batch").await;
    // GIVEN reads of a found item, a missing item, a missing table and a whole partition
    let out = client
        .batch_execute_statement()
        .statements(batch_request(
            "SELECT * FROM \"pq-batch\" WHERE pk = 'a' AND sk = 1",
        ))
        .statements(batch_request(
            "SELECT * FROM \"pq-batch\" WHERE pk = 'zz' AND sk = 1",
        ))
        .statements(batch_request(
            "SELECT * FROM \"pq-missing\" WHERE pk = 'a' AND sk = 1",
        ))
        .statements(batch_request("SELECT * FROM \"pq-batch\" WHERE pk = 'a'"))
        .send()
        .await
        .unwrap();
    let responses = out.responses();
    // THEN each has its own answer, errors included
    assert_eq!(responses[0].item().unwrap()["x"], n(5));
    assert_eq!(responses[0].table_name(), Some("pq-batch"));
    assert!(responses[1].item().is_none() && responses[1].error().is_none());
    assert_eq!(
        responses[2].error().unwrap().code(),
        Some(&BatchStatementErrorCodeEnum::ResourceNotFound)
    );
    assert_eq!(
        responses[3].error().unwrap().message(),
        Some("Only single item select is supported")
    );
    // WHEN writes are batched THEN a duplicate and a failed condition fail alone
    let out = client
        .batch_execute_statement()
        .statements(batch_request(
            "INSERT INTO \"pq-batch\" VALUE {'pk': 'a', 'sk': 1}",
        ))
        .statements(batch_request(
            "INSERT INTO \"pq-batch\" VALUE {'pk': 'new', 'sk': 1}",
        ))
        .statements(batch_request(
            "UPDATE \"pq-batch\" SET x = 0 WHERE pk = 'zz' AND sk = 1",
        ))
        .statements(batch_request(
            "DELETE FROM \"pq-batch\" WHERE pk = 'c' AND sk = 1",
        ))
        .statements(batch_request("SELEC"))
        .send()
        .await
        .unwrap();
    let codes: Vec<Option<&BatchStatementErrorCodeEnum>> = out
        .responses()
        .iter()
        .map(|r| r.error().and_then(|e| e.code()))
        .collect();
    assert_eq!(
        codes,
        vec![
            Some(&BatchStatementErrorCodeEnum::DuplicateItem),
            None,
            Some(&BatchStatementErrorCodeEnum::ConditionalCheckFailed),
            None,
            Some(&BatchStatementErrorCodeEnum::ValidationError),
        ]
    );
    assert_eq!(
        run(
            client,
            "SELECT * FROM \"pq-batch\" WHERE pk = 'new'",
            vec![]
        )
        .await
        .len(),
        1
    );
    assert!(
        run(client, "SELECT * FROM \"pq-batch\" WHERE pk = 'c'", vec![])
            .await
            .is_empty()
    );
    // AND reads mixed with writes, or one item named twice, fail the whole batch
    for statements in [
        [
            "SELECT * FROM \"pq-batch\" WHERE pk = 'a' AND sk = 1",
            "DELETE FROM \"pq-batch\" WHERE pk = 'b' AND sk = 1",
        ],
        [
            "DELETE FROM \"pq-batch\" WHERE pk = 'b' AND sk = 1",
            "UPDATE \"pq-batch\" SET x = 1 WHERE pk = 'b' AND sk = 1",
        ],
    ] {
        let err = client
            .batch_execute_statement()
            .set_statements(Some(statements.iter().map(|s| batch_request(s)).collect()))
            .send()
            .await
            .unwrap_err();
        assert_eq!(
            code_message(&err).0,
            "ValidationException",
            "{statements:?}"
        );
    }
}

fn parameterized(statement: &str) -> ParameterizedStatement {
    ParameterizedStatement::builder()
        .statement(statement)
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_transaction_applies_every_statement_or_none() {
    let local = start().await;
    let client = &local.client;
    create_composite(client, "pq-tx").await;
    seed(client, "pq-tx").await;
    // WHEN one statement's condition fails
    let err = client
        .execute_transaction()
        .transact_statements(parameterized(
            "INSERT INTO \"pq-tx\" VALUE {'pk': 'new', 'sk': 1}",
        ))
        .transact_statements(parameterized(
            "UPDATE \"pq-tx\" SET x = 0 WHERE pk = 'a' AND sk = 1 AND x = 100",
        ))
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    // THEN TransactionCanceledException names a reason per statement and nothing is written
    let ExecuteTransactionError::TransactionCanceledException(canceled) = err else {
        panic!("{err:?}")
    };
    let codes: Vec<&str> = canceled
        .cancellation_reasons()
        .iter()
        .map(|r| r.code().unwrap_or_default())
        .collect();
    assert_eq!(codes, vec!["None", "ConditionalCheckFailed"]);
    assert!(
        run(client, "SELECT * FROM \"pq-tx\" WHERE pk = 'new'", vec![])
            .await
            .is_empty()
    );
    // WHEN every condition holds (EXISTS included) THEN every write is applied
    client
        .execute_transaction()
        .transact_statements(parameterized(
            "EXISTS(SELECT * FROM \"pq-tx\" WHERE pk = 'b' AND sk = 1 AND x = 7)",
        ))
        .transact_statements(parameterized(
            "INSERT INTO \"pq-tx\" VALUE {'pk': 'new', 'sk': 1}",
        ))
        .transact_statements(
            ParameterizedStatement::builder()
                .statement("UPDATE \"pq-tx\" SET x = x + ? WHERE pk = 'a' AND sk = 1")
                .parameters(n(10))
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    // AND a read transaction sees both, by whole key
    let out = client
        .execute_transaction()
        .transact_statements(parameterized(
            "SELECT x FROM \"pq-tx\" WHERE pk = 'a' AND sk = 1",
        ))
        .transact_statements(parameterized(
            "SELECT * FROM \"pq-tx\" WHERE pk = 'new' AND sk = 1",
        ))
        .transact_statements(parameterized(
            "SELECT * FROM \"pq-tx\" WHERE pk = 'zz' AND sk = 1",
        ))
        .send()
        .await
        .unwrap();
    let responses = out.responses();
    assert_eq!(responses[0].item().unwrap()["x"], n(15));
    assert_eq!(responses[1].item().unwrap()["pk"], s("new"));
    assert!(responses[2].item().is_none());
    // AND a failing EXISTS cancels, a RETURNING or a partial key is refused
    let err = client
        .execute_transaction()
        .transact_statements(parameterized(
            "EXISTS(SELECT * FROM \"pq-tx\" WHERE pk = 'zz' AND sk = 1)",
        ))
        .transact_statements(parameterized(
            "DELETE FROM \"pq-tx\" WHERE pk = 'new' AND sk = 1",
        ))
        .send()
        .await
        .unwrap_err();
    assert_eq!(code_message(&err).0, "TransactionCanceledException");
    for (statement, message) in [
        ("UPDATE \"pq-tx\" SET x = 1 WHERE pk = 'a' AND sk = 1 RETURNING ALL NEW *", "Validation failed in TransactStatements[0]: RETURNING clause is not supported in ExecuteTransaction."),
        ("SELECT * FROM \"pq-tx\" WHERE pk = 'a'", "Validation failed in TransactStatements[0]: Select statements within ExecuteTransaction must specify the primary key in the where clause."),
    ] {
        let err = client
            .execute_transaction()
            .transact_statements(parameterized(statement))
            .send()
            .await
            .unwrap_err();
        assert_eq!(code_message(&err), ("ValidationException".to_string(), message.to_string()));
    }
}
