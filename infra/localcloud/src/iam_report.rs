//! `GET /_localcloud/iam` and `localcloud iam-report`: per function, what it
//! was allowed and denied during the run, the least policy that allows what
//! it used, and the grants of its role that nothing used. The document is
//! the contract's ([`IamDocument`]), which the bench reads.

use std::fmt::Write;

use localcloud_iam::usage::{grants, unused_grants, RoleUsage};
use localcloud_iam::{Iam, Mode};
use localcloud_metrics::iam::{least_policy, CallCount, FunctionIam, IamDocument, IamMode};

use crate::deploy::Deployments;

/// The report of every function of every stack.
pub fn report(iam: &Iam, deployments: &Deployments) -> IamDocument {
    let usage = iam.usage.by_role();
    let mut document = IamDocument::new(mode(iam.mode));
    for (stack_name, stack) in deployments.all() {
        for function in &stack.app.functions {
            let Some((role, _)) = stack.role(&function.logical_id) else {
                continue;
            };
            let used: Option<&RoleUsage> = usage.iter().find(|u| u.role == role.name);
            let calls: Vec<CallCount> = used
                .map(|u| {
                    u.calls
                        .iter()
                        .map(|((action, resource), c)| CallCount {
                            action: action.clone(),
                            resource: resource.clone(),
                            allowed: c.allowed,
                            denied: c.denied,
                        })
                        .collect()
                })
                .unwrap_or_default();
            document.functions.push(FunctionIam {
                stack: stack_name.clone(),
                function: function.name.clone(),
                logical_id: function.logical_id.clone(),
                role: role.arn(),
                least_policy: least_policy(&calls),
                calls,
                grants: grants(role),
                unused_grants: unused_grants(role, used),
            });
        }
    }
    document
}

fn mode(mode: Mode) -> IamMode {
    match mode {
        Mode::Enforce => IamMode::Enforce,
        Mode::Warn => IamMode::Warn,
        Mode::Off => IamMode::Off,
    }
}

/// The report as text, for a terminal.
pub fn render(report: &IamDocument) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "IAM mode: {}", report.mode.as_str());
    for f in &report.functions {
        let _ = writeln!(out, "\n{} ({}), role {}", f.function, f.logical_id, f.role);
        if f.calls.is_empty() {
            let _ = writeln!(out, "  no calls recorded");
            continue;
        }
        for c in &f.calls {
            let denied = if c.denied > 0 {
                format!(", {} denied", c.denied)
            } else {
                String::new()
            };
            let _ = writeln!(
                out,
                "  {:<6} {} on {} ({} allowed{denied})",
                if c.denied > 0 { "DENIED" } else { "ok" },
                c.action,
                c.resource,
                c.allowed,
            );
        }
        let _ = writeln!(out, "  least policy:");
        let policy = serde_json::to_string_pretty(&f.least_policy).unwrap_or_default();
        for line in policy.lines() {
            let _ = writeln!(out, "    {line}");
        }
        if !f.unused_grants.is_empty() {
            let _ = writeln!(out, "  granted but never used:");
            for g in &f.unused_grants {
                let _ = writeln!(out, "    {} on {} ({})", g.action, g.resource, g.policy);
            }
        }
    }
    out
}
