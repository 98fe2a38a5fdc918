//! Resources as declared: the ones whose `Condition` holds, with their
//! attributes checked, and what each declared type stands for.

use crate::diag::{At, Diags};
use crate::scope::{ResKind, Scope};
use crate::yaml::{Kind, Node};

/// CloudFormation's version and alias types (`versions` reads them).
pub(crate) const VERSION_TYPE: &str = "AWS::Lambda::Version";
pub(crate) const ALIAS_TYPE: &str = "AWS::Lambda::Alias";

const RESOURCE_KEYS: &[&str] = &["Type", "Properties", "Condition", "DependsOn", "Metadata"];
const RESOURCE_IGNORED: &[&str] = &[
    "DeletionPolicy",
    "UpdateReplacePolicy",
    "UpdatePolicy",
    "CreationPolicy",
];
/// Types the local cloud does not need to create: nothing the functions do
/// depends on them (IAM is read from `Policies`).
const IGNORED_TYPES: &[&str] = &[
    "AWS::CloudWatch::Alarm",
    "AWS::CloudWatch::Dashboard",
    "AWS::IAM::Role",
    "AWS::IAM::Policy",
    "AWS::IAM::ManagedPolicy",
    "AWS::SQS::QueuePolicy",
    "AWS::Lambda::Permission",
    "AWS::S3::BucketPolicy",
];

/// Types accepted without a word: a log group stands for the function log
/// the local cloud keeps itself (`--log-dir`), where retention does not apply.
const SILENT_TYPES: &[&str] = &["AWS::Logs::LogGroup"];

/// One resource as declared (only those whose `Condition` holds).
pub(crate) struct Decl<'t> {
    pub id: &'t str,
    pub ty: String,
    pub line: usize,
    pub props: Node,
    pub metadata: Option<&'t Node>,
}

pub(crate) fn kind_of(ty: &str) -> ResKind {
    match ty {
        "AWS::Serverless::Function" => ResKind::Function,
        "AWS::Serverless::HttpApi" => ResKind::HttpApi,
        "AWS::Serverless::Api" => ResKind::RestApi,
        "AWS::SQS::Queue" => ResKind::Queue,
        "AWS::DynamoDB::Table" | "AWS::Serverless::SimpleTable" => ResKind::Table,
        "AWS::S3::Bucket" => ResKind::Bucket,
        crate::capacity::SAM_TYPE | crate::capacity::CFN_TYPE => ResKind::CapacityProvider,
        VERSION_TYPE => ResKind::Version,
        ALIAS_TYPE => ResKind::Alias,
        other => ResKind::Other(other.to_string()),
    }
}

/// Every resource whose condition holds, with its attributes checked.
pub(crate) fn declarations<'t>(root: &'t Node, scope: &Scope, diags: &mut Diags) -> Vec<Decl<'t>> {
    let Some(resources) = root.get("Resources") else {
        diags.error(
            &At::section("Resources"),
            root.line,
            "a template needs Resources",
        );
        return Vec::new();
    };
    let mut out = Vec::new();
    for e in resources.value.map().unwrap_or_default() {
        let at = At::resource(&e.key);
        if e.key.is_empty() || !e.key.chars().all(|c| c.is_ascii_alphanumeric()) {
            diags.error(
                &at,
                e.key_line,
                "a logical id must be letters and digits only",
            );
            continue;
        }
        let Some(attrs) = e.value.map() else {
            diags.error(&at, e.key_line, "a resource must be a map");
            continue;
        };
        for a in attrs {
            if RESOURCE_IGNORED.contains(&a.key.as_str()) {
                diags.warn(&at.child(&a.key), a.key_line, "ignored by the local cloud");
            } else if !RESOURCE_KEYS.contains(&a.key.as_str()) {
                diags.error(&at.child(&a.key), a.key_line, "unknown resource attribute");
            }
        }
        if let Some(d) = e.value.get("DependsOn") {
            let names: Vec<&Node> = match d.value.seq() {
                Some(items) => items.iter().collect(),
                None => vec![&d.value],
            };
            for n in names {
                let known = n.text().is_some_and(|t| resources.value.get(t).is_some());
                if !known {
                    let m = "DependsOn must name resources of this template";
                    diags.error(&at.child("DependsOn"), n.line, m);
                }
            }
        }
        if let Some(c) = e.value.get("Condition") {
            let holds = c.value.text().map(|name| scope.condition(name, c.key_line));
            match holds {
                Some(Ok(true)) => {}
                Some(Ok(false)) => continue,
                _ => {
                    let m = "Condition must name a declared condition";
                    diags.error(&at.child("Condition"), c.key_line, m);
                    continue;
                }
            }
        }
        let Some((ty, ty_line)) = e
            .value
            .get("Type")
            .and_then(|t| Some((t.value.text()?, t.key_line)))
        else {
            diags.error(&at.child("Type"), e.key_line, "a resource needs a Type");
            continue;
        };
        if let ResKind::Other(_) = kind_of(ty) {
            if IGNORED_TYPES.contains(&ty) {
                diags.warn(
                    &at.child("Type"),
                    ty_line,
                    format!("{ty} is not created locally"),
                );
            } else if !SILENT_TYPES.contains(&ty) {
                let m = format!("resource type {ty} is not supported locally");
                diags.error(&at.child("Type"), ty_line, m);
            }
        }
        let props = match e.value.get("Properties") {
            Some(p) if p.value.map().is_some() => p.value.clone(),
            Some(p) => {
                diags.error(
                    &at.child("Properties"),
                    p.key_line,
                    "Properties must be a map",
                );
                continue;
            }
            None => Node {
                kind: Kind::Map(Vec::new()),
                line: e.key_line,
            },
        };
        out.push(Decl {
            id: &e.key,
            ty: ty.to_string(),
            line: e.key_line,
            props,
            metadata: e.value.get("Metadata").map(|m| &m.value),
        });
    }
    out
}
