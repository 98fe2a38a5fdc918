//! A function's `Events`: `HttpApi` routes, `Api` (REST) methods, `SQS`
//! event source mappings and `Schedule` rules.

use crate::diag::At;
use crate::model::{Route, ScheduleEvent, SqsEvent};
use crate::props::{check_keys, Reader};
use crate::schedule::schedule_event;
use crate::scope::ResKind;
use crate::yaml::Node;

/// Logical id of the API SAM creates for HttpApi events without `ApiId`.
pub(crate) const IMPLICIT_API: &str = "ServerlessHttpApi";
/// Logical id of the REST API SAM creates for Api events without `RestApiId`.
pub(crate) const IMPLICIT_REST_API: &str = "ServerlessRestApi";

const METHODS: &[&str] = &[
    "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "ANY",
];

/// A route and the logical id of the API it belongs to.
#[derive(Debug, Clone)]
pub(crate) struct RouteDecl {
    pub api: String,
    pub route: Route,
    pub line: usize,
}

/// What a function's `Events` declare.
#[derive(Debug, Default)]
pub(crate) struct Events {
    pub routes: Vec<RouteDecl>,
    pub sqs: Vec<SqsEvent>,
    pub schedules: Vec<ScheduleEvent>,
}

pub(crate) fn events(function: &str, events: &Node, at: &At, r: &mut Reader) -> Events {
    let mut read = Events::default();
    let Some(entries) = events.map() else {
        r.diags.error(at, events.line, "Events must be a map");
        return read;
    };
    for e in entries {
        let at = at.child(&e.key);
        check_keys(&e.value, &["Type", "Properties"], &[], &at, r.diags);
        let empty = Node {
            kind: crate::yaml::Kind::Map(Vec::new()),
            line: e.key_line,
        };
        let props = e.value.get("Properties").map_or(&empty, |p| &p.value);
        let props_at = at.child("Properties");
        match r.string(&e.value, "Type", &at).as_deref() {
            Some("HttpApi") => read
                .routes
                .extend(http_api(function, &e.key, props, &props_at, r)),
            Some("Api") => read
                .routes
                .extend(rest_api(function, &e.key, props, &props_at, r)),
            Some("SQS") => read.sqs.extend(sqs_event(&e.key, props, &props_at, r)),
            Some("Schedule") => read
                .schedules
                .extend(schedule_event(&e.key, props, &props_at, r)),
            Some(other) => {
                let m = format!(
                    "event type {other} is not supported locally (HttpApi, Api, SQS, Schedule)"
                );
                let line = e.value.get("Type").map_or(e.key_line, |t| t.key_line);
                r.diags.error(&at.child("Type"), line, m)
            }
            None => r.diags.error(&at, e.key_line, "an event needs a Type"),
        }
    }
    read
}

/// The API an event's `ApiId` (`RestApiId`) names: it must be `!Ref` of a
/// template API of the event's kind.
fn api_id(props: &Node, at: &At, r: &mut Reader) -> Option<String> {
    api_ref(props, "ApiId", ResKind::HttpApi, at, r)
}

fn api_ref(props: &Node, key: &str, kind: ResKind, at: &At, r: &mut Reader) -> Option<String> {
    let Some(entry) = props.get(key) else {
        return Some(
            match kind {
                ResKind::RestApi => IMPLICIT_REST_API,
                _ => IMPLICIT_API,
            }
            .to_string(),
        );
    };
    let target = match entry.value.intrinsic() {
        Some(("Ref", arg)) => arg.text(),
        _ => None,
    };
    let is_api = |id: &str| r.scope.symbols.get(id).is_some_and(|s| s.kind == kind);
    match target {
        Some(id) if is_api(id) => Some(id.to_string()),
        _ => {
            let ty = match kind {
                ResKind::RestApi => "AWS::Serverless::Api",
                _ => "AWS::Serverless::HttpApi",
            };
            let m = format!("{key} must be !Ref of an {ty} in this template");
            r.diags.error(&at.child(key), entry.key_line, m);
            None
        }
    }
}

/// An `Api` event: a method on a resource of a REST API, with Lambda proxy
/// integration (payload format 1.0).
fn rest_api(
    function: &str,
    event: &str,
    props: &Node,
    at: &At,
    r: &mut Reader,
) -> Option<RouteDecl> {
    let used = ["RestApiId", "Method", "Path", "TimeoutInMillis"];
    let ignored = ["RequestModel", "RequestParameters"];
    check_keys(props, &used, &ignored, at, r.diags);
    let api = api_ref(props, "RestApiId", ResKind::RestApi, at, r)?;
    let line_of = |key: &str| props.get(key).map_or(props.line, |e| e.key_line);
    let method = r
        .string(props, "Method", at)
        .map(|m| m.to_ascii_uppercase());
    let path = r.string(props, "Path", at);
    let (Some(method), Some(path)) = (method, path) else {
        r.diags
            .error(at, props.line, "an Api event needs Method and Path");
        return None;
    };
    if !METHODS.contains(&method.as_str()) {
        let m = format!("unknown method {method}");
        r.diags.error(&at.child("Method"), line_of("Method"), m);
        return None;
    }
    if let Err(m) = check_path(&path).and_then(|()| {
        (path != "$default")
            .then_some(())
            .ok_or_else(|| "REST APIs have no $default route".to_string())
    }) {
        r.diags.error(&at.child("Path"), line_of("Path"), m);
        return None;
    }
    let timeout_ms = integration_timeout(props, 29_000, at, r).ok()?;
    let route = Route {
        method,
        path,
        function: function.to_string(),
        event: event.to_string(),
        payload_format_version: "1.0".to_string(),
        timeout_ms,
    };
    Some(RouteDecl {
        api,
        line: props.line,
        route,
    })
}

/// `TimeoutInMillis`, between 50 and `max` (29 s for REST APIs, 30 s for
/// HTTP APIs); `Err` once the problem is reported.
fn integration_timeout(props: &Node, max: u32, at: &At, r: &mut Reader) -> Result<Option<u32>, ()> {
    let timeout_ms = r.u32(props, "TimeoutInMillis", at);
    if timeout_ms.is_some_and(|t| !(50..=max).contains(&t)) {
        let line = props
            .get("TimeoutInMillis")
            .map_or(props.line, |e| e.key_line);
        let m = format!("must be between 50 and {max}");
        r.diags.error(&at.child("TimeoutInMillis"), line, m);
        return Err(());
    }
    Ok(timeout_ms)
}

fn http_api(
    function: &str,
    event: &str,
    props: &Node,
    at: &At,
    r: &mut Reader,
) -> Option<RouteDecl> {
    let used = [
        "ApiId",
        "Method",
        "Path",
        "PayloadFormatVersion",
        "TimeoutInMillis",
    ];
    check_keys(props, &used, &["RouteSettings"], at, r.diags);
    let api = api_id(props, at, r)?;
    let line_of = |key: &str| props.get(key).map_or(props.line, |e| e.key_line);
    let method = r
        .string(props, "Method", at)
        .map(|m| m.to_ascii_uppercase());
    let path = r.string(props, "Path", at);
    let (method, path) = match (method, path) {
        // SAM: an event with neither becomes the `$default` route.
        (None, None) => ("ANY".to_string(), "$default".to_string()),
        (_, Some(p)) if p == "$default" => ("ANY".to_string(), p),
        (Some(m), Some(p)) => (m, p),
        _ => {
            let m = "Method and Path go together (or neither, for the $default route)";
            r.diags.error(at, props.line, m);
            return None;
        }
    };
    if !METHODS.contains(&method.as_str()) {
        r.diags.error(
            &at.child("Method"),
            line_of("Method"),
            format!("unknown method {method}"),
        );
        return None;
    }
    if let Err(m) = check_path(&path) {
        r.diags.error(&at.child("Path"), line_of("Path"), m);
        return None;
    }
    let version = r
        .string(props, "PayloadFormatVersion", at)
        .unwrap_or_else(|| "2.0".to_string());
    if version != "2.0" {
        let m = format!("payload format {version} is not supported locally (2.0)");
        r.diags.error(
            &at.child("PayloadFormatVersion"),
            line_of("PayloadFormatVersion"),
            m,
        );
        return None;
    }
    let timeout_ms = integration_timeout(props, 30_000, at, r).ok()?;
    let route = Route {
        method,
        path,
        function: function.to_string(),
        event: event.to_string(),
        payload_format_version: version,
        timeout_ms,
    };
    Some(RouteDecl {
        api,
        line: props.line,
        route,
    })
}

/// `/a/{b}/{proxy+}`: starts with `/`, `{name}` segments, greedy last only.
fn check_path(path: &str) -> Result<(), String> {
    if path == "$default" {
        return Ok(());
    }
    let Some(rest) = path.strip_prefix('/') else {
        return Err(format!("path `{path}` must start with / or be $default"));
    };
    let segments: Vec<&str> = rest.split('/').collect();
    for (i, seg) in segments.iter().enumerate() {
        let last = i + 1 == segments.len();
        if seg.is_empty() && !(last && segments.len() == 1) {
            return Err(format!("path `{path}` has an empty segment"));
        }
        if seg.contains(['{', '}']) {
            let inner = seg
                .strip_prefix('{')
                .and_then(|s| s.strip_suffix('}'))
                .ok_or_else(|| format!("path `{path}`: a parameter must be a whole segment"))?;
            let name = inner.strip_suffix('+');
            if name.is_some() && !last {
                return Err(format!("path `{path}`: a greedy {{{inner}}} must be last"));
            }
            let name = name.unwrap_or(inner);
            if name.is_empty() || name.contains(['{', '}', '+']) {
                return Err(format!("path `{path}`: bad parameter `{seg}`"));
            }
        }
    }
    Ok(())
}

fn sqs_event(event: &str, props: &Node, at: &At, r: &mut Reader) -> Option<SqsEvent> {
    let used = [
        "Queue",
        "BatchSize",
        "MaximumBatchingWindowInSeconds",
        "ScalingConfig",
        "FunctionResponseTypes",
        "Enabled",
    ];
    check_keys(props, &used, &["KmsKeyArn", "MetricsConfig"], at, r.diags);
    let line_of = |key: &str| props.get(key).map_or(props.line, |e| e.key_line);
    let before = r.diags.items.len();
    let Some(queue_arn) = r.string(props, "Queue", at) else {
        if r.diags.items.len() == before {
            r.diags
                .error(at, props.line, "an SQS event needs Queue (the queue ARN)");
        }
        return None;
    };
    if !queue_arn.starts_with("arn:") || queue_arn.split(':').nth(2) != Some("sqs") {
        let m = format!("Queue must be an SQS queue ARN (!GetAtt Queue.Arn), not `{queue_arn}`");
        r.diags.error(&at.child("Queue"), line_of("Queue"), m);
    }
    let batch_size = r.u32(props, "BatchSize", at).unwrap_or(10);
    let window = r
        .u32(props, "MaximumBatchingWindowInSeconds", at)
        .unwrap_or(0);
    if !(1..=10_000).contains(&batch_size) {
        r.diags.error(
            &at.child("BatchSize"),
            line_of("BatchSize"),
            "must be between 1 and 10000",
        );
    } else if batch_size > 10 && window == 0 {
        let m = "a BatchSize over 10 needs MaximumBatchingWindowInSeconds of at least 1";
        r.diags
            .error(&at.child("BatchSize"), line_of("BatchSize"), m);
    }
    if window > 300 {
        let key = "MaximumBatchingWindowInSeconds";
        r.diags
            .error(&at.child(key), line_of(key), "must be between 0 and 300");
    }
    // FIFO event sources take at most 10 messages and no batching window.
    if queue_arn.ends_with(".fifo") && (batch_size > 10 || window > 0) {
        let m = "a FIFO queue allows BatchSize up to 10 and no MaximumBatchingWindowInSeconds";
        r.diags
            .error(&at.child("BatchSize"), line_of("BatchSize"), m);
    }
    let maximum_concurrency = scaling(props, at, r);
    let report_batch_item_failures = response_types(props, at, r);
    let enabled = r.bool(props, "Enabled", at).unwrap_or(true);
    let queue = r
        .scope
        .symbols
        .iter()
        .find(|(_, s)| {
            s.kind == ResKind::Queue
                && s.name.as_deref().map(|n| r.scope.ctx.arn("sqs", n)) == Some(queue_arn.clone())
        })
        .map(|(id, _)| id.clone());
    Some(SqsEvent {
        name: event.to_string(),
        queue_arn,
        queue,
        batch_size,
        maximum_batching_window_seconds: window,
        maximum_concurrency,
        report_batch_item_failures,
        enabled,
    })
}

fn scaling(props: &Node, at: &At, r: &mut Reader) -> Option<u32> {
    let entry = props.get("ScalingConfig")?;
    let at = at.child("ScalingConfig");
    check_keys(&entry.value, &["MaximumConcurrency"], &[], &at, r.diags);
    let n = r.u32(&entry.value, "MaximumConcurrency", &at)?;
    if !(2..=1000).contains(&n) {
        r.diags.error(
            &at.child("MaximumConcurrency"),
            entry.key_line,
            "must be between 2 and 1000",
        );
    }
    Some(n)
}

fn response_types(props: &Node, at: &At, r: &mut Reader) -> bool {
    let Some((v, line)) = r.value(props, "FunctionResponseTypes", at) else {
        return false;
    };
    match v.as_array().map(Vec::as_slice) {
        Some([]) => false,
        Some([t]) if t == "ReportBatchItemFailures" => true,
        _ => {
            let m = "must be [] or [ReportBatchItemFailures]";
            r.diags.error(&at.child("FunctionResponseTypes"), line, m);
            false
        }
    }
}
