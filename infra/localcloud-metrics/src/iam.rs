//! The IAM usage contract: the document behind `GET /_localcloud/iam`,
//! defined once. The local cloud fills it from what its IAM evaluator
//! recorded; `localcloud iam-report` prints it; the bench merges the
//! documents of its runs into `results.json` and its reports.
//!
//! Per function: each (action, resource) it was allowed or denied, the least
//! policy that allows all of them, and the grants of its role that none
//! used. Field names are snake_case as in the metrics document; the least
//! policy is an IAM policy document in IAM's own casing, ready to paste.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

/// Version of the document's shape; readers refuse any other.
/// 1: the first typed version (the untyped one used camelCase).
pub const IAM_VERSION: u32 = 1;

/// IAM's current policy language version, which every policy names
/// (<https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_version.html>).
pub const POLICY_LANGUAGE_VERSION: &str = "2012-10-17";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IamDocument {
    pub version: u32,
    pub mode: IamMode,
    /// Every function of every stack, in stack then template order.
    pub functions: Vec<FunctionIam>,
}

/// `localcloud serve --iam`: what happened to a call its role did not allow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IamMode {
    /// Refused, as on AWS.
    Enforce,
    /// Answered, recorded as denied.
    Warn,
    /// Neither checked nor recorded: the document has no calls.
    Off,
}

impl IamMode {
    /// As `--iam` spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            IamMode::Enforce => "enforce",
            IamMode::Warn => "warn",
            IamMode::Off => "off",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FunctionIam {
    pub stack: String,
    /// The function's name (`FunctionName`).
    pub function: String,
    pub logical_id: String,
    /// Its execution role's ARN.
    pub role: String,
    /// Sorted by action, then resource.
    pub calls: Vec<CallCount>,
    /// `None` when the function made no call.
    #[serde(deserialize_with = "Option::deserialize")]
    pub least_policy: Option<PolicyDocument>,
    /// Every grant of its role (CloudWatch Logs grants left out: the Lambda
    /// service writes a function's logs, not its code).
    pub grants: Vec<Grant>,
    /// Those of [`Self::grants`] that no allowed call used.
    pub unused_grants: Vec<Grant>,
}

/// How often one action on one resource was allowed and denied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallCount {
    pub action: String,
    pub resource: String,
    pub allowed: u64,
    pub denied: u64,
}

/// One action pattern on one resource pattern of an `Allow` statement;
/// `policy` names where it comes from (a SAM policy template, a managed
/// policy, `inline`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Grant {
    pub policy: String,
    pub action: String,
    pub resource: String,
}

/// An identity-based policy of `Allow` statements, as IAM spells it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyDocument {
    #[serde(rename = "Version")]
    pub version: String,
    #[serde(rename = "Statement")]
    pub statements: Vec<PolicyStatement>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyStatement {
    #[serde(rename = "Effect")]
    pub effect: String,
    #[serde(rename = "Action")]
    pub actions: Vec<String>,
    #[serde(rename = "Resource")]
    pub resources: Vec<String>,
}

/// One call a function was denied, and how often.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denial {
    pub function: String,
    pub logical_id: String,
    pub action: String,
    pub resource: String,
    pub count: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum IamDocumentError {
    #[error("the IAM document is version {found}, this reader understands version {IAM_VERSION}")]
    Version { found: u64 },
    #[error("not an IAM document (version {IAM_VERSION}): {0}")]
    Shape(#[from] serde_json::Error),
}

/// The least policy allowing every call in `calls` (allowed or denied: a
/// denied call is one the function needed): one statement per set of
/// actions, on the resources that needed exactly those actions. `None`
/// without calls.
pub fn least_policy(calls: &[CallCount]) -> Option<PolicyDocument> {
    let mut by_resource: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for call in calls {
        by_resource
            .entry(&call.resource)
            .or_default()
            .insert(&call.action);
    }
    let mut by_actions: BTreeMap<Vec<&str>, Vec<&str>> = BTreeMap::new();
    for (resource, actions) in by_resource {
        by_actions
            .entry(actions.into_iter().collect())
            .or_default()
            .push(resource);
    }
    let statements: Vec<PolicyStatement> = by_actions
        .into_iter()
        .map(|(actions, resources)| PolicyStatement {
            effect: "Allow".into(),
            actions: actions.into_iter().map(String::from).collect(),
            resources: resources.into_iter().map(String::from).collect(),
        })
        .collect();
    (!statements.is_empty()).then(|| PolicyDocument {
        version: POLICY_LANGUAGE_VERSION.into(),
        statements,
    })
}

impl IamDocument {
    pub fn new(mode: IamMode) -> Self {
        Self {
            version: IAM_VERSION,
            mode,
            functions: Vec::new(),
        }
    }

    /// Parses and checks the version first, so that an older or newer
    /// document is named as such rather than as a missing field.
    pub fn from_json(text: &str) -> Result<Self, IamDocumentError> {
        Self::from_value(serde_json::from_str(text)?)
    }

    pub fn from_value(value: serde_json::Value) -> Result<Self, IamDocumentError> {
        match value.get("version").and_then(serde_json::Value::as_u64) {
            Some(v) if v == u64::from(IAM_VERSION) => Ok(serde_json::from_value(value)?),
            found => Err(IamDocumentError::Version {
                found: found.unwrap_or(0),
            }),
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("the IAM document always serialises")
    }

    /// Every denied call, function by function.
    pub fn denials(&self) -> Vec<Denial> {
        self.functions
            .iter()
            .flat_map(|f| {
                f.calls
                    .iter()
                    .filter(|c| c.denied > 0)
                    .map(move |c| Denial {
                        function: f.function.clone(),
                        logical_id: f.logical_id.clone(),
                        action: c.action.clone(),
                        resource: c.resource.clone(),
                        count: c.denied,
                    })
            })
            .collect()
    }

    /// Adds another run's document: per function (by stack and logical id)
    /// the calls' counts are summed, the least policy is that of all the
    /// calls, and a grant stays unused only if unused in both.
    pub fn merge(&mut self, other: &IamDocument) {
        for theirs in &other.functions {
            let mine = self
                .functions
                .iter_mut()
                .find(|f| f.stack == theirs.stack && f.logical_id == theirs.logical_id);
            match mine {
                Some(mine) => mine.merge(theirs),
                None => self.functions.push(theirs.clone()),
            }
        }
    }
}

impl FunctionIam {
    fn merge(&mut self, other: &FunctionIam) {
        let mut calls: BTreeMap<(String, String), (u64, u64)> = BTreeMap::new();
        for c in self.calls.iter().chain(&other.calls) {
            let counts = calls
                .entry((c.action.clone(), c.resource.clone()))
                .or_default();
            counts.0 += c.allowed;
            counts.1 += c.denied;
        }
        self.calls = calls
            .into_iter()
            .map(|((action, resource), (allowed, denied))| CallCount {
                action,
                resource,
                allowed,
                denied,
            })
            .collect();
        self.least_policy = least_policy(&self.calls);
        self.unused_grants
            .retain(|g| other.unused_grants.contains(g));
    }

    /// Calls allowed and denied, in all.
    pub fn totals(&self) -> (u64, u64) {
        self.calls
            .iter()
            .fold((0, 0), |(a, d), c| (a + c.allowed, d + c.denied))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: &str = "arn:aws:dynamodb:us-east-1:0:table/T";
    const A: &str = "arn:aws:sqs:us-east-1:0:a";
    const B: &str = "arn:aws:sqs:us-east-1:0:b";

    fn call(action: &str, resource: &str, allowed: u64, denied: u64) -> CallCount {
        CallCount {
            action: action.into(),
            resource: resource.into(),
            allowed,
            denied,
        }
    }

    fn grant(action: &str, resource: &str) -> Grant {
        Grant {
            policy: "inline".into(),
            action: action.into(),
            resource: resource.into(),
        }
    }

    fn function(calls: Vec<CallCount>, unused: Vec<Grant>) -> FunctionIam {
        FunctionIam {
            stack: "s".into(),
            function: "s-f".into(),
            logical_id: "F".into(),
            role: "arn:aws:iam::0:role/s-FRole".into(),
            least_policy: least_policy(&calls),
            calls,
            grants: unused.clone(),
            unused_grants: unused,
        }
    }

    #[test]
    fn the_least_policy_groups_resources_by_the_actions_they_needed() {
        // GIVEN reads and a denied write on a table, and sends to two queues
        let calls = [
            call("dynamodb:GetItem", T, 2, 0),
            call("dynamodb:PutItem", T, 0, 1),
            call("sqs:SendMessage", A, 1, 0),
            call("sqs:SendMessage", B, 1, 0),
        ];
        // WHEN the least policy is made
        let policy = least_policy(&calls).unwrap();
        // THEN one statement per set of actions, the denied write included,
        // in IAM's own casing
        assert_eq!(
            serde_json::to_value(&policy).unwrap(),
            serde_json::json!({"Version": "2012-10-17", "Statement": [
                {"Effect": "Allow", "Action": ["dynamodb:GetItem", "dynamodb:PutItem"], "Resource": [T]},
                {"Effect": "Allow", "Action": ["sqs:SendMessage"], "Resource": [A, B]},
            ]})
        );
        // AND no call, no policy
        assert_eq!(least_policy(&[]), None);
    }

    #[test]
    fn merging_runs_sums_calls_and_keeps_only_grants_no_run_used() {
        // GIVEN two runs of the same function: the first read, the second
        // sent a message and was denied a write
        let mut first = IamDocument::new(IamMode::Enforce);
        first.functions.push(function(
            vec![call("dynamodb:GetItem", T, 3, 0)],
            vec![grant("sqs:SendMessage", A), grant("dynamodb:Scan", T)],
        ));
        let mut second = IamDocument::new(IamMode::Enforce);
        second.functions.push(function(
            vec![
                call("dynamodb:GetItem", T, 1, 0),
                call("dynamodb:PutItem", T, 0, 2),
                call("sqs:SendMessage", A, 1, 0),
            ],
            vec![grant("dynamodb:Scan", T), grant("dynamodb:GetItem", B)],
        ));
        // WHEN merged
        first.merge(&second);
        // THEN the counts are summed, the policy covers every call, and
        // only the grant neither run used is unused
        let f = &first.functions[0];
        assert_eq!(f.calls[0], call("dynamodb:GetItem", T, 4, 0));
        assert_eq!(f.totals(), (5, 2));
        assert_eq!(f.least_policy, least_policy(&f.calls));
        assert_eq!(f.unused_grants, vec![grant("dynamodb:Scan", T)]);
        // AND the denial is named with its function
        let denials = first.denials();
        assert_eq!(denials.len(), 1);
        assert_eq!((denials[0].logical_id.as_str(), denials[0].count), ("F", 2));
    }

    #[test]
    fn a_document_round_trips_and_another_version_is_named() {
        // GIVEN a document with a function that made no call
        let mut doc = IamDocument::new(IamMode::Warn);
        doc.functions
            .push(function(vec![], vec![grant("dynamodb:GetItem", T)]));
        // WHEN serialised, THEN it reads back, its policy null
        let mut value = serde_json::to_value(&doc).unwrap();
        assert_eq!(value["mode"], "warn");
        assert_eq!(
            value["functions"][0]["least_policy"],
            serde_json::Value::Null
        );
        assert_eq!(IamDocument::from_value(value.clone()).unwrap(), doc);
        assert_eq!(IamDocument::from_json(&doc.to_json()).unwrap(), doc);
        // AND the untyped camelCase report (no version) is refused as such
        value["version"] = serde_json::json!(null);
        let err = IamDocument::from_value(value).unwrap_err();
        assert!(err.to_string().contains("version 0"), "{err}");
    }
}
