//! The front doors of a SAM application: every HTTP API, REST API and
//! function URL of the template as a gateway configuration, each on its own
//! listener (bound before the template is resolved for good, so that outputs
//! can name the URLs).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use localcloud_apigw::{
    CorsConfig, GatewayHandle, HttpApiConfig, RestApiConfig, RestCors, RouteConfig, Throttle,
};
use localcloud_core::Invoker;
use localcloud_template::{Application, Route};
use serde_json::Value;
use tokio::net::TcpListener;

use crate::stack_error::StackError;

/// Logical ids of every front door, in the order their ports are given out:
/// HTTP APIs, REST APIs, then function URLs (`{Function}Url`), each in
/// template order.
pub fn front_doors(app: &Application) -> Vec<String> {
    let http = app.http_apis.iter().map(|a| a.logical_id.clone());
    let rest = app.rest_apis.iter().map(|a| a.logical_id.clone());
    let urls = app
        .functions
        .iter()
        .filter_map(|f| f.url.as_ref().map(|u| u.logical_id.clone()));
    http.chain(rest).chain(urls).collect()
}

/// One listener per front door: on `first_port`, `first_port + 1`, ... or
/// on free ports.
/// `keep`: ports an API already had (an update keeps its URL).
pub async fn bind_listeners(
    app: &Application,
    first_port: Option<u16>,
    keep: &BTreeMap<String, u16>,
) -> Result<BTreeMap<String, TcpListener>, StackError> {
    let mut listeners = BTreeMap::new();
    for (i, id) in front_doors(app).into_iter().enumerate() {
        let failed = |message: String| StackError::Start {
            what: format!("API {id}"),
            message,
        };
        let port = match first_port {
            _ if keep.contains_key(&id) => keep[&id],
            Some(first) => u16::try_from(i)
                .ok()
                .and_then(|i| first.checked_add(i))
                .ok_or_else(|| failed("no port left above --api-port".into()))?,
            None => 0,
        };
        let listener = TcpListener::bind(("127.0.0.1", port))
            .await
            .map_err(|e| failed(format!("cannot listen on 127.0.0.1:{port}: {e}")))?;
        listeners.insert(id, listener);
    }
    Ok(listeners)
}

/// Starts every front door of `app` on its listener; returns them with
/// their logical ids, in [`front_doors`] order.
pub fn start_all(
    app: &Application,
    invoker: &Arc<dyn Invoker>,
    mut listeners: BTreeMap<String, TcpListener>,
) -> Result<Vec<(String, GatewayHandle)>, StackError> {
    let mut out = Vec::new();
    for id in front_doors(app) {
        let failed = |message: String| StackError::Start {
            what: format!("API {id}"),
            message,
        };
        let listener = listeners
            .remove(&id)
            .ok_or_else(|| failed("the template changed between its two readings".into()))?;
        let started = if let Some(api) = app.http_api(&id) {
            let config = http_api_config(app, api).map_err(&failed)?;
            localcloud_apigw::start_on(config, invoker.clone(), listener)
        } else if let Some(api) = app.rest_api(&id) {
            let config = rest_api_config(app, api).map_err(&failed)?;
            localcloud_apigw::start_rest_on(config, invoker.clone(), listener)
        } else {
            let function = app
                .functions
                .iter()
                .find(|f| f.url.as_ref().is_some_and(|u| u.logical_id == id))
                .ok_or_else(|| failed("not an API of the template".into()))?;
            let config = function_url_config(function).map_err(&failed)?;
            localcloud_apigw::start_on(config, invoker.clone(), listener)
        };
        out.push((id.clone(), started.map_err(|e| failed(e.to_string()))?));
    }
    Ok(out)
}

fn routes(app: &Application, routes: &[Route]) -> Vec<RouteConfig> {
    routes
        .iter()
        .map(|route| {
            // The alias of `AutoPublishAlias`, as SAM's integrations name it.
            let function = app
                .function(&route.function)
                .map(|f| f.invoke_target())
                .unwrap_or_else(|| route.function.clone());
            let method = if route.method.is_empty() {
                "ANY"
            } else {
                &route.method
            };
            let config = RouteConfig::new(method, &route.path, &function);
            match route.timeout_ms {
                Some(ms) => config.with_timeout(Duration::from_millis(u64::from(ms))),
                None => config,
            }
        })
        .collect()
}

fn http_api_config(
    app: &Application,
    api: &localcloud_template::HttpApi,
) -> Result<HttpApiConfig, String> {
    if let Some(route) = api
        .routes
        .iter()
        .find(|r| r.payload_format_version != "2.0")
    {
        return Err(format!(
            "route {}: payload format {} is not emulated; use PayloadFormatVersion 2.0",
            route.route_key(),
            route.payload_format_version
        ));
    }
    let mut config = HttpApiConfig::new(api.logical_id.clone(), routes(app, &api.routes));
    config.stage = api.stage_name.clone();
    config.stage_variables = api.stage_variables.clone();
    // Events must carry the id that `Ref` gave the template.
    config.api_id = Some(api.api_id.clone());
    config.cors = api.cors.as_ref().map(cors_config).transpose()?;
    Ok(config)
}

fn rest_api_config(
    app: &Application,
    api: &localcloud_template::RestApi,
) -> Result<RestApiConfig, String> {
    let mut config = RestApiConfig::new(
        api.logical_id.clone(),
        &api.stage_name,
        routes(app, &api.routes),
    );
    config.stage_variables = api.stage_variables.clone();
    config.api_id = Some(api.api_id.clone());
    config.binary_media_types = api.binary_media_types.clone();
    config.cors = api.cors.as_ref().map(rest_cors).transpose()?;
    if let Some((rate_limit, burst_limit)) = api.throttle {
        config.throttle = Throttle {
            rate_limit,
            burst_limit,
        };
    }
    Ok(config)
}

/// A function URL: payload 2.0 events on a `$default` route, no stage.
fn function_url_config(function: &localcloud_template::Function) -> Result<HttpApiConfig, String> {
    let url = function.url.as_ref().ok_or("no FunctionUrlConfig")?;
    let route = RouteConfig::new("ANY", "$default", &function.invoke_target());
    let mut config = HttpApiConfig::new(url.logical_id.clone(), vec![route]);
    // Function URLs wait as long as the function may run (up to 15 minutes);
    // the Lambda service enforces the function's own timeout.
    config.timeout = Duration::from_secs(u64::from(function.timeout) + 1);
    config.cors = url.cors.as_ref().map(cors_config).transpose()?;
    config.iam_auth = url.auth_type == "AWS_IAM";
    config.function_url = true;
    Ok(config)
}

/// `CorsConfiguration` of an HTTP API (`true` or a map) or `Cors` of a
/// function URL (a map); keys as in
/// <https://docs.aws.amazon.com/serverless-application-model/latest/developerguide/sam-property-httpapi-httpapicorsconfiguration.html>.
pub fn cors_config(value: &Value) -> Result<CorsConfig, String> {
    let all = || vec!["*".to_string()];
    match value {
        Value::Bool(true) => Ok(CorsConfig {
            allow_origins: all(),
            allow_methods: all(),
            allow_headers: all(),
            ..CorsConfig::default()
        }),
        Value::String(s) if s == "true" => cors_config(&Value::Bool(true)),
        Value::Object(map) => {
            for key in map.keys() {
                let known = [
                    "AllowOrigins",
                    "AllowMethods",
                    "AllowHeaders",
                    "ExposeHeaders",
                    "MaxAge",
                    "AllowCredentials",
                ];
                if !known.contains(&key.as_str()) {
                    return Err(format!("CORS setting {key} is unknown"));
                }
            }
            Ok(CorsConfig {
                allow_origins: string_list(map.get("AllowOrigins"), "AllowOrigins")?,
                allow_methods: string_list(map.get("AllowMethods"), "AllowMethods")?,
                allow_headers: string_list(map.get("AllowHeaders"), "AllowHeaders")?,
                expose_headers: string_list(map.get("ExposeHeaders"), "ExposeHeaders")?,
                max_age: match map.get("MaxAge") {
                    None => None,
                    Some(v) => Some(number(v).ok_or("CORS MaxAge must be a number")?),
                },
                allow_credentials: flag(map.get("AllowCredentials"))?,
            })
        }
        _ => Err("CORS configuration must be true or a map".into()),
    }
}

/// SAM's REST `Cors`: the allowed origin as a string, or a map whose values
/// are quoted as API Gateway header mappings want them (`"'*'"`).
pub fn rest_cors(value: &Value) -> Result<RestCors, String> {
    let unquote = |v: &Value, key: &str| -> Result<String, String> {
        let s = match v {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            _ => return Err(format!("Cors {key} must be a string")),
        };
        Ok(s.strip_prefix('\'')
            .and_then(|s| s.strip_suffix('\''))
            .map_or(s.clone(), str::to_string))
    };
    match value {
        Value::String(_) => Ok(RestCors {
            allow_origin: unquote(value, "")?,
            ..RestCors::default()
        }),
        Value::Object(map) => {
            let get = |key: &str| map.get(key).map(|v| unquote(v, key)).transpose();
            Ok(RestCors {
                allow_origin: get("AllowOrigin")?.ok_or("Cors needs AllowOrigin")?,
                allow_methods: get("AllowMethods")?,
                allow_headers: get("AllowHeaders")?,
                max_age: get("MaxAge")?,
                allow_credentials: flag(map.get("AllowCredentials"))?,
            })
        }
        _ => Err("Cors must be a string or a map".into()),
    }
}

fn string_list(value: Option<&Value>, key: &str) -> Result<Vec<String>, String> {
    match value {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| {
                i.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| format!("CORS {key} must be a list of strings"))
            })
            .collect(),
        Some(_) => Err(format!("CORS {key} must be a list of strings")),
    }
}

fn number(value: &Value) -> Option<u32> {
    match value {
        Value::Number(n) => n.as_u64().and_then(|n| u32::try_from(n).ok()),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

fn flag(value: Option<&Value>) -> Result<bool, String> {
    match value {
        None => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(Value::String(s)) if s == "true" || s == "false" => Ok(s == "true"),
        Some(_) => Err("CORS AllowCredentials must be true or false".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn http_api_cors_true_allows_everything() {
        let cors = cors_config(&json!(true)).unwrap();
        assert_eq!(cors.allow_origins, ["*"]);
        assert_eq!(cors.allow_methods, ["*"]);
    }

    #[test]
    fn http_api_cors_map_is_read_key_by_key() {
        let cors = cors_config(&json!({
            "AllowOrigins": ["https://app.example"],
            "AllowMethods": ["GET", "POST"],
            "AllowHeaders": ["authorization"],
            "MaxAge": 600,
            "AllowCredentials": true
        }))
        .unwrap();
        assert_eq!(cors.allow_origins, ["https://app.example"]);
        assert_eq!(cors.max_age, Some(600));
        assert!(cors.allow_credentials);
        assert!(cors_config(&json!({"AllowOrigin": "*"})).is_err());
        assert!(cors_config(&json!({"AllowOrigins": "*"})).is_err());
    }

    #[test]
    fn rest_cors_values_lose_their_single_quotes() {
        let cors = rest_cors(&json!("'*'")).unwrap();
        assert_eq!(cors.allow_origin, "*");
        let cors = rest_cors(&json!({
            "AllowOrigin": "'https://app.example'",
            "AllowHeaders": "'Content-Type,Authorization'",
            "MaxAge": "'600'"
        }))
        .unwrap();
        assert_eq!(cors.allow_origin, "https://app.example");
        assert_eq!(
            cors.allow_headers.as_deref(),
            Some("Content-Type,Authorization")
        );
        assert_eq!(cors.max_age.as_deref(), Some("600"));
        assert!(rest_cors(&json!({"AllowHeaders": "'x'"})).is_err());
    }
}
