//! Reading a whole template: sections, resources, names, then the model.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::api;
use crate::bucket;
use crate::capacity;
use crate::context::ResolveContext;
use crate::decl::{declarations, kind_of, Decl};
use crate::diag::{At, Diags, TemplateError};
use crate::events::{IMPLICIT_API, IMPLICIT_REST_API};
use crate::function;
use crate::globals::{merge_globals, Globals};
use crate::model::{Application, Queue};
use crate::names::name_resources;
use crate::outputs::outputs;
use crate::params;
use crate::props::Reader;
use crate::queue;
use crate::rest_api;
use crate::scope::{ResKind, Scope, Symbol, Symbols};
use crate::table;
use crate::versions;
use crate::yaml::{self, Entry, Kind, Node};

const SAM_TRANSFORM: &str = "AWS::Serverless-2016-10-31";
const SECTIONS: &[&str] = &[
    "AWSTemplateFormatVersion",
    "Transform",
    "Description",
    "Metadata",
    "Parameters",
    "Mappings",
    "Conditions",
    "Globals",
    "Resources",
    "Outputs",
];

/// The YAML (or JSON) tree of a template; syntax errors as diagnostics.
pub(crate) fn parse(text: &str) -> Result<Node, TemplateError> {
    yaml::parse(text).map_err(|errors| TemplateError::Invalid {
        problems: errors
            .into_iter()
            .map(|e| crate::diag::Diagnostic {
                severity: crate::diag::Severity::Error,
                logical_id: None,
                path: String::new(),
                line: e.line,
                message: e.message,
            })
            .collect(),
    })
}

pub(crate) fn load_str(text: &str, ctx: &ResolveContext) -> Result<Application, TemplateError> {
    let root = parse(text)?;
    let mut diags = Diags::default();
    let app = read(&root, ctx, &mut diags);
    let (errors, warnings) = diags.split();
    if !errors.is_empty() {
        return Err(TemplateError::Invalid { problems: errors });
    }
    Ok(Application { warnings, ..app })
}

fn read(root: &Node, ctx: &ResolveContext, diags: &mut Diags) -> Application {
    let Some(sections) = root.map() else {
        diags.error(&At::default(), root.line, "a template must be a map");
        return empty_app();
    };
    for s in sections
        .iter()
        .filter(|s| !SECTIONS.contains(&s.key.as_str()))
    {
        diags.error(
            &At::section(&s.key),
            s.key_line,
            "section is not supported locally",
        );
    }
    check_transform(root.get("Transform"), diags);
    let parameters = params::parameters(root.get("Parameters"), ctx, diags);
    let param_values: BTreeMap<String, Value> = parameters
        .iter()
        .map(|p| (p.name.clone(), p.value.clone()))
        .collect();
    let mappings = root.get("Mappings").map(|e| &e.value);
    let conditions =
        params::conditions(root.get("Conditions"), ctx, &param_values, mappings, diags);
    let decls = {
        let no_symbols = Symbols::new();
        let scope = Scope {
            ctx,
            params: &param_values,
            conditions: &conditions,
            symbols: &no_symbols,
            mappings,
        };
        declarations(root, &scope, diags)
    };
    let globals = Globals::read(root.get("Globals"), diags);
    let mut symbols = symbols(&decls, &globals, ctx);
    name_resources(
        &decls,
        &mut symbols,
        ctx,
        &param_values,
        &conditions,
        mappings,
        diags,
    );
    {
        let named = symbols.clone();
        let scope = Scope {
            ctx,
            params: &param_values,
            conditions: &conditions,
            symbols: &named,
            mappings,
        };
        versions::name_versions(&decls, &globals, &mut symbols, &scope);
    }
    let scope = Scope {
        ctx,
        params: &param_values,
        conditions: &conditions,
        symbols: &symbols,
        mappings,
    };
    let mut r = Reader {
        scope: &scope,
        diags,
    };
    let mut app = build(&decls, &globals, &mut r);
    app.parameters = parameters;
    let (outputs, exports) = outputs(root.get("Outputs"), &app, &mut r);
    (app.outputs, app.exports) = (outputs, exports);
    app
}

fn empty_app() -> Application {
    Application {
        parameters: Vec::new(),
        queues: Vec::new(),
        tables: Vec::new(),
        functions: Vec::new(),
        http_apis: Vec::new(),
        rest_apis: Vec::new(),
        buckets: Vec::new(),
        capacity_providers: Vec::new(),
        versions: Vec::new(),
        aliases: Vec::new(),
        outputs: BTreeMap::new(),
        exports: BTreeMap::new(),
        warnings: Vec::new(),
    }
}

fn check_transform(transform: Option<&Entry>, diags: &mut Diags) {
    let Some(t) = transform else {
        return;
    };
    let names: Vec<Option<&str>> = match t.value.seq() {
        Some(items) => items.iter().map(Node::text).collect(),
        None => vec![t.value.text()],
    };
    for name in names.into_iter().filter(|n| *n != Some(SAM_TRANSFORM)) {
        let m = format!(
            "transform {} is not supported locally",
            name.unwrap_or("(not a name)")
        );
        diags.error(&At::section("Transform"), t.key_line, m);
    }
}

/// What `Ref` and `Fn::GetAtt` can name: the declared resources, the roles
/// and the implicit API SAM would generate. Names come later.
fn symbols(decls: &[Decl], globals: &Globals, ctx: &ResolveContext) -> Symbols {
    let mut symbols = Symbols::new();
    for d in decls {
        let kind = kind_of(&d.ty);
        symbols.insert(d.id.to_string(), Symbol { kind, name: None });
    }
    for d in decls.iter().filter(|d| generates_role(d)) {
        let id = format!("{}Role", d.id);
        let name = format!("{}-{id}", ctx.stack_name)
            .chars()
            .take(64)
            .collect();
        let role = Symbol {
            kind: ResKind::Role,
            name: Some(name),
        };
        symbols.entry(id).or_insert(role);
    }
    for (implicit, event_type, kind) in [
        (IMPLICIT_API, "HttpApi", ResKind::HttpApi),
        (IMPLICIT_REST_API, "Api", ResKind::RestApi),
    ] {
        if decls.iter().any(|d| uses_implicit_api(d, event_type)) {
            let api = Symbol { kind, name: None };
            symbols.entry(implicit.to_string()).or_insert(api);
        }
    }
    let global_url = globals
        .function
        .as_ref()
        .is_some_and(|g| g.get("FunctionUrlConfig").is_some());
    for d in decls.iter().filter(|d| has_function_url(d, global_url)) {
        let url = Symbol {
            kind: ResKind::FunctionUrl,
            name: None,
        };
        symbols.entry(format!("{}Url", d.id)).or_insert(url);
    }
    symbols
}

/// SAM creates `{Function}Url` for a function with `FunctionUrlConfig`, its
/// own or from `Globals.Function`.
fn has_function_url(d: &Decl, global: bool) -> bool {
    d.ty == "AWS::Serverless::Function" && (global || d.props.get("FunctionUrlConfig").is_some())
}

/// SAM creates `{Function}Role` unless the function names its own `Role`.
fn generates_role(d: &Decl) -> bool {
    d.ty == "AWS::Serverless::Function" && d.props.get("Role").is_none()
}

fn uses_implicit_api(d: &Decl, event_type: &str) -> bool {
    d.ty == "AWS::Serverless::Function"
        && d.props
            .get("Events")
            .and_then(|e| e.value.map())
            .is_some_and(|events| {
                events.iter().any(|ev| {
                    let ty = ev.value.get("Type").and_then(|t| t.value.text());
                    let api_key = if event_type == "Api" {
                        "RestApiId"
                    } else {
                        "ApiId"
                    };
                    let api = ev
                        .value
                        .get("Properties")
                        .and_then(|p| p.value.get(api_key));
                    ty == Some(event_type) && api.is_none()
                })
            })
}

fn build(decls: &[Decl], globals: &Globals, r: &mut Reader) -> Application {
    let mut app = empty_app();
    let mut queues: Vec<Queue> = Vec::new();
    let mut routes = Vec::new();
    for d in decls {
        let props = match globals.for_type(&d.ty) {
            Some(g) => merge_globals(g, &d.props),
            None => d.props.clone(),
        };
        let name = r.scope.symbols[d.id].name.clone().unwrap_or_default();
        match d.ty.as_str() {
            "AWS::Serverless::Function" => {
                if let Some(f) = function::function(d.id, &props, d.metadata, &name, r) {
                    routes.extend(f.routes);
                    app.functions.push(f.function);
                }
            }
            "AWS::Serverless::HttpApi" => {
                app.http_apis.extend(api::http_api(d.id, &props, false, r))
            }
            "AWS::Serverless::Api" => app
                .rest_apis
                .extend(rest_api::rest_api(d.id, &props, false, r)),
            "AWS::SQS::Queue" => queues.extend(queue::queue(d.id, &props, &name, r)),
            "AWS::DynamoDB::Table" => app.tables.extend(table::table(d.id, &props, &name, r)),
            "AWS::Serverless::SimpleTable" => app
                .tables
                .extend(table::simple_table(d.id, &props, &name, r)),
            "AWS::S3::Bucket" => app.buckets.extend(bucket::bucket(d.id, &props, &name, r)),
            capacity::SAM_TYPE | capacity::CFN_TYPE => app
                .capacity_providers
                .extend(capacity::capacity_provider(d.id, &d.ty, &props, &name, r)),
            versions::VERSION_TYPE => app.versions.extend(versions::version(d.id, &props, r)),
            versions::ALIAS_TYPE => app.aliases.extend(versions::alias(d.id, &props, r)),
            _ => {}
        }
    }
    if r.scope.symbols.contains_key(IMPLICIT_API) && !decls.iter().any(|d| d.id == IMPLICIT_API) {
        let empty = Node {
            kind: Kind::Map(Vec::new()),
            line: 0,
        };
        let props = globals.http_api.as_ref().unwrap_or(&empty);
        app.http_apis
            .extend(api::http_api(IMPLICIT_API, props, true, r));
    }
    if r.scope.symbols.contains_key(IMPLICIT_REST_API)
        && !decls.iter().any(|d| d.id == IMPLICIT_REST_API)
    {
        let empty = Node {
            kind: Kind::Map(Vec::new()),
            line: 0,
        };
        let props = globals.api.as_ref().unwrap_or(&empty);
        app.rest_apis
            .extend(rest_api::rest_api(IMPLICIT_REST_API, props, true, r));
    }
    api::attach_routes(&mut app.http_apis, &mut app.rest_apis, routes, r.diags);
    let lines: BTreeMap<&str, usize> = decls.iter().map(|d| (d.id, d.line)).collect();
    app.queues = match queue::dependency_order(queues) {
        Ok(q) => q,
        Err(cycle) => {
            for id in cycle {
                let at = At::resource(&id).child("Properties.RedrivePolicy");
                let line = lines.get(id.as_str()).copied().unwrap_or(0);
                r.diags.error(&at, line, "dead-letter queues form a cycle");
            }
            Vec::new()
        }
    };
    versions::complete(&mut app, r.scope.ctx, &lines, r.diags);
    check_unique_names(&app, &lines, r.diags);
    app
}

/// Two resources of one kind with one physical name would be one resource
/// on AWS (the stack fails); locally they would silently share state.
fn check_unique_names(app: &Application, lines: &BTreeMap<&str, usize>, diags: &mut Diags) {
    let mut seen: BTreeMap<(&str, &str), &str> = BTreeMap::new();
    let all = app
        .functions
        .iter()
        .map(|f| ("function", f.name.as_str(), f.logical_id.as_str()))
        .chain(
            app.tables
                .iter()
                .map(|t| ("table", t.name.as_str(), t.logical_id.as_str())),
        )
        .chain(
            app.queues
                .iter()
                .map(|q| ("queue", q.name.as_str(), q.logical_id.as_str())),
        );
    for (kind, name, id) in all {
        if let Some(other) = seen.insert((kind, name), id) {
            let m = format!("{kind} name `{name}` is also used by {other}");
            let line = lines.get(id).copied().unwrap_or(0);
            diags.error(&At::resource(id), line, m);
        }
    }
}
