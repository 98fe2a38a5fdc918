//! What each principal was allowed or denied during a run, and from it the
//! grants never used (the least policy is made from the same calls by the
//! contract, `localcloud_metrics::iam::least_policy`).

use std::collections::{BTreeMap, BTreeSet};

use parking_lot::Mutex;

use localcloud_metrics::iam::Grant;

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
    pub fn denied(&self) -> Vec<(String, String, u64)> {
        self.calls
            .iter()
            .filter(|(_, c)| c.denied > 0)
            .map(|((a, r), c)| (a.clone(), r.clone(), c.denied))
            .collect()
    }
}

/// One grant of a role with the patterns it matches calls by.
struct Granted {
    actions: Names,
    resources: Names,
    grant: Grant,
}

/// Every action pattern on every resource pattern of `role`'s `Allow`
/// statements (a `NotAction`/`NotResource` statement is one grant).
/// CloudWatch Logs grants are left out: the Lambda service writes a
/// function's logs, not its code.
fn granted(role: &Role) -> Vec<Granted> {
    let mut out = Vec::new();
    for policy in &role.policies {
        let allows = policy
            .document
            .statements
            .iter()
            .filter(|s| s.effect == Effect::Allow);
        for statement in allows {
            let pairs: Vec<(Names, Names, String, String)> =
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
            for (actions, resources, action, resource) in pairs {
                if action.to_ascii_lowercase().starts_with("logs:") {
                    continue;
                }
                out.push(Granted {
                    actions,
                    resources,
                    grant: Grant {
                        policy: policy.source.clone(),
                        action,
                        resource,
                    },
                });
            }
        }
    }
    out
}

/// Every grant of `role` (CloudWatch Logs left out), sorted.
pub fn grants(role: &Role) -> Vec<Grant> {
    let all: BTreeSet<Grant> = granted(role).into_iter().map(|g| g.grant).collect();
    all.into_iter().collect()
}

/// The grants of `role` that none of `usage`'s allowed calls used.
pub fn unused_grants(role: &Role, usage: Option<&RoleUsage>) -> Vec<Grant> {
    let allowed: Vec<&(String, String)> = usage
        .map(|u| {
            u.calls
                .iter()
                .filter(|(_, c)| c.allowed > 0)
                .map(|(k, _)| k)
                .collect()
        })
        .unwrap_or_default();
    let unused: BTreeSet<Grant> = granted(role)
        .into_iter()
        .filter(|g| {
            !allowed.iter().any(|(action, resource)| {
                action_matches(&g.actions, action) && resource_matches(&g.resources, resource)
            })
        })
        .map(|g| g.grant)
        .collect();
    unused.into_iter().collect()
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
    use serde_json::json;

    use crate::document::PolicyDocument;
    use crate::role::NamedPolicy;

    const T: &str = "arn:aws:dynamodb:us-east-1:0:table/T";

    #[test]
    fn a_roles_sessions_are_merged_and_its_denied_calls_listed() {
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
        assert_eq!(roles[0].calls.len(), 4);
        assert_eq!(
            roles[0].calls[&("dynamodb:GetItem".to_string(), T.to_string())],
            Counts {
                allowed: 2,
                denied: 0
            }
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
        assert_eq!(grants(&role).len(), 4, "the logs grant left out");
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
