//! IAM's evaluation of identity-based policies within one account: an
//! explicit deny wins, else an allow, else the request is implicitly denied.
//! https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html

use crate::condition::Context;
use crate::document::{Effect, Names, PolicyDocument, Statement};
use crate::glob;

/// One action on one resource, with its condition keys.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// `service:Action`, e.g. `dynamodb:GetItem`.
    pub action: String,
    /// The resource's ARN, or `*` for actions without resource-level
    /// permissions (`sqs:ListQueues`).
    pub resource: String,
    pub context: Context,
}

impl Request {
    pub fn new(action: impl Into<String>, resource: impl Into<String>) -> Self {
        Self {
            action: action.into(),
            resource: resource.into(),
            context: Context::default(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    Allow,
    /// A statement with `Effect: Deny` applies.
    ExplicitDeny,
    /// No statement allows it.
    ImplicitDeny,
}

impl Decision {
    pub fn allowed(self) -> bool {
        self == Decision::Allow
    }
}

/// Evaluates `request` against every policy of a principal.
pub fn evaluate<'a>(
    policies: impl IntoIterator<Item = &'a PolicyDocument>,
    request: &Request,
) -> Decision {
    let mut allowed = false;
    for statement in policies.into_iter().flat_map(|p| &p.statements) {
        if !applies(statement, request) {
            continue;
        }
        match statement.effect {
            Effect::Deny => return Decision::ExplicitDeny,
            Effect::Allow => allowed = true,
        }
    }
    if allowed {
        Decision::Allow
    } else {
        Decision::ImplicitDeny
    }
}

/// Whether the statement's action, resource and conditions all match.
pub fn applies(statement: &Statement, request: &Request) -> bool {
    action_matches(&statement.action, &request.action)
        && resource_matches(&statement.resource, &request.resource)
        && statement
            .conditions
            .iter()
            .all(|c| c.holds(&request.context))
}

pub fn action_matches(names: &Names, action: &str) -> bool {
    match names {
        Names::Only(p) => p.iter().any(|p| glob::matches_ignore_case(p, action)),
        Names::AllBut(p) => !p.iter().any(|p| glob::matches_ignore_case(p, action)),
    }
}

pub fn resource_matches(names: &Names, resource: &str) -> bool {
    match names {
        Names::Only(p) => p.iter().any(|p| glob::matches(p, resource)),
        Names::AllBut(p) => !p.iter().any(|p| glob::matches(p, resource)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const TABLE: &str = "arn:aws:dynamodb:us-east-1:123456789012:table/Users";
    const INDEX: &str = "arn:aws:dynamodb:us-east-1:123456789012:table/Users/index/ByEmail";
    const QUEUE: &str = "arn:aws:sqs:us-east-1:123456789012:orders";
    const FUNCTION: &str = "arn:aws:lambda:us-east-1:123456789012:function:worker";

    fn doc(statements: serde_json::Value) -> PolicyDocument {
        PolicyDocument::parse(&json!({"Version": "2012-10-17", "Statement": statements})).unwrap()
    }

    #[test]
    fn decisions_follow_iam_evaluation_logic() {
        let read_only = doc(json!([{
            "Effect": "Allow",
            "Action": ["dynamodb:GetItem", "dynamodb:Query"],
            "Resource": [TABLE, format!("{TABLE}/index/*")]
        }]));
        let wildcard = doc(json!([{"Effect": "Allow", "Action": "dynamodb:*", "Resource": "*"}]));
        let deny_delete =
            doc(json!([{"Effect": "Deny", "Action": "dynamodb:DeleteItem", "Resource": TABLE}]));
        let not_action =
            doc(json!([{"Effect": "Allow", "NotAction": "dynamodb:Delete*", "Resource": "*"}]));
        let not_resource =
            doc(json!([{"Effect": "Deny", "Action": "sqs:*", "NotResource": QUEUE}]));
        let functions = doc(
            json!([{"Effect": "Allow", "Action": "lambda:InvokeFunction", "Resource": [FUNCTION, format!("{FUNCTION}:*")]}]),
        );
        let sqs_all = doc(json!([{"Effect": "Allow", "Action": "sqs:*", "Resource": "*"}]));
        use Decision::*;
        let cases: Vec<(&str, Vec<&PolicyDocument>, &str, String, Decision)> = vec![
            (
                "no policy at all",
                vec![],
                "dynamodb:GetItem",
                TABLE.into(),
                ImplicitDeny,
            ),
            (
                "listed action on the table",
                vec![&read_only],
                "dynamodb:GetItem",
                TABLE.into(),
                Allow,
            ),
            (
                "action names ignore case",
                vec![&read_only],
                "DynamoDB:getitem",
                TABLE.into(),
                Allow,
            ),
            (
                "unlisted action",
                vec![&read_only],
                "dynamodb:PutItem",
                TABLE.into(),
                ImplicitDeny,
            ),
            (
                "an index by its wildcard",
                vec![&read_only],
                "dynamodb:Query",
                INDEX.into(),
                Allow,
            ),
            (
                "another table",
                vec![&read_only],
                "dynamodb:GetItem",
                TABLE.replace("Users", "Orders"),
                ImplicitDeny,
            ),
            (
                "resource ARNs keep case",
                vec![&read_only],
                "dynamodb:GetItem",
                TABLE.replace("Users", "users"),
                ImplicitDeny,
            ),
            (
                "wildcard",
                vec![&wildcard],
                "dynamodb:DeleteItem",
                TABLE.into(),
                Allow,
            ),
            (
                "explicit deny beats allow",
                vec![&wildcard, &deny_delete],
                "dynamodb:DeleteItem",
                TABLE.into(),
                ExplicitDeny,
            ),
            (
                "deny of another action",
                vec![&wildcard, &deny_delete],
                "dynamodb:PutItem",
                TABLE.into(),
                Allow,
            ),
            (
                "deny alone is no allow",
                vec![&deny_delete],
                "dynamodb:GetItem",
                TABLE.into(),
                ImplicitDeny,
            ),
            (
                "NotAction allows the others",
                vec![&not_action],
                "dynamodb:PutItem",
                TABLE.into(),
                Allow,
            ),
            (
                "NotAction excludes",
                vec![&not_action],
                "dynamodb:DeleteItem",
                TABLE.into(),
                ImplicitDeny,
            ),
            (
                "NotResource deny spares the queue",
                vec![&sqs_all, &not_resource],
                "sqs:SendMessage",
                QUEUE.into(),
                Allow,
            ),
            (
                "NotResource deny hits others",
                vec![&sqs_all, &not_resource],
                "sqs:SendMessage",
                format!("{QUEUE}-2"),
                ExplicitDeny,
            ),
            (
                "unqualified function",
                vec![&functions],
                "lambda:InvokeFunction",
                FUNCTION.into(),
                Allow,
            ),
            (
                "qualified function",
                vec![&functions],
                "lambda:InvokeFunction",
                format!("{FUNCTION}:live"),
                Allow,
            ),
            (
                "a function with the same prefix",
                vec![&functions],
                "lambda:InvokeFunction",
                format!("{FUNCTION}2"),
                ImplicitDeny,
            ),
        ];
        for (what, policies, action, resource, want) in cases {
            let policies: Vec<PolicyDocument> = policies.into_iter().cloned().collect();
            assert_eq!(
                evaluate(&policies, &Request::new(action, resource)),
                want,
                "{what}"
            );
        }
    }

    #[test]
    fn conditions_gate_statements() {
        let regional = doc(json!([{
            "Effect": "Allow",
            "Action": "sqs:SendMessage",
            "Resource": "*",
            "Condition": {"StringEquals": {"aws:RequestedRegion": "us-east-1"}}
        }]));
        let here = Request {
            context: Context::default().with("aws:RequestedRegion", "us-east-1"),
            ..Request::new("sqs:SendMessage", QUEUE)
        };
        let there = Request {
            context: Context::default().with("aws:RequestedRegion", "eu-west-1"),
            ..Request::new("sqs:SendMessage", QUEUE)
        };
        assert_eq!(
            evaluate(std::slice::from_ref(&regional), &here),
            Decision::Allow
        );
        assert_eq!(evaluate(&[regional], &there), Decision::ImplicitDeny);
    }
}
