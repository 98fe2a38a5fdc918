//! One HTTP API: a [`Handler`] that routes, builds the event, invokes the
//! function and maps what comes back; and `start`, which gives it a listener.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use chrono::Utc;
use http::{HeaderValue, StatusCode};
use parking_lot::Mutex;
use tokio::net::TcpListener;

use crate::config::{
    ConfigError, HttpApiConfig, DEFAULT_STAGE, MAX_FUNCTION_URL_TIMEOUT, MAX_INTEGRATION_TIMEOUT,
};
use crate::event::{build_event, new_request_id, EventContext};
use crate::metrics::{ApiKind, ApiMetrics, Meter, Outcome};
use crate::response::{gateway_error, map_response};
use crate::routes::RouteTable;
use localcloud_core::context::DEFAULT_ACCOUNT;
use localcloud_core::{
    Handler, HttpRequest, HttpResponse, InvokeError, InvokeRequest, Invoker, ServerHandle,
};

/// HTTP APIs reject request payloads over 10 MB.
pub const MAX_PAYLOAD_BYTES: usize = 10 * 1024 * 1024;

/// Every client of a local listener is on this host; the server contract
/// does not pass the peer address on.
const SOURCE_IP: &str = "127.0.0.1";

pub struct HttpApi {
    config: HttpApiConfig,
    api_id: String,
    routes: RouteTable,
    invoker: Arc<dyn Invoker>,
    metrics: Mutex<ApiMetrics>,
}

impl HttpApi {
    pub fn new(config: HttpApiConfig, invoker: Arc<dyn Invoker>) -> Result<Self, ConfigError> {
        if config.payload_format != "2.0" {
            return Err(ConfigError::PayloadFormat {
                api: config.name.clone(),
                format: config.payload_format.clone(),
            });
        }
        let timeouts =
            std::iter::once(config.timeout).chain(config.routes.iter().filter_map(|r| r.timeout));
        let max = if config.function_url {
            MAX_FUNCTION_URL_TIMEOUT
        } else {
            MAX_INTEGRATION_TIMEOUT
        };
        for timeout in timeouts {
            if timeout < Duration::from_millis(50) || timeout > max {
                return Err(ConfigError::Timeout {
                    api: config.name.clone(),
                });
            }
        }
        let routes = RouteTable::new(&config.name, &config.routes)?;
        let api_id = config.api_id();
        let kind = if config.function_url {
            ApiKind::FunctionUrl
        } else {
            ApiKind::Http
        };
        let metrics = Mutex::new(ApiMetrics::new(kind, &config.name, &api_id));
        Ok(Self {
            config,
            api_id,
            routes,
            invoker,
            metrics,
        })
    }

    pub fn api_id(&self) -> &str {
        &self.api_id
    }

    pub fn metrics(&self) -> ApiMetrics {
        self.metrics.lock().clone()
    }

    pub fn reset_metrics(&self) {
        self.metrics.lock().reset();
    }

    /// The path the route table sees: without the stage prefix of a named
    /// stage (`/dev/pets` -> `/pets`); `None` when the stage does not match.
    fn route_path<'a>(&self, path: &'a str) -> Option<&'a str> {
        if self.config.stage == DEFAULT_STAGE {
            return Some(path);
        }
        crate::routes::strip_stage(path, &self.config.stage)
    }

    async fn respond(&self, request: &HttpRequest, request_id: &str) -> (HttpResponse, Outcome) {
        if request.body().len() > MAX_PAYLOAD_BYTES {
            let response = gateway_error(StatusCode::PAYLOAD_TOO_LARGE, "Request Entity Too Large");
            return (response, Outcome::Rejected);
        }
        let path = request.uri().path();
        let method = request.method().as_str();
        let Some(route) = self
            .route_path(path)
            .and_then(|p| self.routes.find(method, p))
        else {
            return (
                gateway_error(StatusCode::NOT_FOUND, "Not Found"),
                Outcome::Rejected,
            );
        };
        let ctx = EventContext {
            api_id: &self.api_id,
            account_id: DEFAULT_ACCOUNT,
            stage: &self.config.stage,
            request_id,
            source_ip: SOURCE_IP,
            now: Utc::now(),
            stage_variables: &self.config.stage_variables,
        };
        let event = build_event(request, &route, &ctx);
        let payload = serde_json::to_vec(&event).expect("the event serialises");
        let invoke = InvokeRequest::sync(
            route.function,
            payload,
            format!("apigw:{}", self.config.name),
        );
        let timeout = route.timeout.unwrap_or(self.config.timeout);
        let result = tokio::time::timeout(timeout, self.invoker.invoke(invoke)).await;
        integration_response(result)
    }
}

/// AWS's answers: a function error or an unusable response is 500; an
/// integration that does not answer within the timeout is 503. A Lambda
/// throttle (429 from Invoke) is not passed on as 429: API Gateway reports
/// it as an integration failure, 500 Internal Server Error (AWS knowledge
/// center, "API Gateway internal server error": throttled backends).
fn integration_response(
    result: Result<
        Result<localcloud_core::InvokeResponse, InvokeError>,
        tokio::time::error::Elapsed,
    >,
) -> (HttpResponse, Outcome) {
    let internal = || gateway_error(StatusCode::INTERNAL_SERVER_ERROR, "Internal Server Error");
    match result {
        Err(_elapsed) => (
            gateway_error(StatusCode::SERVICE_UNAVAILABLE, "Service Unavailable"),
            Outcome::TimedOut,
        ),
        Ok(Err(InvokeError::Throttled { .. })) => (internal(), Outcome::Throttled),
        Ok(Err(InvokeError::RequestTooLarge { .. })) => (
            gateway_error(StatusCode::PAYLOAD_TOO_LARGE, "Request Entity Too Large"),
            Outcome::IntegrationFailed,
        ),
        Ok(Err(err)) => {
            tracing::warn!(error = %err, "Lambda integration failed");
            (internal(), Outcome::IntegrationFailed)
        }
        Ok(Ok(response)) if response.function_error.is_some() => {
            (internal(), Outcome::FunctionError)
        }
        Ok(Ok(response)) => match map_response(&response.payload) {
            Ok(mapped) => (mapped, Outcome::Responded),
            Err(err) => {
                tracing::warn!(error = %err, "malformed Lambda proxy response");
                (internal(), Outcome::Malformed)
            }
        },
    }
}

#[async_trait]
impl Handler for HttpApi {
    async fn call(&self, request: HttpRequest) -> HttpResponse {
        let request_id = new_request_id();
        let (mut response, outcome) = match &self.config.cors {
            Some(cors) if crate::cors::is_preflight(&request) => {
                (cors.preflight(&request), Outcome::Rejected)
            }
            cors => {
                let (mut response, outcome) = if self.config.iam_auth && !is_signed(&request) {
                    (forbidden_unsigned(), Outcome::Rejected)
                } else {
                    self.respond(&request, &request_id).await
                };
                if let Some(cors) = cors {
                    cors.decorate(&request, &mut response);
                }
                (response, outcome)
            }
        };
        if let Ok(value) = HeaderValue::from_str(&request_id) {
            response.headers_mut().insert("apigw-requestid", value);
        }
        self.metrics
            .lock()
            .record(request.body().len(), &response, outcome);
        response
    }
}

/// Whether a request carries a SigV4 signature (header or query string).
/// Signatures are not verified locally, as everywhere in the local cloud.
fn is_signed(request: &HttpRequest) -> bool {
    let header = request
        .headers()
        .get(http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("AWS4-HMAC-SHA256 "));
    let query = request
        .uri()
        .query()
        .is_some_and(|q| q.contains("X-Amz-Signature="));
    header || query
}

/// A function URL with `AuthType: AWS_IAM` called without a signature:
/// 403 `{"Message":"Forbidden"}` (Lambda's own error shape, capital M).
/// <https://docs.aws.amazon.com/lambda/latest/dg/urls-auth.html>
fn forbidden_unsigned() -> HttpResponse {
    let mut response = HttpResponse::new(bytes::Bytes::from_static(br#"{"Message":"Forbidden"}"#));
    *response.status_mut() = StatusCode::FORBIDDEN;
    response.headers_mut().insert(
        http::header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// An API a gateway listener serves: HTTP API, REST API or function URL.
pub trait MeteredApi: Handler {
    fn metrics(&self) -> ApiMetrics;
    fn reset_metrics(&self);
}

impl MeteredApi for HttpApi {
    fn metrics(&self) -> ApiMetrics {
        HttpApi::metrics(self)
    }

    fn reset_metrics(&self) {
        HttpApi::reset_metrics(self)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
}

/// A running API on its own listener.
pub struct GatewayHandle {
    /// The invoke URL, as AWS outputs it: with `/<stage>` for a named stage.
    pub url: String,
    pub addr: SocketAddr,
    api: Arc<dyn MeteredApi>,
    server: ServerHandle,
}

impl GatewayHandle {
    pub fn api(&self) -> &Arc<dyn MeteredApi> {
        &self.api
    }

    pub fn metrics(&self) -> ApiMetrics {
        self.api.metrics()
    }

    pub fn reset_metrics(&self) {
        self.api.reset_metrics()
    }

    pub async fn shutdown(self) {
        self.server.shutdown().await
    }
}

/// Starts `config` on `bind` (port 0 for an ephemeral port).
pub async fn start(
    config: HttpApiConfig,
    invoker: Arc<dyn Invoker>,
    bind: SocketAddr,
) -> Result<GatewayHandle, StartError> {
    let listener = TcpListener::bind(bind)
        .await
        .map_err(|source| StartError::Bind { addr: bind, source })?;
    start_on(config, invoker, listener)
}

/// Starts `config` on a listener the caller has already bound, so that the
/// address is known (and kept) before the API is configured.
pub fn start_on(
    config: HttpApiConfig,
    invoker: Arc<dyn Invoker>,
    listener: TcpListener,
) -> Result<GatewayHandle, StartError> {
    let stage = (config.stage != DEFAULT_STAGE).then(|| config.stage.clone());
    let api = Arc::new(HttpApi::new(config, invoker)?);
    serve(api, listener, stage.as_deref())
}

/// Serves `api` on `listener`; the URL ends with `/<stage>` when given.
pub fn serve(
    api: Arc<dyn MeteredApi>,
    listener: TcpListener,
    stage: Option<&str>,
) -> Result<GatewayHandle, StartError> {
    let bind = listener.local_addr().map_err(|source| StartError::Bind {
        addr: ([127, 0, 0, 1], 0).into(),
        source,
    })?;
    let handler: Arc<dyn Handler> = api.clone();
    let server = localcloud_core::serve(listener, handler)
        .map_err(|source| StartError::Bind { addr: bind, source })?;
    let addr = server.addr;
    let url = match stage {
        Some(stage) => format!("http://{addr}/{stage}"),
        None => format!("http://{addr}"),
    };
    Ok(GatewayHandle {
        url,
        addr,
        api,
        server,
    })
}
