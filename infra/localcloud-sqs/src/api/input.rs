//! Reading request members from a JSON body, with SQS's error for each
//! kind of mistake (missing member, wrong type).

use std::collections::{BTreeMap, HashSet};

use serde_json::{Map, Value};

use crate::error;
use localcloud_core::AwsError;

pub struct Input(Map<String, Value>);

impl Input {
    pub fn parse(body: &[u8]) -> Result<Self, AwsError> {
        if body.iter().all(u8::is_ascii_whitespace) {
            return Ok(Self(Map::new()));
        }
        match serde_json::from_slice::<Value>(body) {
            Ok(Value::Object(map)) => Ok(Self(map)),
            _ => Err(error::serialization("Request body must be a JSON object")),
        }
    }

    pub fn get(&self, name: &str) -> Option<&Value> {
        self.0.get(name).filter(|v| !v.is_null())
    }

    pub fn opt_str(&self, name: &str) -> Result<Option<&str>, AwsError> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(type_error(name, "a string")),
        }
    }

    pub fn str(&self, name: &str) -> Result<&str, AwsError> {
        self.opt_str(name)?
            .ok_or_else(|| error::missing_parameter(name))
    }

    pub fn opt_int(&self, name: &str) -> Result<Option<i64>, AwsError> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::Number(n)) => n
                .as_i64()
                .map(Some)
                .ok_or_else(|| type_error(name, "an integer")),
            Some(_) => Err(type_error(name, "an integer")),
        }
    }

    pub fn opt_map(&self, name: &str) -> Result<Option<&Map<String, Value>>, AwsError> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::Object(m)) => Ok(Some(m)),
            Some(_) => Err(type_error(name, "a map")),
        }
    }

    /// A map of strings, e.g. queue attributes or tags.
    pub fn string_map(&self, name: &str) -> Result<BTreeMap<String, String>, AwsError> {
        let Some(map) = self.opt_map(name)? else {
            return Ok(BTreeMap::new());
        };
        map.iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k.clone(), s.clone())),
                _ => Err(type_error(&format!("{name}.{k}"), "a string")),
            })
            .collect()
    }

    pub fn string_list(&self, name: &str) -> Result<Vec<String>, AwsError> {
        match self.get(name) {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| {
                    v.as_str()
                        .map(str::to_owned)
                        .ok_or_else(|| type_error(name, "a list of strings"))
                })
                .collect(),
            Some(_) => Err(type_error(name, "a list")),
        }
    }

    /// Batch entries, checked as SQS checks them before any entry runs:
    /// present, at most ten, well-formed and distinct ids.
    pub fn entries(&self, entry_shape: &str) -> Result<Vec<(String, Input)>, AwsError> {
        let items = match self.get("Entries") {
            None => Vec::new(),
            Some(Value::Array(items)) => items.clone(),
            Some(_) => return Err(type_error("Entries", "a list")),
        };
        if items.is_empty() {
            return Err(error::empty_batch_request(entry_shape));
        }
        if items.len() > 10 {
            return Err(error::too_many_entries(items.len()));
        }
        let mut seen = HashSet::new();
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            let Value::Object(map) = item else {
                return Err(type_error("Entries", "a list of objects"));
            };
            let entry = Input(map);
            let id = entry.str("Id")?.to_string();
            if !crate::permissions::valid_id(&id) {
                return Err(error::invalid_batch_entry_id());
            }
            if !seen.insert(id.clone()) {
                return Err(error::batch_entry_ids_not_distinct(&id));
            }
            out.push((id, entry));
        }
        Ok(out)
    }
}

fn type_error(name: &str, expected: &str) -> AwsError {
    error::serialization(format!("Member {name} must be {expected}"))
}

/// An int member that must fall in `min..=max`, as InvalidParameterValue.
pub fn bounded(
    name: &str,
    value: Option<i64>,
    min: i64,
    max: i64,
) -> Result<Option<u32>, AwsError> {
    match value {
        None => Ok(None),
        Some(v) if (min..=max).contains(&v) => Ok(Some(v as u32)),
        Some(v) => Err(error::invalid_parameter_value(format!(
            "Value {v} for parameter {name} is invalid. Reason: Must be between {min} and {max}, if provided."
        ))),
    }
}
