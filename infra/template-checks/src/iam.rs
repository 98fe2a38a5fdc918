//! Least privilege: compares each function's grants, as the template reader
//! resolves them, with a table of what its code needs.
//!
//! Tables are compared by table: a grant on a table's indexes counts as a
//! grant on the table. Batch calls (`DeleteMessageBatch`) are authorised by
//! the single action (`sqs:DeleteMessage`), as in IAM, so needs list the
//! single action only.

use std::fmt;

use localcloud_template::{Application, Function, Grant, Target};

/// What one function's code calls, by resource.
#[derive(Debug, Clone, Copy)]
pub struct Needs {
    /// Logical id of the function.
    pub function: &'static str,
    pub uses: &'static [Use],
}

/// Actions on one resource. An action may end with `*` where the SAM policy
/// template grants it so (`sqs:SendMessage*`); anything broader is extra.
#[derive(Debug, Clone, Copy)]
pub struct Use {
    pub resource: Resource,
    pub actions: &'static [&'static str],
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Resource {
    /// Logical ids of template resources.
    Table(&'static str),
    Queue(&'static str),
    Function(&'static str),
    /// Queues the code creates at run time, by name pattern; `{stack}` is
    /// the stack name.
    QueuePattern(&'static str),
    /// `*`, for actions IAM cannot scope to a resource (`sqs:ListQueues`).
    Any,
}

/// One way a function's grants differ from its needs.
#[derive(Debug, Clone, PartialEq)]
pub enum Violation {
    /// The template has a function the needs table does not list.
    Unlisted { function: String },
    /// The needs table lists a function or resource the template lacks.
    Stale { function: String, what: String },
    Extra {
        function: String,
        on: String,
        actions: Vec<String>,
    },
    Missing {
        function: String,
        on: String,
        actions: Vec<String>,
    },
    WildcardAction {
        function: String,
        on: String,
        action: String,
    },
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Violation::Unlisted { function } => write!(
                f,
                "{function}: not in the needs table; add what its code calls"
            ),
            Violation::Stale { function, what } => {
                write!(
                    f,
                    "{function}: the needs table names {what}, which the template lacks"
                )
            }
            Violation::Extra {
                function,
                on,
                actions,
            } => write!(f, "{function}: extra grant of {actions:?} on {on}"),
            Violation::Missing {
                function,
                on,
                actions,
            } => write!(
                f,
                "{function}: needs {actions:?} on {on} but is not granted it"
            ),
            Violation::WildcardAction {
                function,
                on,
                action,
            } => write!(f, "{function}: wildcard action {action} on {on}"),
        }
    }
}

/// Every difference between the template's grants and `needs`.
pub fn check(app: &Application, stack_name: &str, needs: &[Needs]) -> Vec<Violation> {
    let mut violations = Vec::new();
    for n in needs {
        if app.function(n.function).is_none() {
            violations.push(Violation::Stale {
                function: n.function.into(),
                what: "the function itself".into(),
            });
        }
    }
    for function in &app.functions {
        match needs.iter().find(|n| n.function == function.logical_id) {
            Some(n) => check_function(app, stack_name, function, n.uses, &mut violations),
            None => violations.push(Violation::Unlisted {
                function: function.logical_id.clone(),
            }),
        }
    }
    violations
}

/// A resource as a target the grants can be matched against.
struct Resolved {
    label: String,
    target: Target,
}

fn check_function(
    app: &Application,
    stack_name: &str,
    function: &Function,
    uses: &[Use],
    out: &mut Vec<Violation>,
) {
    let id = &function.logical_id;
    let mut resolved_uses = Vec::new();
    for u in uses {
        match resolve(app, stack_name, u.resource) {
            Some(r) => resolved_uses.push((r, u.actions)),
            None => out.push(Violation::Stale {
                function: id.clone(),
                what: format!("{:?}", u.resource),
            }),
        }
    }
    for grant in function.policies.iter().flat_map(|p| &p.grants) {
        if grant.allow {
            check_grant(app, id, grant, &resolved_uses, out);
        }
    }
    for (r, actions) in &resolved_uses {
        let granted = function.actions_on(&r.target);
        let missing: Vec<String> = actions
            .iter()
            .filter(|a| !granted.iter().any(|g| action_matches(g, a)))
            .map(|a| a.to_string())
            .collect();
        if !missing.is_empty() {
            out.push(Violation::Missing {
                function: id.clone(),
                on: r.label.clone(),
                actions: missing,
            });
        }
    }
}

fn check_grant(
    app: &Application,
    id: &str,
    grant: &Grant,
    uses: &[(Resolved, &[&str])],
    out: &mut Vec<Violation>,
) {
    // The template's resources this grant reaches; a grant on `*` or on a
    // run-time pattern is judged as that resource itself.
    let mut reached: Vec<Resolved> = if grant.target == Target::Other("*".into()) {
        Vec::new()
    } else {
        template_resources(app)
            .into_iter()
            .filter(|r| grant.covers(&probe(&r.target, &grant.target)))
            .collect()
    };
    if reached.is_empty() {
        reached.push(Resolved {
            label: describe(&grant.target),
            target: grant.target.clone(),
        });
    }
    for r in reached {
        let allowed: &[&str] = uses
            .iter()
            .find(|(u, _)| u.target == r.target)
            .map(|(_, actions)| *actions)
            .unwrap_or(&[]);
        let extra: Vec<String> = grant
            .actions
            .iter()
            .filter(|a| !allowed.iter().any(|n| n.eq_ignore_ascii_case(a)))
            .cloned()
            .collect();
        for action in grant.actions.iter().filter(|a| is_wildcard(a)) {
            out.push(Violation::WildcardAction {
                function: id.into(),
                on: r.label.clone(),
                action: action.clone(),
            });
        }
        if !extra.is_empty() {
            out.push(Violation::Extra {
                function: id.into(),
                on: r.label.clone(),
                actions: extra,
            });
        }
    }
}

/// `*`, `dynamodb:*`, `sqs:*`: every action of a service.
fn is_wildcard(action: &str) -> bool {
    action == "*" || action.ends_with(":*")
}

/// A grant on a table's index reaches the table: probe with the grant's index.
fn probe(resource: &Target, grant: &Target) -> Target {
    match (resource, grant) {
        (Target::Table { name, .. }, Target::Table { index, .. }) => Target::Table {
            name: name.clone(),
            index: index.clone(),
        },
        _ => resource.clone(),
    }
}

fn template_resources(app: &Application) -> Vec<Resolved> {
    let tables = app.tables.iter().map(|t| Resolved {
        label: format!("table {}", t.logical_id),
        target: Target::table(&t.name),
    });
    let queues = app.queues.iter().map(|q| Resolved {
        label: format!("queue {}", q.logical_id),
        target: Target::Queue(q.name.clone()),
    });
    let functions = app.functions.iter().map(|f| Resolved {
        label: format!("function {}", f.logical_id),
        target: Target::Function(f.name.clone()),
    });
    tables.chain(queues).chain(functions).collect()
}

fn resolve(app: &Application, stack_name: &str, resource: Resource) -> Option<Resolved> {
    let (label, target) = match resource {
        Resource::Table(id) => (format!("table {id}"), Target::table(&app.table(id)?.name)),
        Resource::Queue(id) => (
            format!("queue {id}"),
            Target::Queue(app.queue(id)?.name.clone()),
        ),
        Resource::Function(id) => (
            format!("function {id}"),
            Target::Function(app.function(id)?.name.clone()),
        ),
        Resource::QueuePattern(p) => {
            let name = p.replace("{stack}", stack_name);
            (format!("queues {name}"), Target::Queue(name))
        }
        Resource::Any => ("*".to_string(), Target::Other("*".into())),
    };
    Some(Resolved { label, target })
}

fn describe(target: &Target) -> String {
    match target {
        Target::Table { name, .. } => format!("table {name} (not in the template)"),
        Target::Queue(name) => format!("queues {name}"),
        Target::Function(name) => format!("function {name} (not in the template)"),
        Target::Other(arn) => arn.clone(),
    }
}

/// True when the granted action (which may end in `*`) allows `needed`.
fn action_matches(granted: &str, needed: &str) -> bool {
    let (g, n) = (granted.to_ascii_lowercase(), needed.to_ascii_lowercase());
    match g.strip_suffix('*') {
        Some(prefix) => n.starts_with(prefix),
        None => g == n,
    }
}
