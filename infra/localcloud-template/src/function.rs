//! `AWS::Serverless::Function`: its settings, policies, build metadata and
//! the HttpApi and SQS events it declares.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::capacity;
use crate::diag::{At, Severity};
use crate::events::{self, RouteDecl};
use crate::model::{Build, Function, FunctionUrl};
use crate::policy;
use crate::props::{check_keys, Reader};
use crate::yaml::Node;

const USED: &[&str] = &[
    "FunctionName",
    "CodeUri",
    "Handler",
    "Runtime",
    "Architectures",
    "MemorySize",
    "Timeout",
    "Environment",
    "ReservedConcurrentExecutions",
    "Policies",
    "Events",
    "PackageType",
    "FunctionUrlConfig",
    "CapacityProviderConfig",
    "FunctionScalingConfig",
    "AutoPublishAlias",
];
/// Settings that change nothing a function can observe locally.
const IGNORED: &[&str] = &[
    "Description",
    "Tags",
    "Tracing",
    "LoggingConfig",
    "Role",
    "PropagateTags",
    "KmsKeyArn",
    "VpcConfig",
    "EphemeralStorage",
    // They decide when SAM publishes a new version; a stack publishes one.
    "AutoPublishAliasAllProperties",
    "AutoPublishCodeSha256",
    "VersionDescription",
    "DeploymentPreference",
    "ProvisionedConcurrencyConfig",
    "SnapStart",
    "RuntimeManagementConfig",
    "EventInvokeConfig",
    "DeadLetterQueue",
    "PermissionsBoundary",
    "CodeSigningConfigArn",
    "RecursiveLoop",
    "AssumeRolePolicyDocument",
];
/// Custom runtimes: the local cloud runs a `bootstrap` binary.
const RUNTIMES: &[&str] = &["provided.al2023", "provided.al2", "provided"];

pub(crate) struct FunctionDecl {
    pub function: Function,
    pub routes: Vec<RouteDecl>,
}

pub(crate) fn function(
    id: &str,
    props: &Node,
    metadata: Option<&Node>,
    name: &str,
    r: &mut Reader,
) -> Option<FunctionDecl> {
    let at = At::resource(id).child("Properties");
    check_keys(props, USED, IGNORED, &at, r.diags);
    let errors_before = r.diags.items.len();
    let line_of = |key: &str| props.get(key).map_or(props.line, |e| e.key_line);
    if let Some(t) = r.string(props, "PackageType", &at).filter(|t| t != "Zip") {
        r.diags.error(
            &at.child("PackageType"),
            line_of("PackageType"),
            format!("PackageType {t} is not supported locally"),
        );
    }
    if !valid_function_name(name) {
        let m = format!("function name `{name}` must be 1 to 64 letters, digits, - or _");
        r.diags
            .error(&at.child("FunctionName"), line_of("FunctionName"), m);
    }
    let runtime = r.string(props, "Runtime", &at).unwrap_or_default();
    if !RUNTIMES.contains(&runtime.as_str()) {
        let m = format!(
            "runtime `{runtime}` is not supported locally (provided.al2023 or provided.al2)"
        );
        r.diags.error(&at.child("Runtime"), line_of("Runtime"), m);
    }
    let architecture = architecture(props, &at, r);
    let memory_size = bounded(r, props, "MemorySize", &at, 128, 128..=10_240);
    let timeout = bounded(r, props, "Timeout", &at, 3, 1..=900);
    let reserved_concurrency = r.u32(props, "ReservedConcurrentExecutions", &at);
    let environment = environment(props, &at, r);
    let code_uri = match r.value(props, "CodeUri", &at) {
        Some((Value::String(s), _)) => Some(s),
        Some((_, line)) => {
            r.diags.error(
                &at.child("CodeUri"),
                line,
                "only a local path is supported as CodeUri",
            );
            None
        }
        None => None,
    };
    let handler = r.string(props, "Handler", &at);
    let policies = policies(props, &at, r);
    let events = match props.get("Events") {
        Some(e) => events::events(id, &e.value, &at.child("Events"), r),
        None => events::Events::default(),
    };
    let build = metadata.and_then(|m| build(id, m, r));
    let url = function_url(id, props, name, &at, r);
    let capacity_provider = capacity::function_config(props, memory_size, &at, r);
    let auto_publish_alias = auto_publish_alias(props, &at, r);
    let failed = r.diags.items[errors_before..]
        .iter()
        .any(|d| d.severity == Severity::Error);
    if failed {
        return None;
    }
    let function = Function {
        logical_id: id.to_string(),
        name: name.to_string(),
        arn: r.scope.ctx.arn("lambda", &format!("function:{name}")),
        code_uri,
        handler,
        runtime,
        architecture,
        memory_size,
        timeout,
        environment,
        reserved_concurrency,
        policies,
        sqs_events: events.sqs,
        schedule_events: events.schedules,
        build,
        url,
        capacity_provider,
        auto_publish_alias,
    };
    Some(FunctionDecl {
        function,
        routes: events.routes,
    })
}

/// `AutoPublishAlias`: a name Lambda accepts for an alias.
fn auto_publish_alias(props: &Node, at: &At, r: &mut Reader) -> Option<String> {
    let alias = r.string(props, "AutoPublishAlias", at)?;
    if !crate::versions::is_valid_alias_name(&alias) {
        let line = props
            .get("AutoPublishAlias")
            .map_or(props.line, |e| e.key_line);
        let m = format!(
            "alias name `{alias}` must be 1 to 128 letters, digits, - or _, and not only digits"
        );
        r.diags.error(&at.child("AutoPublishAlias"), line, m);
        return None;
    }
    Some(alias)
}

/// `FunctionUrlConfig`: `AuthType` (`NONE` or `AWS_IAM`), `Cors`, and
/// `InvokeMode` `BUFFERED` (response streaming is not emulated).
fn function_url(
    id: &str,
    props: &Node,
    name: &str,
    at: &At,
    r: &mut Reader,
) -> Option<FunctionUrl> {
    let entry = props.get("FunctionUrlConfig")?;
    let at = at.child("FunctionUrlConfig");
    let config = &entry.value;
    check_keys(
        config,
        &["AuthType", "Cors", "InvokeMode"],
        &[],
        &at,
        r.diags,
    );
    let auth_type = r.string(config, "AuthType", &at);
    let auth_type = match auth_type.as_deref() {
        Some("NONE" | "AWS_IAM") => auth_type?,
        _ => {
            let m = "AuthType must be NONE or AWS_IAM";
            r.diags.error(&at.child("AuthType"), entry.key_line, m);
            return None;
        }
    };
    if let Some(mode) = r
        .string(config, "InvokeMode", &at)
        .filter(|m| m != "BUFFERED")
    {
        let m = format!("InvokeMode {mode} is not supported locally (BUFFERED)");
        r.diags.error(&at.child("InvokeMode"), entry.key_line, m);
    }
    let cors = r.value(config, "Cors", &at).map(|(v, _)| v);
    let logical_id = format!("{id}Url");
    let base = r.scope.ctx.api_url(&logical_id, name);
    Some(FunctionUrl {
        url: format!("{}/", base.trim_end_matches('/')),
        logical_id,
        auth_type,
        cors,
    })
}

fn bounded(
    r: &mut Reader,
    props: &Node,
    key: &str,
    at: &At,
    default: u32,
    range: std::ops::RangeInclusive<u32>,
) -> u32 {
    let Some(n) = r.u32(props, key, at) else {
        return default;
    };
    if !range.contains(&n) {
        let line = props.get(key).map_or(0, |e| e.key_line);
        let m = format!("must be between {} and {}", range.start(), range.end());
        r.diags.error(&at.child(key), line, m);
    }
    n
}

fn architecture(props: &Node, at: &At, r: &mut Reader) -> String {
    let Some((v, line)) = r.value(props, "Architectures", at) else {
        return "x86_64".to_string();
    };
    match v.as_array().map(Vec::as_slice) {
        Some([Value::String(a)]) if a == "x86_64" || a == "arm64" => a.clone(),
        _ => {
            let m = "must be a list of one architecture, x86_64 or arm64";
            r.diags.error(&at.child("Architectures"), line, m);
            "x86_64".to_string()
        }
    }
}

/// Keys Lambda reserves for itself (it rejects a function that sets them).
const RESERVED_VARIABLES: &[&str] = &[
    "_HANDLER",
    "_X_AMZN_TRACE_ID",
    "AWS_DEFAULT_REGION",
    "AWS_REGION",
    "AWS_EXECUTION_ENV",
    "AWS_LAMBDA_FUNCTION_NAME",
    "AWS_LAMBDA_FUNCTION_MEMORY_SIZE",
    "AWS_LAMBDA_FUNCTION_VERSION",
    "AWS_LAMBDA_INITIALIZATION_TYPE",
    "AWS_LAMBDA_LOG_GROUP_NAME",
    "AWS_LAMBDA_LOG_STREAM_NAME",
    "AWS_ACCESS_KEY",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_LAMBDA_RUNTIME_API",
    "LAMBDA_TASK_ROOT",
    "LAMBDA_RUNTIME_DIR",
];

/// `Environment.Variables`, resolved as a whole (it may be an `Fn::If`);
/// values become strings as CloudFormation renders them.
fn environment(props: &Node, at: &At, r: &mut Reader) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let Some((env, line)) = r.value(props, "Environment", at) else {
        return out;
    };
    let at = at.child("Environment");
    let node = props.get("Environment").map(|e| &e.value);
    // The line of a key under Environment when it is written out literally.
    let line_of = |path: &[&str]| {
        let mut n = node;
        let mut l = line;
        for key in path {
            let e = n.and_then(|n| n.get(key));
            l = e.map_or(l, |e| e.key_line);
            n = e.map(|e| &e.value);
        }
        l
    };
    let Value::Object(env) = env else {
        r.diags.error(&at, line, "expected a map with Variables");
        return out;
    };
    for key in env.keys().filter(|k| *k != "Variables") {
        r.diags.error(
            &at.child(key),
            line_of(&[key]),
            "property is not supported locally",
        );
    }
    let at = at.child("Variables");
    let vars = match env.get("Variables") {
        None => return out,
        Some(Value::Object(vars)) => vars,
        Some(_) => {
            r.diags
                .error(&at, line_of(&["Variables"]), "expected a map");
            return out;
        }
    };
    for (key, value) in vars {
        let line = line_of(&["Variables", key]);
        if RESERVED_VARIABLES.contains(&key.as_str()) {
            r.diags
                .error(&at.child(key), line, "Lambda reserves this variable name");
        } else if !valid_variable_name(key) {
            r.diags
                .error(&at.child(key), line, "not a valid variable name");
        }
        if let Some(v) = r.as_string(value.clone(), line, &at.child(key)) {
            out.insert(key.clone(), v);
        }
    }
    out
}

fn valid_function_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Lambda: a letter, then letters, digits or underscores.
fn valid_variable_name(key: &str) -> bool {
    let mut chars = key.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn policies(props: &Node, at: &At, r: &mut Reader) -> Vec<policy::Policy> {
    let Some(entry) = props.get("Policies") else {
        return Vec::new();
    };
    let at = at.child("Policies");
    let mut out = Vec::new();
    for item in policy::items(&entry.value) {
        match r.scope.resolve(item) {
            // An intrinsic (`Fn::If`) may stand for the whole list.
            Ok(Some(Value::Array(list))) => {
                for v in list {
                    out.extend(policy::policy(v, item.line, &at, r.diags));
                }
            }
            Ok(Some(v)) => out.extend(policy::policy(v, item.line, &at, r.diags)),
            Ok(None) => {}
            Err(e) => r.report(&at, item.line, e),
        }
    }
    out
}

/// `Metadata.BuildMethod` and `BuildProperties.Binary`.
fn build(id: &str, metadata: &Node, r: &mut Reader) -> Option<Build> {
    let at = At::resource(id).child("Metadata");
    let method = r.string(metadata, "BuildMethod", &at)?;
    let binary = match metadata.get("BuildProperties") {
        Some(p) => r.string(&p.value, "Binary", &at.child("BuildProperties")),
        None => None,
    };
    Some(Build { method, binary })
}

/// The binary SAM's `rust-cargolambda` build picks when `BuildProperties.Binary`
/// is absent: cargo-lambda builds every binary of the package at `CodeUri`,
/// and SAM copies the only one (it fails when there are several). So: the one
/// `[[bin]]` name, or the package name when there is no `[[bin]]` section.
pub fn cargo_binary(manifest: &str) -> Result<String, String> {
    let mut section = String::new();
    let mut package = None;
    let mut bins = Vec::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line.to_string();
            if section == "[[bin]]" {
                bins.push(None);
            }
            continue;
        }
        let Some(value) = line
            .strip_prefix("name")
            .map(str::trim_start)
            .and_then(|l| l.strip_prefix('='))
            .map(|v| v.trim().trim_matches('"').to_string())
        else {
            continue;
        };
        match section.as_str() {
            "[package]" => package = Some(value),
            "[[bin]]" => {
                if let Some(last) = bins.last_mut() {
                    *last = Some(value);
                }
            }
            _ => {}
        }
    }
    match (bins.as_slice(), package) {
        ([Some(bin)], _) => Ok(bin.clone()),
        ([], Some(package)) => Ok(package),
        ([], None) => Err("Cargo.toml has no [package] name".to_string()),
        _ => Err("the package has several binaries; set Metadata.BuildProperties.Binary".into()),
    }
}
