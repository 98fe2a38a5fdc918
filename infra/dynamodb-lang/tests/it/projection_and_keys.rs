//! Projection and key condition expressions.

use crate::common::{ctx, item, value};
use dynamodb_lang::{parse_key_condition, parse_projection, RangeCondition};
use serde_json::{json, Value};

#[test]
fn projection_keeps_only_named_paths() {
    let source = item(json!({
        "a": {"S": "1"},
        "b": {"M": {"x": {"N": "1"}, "y": {"N": "2"}}},
        "l": {"L": [{"S": "p"}, {"S": "q"}, {"S": "r"}]},
        "z": {"S": "dropped"}
    }));
    let projection =
        parse_projection("a, b.y, l[2], l[0], absent", &mut ctx(&[], Value::Null)).unwrap();
    let out = projection.apply(&source);
    assert_eq!(
        serde_json::to_value(&out).unwrap(),
        json!({
            "a": {"S": "1"},
            "b": {"M": {"y": {"N": "2"}}},
            "l": {"L": [{"S": "p"}, {"S": "r"}]}
        })
    );
    assert_eq!(
        projection.top_level_attributes(),
        vec!["a", "b", "l", "absent"]
    );
}

#[test]
fn projection_of_missing_nested_path_returns_nothing_for_it() {
    let source = item(json!({"b": {"M": {"x": {"N": "1"}}}}));
    let projection = parse_projection("b.nope.deeper", &mut ctx(&[], Value::Null)).unwrap();
    assert!(projection.apply(&source).is_empty());
}

#[test]
fn projection_resolves_names_and_rejects_reserved_words() {
    let mut c = ctx(&[("#s", "status")], Value::Null);
    let projection = parse_projection("#s", &mut c).unwrap();
    let out = projection.apply(&item(json!({"status": {"S": "ok"}, "x": {"S": "no"}})));
    assert_eq!(out.len(), 1);
    assert_eq!(
        parse_projection("status", &mut ctx(&[], Value::Null)).unwrap_err().message,
        "Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: status"
    );
}

#[test]
fn projection_rejects_overlaps_and_bad_syntax() {
    assert_eq!(
        parse_projection("a, a.b", &mut ctx(&[], Value::Null)).unwrap_err().message,
        "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a, b]"
    );
    assert_eq!(
        parse_projection("a,", &mut ctx(&[], Value::Null))
            .unwrap_err()
            .message,
        "Invalid ProjectionExpression: Syntax error; token: \"<EOF>\", near: \",\""
    );
}

fn key_values() -> Value {
    json!({":h": {"S": "user"}, ":lo": {"N": "1"}, ":hi": {"N": "5"}, ":p": {"S": "ab"}})
}

#[test]
fn key_condition_with_hash_only() {
    let kc = parse_key_condition("pk = :h", &mut ctx(&[], key_values()), "pk", Some("sk")).unwrap();
    assert_eq!(kc.hash_value, value(json!({"S": "user"})));
    assert_eq!(kc.range, None);
}

#[test]
fn key_condition_with_each_range_operator() {
    let cases = [
        (
            "pk = :h AND sk = :lo",
            RangeCondition::Eq(value(json!({"N": "1"}))),
        ),
        (
            "pk = :h AND sk < :lo",
            RangeCondition::Lt(value(json!({"N": "1"}))),
        ),
        (
            "pk = :h AND sk <= :lo",
            RangeCondition::Le(value(json!({"N": "1"}))),
        ),
        (
            "sk > :lo AND pk = :h",
            RangeCondition::Gt(value(json!({"N": "1"}))),
        ),
        (
            "pk = :h AND :lo <= sk",
            RangeCondition::Ge(value(json!({"N": "1"}))),
        ),
        (
            "pk = :h AND sk BETWEEN :lo AND :hi",
            RangeCondition::Between(value(json!({"N": "1"})), value(json!({"N": "5"}))),
        ),
        (
            "pk = :h AND begins_with(sk, :p)",
            RangeCondition::BeginsWith(value(json!({"S": "ab"}))),
        ),
    ];
    for (expr, expected) in cases {
        let mut c = ctx(&[], key_values());
        let kc = parse_key_condition(expr, &mut c, "pk", Some("sk")).unwrap();
        assert_eq!(kc.range, Some(expected), "{expr}");
    }
}

#[test]
fn range_conditions_match_key_order() {
    let n = |s: &str| value(json!({"N": s}));
    let s = |x: &str| value(json!({"S": x}));
    assert!(RangeCondition::Between(n("1"), n("5")).matches(&n("5")));
    assert!(!RangeCondition::Between(n("1"), n("5")).matches(&n("10")));
    assert!(RangeCondition::Lt(n("10")).matches(&n("9")));
    assert!(RangeCondition::BeginsWith(s("ab")).matches(&s("abc")));
    assert!(!RangeCondition::BeginsWith(s("ab")).matches(&s("a")));
    assert!(!RangeCondition::Ge(s("1")).matches(&n("5")));
}

fn key_error(expr: &str) -> String {
    parse_key_condition(expr, &mut ctx(&[], key_values()), "pk", Some("sk"))
        .unwrap_err()
        .message
}

#[test]
fn unsupported_key_conditions_get_aws_messages() {
    assert_eq!(
        key_error("pk = :h OR sk = :lo"),
        "Invalid operator used in KeyConditionExpression: OR"
    );
    assert_eq!(
        key_error("pk = :h AND sk <> :lo"),
        "Invalid operator used in KeyConditionExpression: <>"
    );
    assert_eq!(
        key_error("pk = :h AND attribute_exists(sk)"),
        "Invalid operator used in KeyConditionExpression: attribute_exists"
    );
    assert_eq!(
        key_error("pk = :h AND pk = :h"),
        "Invalid KeyConditionExpression: KeyConditionExpressions must only contain one condition per key"
    );
    assert_eq!(
        key_error("sk = :lo"),
        "Query condition missed key schema element: pk"
    );
    assert_eq!(key_error("pk < :h"), "Query key condition not supported");
    assert_eq!(
        key_error("pk = :h AND extra = :lo"),
        "Query key condition not supported"
    );
    assert_eq!(
        key_error("pk = "),
        "Invalid KeyConditionExpression: Syntax error; token: \"<EOF>\", near: \"=\""
    );
}

#[test]
fn key_condition_names_resolve_through_placeholders() {
    let mut c = ctx(&[("#k", "pk")], key_values());
    let kc = parse_key_condition("#k = :h", &mut c, "pk", None).unwrap();
    assert_eq!(kc.hash_value, value(json!({"S": "user"})));
}
