//! A function's `Policies`: SAM policy templates, managed policies and inline
//! statements, reduced to which tables, queues and functions they grant.
//! The documents are IAM's (`localcloud_iam`: SAM's policy templates, the
//! managed policies, the statement grammar), read here as targets.

use localcloud_iam::glob::{matches, matches_ignore_case};
use localcloud_iam::sam::{managed_policy, policy_template, Scope};
use localcloud_iam::{Effect, Names, PolicyDocument};
use serde_json::Value;

use crate::diag::{At, Diags};
use crate::yaml::Node;

/// Any region and account: a grant's target is read from the ARN without
/// them.
const ANY_SCOPE: Scope<'static> = Scope {
    region: "us-east-1",
    account: "000000000000",
};

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

    /// Whether `action` (a pattern as written) can be one of this target's
    /// service's: `dynamodb:` on a table, `sqs:` on a queue, `lambda:` on a
    /// function, any on another resource.
    pub fn may_be_acted_on_by(&self, action: &str) -> bool {
        let service = match self {
            Target::Table { .. } => "dynamodb",
            Target::Queue(_) => "sqs",
            Target::Function(_) => "lambda",
            Target::Other(_) => return true,
        };
        let prefix = action.split(':').next().unwrap_or(action);
        action == "*" || matches_ignore_case(prefix, service)
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
                matches(p, n)
                    && match (pi, ni) {
                        (None, None) => true,
                        (Some(pi), Some(ni)) => matches(pi, ni),
                        _ => false,
                    }
            }
            (Target::Queue(p), Target::Queue(n)) | (Target::Function(p), Target::Function(n)) => {
                matches(p, n)
            }
            (Target::Other(p), Target::Other(n)) => matches(p, n),
            _ => false,
        }
    }
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
        Value::String(name) => {
            let grants = managed_policy(name).map_or_else(Vec::new, |d| grants_of(&d));
            Some((PolicySource::Managed(name.clone()), grants))
        }
        Value::Object(map) if map.contains_key("Statement") => {
            // A malformed document grants nothing here; the local cloud
            // refuses the stack when it builds the function's role
            // (`function F: Policies[i]: ...`), the one place that says so.
            let grants = PolicyDocument::parse(item).map_or_else(|_| Vec::new(), |d| grants_of(&d));
            Some((PolicySource::Inline, grants))
        }
        Value::Object(map) if map.len() == 1 => {
            let (name, params) = map.iter().next()?;
            let source = PolicySource::Template(name.clone());
            match policy_template(name, params, &ANY_SCOPE) {
                Some(Ok(document)) => Some((source, grants_of(&document))),
                Some(Err(e)) => {
                    diags.error(at, line, e.message);
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

/// A document's statements as grants, one per resource. What a `NotAction`
/// or `NotResource` statement grants is no list of targets; IAM evaluates it
/// (localcloud-iam), least privilege ignores it.
fn grants_of(document: &PolicyDocument) -> Vec<Grant> {
    document
        .statements
        .iter()
        .filter_map(|s| match (&s.action, &s.resource) {
            (Names::Only(actions), Names::Only(resources)) => Some((s.effect, actions, resources)),
            _ => None,
        })
        .flat_map(|(effect, actions, resources)| {
            resources.iter().map(move |arn| Grant {
                allow: effect == Effect::Allow,
                actions: actions.clone(),
                target: Target::from_arn(arn),
            })
        })
        .collect()
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
    fn grants_cover_their_targets_with_prefix_wildcards() {
        let grant = |target| Grant {
            allow: true,
            actions: vec!["lambda:InvokeFunction".into()],
            target,
        };
        let function = |name: &str| Target::Function(name.into());
        assert!(grant(function("local-Fn*")).covers(&function("local-Fn")));
        assert!(grant(Target::Other("*".into())).covers(&function("anything")));
        assert!(!grant(function("Orders")).covers(&function("OrdersArchive")));
        assert!(!grant(Target::Queue("Orders".into())).covers(&function("Orders")));
    }

    #[test]
    fn a_target_is_acted_on_by_its_own_service_s_actions_only() {
        let table = Target::table("T");
        assert!(table.may_be_acted_on_by("dynamodb:GetItem"));
        assert!(table.may_be_acted_on_by("DynamoDB:*"));
        assert!(table.may_be_acted_on_by("*"));
        assert!(!table.may_be_acted_on_by("logs:PutLogEvents"));
        assert!(!Target::Queue("q".into()).may_be_acted_on_by("dynamodb:GetItem"));
        assert!(Target::Other("*".into()).may_be_acted_on_by("logs:PutLogEvents"));
    }

    #[test]
    fn sam_templates_grant_what_iam_documents_say() {
        let (source, grants) = source_and_grants(
            &serde_json::json!({"DynamoDBReadPolicy": {"TableName": "T"}}),
            1,
            &At::default(),
            &mut Diags::default(),
        )
        .unwrap();
        assert_eq!(source, PolicySource::Template("DynamoDBReadPolicy".into()));
        let targets: Vec<&Target> = grants.iter().map(|g| &g.target).collect();
        assert_eq!(
            targets,
            [
                &Target::table("T"),
                &Target::Table {
                    name: "T".into(),
                    index: Some("*".into())
                }
            ]
        );
        assert!(grants[0].actions.contains(&"dynamodb:Query".to_string()));
        assert!(!grants[0].actions.contains(&"dynamodb:PutItem".to_string()));
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
