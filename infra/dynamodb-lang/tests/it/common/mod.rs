//! Test fixtures: items and placeholder maps written as DynamoDB JSON.

#![allow(dead_code)]

use std::collections::HashMap;

use dynamodb_lang::{AttributeValue, ExpressionContext, Item};
use serde_json::Value;

/// An item from DynamoDB JSON, e.g. `json!({"id": {"S": "a"}})`.
pub fn item(json: Value) -> Item {
    serde_json::from_value(json).expect("valid item JSON")
}

pub fn value(json: Value) -> AttributeValue {
    serde_json::from_value(json).expect("valid attribute value JSON")
}

/// A context with `#name` placeholders and `:value` placeholders (DynamoDB JSON).
pub fn ctx(names: &[(&str, &str)], values: Value) -> ExpressionContext {
    let names: HashMap<String, String> = names
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let values: HashMap<String, AttributeValue> = match values {
        Value::Null => HashMap::new(),
        other => serde_json::from_value(other).expect("valid values JSON"),
    };
    ExpressionContext::new(
        (!names.is_empty()).then_some(names),
        (!values.is_empty()).then_some(values),
    )
    .expect("valid context")
}
