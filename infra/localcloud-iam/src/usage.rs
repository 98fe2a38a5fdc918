//! What each principal was allowed or denied during a run, and from it the
//! least policy that allows what was used and the grants never used.

use std::collections::{BTreeMap, BTreeSet};

use parking_lot::Mutex;
use serde_json::{json, Value};

use crate::document::{Effect, Names};
use crate::eval::{action_matches, resource_matches, Decision, Request};
use crate::role::Role;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub allowed: u64,
    pub denied: u64,
}

/// Counts by (action, resource).
pub type Calls = BTreeMap<(String, String), Counts>;

/// Calls by (role, session), then by (action, resource).
#[derive(Debug, Default)]
pub struct Usage {
    calls: Mutex<BTreeMap<(String, String), Calls>>,
}

/// One grant (an action pattern on a resource pattern of an `Allow`
/// statement) that no recorded call used.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct UnusedGrant {
    pub policy: String,
    pub action: String,
    pub resource: String,
}

/// What one role's sessions did.
#[derive(Debug, Clone, PartialEq)]
pub struct RoleUsage {
    pub role: String,
    /// Session names (a function's name for its execution role).
    pub sessions: Vec<String>,
    /// (action, resource) -> counts.
    pub calls: Calls,
}

impl Usage {
    pub fn record(&self, role: &str, session: &str, request: &Request, decision: Decision) {
        let mut calls = self.calls.lock();
        let counts = calls
            .entry((role.to_string(), session.to_string()))
            .or_default()
            .entry((request.action.clone(), request.resource.clone()))
            .or_default();
        if decision.allowed() {
            counts.allowed += 1;
        } else {
            counts.denied += 1;
        }
    }

    pub fn clear(&self) {
        self.calls.lock().clear();
    }

    /// Every role with at least one call, its sessions merged.
    pub fn by_role(&self) -> Vec<RoleUsage> {
        let calls = self.calls.lock();
        let mut out: BTreeMap<String, RoleUsage> = BTreeMap::new();
        for ((role, session), by_call) in calls.iter() {
            let entry = out.entry(role.clone()).or_insert_with(|| RoleUsage {
                role: role.clone(),
                sessions: Vec::new(),
                calls: BTreeMap::new(),
            });
            entry.sessions.push(session.clone());
            for (call, counts) in by_call {
                let c = entry.calls.entry(call.clone()).or_default();
                c.allowed += counts.allowed;
                c.denied += counts.denied;
            }
        }
        out.into_values().collect()
    }
}

impl RoleUsage {
    /// The least policy allowing every call made (allowed or not): one
    /// statement per set of actions, on the resources that needed exactly
    /// those actions.
    pub fn least_policy(&self) -> Value {
        let mut by_resource: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for (action, resource) in self.calls.keys() {
            by_resource.entry(resource).or_default().insert(action);
        }
        let mut by_actions: BTreeMap<Vec<&str>, Vec<&str>> = BTreeMap::new();
        for (resource, actions) in by_resource {
            by_actions
                .entry(actions.into_iter().collect())
                .or_default()
                .push(resource);
        }
        let statements: Vec<Value> = by_actions
            .into_iter()
            .map(|(actions, resources)| {
                json!({"Effect": "Allow", "Action": actions, "Resource": resources})
            })
            .collect();
        json!({"Version": "2012-10-17", "Statement": statements})
    }

    pub fn denied(&self) -> Vec<(String, String, u64)> {
        self.calls
            .iter()
            .filter(|(_, c)| c.denied > 0)
            .map(|((a, r), c)| (a.clone(), r.clone(), c.denied))
            .collect()
    }
}

/// The grants of `role` that none of `calls`' allowed calls used. CloudWatch
/// Logs grants are left out: the Lambda service writes a function's logs,
/// not its code.
pub fn unused_grants(role: &Role, usage: Option<&RoleUsage>) -> Vec<UnusedGrant> {
    let allowed: Vec<&(String, String)> = usage
        .map(|u| {
            u.calls
                .iter()
                .filter(|(_, c)| c.allowed > 0)
                .map(|(k, _)| k)
                .collect()
        })
        .unwrap_or_default();
    let mut out = BTreeSet::new();
    for policy in &role.policies {
        for statement in &policy.document.statements {
            if statement.effect != Effect::Allow {
                continue;
            }
            let grants: Vec<(Names, Names, String, String)> =
                match (&statement.action, &statement.resource) {
                    (Names::Only(actions), Names::Only(resources)) => actions
                        .iter()
                        .flat_map(|a| {
                            resources.iter().map(move |r| {
                                (
                                    Names::Only(vec![a.clone()]),
                                    Names::Only(vec![r.clone()]),
                                    a.clone(),
                                    r.clone(),
                                )
                            })
                        })
                        .collect(),
                    (a, r) => vec![(
                        a.clone(),
                        r.clone(),
                        describe(a, "NotAction"),
                        describe(r, "NotResource"),
                    )],
                };
            for (a, r, action, resource) in grants {
                if action.to_ascii_lowercase().starts_with("logs:") {
                    continue;
                }
                let used = allowed
                    .iter()
                    .any(|(ua, ur)| action_matches(&a, ua) && resource_matches(&r, ur));
                if !used {
                    out.insert(UnusedGrant {
                        policy: policy.source.clone(),
                        action,
                        resource,
                    });
                }
            }
        }
    }
    out.into_iter().collect()
}

fn describe(names: &Names, not: &str) -> String {
    match names {
        Names::Only(n) => n.join(", "),
        Names::AllBut(n) => format!("{not} {}", n.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::PolicyDocument;
    use crate::role::NamedPolicy;

    const T: &str = "arn:aws:dynamodb:us-east-1:0:table/T";

    #[test]
    fn the_least_policy_groups_resources_by_the_actions_they_needed() {
        let usage = Usage::default();
        let r = |a: &str, res: &str| Request::new(a, res);
        usage.record("R", "f", &r("dynamodb:GetItem", T), Decision::Allow);
        usage.record("R", "f", &r("dynamodb:GetItem", T), Decision::Allow);
        usage.record("R", "f", &r("dynamodb:PutItem", T), Decision::ImplicitDeny);
        usage.record(
            "R",
            "f",
            &r("sqs:SendMessage", "arn:aws:sqs:us-east-1:0:a"),
            Decision::Allow,
        );
        usage.record(
            "R",
            "g",
            &r("sqs:SendMessage", "arn:aws:sqs:us-east-1:0:b"),
            Decision::Allow,
        );
        let roles = usage.by_role();
        assert_eq!(roles.len(), 1);
        assert_eq!(roles[0].sessions, vec!["f", "g"]);
        assert_eq!(
            roles[0].least_policy(),
            json!({"Version": "2012-10-17", "Statement": [
                {"Effect": "Allow", "Action": ["dynamodb:GetItem", "dynamodb:PutItem"], "Resource": [T]},
                {"Effect": "Allow", "Action": ["sqs:SendMessage"], "Resource": ["arn:aws:sqs:us-east-1:0:a", "arn:aws:sqs:us-east-1:0:b"]},
            ]})
        );
        assert_eq!(
            roles[0].denied(),
            vec![("dynamodb:PutItem".to_string(), T.to_string(), 1)]
        );
    }

    #[test]
    fn grants_no_allowed_call_matched_are_unused() {
        let role = Role {
            name: "R".into(),
            account: "0".into(),
            policies: vec![NamedPolicy {
                source: "inline".into(),
                document: PolicyDocument::parse(&json!({"Statement": [
                    {"Effect": "Allow", "Action": ["dynamodb:GetItem", "dynamodb:DeleteItem", "logs:PutLogEvents"], "Resource": [T, format!("{T}/index/*")]},
                    {"Effect": "Deny", "Action": "dynamodb:Scan", "Resource": "*"}
                ]}))
                .unwrap(),
            }],
        };
        let usage = Usage::default();
        usage.record(
            "R",
            "f",
            &Request::new("dynamodb:GetItem", T),
            Decision::Allow,
        );
        let unused = unused_grants(&role, usage.by_role().first());
        let pairs: Vec<(String, String)> =
            unused.into_iter().map(|u| (u.action, u.resource)).collect();
        assert_eq!(
            pairs,
            vec![
                ("dynamodb:DeleteItem".to_string(), T.to_string()),
                ("dynamodb:DeleteItem".to_string(), format!("{T}/index/*")),
                ("dynamodb:GetItem".to_string(), format!("{T}/index/*")),
            ]
        );
    }
}
