//! `AWS::Serverless::Api` resources (and the implicit `ServerlessRestApi`):
//! REST APIs whose methods the functions' `Api` events declare.

use serde_json::Value;

use crate::diag::At;
use crate::model::RestApi;
use crate::props::{check_keys, Reader};
use crate::yaml::Node;

/// SAM's stage for the implicit API.
const IMPLICIT_STAGE: &str = "Prod";

const USED: &[&str] = &[
    "StageName",
    "Cors",
    "BinaryMediaTypes",
    "Variables",
    "MethodSettings",
    "Name",
];
const IGNORED: &[&str] = &[
    "Description",
    "Tags",
    "PropagateTags",
    "AccessLogSetting",
    "TracingEnabled",
    "EndpointConfiguration",
    "OpenApiVersion",
    "MinimumCompressionSize",
    "CacheClusterEnabled",
    "CacheClusterSize",
    "CanarySetting",
    "AlwaysDeploy",
    "DisableExecuteApiEndpoint",
    "FailOnWarnings",
    "MergeDefinitions",
];

pub(crate) fn rest_api(id: &str, props: &Node, implicit: bool, r: &mut Reader) -> Option<RestApi> {
    let at = At::resource(id).child("Properties");
    check_keys(props, USED, IGNORED, &at, r.diags);
    let stage_name = match r.string(props, "StageName", &at) {
        Some(stage) => stage,
        None if implicit => IMPLICIT_STAGE.to_string(),
        None => {
            r.diags.error(
                &at.child("StageName"),
                props.line,
                "an Api needs a StageName",
            );
            return None;
        }
    };
    let _name = r.string(props, "Name", &at);
    let cors = r.value(props, "Cors", &at).map(|(v, _)| v);
    let binary_media_types = strings(props, "BinaryMediaTypes", &at, r)
        .into_iter()
        .map(|t| t.replace("~1", "/"))
        .collect();
    let stage_variables = r.string_map(props, "Variables", &at);
    let throttle = throttle(props, &at, r);
    let api_id = (r.scope.ctx.api_id)(id);
    Some(RestApi {
        logical_id: id.to_string(),
        url: r.scope.ctx.api_url(id, &api_id),
        api_id,
        implicit,
        stage_name,
        binary_media_types,
        cors,
        stage_variables,
        throttle,
        routes: Vec::new(),
    })
}

fn strings(props: &Node, key: &str, at: &At, r: &mut Reader) -> Vec<String> {
    let Some((v, line)) = r.value(props, key, at) else {
        return Vec::new();
    };
    match v {
        Value::Array(items) if items.iter().all(Value::is_string) => items
            .into_iter()
            .filter_map(|i| i.as_str().map(str::to_string))
            .collect(),
        _ => {
            r.diags
                .error(&at.child(key), line, "expected a list of strings");
            Vec::new()
        }
    }
}

/// The stage-wide throttling of `MethodSettings` (the entry for every
/// resource and method, `/*` and `*`): `(ThrottlingRateLimit,
/// ThrottlingBurstLimit)`.
fn throttle(props: &Node, at: &At, r: &mut Reader) -> Option<(f64, u32)> {
    let (v, line) = r.value(props, "MethodSettings", at)?;
    let at = at.child("MethodSettings");
    let Value::Array(settings) = v else {
        r.diags.error(&at, line, "expected a list");
        return None;
    };
    let all = settings.iter().find(|s| {
        let path = s
            .get("ResourcePath")
            .and_then(Value::as_str)
            .unwrap_or("/*");
        let method = s.get("HttpMethod").and_then(Value::as_str).unwrap_or("*");
        path == "/*" && method == "*"
    })?;
    let number = |key: &str| {
        all.get(key).and_then(|v| match v {
            Value::Number(n) => n.as_f64(),
            Value::String(s) => s.parse().ok(),
            _ => None,
        })
    };
    let rate = number("ThrottlingRateLimit").unwrap_or(10_000.0);
    let burst = number("ThrottlingBurstLimit").unwrap_or(5_000.0);
    if rate < 0.0 || burst < 0.0 {
        r.diags
            .error(&at, line, "throttling limits must not be negative");
        return None;
    }
    Some((rate, burst as u32))
}
