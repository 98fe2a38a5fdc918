//! PartiQL against DynamoDB Local (`scripts/oracles/dynamodb-local.sh`):
//! fixed ExecuteStatement, BatchExecuteStatement and ExecuteTransaction
//! requests, valid and invalid, compared by items, per-statement answers and
//! error codes (messages printed). NextTokens are opaque and compared by
//! presence; paged reads are followed to the end on each side and compared
//! by the items they gather.

use serde_json::{json, Value};

use crate::differential::{
    error_code, finish, message, normalise_value, ours_and_oracle, unique_name, Endpoint,
};

/// One request of the comparison.
enum Case {
    /// One call, compared as answered; `unordered` sorts its Items.
    Call {
        op: &'static str,
        body: Value,
        unordered: bool,
    },
    /// An ExecuteStatement SELECT followed through its NextTokens.
    Paged(Value),
}

fn statement(text: &str) -> Value {
    json!({ "Statement": text })
}

fn call(op: &'static str, body: Value) -> Case {
    Case::Call {
        op,
        body,
        unordered: false,
    }
}

fn select(body: Value) -> Case {
    Case::Call {
        op: "ExecuteStatement",
        body,
        unordered: true,
    }
}

fn cases(t: &str) -> Vec<Case> {
    let q = |text: &str| text.replace("$t", &format!("\"{t}\""));
    let exec = |text: &str| call("ExecuteStatement", statement(&q(text)));
    let s = |v: &str| json!({ "S": v });
    let n = |v: &str| json!({ "N": v });
    let mut out = vec![
        exec("INSERT INTO $t VALUE {'pk': 'a', 'sk': 1, 'x': 5, 'g': 'red', 'l': [1, 's', true, null], 'm': {'k': 'v'}, 'ss': <<'a', 'b'>>}"),
        exec("INSERT INTO $t VALUE {'pk': 'a', 'sk': 2, 'x': 6, 'g': 'blue', 'ns': <<1, 2>>}"),
        exec("INSERT INTO $t VALUE {'pk': 'b', 'sk': 1, 'x': 7, 'z': null}"),
        call("ExecuteStatement", json!({"Statement": q("INSERT INTO $t VALUE {'pk': ?, 'sk': ?, 'x': ?}"), "Parameters": [s("c"), n("1"), n("8")]})),
        exec("INSERT INTO $t VALUE {'pk': 'a', 'sk': 1}"),
        call("ExecuteStatement", json!({"Statement": q("INSERT INTO $t VALUE {'pk': 'a', 'sk': 1}"), "ReturnValuesOnConditionCheckFailure": "ALL_OLD"})),
        exec("INSERT INTO $t VALUE {'pk': 'a'}"),
        exec("INSERT INTO $t VALUE {'pk': 1, 'sk': 1}"),
        call("ExecuteStatement", json!({"Statement": q("INSERT INTO $t VALUE ?"), "Parameters": [{"M": {"pk": s("d"), "sk": n("1")}}]})),
        // Reads.
        select(statement(&q("SELECT * FROM $t WHERE pk = 'a'"))),
        select(json!({"Statement": q("SELECT * FROM $t WHERE pk = ?"), "Parameters": [s("a")]})),
        select(statement(&q("SELECT x, l[1], m.k FROM $t WHERE pk = 'a' AND x > 4"))),
        select(statement(&q("SELECT * FROM $t WHERE pk IN ['a', 'b']"))),
        select(statement(&q("SELECT * FROM $t WHERE pk = 'a' OR pk = 'c'"))),
        select(statement(&q("SELECT * FROM $t"))),
        select(statement(&q("SELECT * FROM $t WHERE x BETWEEN 5 AND 6"))),
        select(statement(&q("SELECT * FROM $t WHERE begins_with(g, 'bl')"))),
        select(statement(&q("SELECT * FROM $t WHERE contains(l, 's') AND size(l) = 4"))),
        select(statement(&q("SELECT * FROM $t WHERE g IS MISSING"))),
        select(statement(&q("SELECT * FROM $t WHERE g IS NOT MISSING"))),
        select(statement(&q("SELECT * FROM $t WHERE z IS NULL"))),
        select(statement(&q("SELECT pk, sk FROM $t WHERE z IS NOT NULL"))),
        select(statement(&q("SELECT * FROM $t WHERE attribute_type(x, 'N') AND NOT x = 5"))),
        select(statement(&q("SELECT * FROM $t WHERE x <> 5 OR x >= 8"))),
        select(statement(&q("SELECT * FROM $t WHERE x IN [5, 8]"))),
        select(statement(&q("SELECT pk, sk FROM $t WHERE pk = 'a' AND sk > 1"))),
        // DynamoDB Local 1.25 answers ORDER BY ... DESC with an InternalFailure;
        // the SDK test `partiql` covers it.
        exec("SELECT sk FROM $t WHERE pk = 'a' ORDER BY sk"),
        select(statement(&q("SELECT * FROM $t.\"by-g\" WHERE g = 'red'"))),
        exec("SELECT * FROM $t.\"nosuch\""),
        call("ExecuteStatement", statement("SELECT * FROM \"pq-no-such-table\"")),
        exec("SELEC * FROM $t"),
        exec("SELECT * FROM $t WHERE"),
        exec("SELECT * FROM $t WHERE pk = ?"),
        exec("SELECT * FROM $t WHERE pk = 1"),
        exec("SELECT x, x FROM $t WHERE pk = 'a'"),
        exec("SELECT * FROM $t WHERE exists(x)"),
        exec("SELECT * FROM $t ORDER BY sk"),
        call("ExecuteStatement", json!({"Statement": q("SELECT * FROM $t"), "Limit": 0})),
        call("ExecuteStatement", json!({"Statement": q("SELECT * FROM $t"), "NextToken": "garbage"})),
        Case::Paged(json!({"Statement": q("SELECT * FROM $t"), "Limit": 2})),
        Case::Paged(json!({"Statement": q("SELECT pk, sk FROM $t WHERE pk = 'a'"), "Limit": 1})),
        Case::Paged(json!({"Statement": q("SELECT * FROM $t WHERE x > 5"), "Limit": 1})),
        // Updates and deletes.
        exec("UPDATE $t SET x = x + 1 WHERE pk = 'a' AND sk = 1 RETURNING ALL NEW *"),
        exec("UPDATE $t SET y = 'n', w = 3 WHERE pk = 'a' AND sk = 1 RETURNING MODIFIED NEW *"),
        exec("UPDATE $t SET y = 'o' SET w = 4 WHERE pk = 'a' AND sk = 1 RETURNING MODIFIED OLD *"),
        exec("UPDATE $t REMOVE y WHERE pk = 'a' AND sk = 1 RETURNING ALL OLD *"),
        exec("UPDATE $t SET l = list_append(l, [5]) WHERE pk = 'a' AND sk = 1 RETURNING MODIFIED NEW *"),
        exec("UPDATE $t SET ss = set_add(ss, <<'c'>>) WHERE pk = 'a' AND sk = 1 RETURNING MODIFIED NEW *"),
        exec("UPDATE $t SET ns = set_delete(ns, <<1>>) WHERE pk = 'a' AND sk = 2 RETURNING MODIFIED NEW *"),
        exec("UPDATE $t SET m.k2 = 'w' WHERE pk = 'a' AND sk = 1 RETURNING MODIFIED NEW *"),
        exec("UPDATE $t REMOVE l[0] WHERE pk = 'a' AND sk = 1 RETURNING MODIFIED NEW *"),
        exec("UPDATE $t SET x = x - 2 WHERE pk = 'a' AND sk = 2 RETURNING MODIFIED OLD *"),
        exec("UPDATE $t SET x = 1 WHERE pk = 'zz' AND sk = 1"),
        exec("UPDATE $t SET x = 1 WHERE pk = 'a'"),
        exec("UPDATE $t SET x = 1 WHERE pk = 'a' AND sk = 1 AND sk = 2"),
        exec("UPDATE $t SET x = 1 WHERE pk = 'a' AND sk = 1 OR x = 2"),
        exec("UPDATE $t SET x = 1 WHERE pk = 'a' AND sk = 1 AND x = 100"),
        call("ExecuteStatement", json!({"Statement": q("UPDATE $t SET x = 1 WHERE pk = 'a' AND sk = 1 AND x = 100"), "ReturnValuesOnConditionCheckFailure": "ALL_OLD"})),
        exec("UPDATE $t SET pk = 'b' WHERE pk = 'a' AND sk = 2"),
        exec("UPDATE $t SET x = 'str' + 1 WHERE pk = 'a' AND sk = 2"),
        exec("UPDATE $t SET x = set_add(x, 5) WHERE pk = 'a' AND sk = 2"),
        exec("DELETE FROM $t WHERE pk = 'a' AND sk = 99"),
        exec("DELETE FROM $t WHERE pk = 'a' AND sk = 99 AND x = 1"),
        exec("DELETE FROM $t WHERE pk = 'a'"),
        exec("DELETE FROM $t WHERE pk = 'c' AND sk = 1 RETURNING ALL OLD *"),
    ];
    let batch = |statements: &[&str]| {
        let list: Vec<Value> = statements.iter().map(|text| statement(&q(text))).collect();
        call("BatchExecuteStatement", json!({ "Statements": list }))
    };
    let transaction = |statements: &[&str]| {
        let list: Vec<Value> = statements.iter().map(|text| statement(&q(text))).collect();
        call("ExecuteTransaction", json!({ "TransactStatements": list }))
    };
    out.extend([
        batch(&[
            "SELECT * FROM $t WHERE pk = 'a' AND sk = 1",
            "SELECT * FROM $t WHERE pk = 'zz' AND sk = 1",
            "SELECT * FROM \"pq-no-such-table\" WHERE pk = 'a' AND sk = 1",
            "SELECT x FROM $t WHERE pk = 'b' AND sk = 1",
        ]),
        batch(&["SELECT * FROM $t WHERE pk = 'a'"]),
        batch(&[
            "INSERT INTO $t VALUE {'pk': 'a', 'sk': 1}",
            "INSERT INTO $t VALUE {'pk': 'e', 'sk': 1}",
            "UPDATE $t SET x = 1 WHERE pk = 'zz' AND sk = 1",
            "DELETE FROM $t WHERE pk = 'e' AND sk = 9",
            "UPDATE $t SET x = 9 WHERE pk = 'b' AND sk = 1 RETURNING ALL NEW *",
            "SELEC",
        ]),
        batch(&[
            "INSERT INTO $t VALUE {'pk': 'f', 'sk': 1}",
            "SELECT * FROM $t WHERE pk = 'a' AND sk = 1",
        ]),
        // Two statements on one item: DynamoDB Local refuses the batch but has
        // written the item already; the SDK test `partiql` covers the refusal.
        transaction(&[
            "INSERT INTO $t VALUE {'pk': 'h', 'sk': 1}",
            "UPDATE $t SET x = 5 WHERE pk = 'b' AND sk = 1",
        ]),
        transaction(&[
            "INSERT INTO $t VALUE {'pk': 'i', 'sk': 1}",
            "UPDATE $t SET x = 5 WHERE pk = 'b' AND sk = 1 AND x = 0",
        ]),
        transaction(&[
            "SELECT * FROM $t WHERE pk = 'b' AND sk = 1",
            "SELECT * FROM $t WHERE pk = 'zz' AND sk = 1",
        ]),
        transaction(&["SELECT * FROM $t WHERE pk = 'b'"]),
        transaction(&[
            "SELECT * FROM $t WHERE pk = 'b' AND sk = 1",
            "DELETE FROM $t WHERE pk = 'h' AND sk = 1",
        ]),
        transaction(&[
            "EXISTS(SELECT * FROM $t WHERE pk = 'b' AND sk = 1 AND x = 5)",
            "DELETE FROM $t WHERE pk = 'h' AND sk = 1",
        ]),
        transaction(&[
            "EXISTS(SELECT * FROM $t WHERE pk = 'b' AND sk = 1 AND x = 6)",
            "DELETE FROM $t WHERE pk = 'e' AND sk = 1",
        ]),
        transaction(&[
            "UPDATE $t SET x = 6 WHERE pk = 'b' AND sk = 1",
            "DELETE FROM $t WHERE pk = 'b' AND sk = 1",
        ]),
        transaction(&["UPDATE $t SET x = 6 WHERE pk = 'b' AND sk = 1 RETURNING ALL NEW *"]),
        select(statement(&q("SELECT * FROM $t"))),
    ]);
    out
}

/// What a client relies on in a PartiQL answer: the error code (DynamoDB
/// Local names DuplicateItemException `DuplicateItem`), the cancellation
/// reasons' codes, or the items (sorted when `unordered`) and whether a
/// NextToken came, per-statement answers of a batch by table, item and error
/// code.
fn observable(unordered: bool, status: u16, mut body: Value) -> Value {
    if status != 200 {
        let code = error_code(&body);
        let code = code.trim_end_matches("Exception");
        let reasons: Vec<Value> = body["CancellationReasons"]
            .as_array()
            .map(|rs| rs.iter().map(|r| r["Code"].clone()).collect())
            .unwrap_or_default();
        let mut out = json!({"error": code, "reasons": reasons, "item": body.get("Item")});
        normalise_value(&mut out);
        return out;
    }
    normalise_value(&mut body);
    let obj = body.as_object_mut().unwrap();
    obj.remove("ConsumedCapacity");
    // AWS documents LastEvaluatedKey beside NextToken; DynamoDB Local 1.25 omits it.
    obj.remove("LastEvaluatedKey");
    if let Some(token) = obj.get_mut("NextToken") {
        *token = json!("present");
    }
    if let (true, Some(Value::Array(items))) = (unordered, obj.get_mut("Items")) {
        items.sort_by_key(|i| i.to_string());
    }
    if let Some(Value::Array(responses)) = obj.get_mut("Responses") {
        for response in responses {
            if let Some(error) = response.get_mut("Error") {
                *error = json!({"Code": error["Code"], "Item": error.get("Item")});
            }
        }
    }
    body
}

/// Follows a SELECT's NextTokens to the end (at most 50 pages), answering
/// the sorted items gathered.
async fn all_pages(endpoint: &Endpoint, request: &Value) -> Value {
    let mut request = request.clone();
    let mut items = Vec::new();
    for _ in 0..50 {
        let (status, mut body) = endpoint.call("ExecuteStatement", &request).await;
        assert_eq!(status, 200, "{request} {body}");
        normalise_value(&mut body);
        if let Some(Value::Array(page)) = body.get("Items") {
            items.extend(page.iter().cloned());
        }
        match body.get("NextToken") {
            Some(token) => request["NextToken"] = token.clone(),
            None => break,
        }
    }
    items.sort_by_key(|i| i.to_string());
    Value::Array(items)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn partiql_behaves_like_dynamodb_local() {
    let Some((server, ours, oracle)) = ours_and_oracle().await else {
        return;
    };
    let table = unique_name("partiql");
    let create = json!({"TableName": table, "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"},
            {"AttributeName": "g", "AttributeType": "S"}],
        "GlobalSecondaryIndexes": [{"IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"}}]});
    for endpoint in [&ours, &oracle] {
        let (status, body) = endpoint.call("CreateTable", &create).await;
        assert_eq!(status, 200, "{body}");
    }
    let mut message_diffs = Vec::new();
    let all = cases(&table);
    for case in &all {
        match case {
            Case::Call {
                op,
                body,
                unordered,
            } => {
                let (s1, b1) = ours.call(op, body).await;
                let (s2, b2) = oracle.call(op, body).await;
                if s1 != 200 && message(&b1) != message(&b2) {
                    message_diffs.push(format!(
                        "{op} {}: ours {:?} / DynamoDB Local {:?}",
                        body["Statement"],
                        message(&b1),
                        message(&b2)
                    ));
                }
                assert_eq!(
                    observable(*unordered, s1, b1),
                    observable(*unordered, s2, b2),
                    "{op} {body}"
                );
            }
            Case::Paged(request) => {
                assert_eq!(
                    all_pages(&ours, request).await,
                    all_pages(&oracle, request).await,
                    "{request}"
                );
            }
        }
    }
    finish(
        "PartiQL",
        all.len(),
        &message_diffs,
        &table,
        (server, ours, oracle),
    )
    .await;
}
