//! The REST API version of a template: every `AWS::Serverless::HttpApi`
//! becomes an `AWS::Serverless::Api` (stage [`REST_STAGE`]), every `HttpApi`
//! event an `Api` event on it, CORS settings SAM's REST `Cors`, and output
//! URLs gain the stage. Everything else is kept, so the two versions deploy
//! the same functions, tables and queues. What has no REST equivalent is an
//! error naming its place, never silently dropped.
//!
//! For LocalStack's free plan, which serves REST APIs but not HTTP APIs.

use crate::emit::emit;
use crate::variant::{entries, entry, error, map_entry, parse, scalar, text, VariantError};
use crate::yaml::{Kind, Node};

/// The stage every generated REST API is deployed to.
pub const REST_STAGE: &str = "Prod";

const HEADER: &str = "\
# GENERATED from template.yaml by `localcloud rest-template`: do not edit.
# The same application with REST APIs (API Gateway v1) instead of HTTP APIs,
# for LocalStack's free plan (localstack/README.md). A test fails when this
# file and template.yaml drift apart; regenerate with
#   cargo run -p localcloud -- rest-template > template-rest.yaml
";

/// Why a template has no REST version.
pub type RestVariantError = VariantError;

/// The REST version of `template` (YAML text), as YAML text.
pub fn rest_variant(template: &str) -> Result<String, Vec<RestVariantError>> {
    let mut root = parse(template)?;
    let mut errors = Vec::new();
    let apis = http_api_ids(&root);
    if let Some(globals) = map_entry(&mut root, "Globals") {
        for e in entries(&mut globals.value) {
            if e.key == "HttpApi" {
                e.key = "Api".into();
                let at = "Globals.HttpApi".to_string();
                convert_api_properties(&mut e.value, &at, &mut errors);
            }
        }
    }
    if let Some(resources) = map_entry(&mut root, "Resources") {
        for e in entries(&mut resources.value) {
            let at = format!("Resources.{}", e.key);
            convert_resource(&mut e.value, &at, &apis, &mut errors);
        }
    }
    if let Some(outputs) = map_entry(&mut root, "Outputs") {
        for e in entries(&mut outputs.value) {
            add_stage_to_urls(&mut e.value, &apis);
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(format!("{HEADER}{}", emit(&root)))
}

/// Logical ids of the HTTP APIs, the implicit one included.
fn http_api_ids(root: &Node) -> Vec<String> {
    let mut ids: Vec<String> = root
        .get("Resources")
        .and_then(|r| r.value.map())
        .unwrap_or_default()
        .iter()
        .filter(|e| text(e.value.get("Type")) == Some("AWS::Serverless::HttpApi"))
        .map(|e| e.key.clone())
        .collect();
    ids.push("ServerlessHttpApi".into());
    ids
}

fn convert_resource(
    resource: &mut Node,
    at: &str,
    apis: &[String],
    errors: &mut Vec<RestVariantError>,
) {
    let ty = text(resource.get("Type")).unwrap_or_default().to_string();
    let line = resource.line;
    match ty.as_str() {
        "AWS::Serverless::HttpApi" => {
            if let Some(t) = map_entry(resource, "Type") {
                t.value = scalar("AWS::Serverless::Api", t.value.line);
            }
            if map_entry(resource, "Properties").is_none() {
                if let Kind::Map(entries) = &mut resource.kind {
                    entries.push(entry(
                        "Properties",
                        Node {
                            kind: Kind::Map(Vec::new()),
                            line,
                        },
                    ));
                }
            }
            let props = map_entry(resource, "Properties").expect("just ensured");
            convert_api_properties(&mut props.value, &format!("{at}.Properties"), errors);
            if let Kind::Map(entries) = &mut props.value.kind {
                entries.insert(0, entry("StageName", scalar(REST_STAGE, line)));
            }
        }
        "AWS::Serverless::Function" => {
            let Some(props) = map_entry(resource, "Properties") else {
                return;
            };
            let Some(events) = map_entry(&mut props.value, "Events") else {
                return;
            };
            for e in entries(&mut events.value) {
                let at = format!("{at}.Properties.Events.{}", e.key);
                if text(e.value.get("Type")) == Some("HttpApi") {
                    convert_event(&mut e.value, &at, apis, errors);
                }
            }
        }
        _ => {}
    }
}

/// An `HttpApi` (or `Globals.HttpApi`)'s properties as an `Api`'s.
fn convert_api_properties(props: &mut Node, at: &str, errors: &mut Vec<RestVariantError>) {
    for e in entries(props) {
        let here = format!("{at}.{}", e.key);
        match e.key.as_str() {
            "CorsConfiguration" => {
                e.key = "Cors".into();
                convert_cors(&mut e.value, &here, errors);
            }
            "StageVariables" => e.key = "Variables".into(),
            "Name" | "Description" | "Tags" | "PropagateTags" => {}
            other => error(
                errors,
                e.key_line,
                &here,
                &format!("{other} has no REST API equivalent"),
            ),
        }
    }
}

/// `CorsConfiguration` (lists) to SAM's REST `Cors` (single-quoted strings,
/// one origin).
fn convert_cors(cors: &mut Node, at: &str, errors: &mut Vec<RestVariantError>) {
    let line = cors.line;
    let Kind::Map(entries) = &mut cors.kind else {
        if cors.text() == Some("true") {
            *cors = scalar("'*'", line);
        } else {
            error(errors, line, at, "CorsConfiguration must be true or a map");
        }
        return;
    };
    for e in entries.iter_mut() {
        let here = format!("{at}.{}", e.key);
        match e.key.as_str() {
            "AllowOrigins" => {
                e.key = "AllowOrigin".into();
                match e.value.seq() {
                    Some([one]) => match quoted(one) {
                        Some(v) => e.value = v,
                        None => error(errors, e.key_line, &here, "must be a string or !Ref"),
                    },
                    _ => error(
                        errors,
                        e.key_line,
                        &here,
                        "REST APIs allow one origin: give exactly one",
                    ),
                }
            }
            "AllowMethods" | "AllowHeaders" => {
                let items: Option<Vec<&str>> = e
                    .value
                    .seq()
                    .map(|items| items.iter().filter_map(Node::text).collect());
                match items {
                    Some(items) if items.len() == e.value.seq().map_or(0, <[Node]>::len) => {
                        e.value = scalar(&format!("'{}'", items.join(",")), e.value.line);
                    }
                    _ => error(errors, e.key_line, &here, "must be a list of strings"),
                }
            }
            "MaxAge" => match e.value.text() {
                Some(age) => e.value = scalar(&format!("'{age}'"), e.value.line),
                None => error(errors, e.key_line, &here, "must be a number"),
            },
            "AllowCredentials" => {}
            other => error(
                errors,
                e.key_line,
                &here,
                &format!("{other} has no REST API equivalent"),
            ),
        }
    }
}

/// `x` as `'x'`, or `!Ref P` as `!Sub "'${P}'"`.
fn quoted(node: &Node) -> Option<Node> {
    if let Some(t) = node.text() {
        return Some(scalar(&format!("'{t}'"), node.line));
    }
    match node.intrinsic() {
        Some(("Ref", arg)) => {
            let sub = scalar(&format!("'${{{}}}'", arg.text()?), node.line);
            Some(Node {
                kind: Kind::Map(vec![entry("Fn::Sub", sub)]),
                line: node.line,
            })
        }
        _ => None,
    }
}

fn convert_event(event: &mut Node, at: &str, apis: &[String], errors: &mut Vec<RestVariantError>) {
    if let Some(t) = map_entry(event, "Type") {
        t.value = scalar("Api", t.value.line);
    }
    let line = event.line;
    let Some(props) = map_entry(event, "Properties") else {
        error(
            errors,
            line,
            at,
            "the $default route has no REST API equivalent",
        );
        return;
    };
    let props_at = format!("{at}.Properties");
    let has = |k: &str| props.value.get(k).is_some();
    if !has("Method") || !has("Path") || text(props.value.get("Path")) == Some("$default") {
        error(
            errors,
            props.key_line,
            &props_at,
            "the $default route has no REST API equivalent",
        );
        return;
    }
    let Kind::Map(entries) = &mut props.value.kind else {
        return;
    };
    entries.retain(|e| e.key != "PayloadFormatVersion");
    for e in entries.iter_mut() {
        let here = format!("{props_at}.{}", e.key);
        match e.key.as_str() {
            "ApiId" => {
                e.key = "RestApiId".into();
                let known = match e.value.intrinsic() {
                    Some(("Ref", arg)) => arg.text().is_some_and(|id| apis.iter().any(|a| a == id)),
                    _ => false,
                };
                if !known {
                    error(
                        errors,
                        e.key_line,
                        &here,
                        "must be !Ref of an HttpApi of the template",
                    );
                }
            }
            "Method" | "Path" => {}
            "TimeoutInMillis" => {
                let ok = e
                    .value
                    .text()
                    .and_then(|t| t.parse::<u32>().ok())
                    .is_some_and(|t| t <= 29_000);
                if !ok {
                    error(errors, e.key_line, &here, "REST APIs allow at most 29000");
                }
            }
            other => error(
                errors,
                e.key_line,
                &here,
                &format!("{other} has no REST API equivalent"),
            ),
        }
    }
}

/// `https://${Api}.execute-api.${AWS::Region}.${AWS::URLSuffix}` (or
/// `.amazonaws.com`) becomes the same URL with `/Prod`, and
/// `!GetAtt Api.ApiEndpoint` that URL spelled out.
fn add_stage_to_urls(node: &mut Node, apis: &[String]) {
    if let Some(("Fn::GetAtt", arg)) = node.intrinsic() {
        let target = arg.text().map(str::to_string).or_else(|| {
            arg.seq()
                .and_then(|s| Some(format!("{}.{}", s.first()?.text()?, s.get(1)?.text()?)))
        });
        if let Some((id, "ApiEndpoint")) = target.as_deref().and_then(|t| t.split_once('.')) {
            let url = format!(
                "https://${{{id}}}.execute-api.${{AWS::Region}}.${{AWS::URLSuffix}}/{REST_STAGE}"
            );
            *node = Node {
                kind: Kind::Map(vec![entry("Fn::Sub", scalar(&url, node.line))]),
                line: node.line,
            };
        }
        return;
    }
    match &mut node.kind {
        Kind::Map(entries) => {
            for e in entries.iter_mut() {
                if e.key == "Fn::Sub" {
                    add_stage_in_sub(&mut e.value, apis);
                } else {
                    add_stage_to_urls(&mut e.value, apis);
                }
            }
        }
        Kind::Seq(items) => {
            for item in items {
                add_stage_to_urls(item, apis);
            }
        }
        Kind::Scalar { .. } => {}
    }
}

fn add_stage_in_sub(sub: &mut Node, apis: &[String]) {
    let target = match &mut sub.kind {
        Kind::Seq(items) => match items.first_mut() {
            Some(first) => first,
            None => return,
        },
        _ => sub,
    };
    let Kind::Scalar { text, .. } = &mut target.kind else {
        return;
    };
    for api in apis {
        for suffix in ["${AWS::URLSuffix}", "amazonaws.com"] {
            let host = format!("https://${{{api}}}.execute-api.${{AWS::Region}}.{suffix}");
            let renamed = host.replace("ServerlessHttpApi", "ServerlessRestApi");
            if text.contains(&host) {
                *text = text.replace(&host, &format!("{renamed}/{REST_STAGE}"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_api_resources_events_cors_and_outputs_become_rest() {
        let rest = rest_variant(
            "Transform: AWS::Serverless-2016-10-31
Parameters:
  Origin: {Type: String, Default: '*'}
Resources:
  Api:
    Type: AWS::Serverless::HttpApi
    Properties:
      CorsConfiguration:
        AllowOrigins: [!Ref Origin]
        AllowMethods: [GET, POST]
        MaxAge: 600
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        E: {Type: HttpApi, Properties: {ApiId: !Ref Api, Method: GET, Path: /a, PayloadFormatVersion: '2.0'}}
        Implicit: {Type: HttpApi, Properties: {Method: ANY, Path: '/{proxy+}'}}
Outputs:
  Url:
    Value: !Sub https://${Api}.execute-api.${AWS::Region}.${AWS::URLSuffix}
  Implicit:
    Value: !Sub https://${ServerlessHttpApi}.execute-api.${AWS::Region}.amazonaws.com/x
",
        )
        .unwrap();
        assert!(rest.starts_with("# GENERATED"));
        for expected in [
            "Type: AWS::Serverless::Api",
            "StageName: Prod",
            "Cors:",
            "AllowOrigin:\n",
            "Fn::Sub: \"'${Origin}'\"",
            "AllowMethods: \"'GET,POST'\"",
            "MaxAge: \"'600'\"",
            "Type: Api",
            "RestApiId:",
            "${Api}.execute-api.${AWS::Region}.${AWS::URLSuffix}/Prod",
            "${ServerlessRestApi}.execute-api.${AWS::Region}.amazonaws.com/Prod/x",
        ] {
            assert!(rest.contains(expected), "missing {expected:?} in\n{rest}");
        }
        assert!(!rest.contains("PayloadFormatVersion"), "{rest}");
        assert!(!rest.contains("HttpApi"), "{rest}");
    }

    #[test]
    fn what_rest_cannot_express_is_an_error_with_its_place() {
        let errors = rest_variant(
            "Resources:
  Api:
    Type: AWS::Serverless::HttpApi
    Properties:
      DefaultRouteSettings: {}
      CorsConfiguration: {AllowOrigins: [a, b]}
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        D: {Type: HttpApi}
",
        )
        .unwrap_err();
        let messages: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert_eq!(errors.len(), 3, "{messages:#?}");
        assert!(messages[0].contains("DefaultRouteSettings has no REST API equivalent"));
        assert!(messages[1].contains("one origin"));
        assert!(messages[2].contains("$default route"));
    }
}
