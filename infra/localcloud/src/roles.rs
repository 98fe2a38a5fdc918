//! Each function's execution role as SAM creates it: `{Function}Role`,
//! with `AWSLambdaBasicExecutionRole`, the function's `Policies` (SAM policy
//! templates, AWS managed policies, inline documents) and what SAM adds for
//! its event sources (`AWSLambdaSQSQueueExecutionRole` for SQS events).
//! https://docs.aws.amazon.com/serverless-application-model/latest/developerguide/sam-resource-function.html#sam-function-policies

use localcloud_iam::sam::{managed_policy, policy_template, Scope};
use localcloud_iam::{NamedPolicy, PolicyDocument, Role};
use localcloud_template::{Function, PolicySource};
use serde_json::Value;

use crate::stack_error::StackError;

/// The role SAM generates for `function`, named as the template reader
/// names `{Function}Role` (`{stack}-{Function}Role`, at most 64 characters).
pub fn execution_role(
    function: &Function,
    stack_name: &str,
    scope: &Scope,
) -> Result<Role, StackError> {
    let error = |message: String| StackError::Policy {
        function: function.logical_id.clone(),
        message,
    };
    let managed = |name: &str, source: String| NamedPolicy {
        source,
        document: managed_policy(name).expect("a managed policy the local cloud knows"),
    };
    let mut policies = vec![managed(
        "AWSLambdaBasicExecutionRole",
        "AWSLambdaBasicExecutionRole (added by SAM)".into(),
    )];
    for (i, policy) in function.policies.iter().enumerate() {
        match &policy.source {
            PolicySource::Template(name) => {
                let params = policy.document.get(name).cloned().unwrap_or(Value::Null);
                match policy_template(name, &params, scope) {
                    Some(Ok(document)) => policies.push(NamedPolicy {
                        source: format!("{name} {}", compact(&params)),
                        document,
                    }),
                    Some(Err(e)) => return Err(error(format!("Policies[{i}]: {}", e.message))),
                    None => tracing::warn!(
                        "function {}: policy template {name} is unknown to the local cloud; it grants nothing here",
                        function.logical_id
                    ),
                }
            }
            PolicySource::Managed(name) => match managed_policy(name) {
                Some(document) => policies.push(NamedPolicy {
                    source: name.clone(),
                    document,
                }),
                None => tracing::warn!(
                    "function {}: managed policy {name} is unknown to the local cloud; it grants nothing here",
                    function.logical_id
                ),
            },
            PolicySource::Inline => {
                let document = PolicyDocument::parse(&policy.document)
                    .map_err(|e| error(format!("Policies[{i}]: {e}")))?;
                policies.push(NamedPolicy {
                    source: format!("inline policy {i}"),
                    document,
                });
            }
        }
    }
    if !function.sqs_events.is_empty() {
        policies.push(managed(
            "AWSLambdaSQSQueueExecutionRole",
            "AWSLambdaSQSQueueExecutionRole (added by SAM for the SQS events)".into(),
        ));
    }
    Ok(Role {
        name: format!("{stack_name}-{}Role", function.logical_id)
            .chars()
            .take(64)
            .collect(),
        account: scope.account.to_string(),
        policies,
    })
}

fn compact(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}
