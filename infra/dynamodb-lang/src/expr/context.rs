//! The placeholders of one request (`ExpressionAttributeNames`/`Values`) and which of
//! them its expressions used.

use std::collections::{BTreeSet, HashMap};

use super::error::ExprError;
use crate::value::AttributeValue;

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
}
