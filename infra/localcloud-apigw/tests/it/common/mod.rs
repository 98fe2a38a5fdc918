//! A fake Lambda service for the gateway tests: it records every invocation
//! and answers through a closure, optionally after a delay.

#![allow(dead_code)]

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use localcloud_apigw::{HttpApi, HttpApiConfig, RouteConfig};
use localcloud_core::{InvokeError, InvokeRequest, InvokeResponse, Invoker};
use parking_lot::Mutex;
use serde_json::Value;

type Responder = dyn Fn(&Value) -> Result<InvokeResponse, InvokeError> + Send + Sync;

pub struct FakeLambda {
    respond: Box<Responder>,
    delay: Duration,
    pub calls: Mutex<Vec<InvokeRequest>>,
}

impl FakeLambda {
    pub fn new(
        respond: impl Fn(&Value) -> Result<InvokeResponse, InvokeError> + Send + Sync + 'static,
    ) -> Arc<Self> {
        Arc::new(Self {
            respond: Box::new(respond),
            delay: Duration::ZERO,
            calls: Mutex::new(Vec::new()),
        })
    }

    /// A function that answers `payload` (a JSON document) every time.
    pub fn answering(payload: &str) -> Arc<Self> {
        let payload = payload.to_string();
        Self::new(move |_| Ok(ok(&payload)))
    }

    pub fn slow(delay: Duration, payload: &str) -> Arc<Self> {
        let payload = payload.to_string();
        Arc::new(Self {
            respond: Box::new(move |_| Ok(ok(&payload))),
            delay,
            calls: Mutex::new(Vec::new()),
        })
    }

    /// The event of the last invocation.
    pub fn last_event(&self) -> Value {
        let calls = self.calls.lock();
        let call = calls.last().expect("the function was invoked");
        serde_json::from_slice(&call.payload).expect("events are JSON")
    }

    pub fn call_count(&self) -> usize {
        self.calls.lock().len()
    }
}

pub fn ok(payload: &str) -> InvokeResponse {
    InvokeResponse {
        request_id: "11111111-2222-4333-8444-555555555555".into(),
        payload: Bytes::from(payload.to_string()),
        function_error: None,
        status: 200,
    }
}

#[async_trait]
impl Invoker for FakeLambda {
    async fn invoke(&self, request: InvokeRequest) -> Result<InvokeResponse, InvokeError> {
        self.calls.lock().push(request.clone());
        if !self.delay.is_zero() {
            tokio::time::sleep(self.delay).await;
        }
        let event: Value = serde_json::from_slice(&request.payload).unwrap_or(Value::Null);
        (self.respond)(&event)
    }
}

/// An API whose routes all go to `function`.
pub fn api(routes: &[(&str, &str)], lambda: Arc<FakeLambda>) -> HttpApi {
    api_with(routes, lambda, |_| {})
}

pub fn api_with(
    routes: &[(&str, &str)],
    lambda: Arc<FakeLambda>,
    tweak: impl FnOnce(&mut HttpApiConfig),
) -> HttpApi {
    let routes = routes
        .iter()
        .map(|(method, path)| RouteConfig::new(method, path, "conduit"))
        .collect();
    let mut config = HttpApiConfig::new("ConduitApi", routes);
    tweak(&mut config);
    HttpApi::new(config, lambda).expect("valid test config")
}

pub fn get(uri: &str) -> http::request::Builder {
    http::Request::get(uri).header("host", "127.0.0.1:4566")
}

/// A REST API (stage `Prod`) whose methods all go to `conduit`.
pub fn rest_api(
    routes: &[(&str, &str)],
    lambda: Arc<FakeLambda>,
    tweak: impl FnOnce(&mut localcloud_apigw::RestApiConfig),
) -> localcloud_apigw::RestApi {
    let routes = routes
        .iter()
        .map(|(method, path)| RouteConfig::new(method, path, "conduit"))
        .collect();
    let mut config = localcloud_apigw::RestApiConfig::new("ServerlessRestApi", "Prod", routes);
    tweak(&mut config);
    localcloud_apigw::RestApi::new(config, lambda).expect("valid test config")
}
