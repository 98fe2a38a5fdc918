//! DynamoDB's expression languages: condition/filter, update, projection and key
//! condition expressions. Parsing happens in two steps like AWS reports errors:
//! syntax first (`parser.rs`), then meaning (`resolve.rs`: placeholders, reserved
//! words, functions, operand types). Every error text is AWS's ValidationException
//! message, prefixed "Invalid <Kind>Expression: " where AWS prefixes it.

mod condition;
mod key_condition;
mod lexer;
mod parser;
mod path;
mod projection;
mod reserved;
mod resolve;
mod update;

use std::collections::{BTreeSet, HashMap};

use crate::value::AttributeValue;

pub use condition::{Condition, Operand};
pub use key_condition::{parse_key_condition, KeyCondition, RangeCondition};
pub use parser::Comparator;
pub use path::{DocumentPath, PathElement};
pub use projection::{parse_projection, Projection};
pub use reserved::is_reserved_word;
pub use update::{parse_update, SetOperand, SetValue, UpdateAction, UpdateExpression};

/// An expression problem; `message` is the ValidationException message.
#[derive(Debug, Clone, PartialEq)]
pub struct ExprError {
    pub message: String,
}

impl ExprError {
    pub fn new(message: impl Into<String>) -> Self {
        ExprError {
            message: message.into(),
        }
    }

    pub(crate) fn invalid(kind: ExpressionKind, message: impl std::fmt::Display) -> Self {
        ExprError::new(format!("Invalid {}: {message}", kind.name()))
    }
}

impl std::fmt::Display for ExprError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ExprError {}

/// Which request parameter an expression came from; it names the error prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExpressionKind {
    Condition,
    Filter,
    KeyCondition,
    Update,
    Projection,
}

impl ExpressionKind {
    pub fn name(self) -> &'static str {
        match self {
            ExpressionKind::Condition => "ConditionExpression",
            ExpressionKind::Filter => "FilterExpression",
            ExpressionKind::KeyCondition => "KeyConditionExpression",
            ExpressionKind::Update => "UpdateExpression",
            ExpressionKind::Projection => "ProjectionExpression",
        }
    }
}

/// `ExpressionAttributeNames`/`Values` of one request, shared by all its expressions so
/// that unused placeholders can be reported once every expression has been parsed.
#[derive(Debug, Clone, Default)]
pub struct ExpressionContext {
    names: HashMap<String, String>,
    values: HashMap<String, AttributeValue>,
    used_names: BTreeSet<String>,
    used_values: BTreeSet<String>,
}

impl ExpressionContext {
    pub fn new(
        names: Option<HashMap<String, String>>,
        values: Option<HashMap<String, AttributeValue>>,
    ) -> Result<Self, ExprError> {
        if let Some(names) = &names {
            if names.is_empty() {
                return Err(ExprError::new("ExpressionAttributeNames must not be empty"));
            }
            if let Some(bad) = sorted_keys(names)
                .into_iter()
                .find(|k| !is_placeholder(k, '#'))
            {
                return Err(ExprError::new(format!(
                    "ExpressionAttributeNames contains invalid key: Syntax error; key: \"{bad}\""
                )));
            }
            if let Some(key) = sorted_keys(names)
                .into_iter()
                .find(|k| names[*k].is_empty())
            {
                return Err(ExprError::new(format!(
                    "ExpressionAttributeNames contains invalid value: Empty attribute name for key {key}"
                )));
            }
        }
        if let Some(values) = &values {
            if values.is_empty() {
                return Err(ExprError::new(
                    "ExpressionAttributeValues must not be empty",
                ));
            }
            if let Some(bad) = sorted_keys(values)
                .into_iter()
                .find(|k| !is_placeholder(k, ':'))
            {
                return Err(ExprError::new(format!(
                    "ExpressionAttributeValues contains invalid key: Syntax error; key: \"{bad}\""
                )));
            }
        }
        Ok(ExpressionContext {
            names: names.unwrap_or_default(),
            values: values.unwrap_or_default(),
            ..Default::default()
        })
    }

    /// AWS rejects requests that define placeholders no expression uses.
    pub fn check_all_used(&self) -> Result<(), ExprError> {
        let unused = |keys: Vec<&String>, used: &BTreeSet<String>| -> Vec<String> {
            keys.into_iter()
                .filter(|k| !used.contains(*k))
                .cloned()
                .collect()
        };
        let names = unused(sorted_keys(&self.names), &self.used_names);
        if !names.is_empty() {
            return Err(ExprError::new(format!(
                "Value provided in ExpressionAttributeNames unused in expressions: keys: {{{}}}",
                names.join(", ")
            )));
        }
        let values = unused(sorted_keys(&self.values), &self.used_values);
        if !values.is_empty() {
            return Err(ExprError::new(format!(
                "Value provided in ExpressionAttributeValues unused in expressions: keys: {{{}}}",
                values.join(", ")
            )));
        }
        Ok(())
    }

    pub(crate) fn name(&mut self, placeholder: &str) -> Option<String> {
        let name = self.names.get(placeholder)?.clone();
        self.used_names.insert(placeholder.to_string());
        Some(name)
    }

    pub(crate) fn value(&mut self, placeholder: &str) -> Option<AttributeValue> {
        let value = self.values.get(placeholder)?.clone();
        self.used_values.insert(placeholder.to_string());
        Some(value)
    }
}

/// `#name` / `:value`: the sigil and one or more letters, digits or underscores.
fn is_placeholder(key: &str, sigil: char) -> bool {
    key.strip_prefix(sigil).is_some_and(|rest| {
        !rest.is_empty() && rest.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

fn sorted_keys<V>(map: &HashMap<String, V>) -> Vec<&String> {
    let mut keys: Vec<&String> = map.keys().collect();
    keys.sort();
    keys
}

/// Parses a `ConditionExpression`.
pub fn parse_condition(expr: &str, ctx: &mut ExpressionContext) -> Result<Condition, ExprError> {
    resolve::condition(expr, ctx, ExpressionKind::Condition)
}

/// Parses a `FilterExpression` (same language, its own error prefix).
pub fn parse_filter(expr: &str, ctx: &mut ExpressionContext) -> Result<Condition, ExprError> {
    resolve::condition(expr, ctx, ExpressionKind::Filter)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_rejects_empty_maps_and_bad_keys() {
        let err = ExpressionContext::new(Some(HashMap::new()), None).unwrap_err();
        assert_eq!(err.message, "ExpressionAttributeNames must not be empty");
        let err = ExpressionContext::new(None, Some(HashMap::new())).unwrap_err();
        assert_eq!(err.message, "ExpressionAttributeValues must not be empty");
        let values = HashMap::from([("v".to_string(), AttributeValue::Null)]);
        let err = ExpressionContext::new(None, Some(values)).unwrap_err();
        assert_eq!(
            err.message,
            "ExpressionAttributeValues contains invalid key: Syntax error; key: \"v\""
        );
        for bad in ["#", "#a-b", "a"] {
            let names = HashMap::from([(bad.to_string(), "x".to_string())]);
            let err = ExpressionContext::new(Some(names), None).unwrap_err();
            assert_eq!(
                err.message,
                format!(
                    "ExpressionAttributeNames contains invalid key: Syntax error; key: \"{bad}\""
                )
            );
        }
        let names = HashMap::from([("#a".to_string(), String::new())]);
        assert_eq!(
            ExpressionContext::new(Some(names), None)
                .unwrap_err()
                .message,
            "ExpressionAttributeNames contains invalid value: Empty attribute name for key #a"
        );
    }

    #[test]
    fn unused_placeholders_are_reported_after_all_expressions() {
        let names = HashMap::from([("#a".to_string(), "a".to_string())]);
        let values = HashMap::from([
            (":x".to_string(), AttributeValue::Null),
            (":y".to_string(), AttributeValue::Null),
        ]);
        let mut ctx = ExpressionContext::new(Some(names), Some(values)).unwrap();
        parse_condition("#a = :x", &mut ctx).unwrap();
        assert_eq!(
            ctx.check_all_used().unwrap_err().message,
            "Value provided in ExpressionAttributeValues unused in expressions: keys: {:y}"
        );
        parse_condition("attribute_exists(#a) OR #a = :y", &mut ctx).unwrap();
        assert!(ctx.check_all_used().is_ok());
    }
}
