//! A function's `Policies`: SAM policy templates, managed policies and inline
//! statements, reduced to which tables, queues and functions they grant.

use serde_json::Value;

use crate::diag::{At, Diags};
use crate::scope::as_text;
use crate::yaml::Node;

#[derive(Debug, Clone, PartialEq)]
pub struct Policy {
    pub source: PolicySource,
    /// What the policy allows (and denies), as far as the local cloud can
    /// tell; IAM `Condition`s are not taken into account.
    pub grants: Vec<Grant>,
    /// The policy item as written, with intrinsics resolved.
    pub document: Value,
}

#[derive(Debug, Clone, PartialEq)]
pub enum PolicySource {
    /// A SAM policy template, e.g. `DynamoDBCrudPolicy`.
    Template(String),
    /// A managed policy name or ARN.
    Managed(String),
    /// A policy document with `Statement`s.
    Inline,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Grant {
    pub allow: bool,
    /// As written, e.g. `dynamodb:GetItem`, `sqs:SendMessage*`, `dynamodb:*`.
    pub actions: Vec<String>,
    pub target: Target,
}

/// What a grant applies to. Names may hold `*` wildcards, as in the ARN.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// A table; `index` is `Some` for `table/{name}/index/{index}` ARNs.
    Table {
        name: String,
        index: Option<String>,
    },
    Queue(String),
    Function(String),
    /// Any other ARN, or `*`.
    Other(String),
}

impl Target {
    pub fn table(name: &str) -> Target {
        Target::Table {
            name: name.to_string(),
            index: None,
        }
    }

    /// Reads an ARN (wildcards allowed) as a target.
    pub fn from_arn(arn: &str) -> Target {
        let parts: Vec<&str> = arn.splitn(6, ':').collect();
        let other = || Target::Other(arn.to_string());
        let [_, _, service, _, _, resource] = parts.as_slice() else {
            return other();
        };
        match *service {
            "dynamodb" => match resource.strip_prefix("table/") {
                Some(rest) => match rest.split_once("/index/") {
                    Some((name, index)) => Target::Table {
                        name: name.to_string(),
                        index: Some(index.to_string()),
                    },
                    None if !rest.contains('/') => Target::table(rest),
                    None => other(),
                },
                None => other(),
            },
            "sqs" => Target::Queue(resource.to_string()),
            "lambda" => match resource.strip_prefix("function:") {
                Some(f) => Target::Function(f.split(':').next().unwrap_or(f).to_string()),
                None => other(),
            },
            _ => other(),
        }
    }
}

impl Grant {
    /// True when this allow-grant applies to `target` (wildcards honoured).
    pub fn covers(&self, target: &Target) -> bool {
        if !self.allow {
            return false;
        }
        match (&self.target, target) {
            (Target::Other(pattern), _) if pattern == "*" => true,
            (Target::Table { name: p, index: pi }, Target::Table { name: n, index: ni }) => {
                glob(p, n)
                    && match (pi, ni) {
                        (None, None) => true,
                        (Some(pi), Some(ni)) => glob(pi, ni),
                        _ => false,
                    }
            }
            (Target::Queue(p), Target::Queue(n)) | (Target::Function(p), Target::Function(n)) => {
                glob(p, n)
            }
            (Target::Other(p), Target::Other(n)) => glob(p, n),
            _ => false,
        }
    }
}

/// `*` matches any run of characters, `?` any one.
fn glob(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    let (mut pi, mut ti, mut star, mut mark) = (0, 0, None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

const DYNAMODB_READ: &[&str] = &[
    "dynamodb:GetItem",
    "dynamodb:Scan",
    "dynamodb:Query",
    "dynamodb:BatchGetItem",
    "dynamodb:DescribeTable",
];
const DYNAMODB_WRITE: &[&str] = &[
    "dynamodb:PutItem",
    "dynamodb:UpdateItem",
    "dynamodb:BatchWriteItem",
];
const DYNAMODB_CRUD: &[&str] = &[
    "dynamodb:GetItem",
    "dynamodb:DeleteItem",
    "dynamodb:PutItem",
    "dynamodb:Scan",
    "dynamodb:Query",
    "dynamodb:UpdateItem",
    "dynamodb:BatchWriteItem",
    "dynamodb:BatchGetItem",
    "dynamodb:DescribeTable",
    "dynamodb:ConditionCheckItem",
];
const SQS_POLLER: &[&str] = &[
    "sqs:ChangeMessageVisibility",
    "sqs:ChangeMessageVisibilityBatch",
    "sqs:DeleteMessage",
    "sqs:DeleteMessageBatch",
    "sqs:GetQueueAttributes",
    "sqs:ReceiveMessage",
];

/// The statements of a SAM policy template, as in SAM's policy_templates.json.
fn template_grants(template: &str, params: &Value) -> Option<Result<Vec<Grant>, String>> {
    let (param, actions) = match template {
        "DynamoDBCrudPolicy" => ("TableName", DYNAMODB_CRUD),
        "DynamoDBReadPolicy" => ("TableName", DYNAMODB_READ),
        "DynamoDBWritePolicy" => ("TableName", DYNAMODB_WRITE),
        "SQSPollerPolicy" => ("QueueName", SQS_POLLER),
        "SQSSendMessagePolicy" => ("QueueName", &["sqs:SendMessage*"][..]),
        "LambdaInvokePolicy" => ("FunctionName", &["lambda:InvokeFunction"][..]),
        _ => return None,
    };
    let Some(value) = params.get(param).and_then(as_text) else {
        return Some(Err(format!("{template} needs the parameter {param}")));
    };
    let grant = |target| Grant {
        allow: true,
        actions: actions.iter().map(|a| a.to_string()).collect(),
        target,
    };
    Some(Ok(match param {
        "TableName" => vec![
            grant(Target::table(&value)),
            grant(Target::Table {
                name: value,
                index: Some("*".into()),
            }),
        ],
        "QueueName" => vec![grant(Target::Queue(value))],
        _ => vec![grant(Target::Function(format!("{value}*")))],
    }))
}

/// Managed policies whose grants matter for least privilege: broad ones.
fn managed_grants(name: &str) -> Vec<Grant> {
    let short = name.rsplit('/').next().unwrap_or(name);
    let action = match short {
        "AmazonDynamoDBFullAccess" => "dynamodb:*",
        "AmazonSQSFullAccess" => "sqs:*",
        "AWSLambda_FullAccess" | "AWSLambdaFullAccess" => "lambda:*",
        "AdministratorAccess" => "*",
        _ => return Vec::new(),
    };
    vec![Grant {
        allow: true,
        actions: vec![action.to_string()],
        target: Target::Other("*".into()),
    }]
}

/// Reads one resolved `Policies` item (`line` is where it starts).
pub(crate) fn policy(item: Value, line: usize, at: &At, diags: &mut Diags) -> Option<Policy> {
    let (source, grants) = source_and_grants(&item, line, at, diags)?;
    Some(Policy {
        source,
        grants,
        document: item,
    })
}

fn source_and_grants(
    item: &Value,
    line: usize,
    at: &At,
    diags: &mut Diags,
) -> Option<(PolicySource, Vec<Grant>)> {
    match item {
        Value::String(name) => Some((PolicySource::Managed(name.clone()), managed_grants(name))),
        Value::Object(map) if map.contains_key("Statement") => {
            let statements = match &map["Statement"] {
                Value::Array(items) => items.clone(),
                single => vec![single.clone()],
            };
            let mut grants = Vec::new();
            for s in &statements {
                match statement(s) {
                    Ok(g) => grants.extend(g),
                    Err(m) => diags.error(at, line, m),
                }
            }
            Some((PolicySource::Inline, grants))
        }
        Value::Object(map) if map.len() == 1 => {
            let (name, params) = map.iter().next()?;
            let source = PolicySource::Template(name.clone());
            match template_grants(name, params) {
                Some(Ok(grants)) => Some((source, grants)),
                Some(Err(m)) => {
                    diags.error(at, line, m);
                    None
                }
                None => {
                    let m = format!(
                        "policy template {name} is not interpreted locally; its grants are unknown"
                    );
                    diags.warn(at, line, m);
                    Some((source, Vec::new()))
                }
            }
        }
        _ => {
            let m = "a policy is a name, a policy template or a Statement document";
            diags.error(at, line, m);
            None
        }
    }
}

fn statement(s: &Value) -> Result<Vec<Grant>, String> {
    let strings = |v: Option<&Value>| -> Option<Vec<String>> {
        match v? {
            Value::Array(items) => items.iter().map(as_text).collect(),
            v => as_text(v).map(|s| vec![s]),
        }
    };
    // What a NotAction or NotResource statement grants is no list of
    // targets; IAM evaluates it (localcloud-iam), least privilege ignores it.
    if s.get("NotAction").is_some() || s.get("NotResource").is_some() {
        return Ok(Vec::new());
    }
    let allow = match s.get("Effect").and_then(Value::as_str) {
        Some("Allow") => true,
        Some("Deny") => false,
        _ => return Err("a statement needs Effect Allow or Deny".into()),
    };
    let actions = strings(s.get("Action")).ok_or("a statement needs Action")?;
    let resources = strings(s.get("Resource")).ok_or("a statement needs Resource")?;
    Ok(resources
        .iter()
        .map(|arn| Grant {
            allow,
            actions: actions.clone(),
            target: Target::from_arn(arn),
        })
        .collect())
}

/// The items of `Policies` (a single item or a list), with their lines.
pub(crate) fn items(node: &Node) -> Vec<&Node> {
    match node.seq() {
        Some(items) => items.iter().collect(),
        None => vec![node],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_matches_prefix_wildcards() {
        assert!(glob("local-Fn*", "local-Fn"));
        assert!(glob("*", "anything"));
        assert!(!glob("Orders", "OrdersArchive"));
    }

    #[test]
    fn arn_of_an_index_is_an_index_target() {
        let t = Target::from_arn("arn:aws:dynamodb:us-east-1:0:table/Users/index/*");
        assert_eq!(
            t,
            Target::Table {
                name: "Users".into(),
                index: Some("*".into())
            }
        );
    }
}
