//! Identity-based policy documents as IAM reads them: `Statement` (one or a
//! list), `Effect`, `Action` or `NotAction`, `Resource` or `NotResource`,
//! `Condition`.
//! https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_grammar.html

use serde_json::Value;

use crate::condition::{Condition, Operator};
use crate::error::PolicyError;

#[derive(Debug, Clone, PartialEq)]
pub struct PolicyDocument {
    pub statements: Vec<Statement>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    Allow,
    Deny,
}

/// `Action` / `Resource` (the listed names) or `NotAction` / `NotResource`
/// (every name but the listed ones).
#[derive(Debug, Clone, PartialEq)]
pub enum Names {
    Only(Vec<String>),
    AllBut(Vec<String>),
}

impl Names {
    pub fn patterns(&self) -> &[String] {
        match self {
            Names::Only(p) | Names::AllBut(p) => p,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Statement {
    pub sid: Option<String>,
    pub effect: Effect,
    pub action: Names,
    pub resource: Names,
    pub conditions: Vec<Condition>,
}

impl PolicyDocument {
    /// Reads a document (the JSON of a policy, intrinsics resolved).
    pub fn parse(doc: &Value) -> Result<Self, PolicyError> {
        let Some(map) = doc.as_object() else {
            return Err(PolicyError::new(
                "policy",
                "a policy document is a JSON object with Statement",
            ));
        };
        for key in map.keys() {
            if !matches!(key.as_str(), "Version" | "Id" | "Statement") {
                return Err(PolicyError::new(
                    "policy",
                    format!("unknown field {key} (a policy has Version, Id and Statement)"),
                ));
            }
        }
        if let Some(v) = map.get("Version") {
            if !matches!(v.as_str(), Some("2012-10-17" | "2008-10-17")) {
                return Err(PolicyError::new(
                    "policy",
                    format!("Version {v} is not 2012-10-17 or 2008-10-17"),
                ));
            }
        }
        let statements = match map.get("Statement") {
            Some(Value::Array(items)) => items.iter().collect(),
            Some(single @ Value::Object(_)) => vec![single],
            _ => {
                return Err(PolicyError::new(
                    "policy",
                    "Statement is missing or not an object or a list",
                ))
            }
        };
        let statements = statements
            .into_iter()
            .enumerate()
            .map(|(i, s)| statement(i, s))
            .collect::<Result<_, _>>()?;
        Ok(Self { statements })
    }

    /// A document of one statement per (effect, actions, resources).
    pub fn of(statements: Vec<Statement>) -> Self {
        Self { statements }
    }
}

impl Statement {
    pub fn allow(actions: &[&str], resources: &[String]) -> Self {
        Self {
            sid: None,
            effect: Effect::Allow,
            action: Names::Only(actions.iter().map(|a| a.to_string()).collect()),
            resource: Names::Only(resources.to_vec()),
            conditions: Vec::new(),
        }
    }

    /// As IAM shows it: `{"Effect": ..., "Action": [...], "Resource": [...]}`.
    pub fn to_json(&self) -> Value {
        let mut map = serde_json::Map::new();
        if let Some(sid) = &self.sid {
            map.insert("Sid".into(), sid.clone().into());
        }
        let effect = match self.effect {
            Effect::Allow => "Allow",
            Effect::Deny => "Deny",
        };
        map.insert("Effect".into(), effect.into());
        let (key, names) = match &self.action {
            Names::Only(n) => ("Action", n),
            Names::AllBut(n) => ("NotAction", n),
        };
        map.insert(key.into(), names.clone().into());
        let (key, names) = match &self.resource {
            Names::Only(n) => ("Resource", n),
            Names::AllBut(n) => ("NotResource", n),
        };
        map.insert(key.into(), names.clone().into());
        Value::Object(map)
    }
}

fn statement(index: usize, s: &Value) -> Result<Statement, PolicyError> {
    let sid = s.get("Sid").and_then(Value::as_str).map(str::to_string);
    let at = match &sid {
        Some(sid) => format!("Statement {index} ({sid})"),
        None => format!("Statement {index}"),
    };
    let err = |m: &str| PolicyError::new(at.clone(), m);
    let Some(map) = s.as_object() else {
        return Err(err("a statement is a JSON object"));
    };
    for key in map.keys() {
        match key.as_str() {
            "Sid" | "Effect" | "Action" | "NotAction" | "Resource" | "NotResource"
            | "Condition" => {}
            "Principal" | "NotPrincipal" => {
                return Err(err("Policy document should not specify a principal."))
            }
            other => return Err(err(&format!("unknown field {other}"))),
        }
    }
    let effect = match map.get("Effect").and_then(Value::as_str) {
        Some("Allow") => Effect::Allow,
        Some("Deny") => Effect::Deny,
        _ => return Err(err("Effect must be Allow or Deny")),
    };
    let action = names(map, "Action", "NotAction").map_err(|m| err(&m))?;
    for pattern in action.patterns() {
        if pattern != "*" && !pattern.contains(':') {
            return Err(err(&format!(
                "Actions/Conditions must be prefaced by a vendor, e.g., iam, sdb, ec2, etc. ({pattern})"
            )));
        }
    }
    let resource = names(map, "Resource", "NotResource").map_err(|m| err(&m))?;
    for pattern in resource.patterns() {
        if pattern != "*" && !pattern.starts_with("arn:") {
            return Err(err(&format!(
                "Resource {pattern} must be in ARN format or \"*\"."
            )));
        }
    }
    let conditions = match map.get("Condition") {
        None => Vec::new(),
        Some(c) => conditions(c).map_err(|m| err(&m))?,
    };
    Ok(Statement {
        sid,
        effect,
        action,
        resource,
        conditions,
    })
}

fn names(map: &serde_json::Map<String, Value>, key: &str, not_key: &str) -> Result<Names, String> {
    match (map.get(key), map.get(not_key)) {
        (Some(v), None) => strings(v, key).map(Names::Only),
        (None, Some(v)) => strings(v, not_key).map(Names::AllBut),
        (Some(_), Some(_)) => Err(format!("a statement has {key} or {not_key}, not both")),
        (None, None) => Err(format!("a statement needs {key} or {not_key}")),
    }
}

fn strings(v: &Value, key: &str) -> Result<Vec<String>, String> {
    let list = match v {
        Value::String(s) => vec![s.clone()],
        Value::Array(items) if !items.is_empty() => items
            .iter()
            .map(|i| i.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| format!("{key} must be a string or a list of strings"))?,
        _ => {
            return Err(format!(
                "{key} must be a string or a non-empty list of strings"
            ))
        }
    };
    Ok(list)
}

/// Values are strings, numbers or booleans, one or a list.
fn condition_values(v: &Value) -> Option<Vec<String>> {
    let one = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    };
    match v {
        Value::Array(items) => items.iter().map(one).collect(),
        v => one(v).map(|s| vec![s]),
    }
}

fn conditions(c: &Value) -> Result<Vec<Condition>, String> {
    let Some(ops) = c.as_object() else {
        return Err("Condition is an object of operators".into());
    };
    let mut out = Vec::new();
    for (op, keys) in ops {
        let operator = Operator::parse(op)?;
        let Some(keys) = keys.as_object() else {
            return Err(format!("Condition {op} is an object of condition keys"));
        };
        for (key, values) in keys {
            let values = condition_values(values)
                .ok_or_else(|| format!("Condition {op} {key}: values are strings"))?;
            out.push(Condition {
                operator: operator.clone(),
                key: key.clone(),
                values,
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_single_statement_and_single_strings_are_lists_of_one() {
        let doc = PolicyDocument::parse(&json!({
            "Version": "2012-10-17",
            "Statement": {"Effect": "Allow", "Action": "sqs:SendMessage", "Resource": "*"}
        }))
        .unwrap();
        assert_eq!(doc.statements.len(), 1);
        assert_eq!(
            doc.statements[0].action,
            Names::Only(vec!["sqs:SendMessage".into()])
        );
    }

    #[test]
    fn malformed_documents_are_refused_with_where_and_why() {
        let cases = [
            (json!("nope"), "policy", "JSON object"),
            (
                json!({"Statement": [{"Effect": "Permit", "Action": "s3:*", "Resource": "*"}]}),
                "Statement 0",
                "Effect",
            ),
            (
                json!({"Statement": [{"Sid": "A", "Effect": "Allow", "Action": "s3:*"}]}),
                "Statement 0 (A)",
                "Resource",
            ),
            (
                json!({"Statement": [{"Effect": "Allow", "Action": "GetItem", "Resource": "*"}]}),
                "Statement 0",
                "vendor",
            ),
            (
                json!({"Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "table/x"}]}),
                "Statement 0",
                "ARN",
            ),
            (
                json!({"Statement": [{"Effect": "Allow", "Action": "s3:*", "NotAction": "s3:Get*", "Resource": "*"}]}),
                "Statement 0",
                "not both",
            ),
            (
                json!({"Statement": [{"Effect": "Allow", "Principal": "*", "Action": "s3:*", "Resource": "*"}]}),
                "Statement 0",
                "principal",
            ),
            (
                json!({"Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*", "Condition": {"StringSorta": {"a:b": "c"}}}]}),
                "Statement 0",
                "StringSorta",
            ),
            (
                json!({"Version": "2020-01-01", "Statement": []}),
                "policy",
                "Version",
            ),
        ];
        for (doc, at, why) in cases {
            match PolicyDocument::parse(&doc) {
                Ok(d) => panic!("{doc} was accepted: {d:?}"),
                Err(e) => {
                    assert_eq!(e.at, at, "{doc}");
                    assert!(e.message.contains(why), "{doc}: {e}");
                }
            }
        }
    }

    #[test]
    fn not_action_and_conditions_are_read() {
        let doc = PolicyDocument::parse(&json!({"Statement": [{
            "Effect": "Deny",
            "NotAction": ["dynamodb:Get*"],
            "NotResource": "arn:aws:dynamodb:*:*:table/T",
            "Condition": {"StringEquals": {"aws:RequestedRegion": ["us-east-1", "eu-west-1"]}, "Bool": {"aws:SecureTransport": false}}
        }]}))
        .unwrap();
        let s = &doc.statements[0];
        assert_eq!(s.effect, Effect::Deny);
        assert!(matches!(s.action, Names::AllBut(_)));
        assert!(matches!(s.resource, Names::AllBut(_)));
        assert_eq!(s.conditions.len(), 2);
        assert_eq!(s.conditions[1].values, vec!["false".to_string()]);
    }
}
