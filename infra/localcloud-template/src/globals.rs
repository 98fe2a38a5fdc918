//! SAM `Globals`: which properties each section accepts, and how they merge
//! into a resource.

use crate::diag::{At, Diags};
use crate::yaml::{Entry, Node};

/// What SAM accepts under `Globals.Function`, `Globals.HttpApi` and
/// `Globals.SimpleTable` (samtranslator's globals plugin).
const GLOBAL_FUNCTION_KEYS: &[&str] = &[
    "Handler",
    "Runtime",
    "CodeUri",
    "DeadLetterQueue",
    "Description",
    "MemorySize",
    "Timeout",
    "VpcConfig",
    "Environment",
    "Tags",
    "PropagateTags",
    "Tracing",
    "KmsKeyArn",
    "AutoPublishAlias",
    "AutoPublishAliasAllProperties",
    "Layers",
    "DeploymentPreference",
    "RolePath",
    "PermissionsBoundary",
    "ReservedConcurrentExecutions",
    "ProvisionedConcurrencyConfig",
    "AssumeRolePolicyDocument",
    "EventInvokeConfig",
    "FileSystemConfigs",
    "CodeSigningConfigArn",
    "Architectures",
    "SnapStart",
    "EphemeralStorage",
    "FunctionUrlConfig",
    "RuntimeManagementConfig",
    "LoggingConfig",
    "RecursiveLoop",
    "SourceKMSKeyArn",
    "FunctionScalingConfig",
];
const GLOBAL_HTTP_API_KEYS: &[&str] = &[
    "Auth",
    "AccessLogSettings",
    "StageVariables",
    "Tags",
    "PropagateTags",
    "RouteSettings",
    "FailOnWarnings",
    "Domain",
    "CorsConfiguration",
    "DefaultRouteSettings",
];
const GLOBAL_API_KEYS: &[&str] = &[
    "Auth",
    "Name",
    "DefinitionUri",
    "CacheClusterEnabled",
    "CacheClusterSize",
    "MergeDefinitions",
    "Variables",
    "EndpointConfiguration",
    "MethodSettings",
    "BinaryMediaTypes",
    "MinimumCompressionSize",
    "Cors",
    "GatewayResponses",
    "AccessLogSetting",
    "CanarySetting",
    "TracingEnabled",
    "OpenApiVersion",
    "Domain",
    "AlwaysDeploy",
    "PropagateTags",
];
const GLOBAL_SIMPLE_TABLE_KEYS: &[&str] = &["SSESpecification", "PointInTimeRecoverySpecification"];

/// The `Globals` sections that apply to resources the local cloud creates.
#[derive(Default)]
pub(crate) struct Globals {
    pub function: Option<Node>,
    pub http_api: Option<Node>,
    pub api: Option<Node>,
    pub simple_table: Option<Node>,
}

impl Globals {
    pub fn read(section: Option<&Entry>, diags: &mut Diags) -> Globals {
        let mut g = Globals::default();
        for e in section.and_then(|s| s.value.map()).unwrap_or_default() {
            let (slot, allowed) = match e.key.as_str() {
                "Function" => (&mut g.function, GLOBAL_FUNCTION_KEYS),
                "HttpApi" => (&mut g.http_api, GLOBAL_HTTP_API_KEYS),
                "Api" => (&mut g.api, GLOBAL_API_KEYS),
                "SimpleTable" => (&mut g.simple_table, GLOBAL_SIMPLE_TABLE_KEYS),
                _ => {
                    let at = At::section("Globals").child(&e.key);
                    diags.warn(&at, e.key_line, "no resource here uses these globals");
                    continue;
                }
            };
            let at = At::section("Globals").child(&e.key);
            let Some(keys) = e.value.map() else {
                diags.error(&at, e.key_line, "must be a map");
                continue;
            };
            for k in keys.iter().filter(|k| !allowed.contains(&k.key.as_str())) {
                let m = "SAM does not accept this property in Globals";
                diags.error(&at.child(&k.key), k.key_line, m);
            }
            *slot = Some(e.value.clone());
        }
        g
    }

    pub fn for_type(&self, ty: &str) -> Option<&Node> {
        match ty {
            "AWS::Serverless::Function" => self.function.as_ref(),
            "AWS::Serverless::HttpApi" => self.http_api.as_ref(),
            "AWS::Serverless::Api" => self.api.as_ref(),
            "AWS::Serverless::SimpleTable" => self.simple_table.as_ref(),
            _ => None,
        }
    }
}

/// SAM `Globals` merge: maps merge key by key (the resource wins), lists are
/// concatenated (globals first), anything else (including intrinsic
/// functions) is replaced by the resource's value.
pub(crate) fn merge_globals(global: &Node, local: &Node) -> Node {
    use crate::yaml::Kind;
    match (&global.kind, &local.kind) {
        (Kind::Map(g), Kind::Map(l))
            if global.intrinsic().is_none() && local.intrinsic().is_none() =>
        {
            let mut entries = g.clone();
            for le in l {
                match entries.iter_mut().find(|e| e.key == le.key) {
                    Some(ge) => {
                        ge.value = merge_globals(&ge.value, &le.value);
                        ge.key_line = le.key_line;
                    }
                    None => entries.push(le.clone()),
                }
            }
            Node {
                kind: Kind::Map(entries),
                line: local.line,
            }
        }
        (Kind::Seq(g), Kind::Seq(l)) => Node {
            kind: Kind::Seq(g.iter().chain(l).cloned().collect()),
            line: local.line,
        },
        _ => local.clone(),
    }
}
