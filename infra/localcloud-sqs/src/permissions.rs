//! `AddPermission` and `RemovePermission`: as on AWS they edit the queue's
//! `Policy` attribute, one statement per label (its `Sid`). The policy is
//! stored and answered by GetQueueAttributes, never evaluated (docs/iam.md).
//! https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_AddPermission.html

use serde_json::{json, Map, Value};

use crate::error;
use localcloud_core::AwsError;

/// The actions AddPermission grants (the batch actions come with their
/// single-message ones).
const ACTIONS: [&str; 9] = [
    "*",
    "ChangeMessageVisibility",
    "DeleteMessage",
    "GetQueueAttributes",
    "GetQueueUrl",
    "ListDeadLetterSourceQueues",
    "PurgeQueue",
    "ReceiveMessage",
    "SendMessage",
];

const MAX_ACTIONS: usize = 7;

/// What one AddPermission call grants.
pub struct Permission<'a> {
    pub label: &'a str,
    pub account_ids: &'a [String],
    pub actions: &'a [String],
}

fn label_error(label: &str, reason: &str) -> AwsError {
    error::invalid_parameter_value(format!(
        "Value {label} for parameter Label is invalid. Reason: {reason}"
    ))
}

/// 1 to 80 letters, digits, hyphens and underscores: what SQS allows in a
/// permission label and in a batch entry id.
pub(crate) fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 80
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn check_label(label: &str) -> Result<(), AwsError> {
    if !valid_id(label) {
        return Err(label_error(
            label,
            "Must be shorter than 80 chars and only contain alphanumeric characters, hyphens and underscores.",
        ));
    }
    Ok(())
}

impl Permission<'_> {
    fn check(&self) -> Result<(), AwsError> {
        check_label(self.label)?;
        if self.actions.is_empty() {
            return Err(error::missing_parameter("Actions"));
        }
        if self.account_ids.is_empty() {
            return Err(error::invalid_parameter_value(
                "Value [] for parameter PrincipalId is invalid. Reason: Unable to verify.",
            ));
        }
        if self.actions.len() > MAX_ACTIONS {
            return Err(error::over_limit(format!(
                "{} Actions were found, maximum allowed is {MAX_ACTIONS}.",
                self.actions.len()
            )));
        }
        if let Some(bad) = self.actions.iter().find(|a| !ACTIONS.contains(&a.as_str())) {
            return Err(error::invalid_parameter_value(format!(
                "Value SQS:{bad} for parameter ActionName is invalid. Reason: Only the queue owner is allowed to invoke this action."
            )));
        }
        Ok(())
    }

    /// The statement AWS writes: one principal or action as a string,
    /// several as a list.
    fn statement(&self, queue_arn: &str) -> Value {
        let one_or_list = |items: Vec<String>| match items.as_slice() {
            [one] => json!(one),
            _ => json!(items),
        };
        let principals = self
            .account_ids
            .iter()
            .map(|id| format!("arn:aws:iam::{id}:root"))
            .collect();
        let actions = self.actions.iter().map(|a| format!("SQS:{a}")).collect();
        json!({
            "Sid": self.label,
            "Effect": "Allow",
            "Principal": {"AWS": one_or_list(principals)},
            "Action": one_or_list(actions),
            "Resource": queue_arn,
        })
    }
}

fn not_a_policy() -> AwsError {
    error::invalid_parameter_value(
        "The queue's Policy attribute is not a policy document with a Statement list.",
    )
}

/// A stored policy: a JSON object (its `Statement` list is checked where used).
fn parse(policy: &str) -> Result<Map<String, Value>, AwsError> {
    match serde_json::from_str::<Value>(policy) {
        Ok(Value::Object(doc)) => Ok(doc),
        _ => Err(not_a_policy()),
    }
}

/// The policy after AddPermission: `policy` (or a new one named after the
/// queue) with a statement for the label, which must be new.
pub fn add(
    policy: Option<&str>,
    queue_arn: &str,
    permission: &Permission,
) -> Result<String, AwsError> {
    permission.check()?;
    let mut doc = match policy {
        Some(text) => parse(text)?,
        None => Map::from_iter([
            ("Version".to_string(), json!("2012-10-17")),
            (
                "Id".to_string(),
                json!(format!("{queue_arn}/SQSDefaultPolicy")),
            ),
            ("Statement".to_string(), json!([])),
        ]),
    };
    let Some(Value::Array(list)) = doc.get_mut("Statement") else {
        return Err(not_a_policy());
    };
    if list.iter().any(|s| s["Sid"] == permission.label) {
        return Err(label_error(permission.label, "Already exists."));
    }
    list.push(permission.statement(queue_arn));
    Ok(Value::Object(doc).to_string())
}

/// The policy after RemovePermission: without the label's statement;
/// `None` once no statement is left (the queue then has no Policy).
pub fn remove(policy: Option<&str>, label: &str) -> Result<Option<String>, AwsError> {
    let not_found = || label_error(label, "can't find label on existing policy.");
    let mut doc = parse(policy.ok_or_else(not_found)?)?;
    let Some(Value::Array(list)) = doc.get_mut("Statement") else {
        return Err(not_a_policy());
    };
    let before = list.len();
    list.retain(|s| s["Sid"] != label);
    if list.len() == before {
        return Err(not_found());
    }
    if list.is_empty() {
        return Ok(None);
    }
    Ok(Some(Value::Object(doc).to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ARN: &str = "arn:aws:sqs:us-east-1:000000000000:q";

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn each_label_is_a_statement_of_the_queue_policy() {
        let (one, two) = (strings(&["111122223333"]), strings(&["SendMessage"]));
        let first = add(
            None,
            ARN,
            &Permission {
                label: "send",
                account_ids: &one,
                actions: &two,
            },
        )
        .unwrap();
        let doc: Value = serde_json::from_str(&first).unwrap();
        assert_eq!(doc["Id"], format!("{ARN}/SQSDefaultPolicy"));
        assert_eq!(
            doc["Statement"][0],
            json!({"Sid": "send", "Effect": "Allow",
                   "Principal": {"AWS": "arn:aws:iam::111122223333:root"},
                   "Action": "SQS:SendMessage", "Resource": ARN})
        );
        let (accounts, actions) = (
            strings(&["111122223333", "444455556666"]),
            strings(&["ReceiveMessage", "DeleteMessage"]),
        );
        let both = add(
            Some(&first),
            ARN,
            &Permission {
                label: "consume",
                account_ids: &accounts,
                actions: &actions,
            },
        )
        .unwrap();
        let doc: Value = serde_json::from_str(&both).unwrap();
        assert_eq!(
            doc["Statement"][1]["Action"],
            json!(["SQS:ReceiveMessage", "SQS:DeleteMessage"])
        );

        let again = add(
            Some(&both),
            ARN,
            &Permission {
                label: "send",
                account_ids: &one,
                actions: &two,
            },
        )
        .unwrap_err();
        assert!(
            again.message.contains("Already exists"),
            "{}",
            again.message
        );

        let without_send = remove(Some(&both), "send").unwrap().unwrap();
        assert!(!without_send.contains("\"send\""));
        assert_eq!(remove(Some(&without_send), "consume").unwrap(), None);
        let unknown = remove(Some(&without_send), "nope").unwrap_err();
        assert!(
            unknown.message.contains("can't find label"),
            "{}",
            unknown.message
        );
        assert_eq!(
            remove(None, "send").unwrap_err().code(),
            "InvalidParameterValue"
        );
    }

    #[test]
    fn bad_permissions_are_refused_with_sqs_errors() {
        let accounts = strings(&["111122223333"]);
        let send = strings(&["SendMessage"]);
        let check = |label: &str, account_ids: &[String], actions: &[String]| {
            Permission {
                label,
                account_ids,
                actions,
            }
            .check()
            .unwrap_err()
            .code()
            .to_string()
        };
        assert_eq!(
            check("bad label!", &accounts, &send),
            "InvalidParameterValue"
        );
        assert_eq!(check("l", &accounts, &[]), "MissingParameter");
        assert_eq!(check("l", &[], &send), "InvalidParameterValue");
        assert_eq!(
            check("l", &accounts, &strings(&["CreateQueue"])),
            "InvalidParameterValue"
        );
        assert_eq!(
            check("l", &accounts, &strings(&["SendMessage"; 8])),
            "OverLimit"
        );
        assert_eq!(
            add(
                Some("not json"),
                ARN,
                &Permission {
                    label: "l",
                    account_ids: &accounts,
                    actions: &send
                }
            )
            .unwrap_err()
            .code(),
            "InvalidParameterValue"
        );
    }
}
