//! `GET /_localcloud/iam` and `localcloud iam-report`: per function, what it
//! was allowed and denied during the run, the least policy that allows what
//! it used, and the grants of its role that nothing used.

use std::fmt::Write;

use localcloud_iam::usage::{unused_grants, RoleUsage};
use localcloud_iam::Iam;
use serde_json::{json, Value};

use crate::deploy::Deployments;

/// The report as JSON: `{"mode": ..., "functions": [...]}`.
pub fn report(iam: &Iam, deployments: &Deployments) -> Value {
    let usage = iam.usage.by_role();
    let mut functions = Vec::new();
    for (stack_name, stack) in deployments.all() {
        for function in &stack.app.functions {
            let Some((role, _)) = stack.role(&function.logical_id) else {
                continue;
            };
            let used: Option<&RoleUsage> = usage.iter().find(|u| u.role == role.name);
            let calls: Vec<Value> = used
                .map(|u| {
                    u.calls
                        .iter()
                        .map(|((action, resource), c)| {
                            json!({"action": action, "resource": resource,
                                   "allowed": c.allowed, "denied": c.denied})
                        })
                        .collect()
                })
                .unwrap_or_default();
            let unused: Vec<Value> = unused_grants(role, used)
                .into_iter()
                .map(|g| json!({"policy": g.policy, "action": g.action, "resource": g.resource}))
                .collect();
            functions.push(json!({
                "stack": stack_name,
                "function": function.name,
                "logicalId": function.logical_id,
                "role": role.arn(),
                "calls": calls,
                "leastPolicy": used.map(RoleUsage::least_policy),
                "unusedGrants": unused,
            }));
        }
    }
    let mode = match iam.mode {
        localcloud_iam::Mode::Enforce => "enforce",
        localcloud_iam::Mode::Warn => "warn",
        localcloud_iam::Mode::Off => "off",
    };
    json!({"mode": mode, "functions": functions})
}

/// The report as text, for a terminal.
pub fn render(report: &Value) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "IAM mode: {}", report["mode"].as_str().unwrap_or("?"));
    for f in report["functions"].as_array().into_iter().flatten() {
        let _ = writeln!(
            out,
            "\n{} ({}), role {}",
            f["function"].as_str().unwrap_or_default(),
            f["logicalId"].as_str().unwrap_or_default(),
            f["role"].as_str().unwrap_or_default()
        );
        let calls = f["calls"].as_array().cloned().unwrap_or_default();
        if calls.is_empty() {
            let _ = writeln!(out, "  no calls recorded");
            continue;
        }
        for c in &calls {
            let denied = c["denied"].as_u64().unwrap_or(0);
            let _ = writeln!(
                out,
                "  {:<6} {} on {} ({} allowed{})",
                if denied > 0 { "DENIED" } else { "ok" },
                c["action"].as_str().unwrap_or_default(),
                c["resource"].as_str().unwrap_or_default(),
                c["allowed"].as_u64().unwrap_or(0),
                if denied > 0 {
                    format!(", {denied} denied")
                } else {
                    String::new()
                }
            );
        }
        let _ = writeln!(out, "  least policy:");
        let policy = serde_json::to_string_pretty(&f["leastPolicy"]).unwrap_or_default();
        for line in policy.lines() {
            let _ = writeln!(out, "    {line}");
        }
        let unused = f["unusedGrants"].as_array().cloned().unwrap_or_default();
        if !unused.is_empty() {
            let _ = writeln!(out, "  granted but never used:");
            for g in unused {
                let _ = writeln!(
                    out,
                    "    {} on {} ({})",
                    g["action"].as_str().unwrap_or_default(),
                    g["resource"].as_str().unwrap_or_default(),
                    g["policy"].as_str().unwrap_or_default()
                );
            }
        }
    }
    out
}
