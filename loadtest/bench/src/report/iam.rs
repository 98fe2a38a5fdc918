//! What IAM saw in a local run, in both reports: a warning first when a call
//! was denied (a scenario failed for want of a permission), and per function
//! the calls allowed and denied, the least policy that allows what was used
//! and the grants no run used (folded in the HTML).

use std::fmt::Write;

use localcloud_metrics::iam::{FunctionIam, Grant};

use super::svg::escape;
use crate::iam::IamEvidence;
use crate::results::Results;

/// The warning that opens a report whose run IAM denied a call, or nothing.
pub fn denials_warning(results: &Results) -> Option<String> {
    let evidence = results.iam.as_ref()?;
    if evidence.denied_in.is_empty() {
        return None;
    }
    Some(format!(
        "IAM denied calls in {} run(s): their scenarios failed for want of a permission (template.yaml lacks a grant the code needs)",
        evidence.denied_in.len()
    ))
}

/// The warning as the HTML report's first lines, with each denied call.
pub fn html_warning(results: &Results) -> String {
    let Some(warning) = denials_warning(results) else {
        return String::new();
    };
    let mut html = format!("<p class=\"warn\">{}</p><ul>", escape(&warning));
    for denial in results.iam_denials() {
        let _ = write!(html, "<li class=\"warn\">{}</li>", escape(&denial));
    }
    html.push_str("</ul>");
    html
}

/// The warning as the summary's first lines, with each denied call.
pub fn markdown_warning(results: &Results) -> String {
    let Some(warning) = denials_warning(results) else {
        return String::new();
    };
    let mut md = format!("**{warning}:**\n\n");
    for denial in results.iam_denials() {
        let _ = writeln!(md, "- **{denial}**");
    }
    md.push('\n');
    md
}

/// The "IAM" section of the HTML report, folded; nothing on a remote run.
pub fn html(results: &Results) -> String {
    let Some(evidence) = &results.iam else {
        return String::new();
    };
    let lines = |items: Vec<String>| {
        items
            .iter()
            .map(|i| escape(i))
            .collect::<Vec<_>>()
            .join("<br>")
    };
    let mut rows = String::new();
    for f in &evidence.document.functions {
        let (allowed, denied) = f.totals();
        let denied_cell = if denied > 0 {
            format!("<td class=\"warn\">{denied}</td>")
        } else {
            "<td>0</td>".into()
        };
        let _ = write!(
            rows,
            "<tr><td>{}</td><td>{allowed}</td>{denied_cell}<td>{}</td><td>{}</td></tr>",
            escape(&f.logical_id),
            lines(least_policy_lines(f)),
            lines(grants_lines(&f.unused_grants)),
        );
    }
    format!(
        "<h2>IAM</h2><p class=\"note\">{}</p><details class=\"note\"><summary>Per function: calls allowed and denied, the least policy, the grants never used</summary>\
         <table><tr><th>function</th><th>calls allowed</th><th>denied</th><th>least policy (what was used)</th><th>granted, never used</th></tr>{rows}</table></details>",
        escape(&headline(evidence))
    )
}

/// The "IAM" section of the summary; nothing on a remote run.
pub fn markdown(results: &Results) -> String {
    let Some(evidence) = &results.iam else {
        return String::new();
    };
    let mut md = format!(
        "\n### IAM\n\n{}\n\n| function | calls allowed | denied | least policy (what was used) | granted, never used |\n|---|---|---|---|---|\n",
        headline(evidence)
    );
    for f in &evidence.document.functions {
        let (allowed, denied) = f.totals();
        let _ = writeln!(
            md,
            "| {} | {allowed} | {denied} | {} | {} |",
            f.logical_id,
            least_policy_lines(f).join("; "),
            grants_lines(&f.unused_grants).join("; ")
        );
    }
    md
}

/// docs/iam.md's tables: per function, by resource pattern of its role,
/// the actions granted, those the run used and those it never used, then
/// the least policy that allows what it used.
pub fn policy_tables(evidence: &IamEvidence) -> String {
    let mut md = String::new();
    for f in &evidence.document.functions {
        let (allowed, denied) = f.totals();
        let _ = write!(
            md,
            "#### {}\n\n{allowed} calls allowed, {denied} denied.\n\n\
             | resource (template.yaml) | granted | used | never used |\n|---|---|---|---|\n",
            f.logical_id
        );
        for (resource, granted, unused) in by_resource(f) {
            let used: Vec<&str> = granted
                .iter()
                .copied()
                .filter(|a| !unused.contains(a))
                .collect();
            let cell = |actions: &[&str]| {
                if actions.is_empty() {
                    "-".to_string()
                } else {
                    actions
                        .iter()
                        .map(|a| format!("`{a}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            };
            let _ = writeln!(
                md,
                "| `{}` | {} | {} | {} |",
                short_arn(resource),
                cell(&granted),
                cell(&used),
                cell(&unused)
            );
        }
        let _ = writeln!(
            md,
            "\nLeast policy: {}.\n",
            least_policy_lines(f).join("; ")
        );
    }
    md
}

/// A function's grants grouped by resource pattern, in the order the role
/// names them: (resource, actions granted, actions never used), each sorted.
fn by_resource(f: &FunctionIam) -> Vec<(&str, Vec<&str>, Vec<&str>)> {
    let mut groups: Vec<(&str, Vec<&str>, Vec<&str>)> = Vec::new();
    for grant in &f.grants {
        let at = match groups.iter().position(|(r, _, _)| *r == grant.resource) {
            Some(at) => at,
            None => {
                groups.push((&grant.resource, Vec::new(), Vec::new()));
                groups.len() - 1
            }
        };
        let unused = f
            .unused_grants
            .iter()
            .any(|u| u.resource == grant.resource && u.action == grant.action);
        let (_, granted, never) = &mut groups[at];
        granted.push(&grant.action);
        if unused {
            never.push(&grant.action);
        }
    }
    for (_, granted, never) in &mut groups {
        for actions in [granted, never] {
            actions.sort_unstable();
            actions.dedup();
        }
    }
    groups
}

/// The mode and the totals, in words.
pub fn headline(evidence: &IamEvidence) -> String {
    let document = &evidence.document;
    let (allowed, denied) = document
        .functions
        .iter()
        .map(FunctionIam::totals)
        .fold((0, 0), |(a, d), (fa, fd)| (a + fa, d + fd));
    let unused: usize = document
        .functions
        .iter()
        .map(|f| f.unused_grants.len())
        .sum();
    format!(
        "IAM mode {} (`localcloud serve --iam`), every run's local cloud merged: {allowed} calls allowed, {denied} denied; {unused} grants of the functions' roles never used (a grant may serve a path the scenarios do not drive).",
        document.mode.as_str()
    )
}

/// Each statement as `actions on resources`, resources without their ARN's
/// partition, region and account (a run has one of each); beyond three
/// (reply queues, one per environment), the first two and how many more.
pub fn least_policy_lines(f: &FunctionIam) -> Vec<String> {
    let Some(policy) = &f.least_policy else {
        return vec!["no call".into()];
    };
    policy
        .statements
        .iter()
        .map(|s| {
            let resources: Vec<&str> = s.resources.iter().map(|r| short_arn(r)).collect();
            let named = match resources.len() {
                0..=3 => resources.join(", "),
                n => format!("{} and {} more like them", resources[..2].join(", "), n - 2),
            };
            format!("{} on {named}", s.actions.join(", "))
        })
        .collect()
}

/// Grants as `action on resource`, one per item.
pub fn grants_lines(grants: &[Grant]) -> Vec<String> {
    if grants.is_empty() {
        return vec!["none".into()];
    }
    grants
        .iter()
        .map(|g| format!("{} on {}", g.action, short_arn(&g.resource)))
        .collect()
}

/// `arn:aws:sqs:us-east-1:000000000000:q` is `q`; `*` and other text as is.
pub fn short_arn(arn: &str) -> &str {
    if !arn.starts_with("arn:") {
        return arn;
    }
    arn.splitn(6, ':').nth(5).unwrap_or(arn)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdata;

    #[test]
    fn a_clean_run_lists_each_function_without_a_warning() {
        // GIVEN a run whose functions IAM never denied
        let results = testdata::results();
        // WHEN both reports are made
        let (html, md) = (html(&results), markdown(&results));
        // THEN each lists the function, what it used and what it never used
        for text in [&html, &md] {
            assert!(text.contains("OrdersQueueFunction"), "{text}");
            assert!(
                text.contains("sqs:SendMessage on bench-orders-requests"),
                "{text}"
            );
            assert!(text.contains("sqs:DeleteQueue on bench-orders-reply-*"));
        }
        assert!(md.contains("| OrdersQueueFunction | 5 | 0 |"), "{md}");
        // AND the HTML folds it
        assert!(html.contains("<details"), "{html}");
        // AND nothing warns
        assert_eq!(denials_warning(&results), None);
        assert!(html_warning(&results).is_empty());
        assert!(markdown_warning(&results).is_empty());
    }

    #[test]
    fn a_denial_is_warned_of_with_its_run_and_call() {
        // GIVEN a run in which IAM denied a send three times
        let mut results = testdata::results();
        let evidence = results.iam.as_mut().unwrap();
        evidence.add(
            "orders-faults / orders-queue",
            &testdata::iam_document(1, 3),
        );
        // WHEN the warnings and the section are made
        let html = format!("{}{}", html_warning(&results), html(&results));
        let md = markdown_warning(&results);
        // THEN each warning names the run and the denied call
        assert!(html.starts_with("<p class=\"warn\">IAM denied calls in 1 run(s)"));
        assert!(md.starts_with("**IAM denied calls in 1 run(s)"), "{md}");
        for text in [&html, &md] {
            assert!(text.contains("orders-faults / orders-queue: OrdersQueueFunction"));
        }
        // AND the table marks the denied count
        assert!(html.contains("<td class=\"warn\">3</td>"), "{html}");
    }

    #[test]
    fn the_policy_tables_split_each_role_by_resource_into_used_and_never_used() {
        // GIVEN a run whose queue function sent requests and never deleted
        // its reply queues
        let results = testdata::results();
        // WHEN docs/iam.md's tables are made
        let md = policy_tables(results.iam.as_ref().unwrap());
        // THEN the function has its heading, totals and one row per resource
        assert!(
            md.contains("#### OrdersQueueFunction\n\n5 calls allowed, 0 denied."),
            "{md}"
        );
        assert!(
            md.contains("| `bench-orders-requests` | `sqs:SendMessage` | `sqs:SendMessage` | - |"),
            "{md}"
        );
        assert!(
            md.contains("| `bench-orders-reply-*` | `sqs:DeleteQueue` | - | `sqs:DeleteQueue` |"),
            "{md}"
        );
        // AND its least policy follows the table
        assert!(
            md.contains("Least policy: sqs:SendMessage on bench-orders-requests."),
            "{md}"
        );
    }

    #[test]
    fn remote_runs_have_no_iam_section() {
        let mut results = testdata::results();
        results.iam = None;
        assert!(html(&results).is_empty() && markdown(&results).is_empty());
    }

    #[test]
    fn many_resources_of_one_statement_are_counted_not_listed() {
        // GIVEN a function that created five reply queues
        let mut f = testdata::iam_document(1, 0).functions.remove(0);
        f.calls = (0..5)
            .map(|i| localcloud_metrics::iam::CallCount {
                action: "sqs:CreateQueue".into(),
                resource: format!("arn:aws:sqs:us-east-1:000000000000:bench-orders-reply-{i}"),
                allowed: 1,
                denied: 0,
            })
            .collect();
        f.least_policy = localcloud_metrics::iam::least_policy(&f.calls);
        // WHEN its least policy is written, THEN two are named and three counted
        assert_eq!(
            least_policy_lines(&f),
            ["sqs:CreateQueue on bench-orders-reply-0, bench-orders-reply-1 and 3 more like them"]
        );
    }

    #[test]
    fn arns_lose_partition_region_and_account() {
        assert_eq!(
            short_arn("arn:aws:dynamodb:us-east-1:000000000000:table/t/index/i"),
            "table/t/index/i"
        );
        assert_eq!(short_arn("*"), "*");
    }
}
