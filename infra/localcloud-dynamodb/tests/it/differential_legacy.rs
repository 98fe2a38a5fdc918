//! The legacy parameters against DynamoDB Local (`scripts/oracles/dynamodb-local.sh`):
//! fixed requests using `Expected`, `AttributeUpdates`, `KeyConditions`,
//! `QueryFilter`, `ScanFilter`, `AttributesToGet` and `ConditionalOperator`,
//! valid and invalid, compared by items and error codes (messages printed).

use serde_json::{json, Value};

use crate::differential::{finish, message, observable, ours_and_oracle, unique_name};

fn cond(op: &str, values: Value) -> Value {
    json!({"ComparisonOperator": op, "AttributeValueList": values})
}

/// (operation, body) pairs on `table`, in order: seeds, then reads and
/// writes through the legacy parameters, then invalid requests.
fn cases(table: &str) -> Vec<(&'static str, Value)> {
    let mut out = Vec::new();
    let items = [
        json!({"pk": {"S": "p"}, "sk": {"N": "1"}, "c": {"S": "red"}, "n": {"N": "10"}, "tags": {"SS": ["a", "b"]}}),
        json!({"pk": {"S": "p"}, "sk": {"N": "2"}, "c": {"S": "blue"}, "n": {"N": "20"}, "l": {"L": [{"S": "x"}]}}),
        json!({"pk": {"S": "p"}, "sk": {"N": "3"}, "n": {"N": "30"}}),
        json!({"pk": {"S": "q"}, "sk": {"N": "1"}, "c": {"S": "green"}, "b": {"B": "AQID"}}),
    ];
    for item in items {
        out.push(("PutItem", json!({"TableName": table, "Item": item})));
    }
    let s = |v: &str| json!({"S": v});
    let n = |v: &str| json!({"N": v});
    let filters = [
        ("c", cond("EQ", json!([s("red")]))),
        ("c", cond("NE", json!([s("red")]))),
        ("n", cond("LE", json!([n("20")]))),
        ("n", cond("LT", json!([n("20")]))),
        ("n", cond("GE", json!([n("20")]))),
        ("n", cond("GT", json!([n("20")]))),
        ("c", cond("NOT_NULL", json!([]))),
        ("c", cond("NULL", json!([]))),
        ("c", cond("CONTAINS", json!([s("e")]))),
        ("tags", cond("CONTAINS", json!([s("a")]))),
        ("c", cond("NOT_CONTAINS", json!([s("e")]))),
        ("c", cond("BEGINS_WITH", json!([s("gr")]))),
        ("c", cond("IN", json!([s("red"), s("green")]))),
        ("n", cond("BETWEEN", json!([n("15"), n("30")]))),
        ("b", cond("BEGINS_WITH", json!([{"B": "AQ=="}]))),
        ("n", cond("EQ", json!([s("10")]))),
    ];
    for (attr, c) in &filters {
        out.push((
            "Scan",
            json!({"TableName": table, "ScanFilter": {*attr: c}}),
        ));
    }
    for op in ["AND", "OR"] {
        out.push((
            "Scan",
            json!({"TableName": table, "ConditionalOperator": op,
            "ScanFilter": {"c": cond("EQ", json!([s("red")])), "n": cond("GT", json!([n("15")]))}}),
        ));
    }
    let pk = |v: &str| cond("EQ", json!([s(v)]));
    for sk in [
        cond("EQ", json!([n("2")])),
        cond("LT", json!([n("2")])),
        cond("GE", json!([n("2")])),
        cond("BETWEEN", json!([n("1"), n("2")])),
    ] {
        out.push((
            "Query",
            json!({"TableName": table, "KeyConditions": {"pk": pk("p"), "sk": sk}}),
        ));
    }
    out.push((
        "Query",
        json!({"TableName": table, "KeyConditions": {"pk": pk("p")},
        "QueryFilter": {"c": cond("NOT_NULL", json!([]))}, "AttributesToGet": ["sk", "c"]}),
    ));
    out.push(("Query", json!({"TableName": table, "KeyConditions": {"pk": pk("p")}, "ScanIndexForward": false,
        "QueryFilter": {"c": cond("EQ", json!([s("red")])), "n": cond("EQ", json!([n("30")]))}, "ConditionalOperator": "OR"})));
    out.push(("GetItem", json!({"TableName": table, "Key": {"pk": s("p"), "sk": n("1")}, "AttributesToGet": ["c", "tags"]})));
    out.push(("BatchGetItem", json!({"RequestItems": {table: {"Keys": [{"pk": s("p"), "sk": n("2")}], "AttributesToGet": ["n"]}}})));
    // Writes guarded by Expected, and legacy updates.
    let key = json!({"pk": s("p"), "sk": n("1")});
    for expected in [
        json!({"c": {"Value": s("red")}}),
        json!({"c": {"Value": s("blue")}}),
        json!({"c": {"Exists": false}}),
        json!({"zz": {"Exists": false}}),
        json!({"c": {"ComparisonOperator": "IN", "AttributeValueList": [s("red"), s("x")]}}),
        json!({"n": {"ComparisonOperator": "GT", "AttributeValueList": [n("100")]}, "c": {"Value": s("red")}}),
    ] {
        out.push(("UpdateItem", json!({"TableName": table, "Key": key, "Expected": expected,
            "AttributeUpdates": {"n": {"Action": "ADD", "Value": n("1")}}, "ReturnValues": "ALL_NEW"})));
    }
    out.push(("UpdateItem", json!({"TableName": table, "Key": key, "ReturnValues": "UPDATED_NEW",
        "Expected": {"n": {"ComparisonOperator": "GT", "AttributeValueList": [n("100")]}, "c": {"Value": s("red")}},
        "ConditionalOperator": "OR",
        "AttributeUpdates": {"tags": {"Action": "DELETE", "Value": {"SS": ["a"]}}, "c": {"Action": "DELETE"},
            "new": {"Action": "PUT", "Value": s("v")}, "l": {"Action": "ADD", "Value": {"L": [n("1")]}},
            "set": {"Action": "ADD", "Value": {"NS": ["1", "2"]}}}})));
    out.push((
        "UpdateItem",
        json!({"TableName": table, "Key": {"pk": s("new"), "sk": n("9")},
        "AttributeUpdates": {"gone": {"Action": "DELETE"}}, "ReturnValues": "ALL_NEW"}),
    ));
    out.push((
        "PutItem",
        json!({"TableName": table, "Item": {"pk": s("p"), "sk": n("2")},
        "Expected": {"c": {"Value": s("blue")}}, "ReturnValues": "ALL_OLD"}),
    ));
    out.push((
        "DeleteItem",
        json!({"TableName": table, "Key": {"pk": s("p"), "sk": n("3")},
        "Expected": {"c": {"Exists": false}, "n": {"Value": n("30")}}, "ReturnValues": "ALL_OLD"}),
    ));
    out.push(("Scan", json!({"TableName": table})));
    // Invalid requests.
    for body in [
        json!({"TableName": table, "ScanFilter": {"c": cond("EQ", json!([]))}}),
        json!({"TableName": table, "ScanFilter": {"c": cond("NULL", json!([s("x")]))}}),
        json!({"TableName": table, "ScanFilter": {"c": cond("LT", json!([{"SS": ["x"]}]))}}),
        json!({"TableName": table, "ScanFilter": {"c": cond("BETWEEN", json!([n("5"), n("1")]))}}),
        json!({"TableName": table, "ConditionalOperator": "OR"}),
        json!({"TableName": table, "AttributesToGet": ["c", "c"]}),
        json!({"TableName": table, "ScanFilter": {"c": cond("EQ", json!([s("x")]))}, "FilterExpression": "c = :c",
            "ExpressionAttributeValues": {":c": s("x")}}),
    ] {
        out.push(("Scan", body));
    }
    for body in [
        json!({"TableName": table, "KeyConditions": {"sk": cond("EQ", json!([n("1")]))}}),
        json!({"TableName": table, "KeyConditions": {"pk": cond("BEGINS_WITH", json!([s("p")]))}}),
        json!({"TableName": table, "KeyConditions": {"pk": cond("EQ", json!([n("1")]))}}),
        json!({"TableName": table, "KeyConditions": {"pk": pk("p")}, "QueryFilter": {"sk": cond("EQ", json!([n("1")]))}}),
        json!({"TableName": table, "KeyConditions": {"pk": pk("p")}, "KeyConditionExpression": "pk = :p",
            "ExpressionAttributeValues": {":p": s("p")}}),
    ] {
        out.push(("Query", body));
    }
    for expected in [
        json!({"c": {"Exists": true}}),
        json!({"c": {}}),
        json!({"c": {"Exists": false, "Value": s("x")}}),
        json!({"c": {"Exists": true, "ComparisonOperator": "NULL"}}),
        json!({"c": {"Value": s("x"), "ComparisonOperator": "EQ", "AttributeValueList": [s("x")]}}),
        json!({"c": {"AttributeValueList": [s("x")]}}),
    ] {
        out.push((
            "PutItem",
            json!({"TableName": table, "Item": {"pk": s("p"), "sk": n("5")}, "Expected": expected}),
        ));
    }
    for updates in [
        json!({"c": {"Action": "PUT"}}),
        json!({"c": {"Action": "DELETE", "Value": s("x")}}),
        json!({"c": {"Action": "ADD", "Value": s("x")}}),
        json!({"sk": {"Action": "PUT", "Value": n("7")}}),
    ] {
        out.push((
            "UpdateItem",
            json!({"TableName": table, "Key": key, "AttributeUpdates": updates}),
        ));
    }
    out.push(("UpdateItem", json!({"TableName": table, "Key": key, "AttributeUpdates": {"c": {"Action": "PUT", "Value": s("x")}},
        "UpdateExpression": "SET d = :d", "ExpressionAttributeValues": {":d": s("d")}})));
    out.push(("GetItem", json!({"TableName": table, "Key": key, "AttributesToGet": ["c"], "ProjectionExpression": "c"})));
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legacy_parameters_behave_like_dynamodb_local() {
    let Some((server, ours, oracle)) = ours_and_oracle().await else {
        return;
    };
    let table = unique_name("legacy");
    let create = json!({"TableName": table, "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"}]});
    for endpoint in [&ours, &oracle] {
        let (status, body) = endpoint.call("CreateTable", &create).await;
        assert_eq!(status, 200, "{body}");
    }
    let mut message_diffs = Vec::new();
    let all = cases(&table);
    for (op, body) in &all {
        let (s1, b1) = ours.call(op, body).await;
        let (s2, b2) = oracle.call(op, body).await;
        if s1 != 200 && message(&b1) != message(&b2) {
            message_diffs.push(format!(
                "{op}: ours {:?} / DynamoDB Local {:?}",
                message(&b1),
                message(&b2)
            ));
        }
        assert_eq!(
            observable(*op == "Scan", s1, b1),
            observable(*op == "Scan", s2, b2),
            "{op} {body}"
        );
    }
    finish(
        "legacy",
        all.len(),
        &message_diffs,
        &table,
        (server, ours, oracle),
    )
    .await;
}
