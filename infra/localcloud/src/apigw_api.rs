//! API Gateway v2's read calls for the HTTP APIs of every running stack:
//! `GetApis`, `GetApi`, `GetRoutes`, `GetStages` (REST-JSON, signed for
//! `apigateway`), in the shapes of
//! https://docs.aws.amazon.com/apigatewayv2/latest/api-reference/apis.html

use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;
use http::Method;
use localcloud_core::context::{new_request_id, signing_service};
use localcloud_core::{HttpRequest, HttpResponse, PathService, RequestContext};
use localcloud_template::HttpApi;
use serde_json::{json, Value};

use crate::deploy::Deployments;

pub(crate) struct ApiGatewayApi(pub Arc<Deployments>);

#[async_trait]
impl PathService for ApiGatewayApi {
    async fn handle(&self, request: HttpRequest) -> Result<HttpResponse, HttpRequest> {
        let path = request.uri().path().trim_end_matches('/').to_string();
        let Some(rest) = path.strip_prefix("/v2/apis") else {
            return Err(request);
        };
        if signing_service(&request).as_deref() != Some("apigateway") {
            return Err(request);
        }
        if request.method() != Method::GET {
            return Ok(error(
                400,
                "BadRequestException",
                "Only the read calls of API Gateway v2 are supported by the local cloud",
            ));
        }
        let ctx = RequestContext::from_headers(request.headers());
        let apis: Vec<(String, HttpApi)> = self
            .0
            .all()
            .into_iter()
            .flat_map(|(name, stack)| {
                stack
                    .app
                    .http_apis
                    .iter()
                    .map(|a| (name.clone(), a.clone()))
                    .collect::<Vec<_>>()
            })
            .collect();
        let segments: Vec<&str> = rest
            .trim_start_matches('/')
            .split('/')
            .filter(|s| !s.is_empty())
            .collect();
        let find = |id: &str| apis.iter().find(|(_, a)| a.api_id == id);
        let not_found = |id: &str| {
            error(
                404,
                "NotFoundException",
                &format!("Invalid API identifier specified {}:{id}", ctx.account_id),
            )
        };
        Ok(match segments.as_slice() {
            [] => ok(&json!({ "items": apis.iter().map(|(s, a)| api(s, a)).collect::<Vec<_>>() })),
            [id] => find(id).map_or_else(|| not_found(id), |(s, a)| ok(&api(s, a))),
            [id, "routes"] => find(id).map_or_else(
                || not_found(id),
                |(_, a)| ok(&json!({ "items": routes(a) })),
            ),
            [id, "stages"] => find(id).map_or_else(
                || not_found(id),
                |(_, a)| ok(&json!({ "items": [stage(a)] })),
            ),
            _ => error(404, "NotFoundException", "Unknown API Gateway v2 resource"),
        })
    }
}

/// SAM names an HTTP API after its stack unless `Name` says otherwise.
fn api(stack: &str, a: &HttpApi) -> Value {
    json!({
        "apiId": a.api_id,
        "name": stack,
        "protocolType": "HTTP",
        "apiEndpoint": a.url,
        "routeSelectionExpression": "$request.method $request.path",
        "apiKeySelectionExpression": "$request.header.x-api-key",
        "disableExecuteApiEndpoint": false,
        "tags": { "httpapi:createdBy": "SAM" },
    })
}

fn routes(a: &HttpApi) -> Vec<Value> {
    a.routes
        .iter()
        .enumerate()
        .map(|(i, r)| {
            json!({
                "routeId": format!("r{i:06}"),
                "routeKey": r.route_key(),
                "target": format!("integrations/i{i:06}"),
                "authorizationType": "NONE",
                "apiKeyRequired": false,
            })
        })
        .collect()
}

fn stage(a: &HttpApi) -> Value {
    json!({
        "stageName": a.stage_name,
        "autoDeploy": true,
        "stageVariables": a.stage_variables,
        "defaultRouteSettings": { "detailedMetricsEnabled": false },
        "routeSettings": {},
        "tags": {},
    })
}

fn ok(body: &Value) -> HttpResponse {
    respond(200, body)
}

fn respond(status: u16, body: &Value) -> HttpResponse {
    http::Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .header("x-amzn-requestid", new_request_id())
        .body(Bytes::from(body.to_string()))
        .expect("valid JSON response")
}

fn error(status: u16, code: &'static str, message: &str) -> HttpResponse {
    let mut response = respond(status, &json!({ "message": message }));
    response
        .headers_mut()
        .insert("x-amzn-errortype", http::HeaderValue::from_static(code));
    response
}
