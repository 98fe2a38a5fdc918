//! Versions and aliases: SAM's `AutoPublishAlias` and CloudFormation's
//! `AWS::Lambda::Version` and `AWS::Lambda::Alias`.
//!
//! For a function with `AutoPublishAlias: NAME`, SAM generates an
//! `AWS::Lambda::Version` (`{Function}Version{hash}`) and an
//! `AWS::Lambda::Alias` (`{Function}Alias{NAME}`) pointing at it, which
//! `{Function}.Version` and `{Function}.Alias` refer to, and points the
//! function's event sources at the alias ("Generated CloudFormation resources
//! for AWS SAM",
//! https://docs.aws.amazon.com/serverless-application-model/latest/developerguide/sam-specification-generated-resources-function.html).
//! SAM's hash is of the code and configuration; the local one is of the
//! function's name and `CodeUri`, enough to keep the id stable.
//!
//! `Ref` of a version is its ARN and `Fn::GetAtt ... Version` its number;
//! `Ref` of an alias is its ARN
//! (https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-lambda-version.html,
//! https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-lambda-alias.html).
//! A stack publishes each of its functions once: version [`FIRST_VERSION`],
//! or on an update the number [`ResolveContext::version_of`] gives (the
//! previous deployment's, or the next one for a changed function).

use std::collections::BTreeMap;

use crate::context::ResolveContext;
use crate::decl::Decl;
use crate::diag::{At, Diags};
use crate::globals::{merge_globals, Globals};
use crate::model::{Application, FunctionAlias, FunctionVersion};
use crate::props::{check_keys, Reader};
use crate::scope::{ResKind, Scope, Symbol, Symbols};
use crate::yaml::Node;

pub(crate) use crate::decl::{ALIAS_TYPE, VERSION_TYPE};

pub use crate::context::FIRST_VERSION;

const VERSION_USED: &[&str] = &["FunctionName", "Description"];
const VERSION_IGNORED: &[&str] = &[
    "CodeSha256",
    "ProvisionedConcurrencyConfig",
    "RuntimePolicy",
    "Policy",
    "FunctionScalingConfig",
];
const ALIAS_USED: &[&str] = &["FunctionName", "FunctionVersion", "Name", "Description"];
const ALIAS_IGNORED: &[&str] = &["ProvisionedConcurrencyConfig", "RoutingConfig"];

/// Lambda's pattern for alias names, `(?!^[0-9]+$)([a-zA-Z0-9-_]+)`, 1 to
/// 128 characters (https://docs.aws.amazon.com/lambda/latest/api/API_CreateAlias.html).
pub(crate) fn is_valid_alias_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        && !name.bytes().all(|b| b.is_ascii_digit())
}

/// SAM's `{Function}Alias{Name}`; a logical id keeps letters and digits only.
pub(crate) fn sam_alias_id(function_id: &str, alias: &str) -> String {
    let name: String = alias.chars().filter(char::is_ascii_alphanumeric).collect();
    format!("{function_id}Alias{name}")
}

/// `{Function}Version{hash}`, with ten hex digits as SAM has.
pub(crate) fn sam_version_id(function_id: &str, function_name: &str, code_uri: &str) -> String {
    let hash = format!("{function_name}\n{code_uri}")
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
    format!("{function_id}Version{:010x}", hash >> 24)
}

/// The unqualified ARN of the function a `FunctionName` names: a name, an
/// ARN (its qualifier dropped) or a partial ARN.
pub(crate) fn function_arn(value: &str, ctx: &ResolveContext) -> String {
    let parts: Vec<&str> = value.split(':').collect();
    let name = match parts.as_slice() {
        ["arn", _, "lambda", _, _, "function", name, ..] | [_, "function", name, ..] => name,
        [name, ..] => name,
        [] => "",
    };
    ctx.arn("lambda", &format!("function:{name}"))
}

fn function_name(arn: &str) -> &str {
    arn.rsplit(':').next().unwrap_or_default()
}

/// Names (qualified ARNs, what `Ref` gives) of the versions and aliases,
/// once the functions are named: the declared ones and SAM's for
/// `AutoPublishAlias`, with `{Function}.Alias` and `{Function}.Version`.
/// What does not resolve stays unnamed; reading the resource reports it.
pub(crate) fn name_versions(
    decls: &[Decl],
    globals: &Globals,
    symbols: &mut Symbols,
    scope: &Scope,
) {
    let mut named: Vec<(String, ResKind, String)> = Vec::new();
    for d in decls {
        match d.ty.as_str() {
            VERSION_TYPE | ALIAS_TYPE => named.extend(declared_name(d, scope)),
            "AWS::Serverless::Function" => named.extend(sam_names(d, globals, symbols, scope)),
            _ => {}
        }
    }
    for (id, kind, name) in named {
        let symbol = Symbol {
            kind,
            name: Some(name),
        };
        symbols.insert(id, symbol);
    }
}

/// A declared version's or alias's logical id, kind and ARN.
fn declared_name(d: &Decl, scope: &Scope) -> Option<(String, ResKind, String)> {
    let text = |key: &str| scope.string(&d.props.get(key)?.value).ok();
    let arn = function_arn(&text("FunctionName")?, scope.ctx);
    let (kind, qualifier) = match d.ty.as_str() {
        VERSION_TYPE => (ResKind::Version, scope.ctx.version_of(function_name(&arn))),
        _ => (ResKind::Alias, text("Name")?),
    };
    Some((d.id.to_string(), kind, format!("{arn}:{qualifier}")))
}

/// The version and alias SAM generates for a function with
/// `AutoPublishAlias` (its own or from `Globals`), under both their logical
/// ids and `{Function}.Version` and `{Function}.Alias`.
fn sam_names(
    d: &Decl,
    globals: &Globals,
    symbols: &Symbols,
    scope: &Scope,
) -> Vec<(String, ResKind, String)> {
    let props = match globals.for_type(&d.ty) {
        Some(g) => merge_globals(g, &d.props),
        None => d.props.clone(),
    };
    let text = |key: &str| scope.string(&props.get(key)?.value).ok();
    let (Some(alias), Some(name)) = (
        text("AutoPublishAlias"),
        symbols.get(d.id).and_then(|s| s.name.clone()),
    ) else {
        return Vec::new();
    };
    let arn = scope.ctx.arn("lambda", &format!("function:{name}"));
    let code_uri = text("CodeUri").unwrap_or_default();
    let version_arn = format!("{arn}:{}", scope.ctx.version_of(&name));
    let alias_arn = format!("{arn}:{alias}");
    vec![
        (
            sam_version_id(d.id, &name, &code_uri),
            ResKind::Version,
            version_arn.clone(),
        ),
        (format!("{}.Version", d.id), ResKind::Version, version_arn),
        (
            sam_alias_id(d.id, &alias),
            ResKind::Alias,
            alias_arn.clone(),
        ),
        (format!("{}.Alias", d.id), ResKind::Alias, alias_arn),
    ]
}

/// An `AWS::Lambda::Version`.
pub(crate) fn version(id: &str, props: &Node, r: &mut Reader) -> Option<FunctionVersion> {
    let at = At::resource(id).child("Properties");
    check_keys(props, VERSION_USED, VERSION_IGNORED, &at, r.diags);
    let function = r.string(props, "FunctionName", &at)?;
    let arn = function_arn(&function, r.scope.ctx);
    let number = r.scope.ctx.version_of(function_name(&arn));
    Some(FunctionVersion {
        logical_id: id.to_string(),
        function: function_name(&arn).to_string(),
        arn: format!("{arn}:{number}"),
        version: number,
        description: r.string(props, "Description", &at).unwrap_or_default(),
    })
}

/// An `AWS::Lambda::Alias`; `FunctionVersion` is `$LATEST` or the version
/// a stack publishes.
pub(crate) fn alias(id: &str, props: &Node, r: &mut Reader) -> Option<FunctionAlias> {
    let at = At::resource(id).child("Properties");
    check_keys(props, ALIAS_USED, ALIAS_IGNORED, &at, r.diags);
    let function = r.string(props, "FunctionName", &at);
    let name = r.string(props, "Name", &at);
    let version = r.string(props, "FunctionVersion", &at);
    let (function, name, version) = (function?, name?, version?);
    let line_of = |key: &str| props.get(key).map_or(props.line, |e| e.key_line);
    if !is_valid_alias_name(&name) {
        let m = format!(
            "alias name `{name}` must be 1 to 128 letters, digits, - or _, and not only digits"
        );
        r.diags.error(&at.child("Name"), line_of("Name"), m);
        return None;
    }
    let arn = function_arn(&function, r.scope.ctx);
    let published = r.scope.ctx.version_of(function_name(&arn));
    if version != "$LATEST" && version != published {
        let m = format!(
            "FunctionVersion `{version}` is not a version of this stack ($LATEST or {published}, the version the stack publishes)"
        );
        r.diags
            .error(&at.child("FunctionVersion"), line_of("FunctionVersion"), m);
        return None;
    }
    Some(FunctionAlias {
        logical_id: id.to_string(),
        function: function_name(&arn).to_string(),
        arn: format!("{arn}:{name}"),
        name,
        function_version: version,
        description: r.string(props, "Description", &at).unwrap_or_default(),
    })
}

/// SAM's version and alias for each function with `AutoPublishAlias`, then
/// a check that every version and alias is of a function of the template
/// (the local cloud runs no other) and that an alias's version exists.
pub(crate) fn complete(
    app: &mut Application,
    ctx: &ResolveContext,
    lines: &BTreeMap<&str, usize>,
    diags: &mut Diags,
) {
    for f in app
        .functions
        .iter()
        .filter(|f| f.auto_publish_alias.is_some())
    {
        let alias = f.auto_publish_alias.clone().unwrap_or_default();
        let code_uri = f.code_uri.as_deref().unwrap_or_default();
        let number = ctx.version_of(&f.name);
        app.versions.push(FunctionVersion {
            logical_id: sam_version_id(&f.logical_id, &f.name, code_uri),
            function: f.name.clone(),
            arn: format!("{}:{number}", f.arn),
            version: number.clone(),
            description: String::new(),
        });
        app.aliases.push(FunctionAlias {
            logical_id: sam_alias_id(&f.logical_id, &alias),
            function: f.name.clone(),
            arn: format!("{}:{alias}", f.arn),
            name: alias,
            function_version: number,
            description: String::new(),
        });
    }
    let ours = |name: &str| app.functions.iter().any(|f| f.name == name);
    let at = |id: &str| {
        (
            At::resource(id).child("Properties"),
            lines.get(id).copied().unwrap_or(0),
        )
    };
    for v in app.versions.iter().filter(|v| !ours(&v.function)) {
        let (at, line) = at(&v.logical_id);
        let m = format!(
            "FunctionName `{}` is not a function of this template",
            v.function
        );
        diags.error(&at.child("FunctionName"), line, m);
    }
    for a in &app.aliases {
        let (at, line) = at(&a.logical_id);
        if !ours(&a.function) {
            let m = format!(
                "FunctionName `{}` is not a function of this template",
                a.function
            );
            diags.error(&at.child("FunctionName"), line, m);
        } else if a.function_version != "$LATEST"
            && !app.versions.iter().any(|v| v.function == a.function)
        {
            let m = format!(
                "no AWS::Lambda::Version of `{}` publishes version {}",
                a.function, a.function_version
            );
            diags.error(&at.child("FunctionVersion"), line, m);
        }
    }
    let mut seen = BTreeMap::new();
    for a in &app.aliases {
        if let Some(other) = seen.insert((&a.function, &a.name), &a.logical_id) {
            let (at, line) = at(&a.logical_id);
            let m = format!(
                "alias `{}` of `{}` is also created by {other}",
                a.name, a.function
            );
            diags.error(&at.child("Name"), line, m);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn function_names_arns_and_partial_arns_give_the_unqualified_arn() {
        let ctx = ResolveContext::default();
        let want = ctx.arn("lambda", "function:orders");
        assert_eq!(function_arn("orders", &ctx), want);
        assert_eq!(function_arn(&format!("{want}:live"), &ctx), want);
        assert_eq!(function_arn("123456789012:function:orders", &ctx), want);
    }

    #[test]
    fn sam_ids_keep_letters_and_digits_and_the_version_hash_is_stable() {
        assert_eq!(sam_alias_id("Orders", "live"), "OrdersAliaslive");
        assert_eq!(sam_alias_id("Orders", "blue-green"), "OrdersAliasbluegreen");
        let id = sam_version_id("Orders", "stack-Orders", "s3://b/k");
        assert_eq!(id, sam_version_id("Orders", "stack-Orders", "s3://b/k"));
        assert_ne!(id, sam_version_id("Orders", "stack-Orders", "s3://b/other"));
        assert_eq!(id.len(), "OrdersVersion".len() + 10);
    }
}
