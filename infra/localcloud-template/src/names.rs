//! Physical names: given, or generated as `{StackName}-{LogicalId}`.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::context::ResolveContext;
use crate::decl::{kind_of, Decl};
use crate::diag::{At, Diags};
use crate::scope::{ResKind, ResolveError, Scope, Symbols};
use crate::yaml::Node;

/// The property holding a resource's physical name, and the generated default.
fn naming(d: &Decl, ctx: &ResolveContext) -> Option<(&'static str, String)> {
    let generated = |max: usize| {
        let n = format!("{}-{}", ctx.stack_name, d.id);
        n.chars().take(max).collect::<String>()
    };
    match kind_of(&d.ty) {
        ResKind::Function => Some(("FunctionName", generated(64))),
        ResKind::Queue => Some(("QueueName", generated(75))),
        ResKind::Table => Some(("TableName", generated(255))),
        // Bucket names are lower case (AWS adds a random suffix).
        ResKind::Bucket => Some(("BucketName", generated(63).to_ascii_lowercase())),
        // Its ARN holds at most 140 characters.
        ResKind::CapacityProvider => Some(("CapacityProviderName", generated(64))),
        ResKind::HttpApi
        | ResKind::RestApi
        | ResKind::FunctionUrl
        | ResKind::Role
        // Named by `versions::name_versions`, after the functions.
        | ResKind::Version
        | ResKind::Alias
        | ResKind::Other(_) => None,
    }
}

/// Resolves physical names, repeatedly, since a name may use another
/// resource's name (`!Sub "${Main.QueueName}-dlq"`).
pub(crate) fn name_resources(
    decls: &[Decl],
    symbols: &mut Symbols,
    ctx: &ResolveContext,
    params: &BTreeMap<String, Value>,
    conditions: &BTreeMap<String, Option<bool>>,
    mappings: Option<&Node>,
    diags: &mut Diags,
) {
    for (id, sym) in symbols.iter_mut() {
        if matches!(sym.kind, ResKind::HttpApi | ResKind::RestApi) {
            sym.name = Some((ctx.api_id)(id));
        }
    }
    let mut pending: Vec<&Decl> = decls.iter().filter(|d| naming(d, ctx).is_some()).collect();
    loop {
        let mut named = Vec::new();
        let mut still = Vec::new();
        for d in pending {
            let (key, default) = naming(d, ctx).expect("filtered");
            let scope = Scope {
                ctx,
                params,
                conditions,
                symbols,
                mappings,
            };
            let entry = d.props.get(key);
            let result = match entry {
                None => Ok(default.clone()),
                Some(e) => scope.string(&e.value),
            };
            let fifo_suffix = |n: String| {
                let fifo = d
                    .props
                    .get("FifoQueue")
                    .and_then(|f| scope.string(&f.value).ok());
                match fifo.as_deref() {
                    Some("true") if entry.is_none() => format!("{n}.fifo"),
                    _ => n,
                }
            };
            match result {
                Ok(name) => named.push((d.id, fifo_suffix(name))),
                Err(ResolveError::Pending(_)) => still.push(d),
                Err(ResolveError::Invalid { line, message, .. }) => {
                    diags.error(
                        &At::resource(d.id).child("Properties").child(key),
                        line,
                        message,
                    );
                    named.push((d.id, default));
                }
            }
        }
        let progress = !named.is_empty();
        for (id, name) in named {
            symbols.get_mut(id).expect("declared").name = Some(name);
        }
        pending = still;
        if pending.is_empty() || !progress {
            break;
        }
    }
    // A function URL is known by its function's name.
    let urls: Vec<(String, Option<String>)> = symbols
        .iter()
        .filter(|(_, s)| s.kind == ResKind::FunctionUrl)
        .map(|(id, _)| {
            let function = id.strip_suffix("Url").unwrap_or(id);
            (
                id.clone(),
                symbols.get(function).and_then(|f| f.name.clone()),
            )
        })
        .collect();
    for (id, name) in urls {
        symbols.get_mut(&id).expect("listed").name = name;
    }
    for d in pending {
        let m = "the name depends on itself through other resources";
        diags.error(&At::resource(d.id).child("Properties"), d.line, m);
    }
}
