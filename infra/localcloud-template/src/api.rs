//! `AWS::Serverless::HttpApi` resources (and the implicit `ServerlessHttpApi`)
//! with the routes the functions' `HttpApi` events put on them.

use std::collections::BTreeMap;

use crate::diag::{At, Diags};
use crate::events::RouteDecl;
use crate::model::{HttpApi, RestApi};
use crate::props::{check_keys, Reader};
use crate::yaml::Node;

const USED: &[&str] = &["StageName", "CorsConfiguration", "Name", "StageVariables"];
const IGNORED: &[&str] = &[
    "Description",
    "Tags",
    "PropagateTags",
    "AccessLogSettings",
    "DefaultRouteSettings",
    "RouteSettings",
    "FailOnWarnings",
    "DisableExecuteApiEndpoint",
];

pub(crate) fn http_api(id: &str, props: &Node, implicit: bool, r: &mut Reader) -> Option<HttpApi> {
    let at = At::resource(id).child("Properties");
    check_keys(props, USED, IGNORED, &at, r.diags);
    let stage_name = r
        .string(props, "StageName", &at)
        .unwrap_or_else(|| "$default".to_string());
    let _name = r.string(props, "Name", &at);
    let cors = r.value(props, "CorsConfiguration", &at).map(|(v, _)| v);
    let stage_variables = r.string_map(props, "StageVariables", &at);
    let api_id = (r.scope.ctx.api_id)(id);
    Some(HttpApi {
        logical_id: id.to_string(),
        url: r.scope.ctx.api_url(id, &api_id),
        api_id,
        implicit,
        stage_name,
        cors,
        stage_variables,
        routes: Vec::new(),
    })
}

/// Puts each route on its API (HTTP or REST); two routes with one route key
/// on one API are an error (AWS rejects the stack).
pub(crate) fn attach_routes(
    apis: &mut [HttpApi],
    rest_apis: &mut [RestApi],
    routes: Vec<RouteDecl>,
    diags: &mut Diags,
) {
    let mut seen: BTreeMap<(String, String), String> = BTreeMap::new();
    for decl in routes {
        let http = apis
            .iter_mut()
            .find(|a| a.logical_id == decl.api)
            .map(|a| &mut a.routes);
        let api_routes = match http {
            Some(routes) => routes,
            None => match rest_apis.iter_mut().find(|a| a.logical_id == decl.api) {
                Some(api) => &mut api.routes,
                None => continue,
            },
        };
        let key = decl.route.route_key();
        let at = At::resource(&decl.route.function)
            .child("Properties.Events")
            .child(&decl.route.event);
        if let Some(other) = seen.get(&(decl.api.clone(), key.clone())) {
            let m = format!("route `{key}` on {} is also declared by {other}", decl.api);
            diags.error(&at, decl.line, m);
            continue;
        }
        let owner = format!("{}.{}", decl.route.function, decl.route.event);
        seen.insert((decl.api.clone(), key), owner);
        api_routes.push(decl.route);
    }
}
