//! Bad input never panics: mutated and random requests to every operation get
//! an AWS-shaped error or a normal answer.

use localcloud_core::RequestContext;
use localcloud_dynamodb::{DdbError, DynamoDb, DynamoDbConfig};
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};

/// Every operation but DeleteTable, which would empty the fixture.
const OPERATIONS: &[&str] = &[
    "CreateTable",
    "DescribeTable",
    "ListTables",
    "UpdateTimeToLive",
    "DescribeTimeToLive",
    "GetItem",
    "PutItem",
    "UpdateItem",
    "DeleteItem",
    "Query",
    "Scan",
    "BatchGetItem",
    "BatchWriteItem",
    "TransactGetItems",
    "TransactWriteItems",
];

fn seeds() -> Vec<Value> {
    vec![
        json!({"TableName": "robust", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}}),
        json!({"TableName": "robust", "Item": {"pk": {"S": "a"}, "sk": {"N": "1"}, "g": {"S": "x"}, "l": {"L": [{"N": "1"}]}}}),
        json!({"TableName": "robust", "KeyConditionExpression": "pk = :p AND sk BETWEEN :a AND :b",
            "ExpressionAttributeValues": {":p": {"S": "a"}, ":a": {"N": "1"}, ":b": {"N": "9"}},
            "ExclusiveStartKey": {"pk": {"S": "a"}, "sk": {"N": "2"}}, "Limit": 2, "ScanIndexForward": false}),
        json!({"TableName": "robust", "IndexName": "by-g", "KeyConditionExpression": "g = :g",
            "ExpressionAttributeValues": {":g": {"S": "x"}}, "ExclusiveStartKey": {"pk": {"S": "a"}, "sk": {"N": "1"}, "g": {"S": "x"}}}),
        json!({"TableName": "robust", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "UpdateExpression": "SET v = v + :d REMOVE l[0]",
            "ConditionExpression": "attribute_exists(pk)", "ExpressionAttributeValues": {":d": {"N": "1"}}, "ReturnValues": "ALL_NEW"}),
        json!({"TableName": "robust", "Segment": 1, "TotalSegments": 3, "FilterExpression": "size(l) > :z",
            "ExpressionAttributeValues": {":z": {"N": "0"}}}),
        json!({"RequestItems": {"robust": {"Keys": [{"pk": {"S": "a"}, "sk": {"N": "1"}}]}}}),
        json!({"RequestItems": {"robust": [{"PutRequest": {"Item": {"pk": {"S": "b"}, "sk": {"N": "1"}}}},
            {"DeleteRequest": {"Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}}}]}}),
        json!({"TransactItems": [{"Put": {"TableName": "robust", "Item": {"pk": {"S": "c"}, "sk": {"N": "1"}}}},
            {"Update": {"TableName": "robust", "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}}, "UpdateExpression": "ADD n :one",
                "ExpressionAttributeValues": {":one": {"N": "1"}}}}]}),
        json!({"TableName": "robust", "TimeToLiveSpecification": {"AttributeName": "exp", "Enabled": true}}),
    ]
}

fn junk(rng: &mut StdRng, depth: u32) -> Value {
    match rng.random_range(0..if depth > 2 { 5 } else { 8 }) {
        0 => Value::Null,
        1 => json!(rng.random_bool(0.5)),
        2 => json!(rng.random_range(-5i64..1_000_000_000_000)),
        3 => json!([
            "",
            "S",
            "N",
            "x",
            ":p",
            "#n",
            "pk = :p",
            "SET",
            "1e999",
            "-0",
            "(",
            "a.b[9999999999]"
        ]
        .choose(rng)
        .unwrap()),
        4 => json!(-1.5e300),
        5 => Value::Array(
            (0..rng.random_range(0..4))
                .map(|_| junk(rng, depth + 1))
                .collect(),
        ),
        _ => {
            let keys = [
                "S",
                "N",
                "B",
                "M",
                "L",
                "SS",
                "NS",
                "NULL",
                "BOOL",
                "pk",
                "sk",
                "Item",
                "Key",
                "TableName",
            ];
            Value::Object(
                (0..rng.random_range(0..4))
                    .map(|_| (keys.choose(rng).unwrap().to_string(), junk(rng, depth + 1)))
                    .collect(),
            )
        }
    }
}

/// Replaces one random node of `v` with junk.
fn mutate(rng: &mut StdRng, v: &mut Value) {
    match v {
        Value::Object(map) if !map.is_empty() && rng.random_bool(0.7) => {
            let keys: Vec<String> = map.keys().cloned().collect();
            let key = keys.choose(rng).unwrap().clone();
            if rng.random_bool(0.2) {
                map.remove(&key);
            } else {
                mutate(rng, map.get_mut(&key).unwrap());
            }
        }
        Value::Array(xs) if !xs.is_empty() && rng.random_bool(0.7) => {
            let i = rng.random_range(0..xs.len());
            mutate(rng, &mut xs[i]);
        }
        _ => *v = junk(rng, 0),
    }
}

/// The service with table `robust` (pk, sk; GSI `by-g` on g, KEYS_ONLY).
fn fixture() -> (std::sync::Arc<DynamoDb>, RequestContext) {
    let db = DynamoDb::new(DynamoDbConfig {
        ttl_sweep_period: None,
    });
    let ctx = RequestContext::new("us-east-1", "000000000000");
    let create = json!({"TableName": "robust", "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"},
            {"AttributeName": "g", "AttributeType": "S"}],
        "GlobalSecondaryIndexes": [{"IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"}}]});
    db.call(&ctx, "CreateTable", create.to_string().as_bytes())
        .unwrap();
    (db, ctx)
}

#[test]
fn mutated_requests_get_errors_not_panics() {
    // GIVEN a table with indexes and some items
    let (db, ctx) = fixture();
    let mut rng = StdRng::seed_from_u64(7);
    let seeds = seeds();
    let mut errors = 0;
    // WHEN thousands of mutated requests hit every operation
    for _ in 0..20_000 {
        let op = OPERATIONS.choose(&mut rng).unwrap();
        let mut body = seeds.choose(&mut rng).unwrap().clone();
        for _ in 0..rng.random_range(1..4) {
            mutate(&mut rng, &mut body);
        }
        // THEN each gets an answer; errors are of the kinds AWS uses
        if let Err(e) = db.call(&ctx, op, body.to_string().as_bytes()) {
            errors += 1;
            assert!(!matches!(e, DdbError::Internal(_)), "{op} {body}: {e}");
        }
    }
    assert!(errors > 0);
    let truncated = br#"{"TableName": "robust", "Item": {"pk": {"S": "#;
    assert!(matches!(
        db.call(&ctx, "PutItem", truncated),
        Err(DdbError::Serialization(_))
    ));
}

/// Valid statements on `robust`, split into words that mutations replace.
const STATEMENTS: &[&str] = &[
    "INSERT INTO \"robust\" VALUE { 'pk' : ? , 'sk' : 1 , 'g' : 'x' , 'l' : [ 1 , 'a' ] , 's' : << 'a' >> }",
    "SELECT pk , l[0] , m.k FROM \"robust\" WHERE pk = ? AND sk BETWEEN 1 AND 9 ORDER BY sk DESC",
    "SELECT * FROM \"robust\".\"by-g\" WHERE g IN [ 'x' , 'y' ] OR NOT size ( l ) > 1",
    "UPDATE \"robust\" SET l = list_append ( l , [ 2 ] ) SET n = n + 1 REMOVE g WHERE pk = ? AND sk = 1 RETURNING ALL NEW *",
    "UPDATE \"robust\" SET s = set_add ( s , << 'b' >> ) WHERE pk = 'a' AND sk = 1 AND attribute_exists ( s )",
    "DELETE FROM \"robust\" WHERE pk = 'a' AND sk = 1 AND g IS NOT MISSING RETURNING ALL OLD *",
    "EXISTS ( SELECT * FROM \"robust\" WHERE pk = 'a' AND sk = 1 AND begins_with ( g , 'x' ) )",
];

const WORDS: &[&str] = &[
    "SELECT",
    "*",
    "FROM",
    "WHERE",
    "AND",
    "OR",
    "NOT",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "<<",
    ">>",
    ",",
    ".",
    "?",
    "=",
    "<>",
    "IN",
    "BETWEEN",
    "IS",
    "MISSING",
    "SET",
    "REMOVE",
    "RETURNING",
    "EXISTS",
    "size",
    "list_append",
    "set_delete",
    "+",
    "-",
    "1e999",
    "-0",
    "'",
    "\"",
    "pk",
    "sk",
    "l[99999999999]",
    "\"nope\"",
    "",
    ";",
    "ORDER",
    "BY",
];

#[test]
fn mutated_partiql_statements_get_errors_not_panics() {
    // GIVEN the table WHEN thousands of mutated statements run through the three operations
    let (db, ctx) = fixture();
    let mut rng = StdRng::seed_from_u64(11);
    let mut errors = 0;
    for _ in 0..20_000 {
        let mut words: Vec<&str> = STATEMENTS.choose(&mut rng).unwrap().split(' ').collect();
        for _ in 0..rng.random_range(0..3) {
            let i = rng.random_range(0..words.len());
            match rng.random_range(0..3) {
                0 => words[i] = WORDS.choose(&mut rng).unwrap(),
                1 => words.insert(i, WORDS.choose(&mut rng).unwrap()),
                _ => {
                    words.remove(i);
                }
            }
            if words.is_empty() {
                words.push("SELECT");
            }
        }
        let text = words.join(" ");
        let parameters: Vec<Value> = (0..rng.random_range(0..3))
            .map(|_| {
                [
                    json!({"S": "a"}),
                    json!({"N": "1"}),
                    json!({"L": [{"S": "x"}]}),
                ]
                .choose(&mut rng)
                .unwrap()
                .clone()
            })
            .collect();
        let one = json!({"Statement": text, "Parameters": parameters});
        let (op, body) = match rng.random_range(0..3) {
            0 => (
                "ExecuteStatement",
                json!({"Statement": text, "Parameters": parameters, "Limit": rng.random_range(1..3)}),
            ),
            1 => (
                "BatchExecuteStatement",
                json!({"Statements": [one.clone(), one]}),
            ),
            _ => ("ExecuteTransaction", json!({"TransactStatements": [one]})),
        };
        // THEN each gets an answer; errors are of the kinds AWS uses
        if let Err(e) = db.call(&ctx, op, body.to_string().as_bytes()) {
            errors += 1;
            assert!(!matches!(e, DdbError::Internal(_)), "{op} {body}: {e}");
        }
    }
    assert!(errors > 0);
}
