//! The front door: one endpoint for every service, like LocalStack's. JSON
//! protocol services are told apart by the `X-Amz-Target` prefix
//! (`DynamoDB_20120810.GetItem`), everything else by path prefix.

use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;
use http::StatusCode;

use crate::latency::LatencyProfile;
use crate::{AwsError, Handler, HttpRequest, HttpResponse, RequestContext};

/// A service spoken over AWS JSON 1.0 (`POST /` with `X-Amz-Target`).
#[async_trait]
pub trait JsonService: Send + Sync + 'static {
    /// The part of `X-Amz-Target` before the dot, e.g. `DynamoDB_20120810`.
    fn target_prefix(&self) -> &'static str;

    /// The service's name in a latency profile (`dynamodb`, `sqs`).
    fn service_name(&self) -> &'static str {
        self.target_prefix()
    }

    /// Handles one operation; `Ok` is the JSON response body (status 200).
    async fn handle(
        &self,
        ctx: &RequestContext,
        operation: &str,
        body: Bytes,
    ) -> Result<Bytes, AwsError>;

    /// The error for a `X-Amz-Target` naming an operation this service lacks.
    fn unknown_operation(&self, operation: &str) -> AwsError {
        AwsError::client(
            "UnknownOperationException",
            format!("Operation {operation} is not supported by the local cloud"),
        )
    }
}

/// A service reached by path (the Lambda Invoke API, admin endpoints, ...).
#[async_trait]
pub trait PathService: Send + Sync + 'static {
    /// Answers the request, or gives it back when the path is not its own.
    async fn handle(&self, request: HttpRequest) -> Result<HttpResponse, HttpRequest>;
}

/// Looks at every request before any service does: who signed it and
/// whether they may (IAM). `Some` is the response that answers instead.
pub trait Guard: Send + Sync + 'static {
    fn check(&self, request: &HttpRequest) -> Option<HttpResponse>;
}

#[derive(Default, Clone)]
pub struct Dispatcher {
    json: Vec<Arc<dyn JsonService>>,
    paths: Vec<Arc<dyn PathService>>,
    latency: Option<Arc<LatencyProfile>>,
    guard: Option<Arc<dyn Guard>>,
}

/// `POST /2015-03-31/functions/{name}/invocations`: the Lambda Invoke API.
fn is_invoke(request: &HttpRequest) -> bool {
    let path = request.uri().path();
    path.starts_with("/2015-03-31/functions/") && path.ends_with("/invocations")
}

impl Dispatcher {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn with_json(mut self, service: Arc<dyn JsonService>) -> Self {
        self.json.push(service);
        self
    }

    pub fn with_path(mut self, service: Arc<dyn PathService>) -> Self {
        self.paths.push(service);
        self
    }

    /// Delays every DynamoDB, SQS and Invoke call as the profile says.
    pub fn with_latency(mut self, profile: Arc<LatencyProfile>) -> Self {
        self.latency = Some(profile);
        self
    }

    /// Checks every request with `guard` first.
    pub fn with_guard(mut self, guard: Arc<dyn Guard>) -> Self {
        self.guard = Some(guard);
        self
    }

    async fn inject_latency(&self, service: &str, operation: &str) {
        if let Some(delay) = self
            .latency
            .as_ref()
            .and_then(|p| p.sample(service, operation))
        {
            tokio::time::sleep(delay).await;
        }
    }

    async fn call_json(&self, target: &str, request: HttpRequest) -> HttpResponse {
        let ctx = RequestContext::from_headers(request.headers());
        let (prefix, operation) = target.split_once('.').unwrap_or((target, ""));
        let Some(service) = self.json.iter().find(|s| s.target_prefix() == prefix) else {
            return AwsError::client(
                "UnknownOperationException",
                format!("No service of the local cloud answers X-Amz-Target {target}"),
            )
            .into_response(&ctx.request_id);
        };
        self.inject_latency(service.service_name(), operation).await;
        match service.handle(&ctx, operation, request.into_body()).await {
            Ok(body) => http::Response::builder()
                .status(StatusCode::OK)
                .header("content-type", "application/x-amz-json-1.0")
                .header("x-amzn-requestid", &ctx.request_id)
                .body(body)
                .expect("static response parts are valid"),
            Err(err) => err.into_response(&ctx.request_id),
        }
    }
}

#[async_trait]
impl Handler for Dispatcher {
    async fn call(&self, request: HttpRequest) -> HttpResponse {
        if let Some(guard) = &self.guard {
            if let Some(refused) = guard.check(&request) {
                return refused;
            }
        }
        let target = request
            .headers()
            .get("x-amz-target")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        if let Some(target) = target {
            return self.call_json(&target, request).await;
        }
        if is_invoke(&request) {
            self.inject_latency("lambda", "Invoke").await;
        }
        let mut request = request;
        for service in &self.paths {
            match service.handle(request).await {
                Ok(response) => return response,
                Err(back) => request = back,
            }
        }
        http::Response::builder()
            .status(StatusCode::NOT_FOUND)
            .header("content-type", "application/json")
            .body(Bytes::from_static(b"{\"message\":\"Not Found\"}"))
            .expect("static response parts are valid")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Echo;

    #[async_trait]
    impl JsonService for Echo {
        fn target_prefix(&self) -> &'static str {
            "Echo_1"
        }
        async fn handle(
            &self,
            ctx: &RequestContext,
            operation: &str,
            body: Bytes,
        ) -> Result<Bytes, AwsError> {
            if operation == "Fail" {
                return Err(AwsError::client("Echo#Failed", "asked to fail"));
            }
            Ok(Bytes::from(format!(
                "{{\"op\":\"{operation}\",\"region\":\"{}\",\"len\":{}}}",
                ctx.region,
                body.len()
            )))
        }
    }

    struct Health;

    #[async_trait]
    impl PathService for Health {
        async fn handle(&self, request: HttpRequest) -> Result<HttpResponse, HttpRequest> {
            if request.uri().path() != "/health" {
                return Err(request);
            }
            Ok(http::Response::new(Bytes::from_static(b"ok")))
        }
    }

    fn dispatcher() -> Dispatcher {
        Dispatcher::new()
            .with_json(Arc::new(Echo))
            .with_path(Arc::new(Health))
    }

    fn json_request(target: &str) -> HttpRequest {
        http::Request::post("/")
            .header("x-amz-target", target)
            .body(Bytes::from_static(b"{}"))
            .unwrap()
    }

    #[tokio::test]
    async fn target_prefix_selects_the_service_and_operation() {
        let response = dispatcher().call(json_request("Echo_1.Ping")).await;
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(
            &response.body()[..],
            b"{\"op\":\"Ping\",\"region\":\"us-east-1\",\"len\":2}"
        );
    }

    #[tokio::test]
    async fn service_errors_become_json_errors() {
        let response = dispatcher().call(json_request("Echo_1.Fail")).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
        let body: serde_json::Value = serde_json::from_slice(response.body()).unwrap();
        assert_eq!(body["__type"], "Echo#Failed");
    }

    #[tokio::test]
    async fn unknown_target_is_an_error_not_a_404() {
        let response = dispatcher().call(json_request("Nope_2.Ping")).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    }

    #[tokio::test]
    async fn a_latency_profile_delays_calls_of_the_services_it_names_only() {
        let profile = LatencyProfile::from_json(
            r#"{"Echo_1": {"Ping": {"p50_ms": 400, "p99_ms": 400}}, "lambda": {"Invoke": {"p50_ms": 400, "p99_ms": 400}}}"#,
        )
        .unwrap();
        let dispatcher = dispatcher().with_latency(Arc::new(profile));

        let started = std::time::Instant::now();
        dispatcher.call(json_request("Echo_1.Ping")).await;
        assert!(
            started.elapsed() >= std::time::Duration::from_millis(400),
            "{:?}",
            started.elapsed()
        );

        let invoke = http::Request::post("/2015-03-31/functions/f/invocations")
            .body(Bytes::new())
            .unwrap();
        let started = std::time::Instant::now();
        dispatcher.call(invoke).await;
        assert!(
            started.elapsed() >= std::time::Duration::from_millis(400),
            "{:?}",
            started.elapsed()
        );

        // An operation the profile does not name is not delayed: it answers
        // well before the 400 ms the others wait.
        let undelayed = tokio::time::timeout(
            std::time::Duration::from_millis(300),
            dispatcher.call(json_request("Echo_1.Other")),
        )
        .await;
        assert!(undelayed.is_ok());
    }

    struct NoFail;

    impl Guard for NoFail {
        fn check(&self, request: &HttpRequest) -> Option<HttpResponse> {
            match request.headers().get("x-amz-target") {
                Some(t) if t == "Echo_1.Fail" => Some(
                    http::Response::builder()
                        .status(StatusCode::FORBIDDEN)
                        .body(Bytes::from_static(b"refused"))
                        .unwrap(),
                ),
                _ => None,
            }
        }
    }

    #[tokio::test]
    async fn a_guard_answers_instead_of_the_service_when_it_refuses() {
        let guarded = dispatcher().with_guard(Arc::new(NoFail));
        let refused = guarded.call(json_request("Echo_1.Fail")).await;
        assert_eq!(refused.status(), StatusCode::FORBIDDEN);
        assert_eq!(&refused.body()[..], b"refused");
        let passed = guarded.call(json_request("Echo_1.Ping")).await;
        assert_eq!(passed.status(), StatusCode::OK);
    }

    #[tokio::test]
    async fn paths_fall_through_to_404() {
        let ok = dispatcher()
            .call(http::Request::get("/health").body(Bytes::new()).unwrap())
            .await;
        assert_eq!(&ok.body()[..], b"ok");
        let missing = dispatcher()
            .call(http::Request::get("/elsewhere").body(Bytes::new()).unwrap())
            .await;
        assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    }
}
