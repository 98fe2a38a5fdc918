//! REST APIs (API Gateway v1) with Lambda proxy integrations: the stage in
//! the path, resources and methods (`{proxy+}`, `ANY`), payload format 1.0
//! events and responses, binary media types, SAM's CORS `OPTIONS` methods,
//! throttling, and REST's own error answers.

pub mod config;
pub mod cors;
pub mod event;
pub mod media;
pub mod response;
pub mod throttle;

use std::sync::Arc;

use async_trait::async_trait;
use chrono::Utc;
use http::{HeaderValue, Method};
use parking_lot::Mutex;
use tokio::net::TcpListener;

use crate::gateway::{serve, GatewayHandle, MeteredApi, StartError, MAX_PAYLOAD_BYTES};
use crate::metrics::{ApiKind, ApiMetrics, Meter, Outcome};
use crate::routes::RouteTable;
use config::RestApiConfig;
use event::{build_rest_event, RestEventContext};
use localcloud_core::context::DEFAULT_ACCOUNT;
use localcloud_core::{
    Handler, HttpRequest, HttpResponse, InvokeError, InvokeRequest, InvokeResponse, Invoker,
};
use response::{map_rest_response, RestError};
use throttle::TokenBucket;

const SOURCE_IP: &str = "127.0.0.1";

pub struct RestApi {
    config: RestApiConfig,
    api_id: String,
    routes: RouteTable,
    invoker: Arc<dyn Invoker>,
    bucket: TokenBucket,
    metrics: Mutex<ApiMetrics>,
}

impl RestApi {
    pub fn new(
        config: RestApiConfig,
        invoker: Arc<dyn Invoker>,
    ) -> Result<Self, crate::ConfigError> {
        config.validate()?;
        let routes = RouteTable::new(&config.name, &config.routes)?;
        let api_id = config.api_id();
        Ok(Self {
            metrics: Mutex::new(ApiMetrics::new(ApiKind::Rest, &config.name, &api_id)),
            bucket: TokenBucket::new(config.throttle),
            config,
            api_id,
            routes,
            invoker,
        })
    }

    pub fn api_id(&self) -> &str {
        &self.api_id
    }

    /// The path after `/{stage}`, or `None` for another stage.
    fn resource_path<'a>(&self, path: &'a str) -> Option<&'a str> {
        crate::routes::strip_stage(path, &self.config.stage)
    }

    async fn respond(&self, request: &HttpRequest, ids: &RequestIds) -> (HttpResponse, Outcome) {
        let rejected = |e: RestError| (e.response(), Outcome::Rejected);
        if request.body().len() > MAX_PAYLOAD_BYTES {
            return rejected(RestError::TooLarge);
        }
        let Some(path) = self.resource_path(request.uri().path()) else {
            return rejected(RestError::Forbidden);
        };
        // `/hello/` is the resource `/hello`: REST APIs ignore one trailing
        // slash (the `sam init` starter's output URL ends with one).
        let event_path = path;
        let path = match path.strip_suffix('/') {
            Some(trimmed) if !trimmed.is_empty() => trimmed,
            _ => path,
        };
        if request.method() == Method::OPTIONS {
            if let (Some(cors), Some(resource)) =
                (&self.config.cors, self.routes.find_resource(path))
            {
                let explicit = self
                    .routes
                    .find("OPTIONS", path)
                    .filter(|m| m.route_key.starts_with("OPTIONS"));
                if explicit.is_none() {
                    let methods = self.routes.methods_of(resource.resource);
                    return (cors.options_response(&methods), Outcome::Rejected);
                }
            }
        }
        let Some(route) = self.routes.find(request.method().as_str(), path) else {
            return rejected(RestError::MissingAuthenticationToken);
        };
        let ctx = RestEventContext {
            api_id: &self.api_id,
            account_id: DEFAULT_ACCOUNT,
            stage: &self.config.stage,
            request_id: &ids.request_id,
            extended_request_id: &ids.extended_request_id,
            source_ip: SOURCE_IP,
            now: Utc::now(),
            stage_variables: &self.config.stage_variables,
            binary_media_types: &self.config.binary_media_types,
            trace_id: &ids.trace_id,
        };
        let event = build_rest_event(request, event_path, &route, &ctx);
        let payload = serde_json::to_vec(&event).expect("a JSON value serialises");
        let invoke = InvokeRequest::sync(
            route.function,
            payload,
            format!("apigw:{}", self.config.name),
        );
        let timeout = route.timeout.unwrap_or(self.config.timeout);
        let result = tokio::time::timeout(timeout, self.invoker.invoke(invoke)).await;
        let accept = request
            .headers()
            .get(http::header::ACCEPT)
            .and_then(|v| v.to_str().ok());
        self.integration_response(result, accept)
    }

    /// Function errors and unusable responses are 502; failures of Lambda
    /// itself, a throttle included, are 500 ("API Gateway internal server
    /// error" in the AWS knowledge center); no answer within the timeout is
    /// 504.
    fn integration_response(
        &self,
        result: Result<Result<InvokeResponse, InvokeError>, tokio::time::error::Elapsed>,
        accept: Option<&str>,
    ) -> (HttpResponse, Outcome) {
        match result {
            Err(_elapsed) => (RestError::Timeout.response(), Outcome::TimedOut),
            Ok(Err(InvokeError::Throttled { .. })) => (
                RestError::InternalServerError.response(),
                Outcome::Throttled,
            ),
            Ok(Err(InvokeError::RequestTooLarge { .. })) => {
                (RestError::TooLarge.response(), Outcome::IntegrationFailed)
            }
            Ok(Err(err)) => {
                tracing::warn!(error = %err, "Lambda integration failed");
                (
                    RestError::InternalServerError.response(),
                    Outcome::IntegrationFailed,
                )
            }
            Ok(Ok(response)) if response.function_error.is_some() => {
                (RestError::BadGateway.response(), Outcome::FunctionError)
            }
            Ok(Ok(response)) => {
                match map_rest_response(&response.payload, accept, &self.config.binary_media_types)
                {
                    Ok(mapped) => (mapped, Outcome::Responded),
                    Err(err) => {
                        tracing::warn!(error = %err, "malformed Lambda proxy response");
                        (RestError::BadGateway.response(), Outcome::Malformed)
                    }
                }
            }
        }
    }
}

/// The ids of one request: `x-amzn-RequestId` (a UUID), `x-amz-apigw-id`
/// and the trace id, each echoed in response headers and the event.
struct RequestIds {
    request_id: String,
    extended_request_id: String,
    trace_id: String,
}

impl RequestIds {
    fn new() -> Self {
        let now = Utc::now();
        let random: [u8; 12] = rand::random();
        let hex: String = random.iter().map(|b| format!("{b:02x}")).collect();
        Self {
            request_id: uuid_v4(),
            extended_request_id: crate::event::new_request_id(),
            trace_id: format!("Root=1-{:08x}-{hex}", now.timestamp()),
        }
    }
}

fn uuid_v4() -> String {
    let mut b: [u8; 16] = rand::random();
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &h[..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..]
    )
}

#[async_trait]
impl Handler for RestApi {
    async fn call(&self, request: HttpRequest) -> HttpResponse {
        let ids = RequestIds::new();
        if !self.bucket.try_take() {
            let response = RestError::Throttled.response();
            // Throttled requests are not billed.
            self.metrics.lock().record_unbilled(&response);
            return response;
        }
        let (mut response, outcome) = self.respond(&request, &ids).await;
        let headers = response.headers_mut();
        for (name, value) in [
            ("x-amzn-requestid", &ids.request_id),
            ("x-amz-apigw-id", &ids.extended_request_id),
            ("x-amzn-trace-id", &ids.trace_id),
        ] {
            if let Ok(value) = HeaderValue::from_str(value) {
                headers.insert(name, value);
            }
        }
        self.metrics
            .lock()
            .record_per_request(request.body().len(), &response, outcome);
        response
    }
}

impl MeteredApi for RestApi {
    fn metrics(&self) -> ApiMetrics {
        self.metrics.lock().clone()
    }

    fn reset_metrics(&self) {
        self.metrics.lock().reset();
    }
}

/// Starts `config` on a bound listener; its URL ends with `/{stage}`.
pub fn start_rest_on(
    config: RestApiConfig,
    invoker: Arc<dyn Invoker>,
    listener: TcpListener,
) -> Result<GatewayHandle, StartError> {
    let stage = config.stage.clone();
    let api = Arc::new(RestApi::new(config, invoker)?);
    serve(api, listener, Some(&stage))
}
