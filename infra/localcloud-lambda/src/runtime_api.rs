//! The Runtime API one execution environment's process polls, on its own
//! listener (`AWS_LAMBDA_RUNTIME_API=127.0.0.1:<port>`), as on AWS where each
//! environment has its own. The environment hands it invocations and reads back
//! what the runtime reported as [`RuntimeEvent`]s.

use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;
use http::{Method, StatusCode};
use localcloud_core::{Handler, HttpRequest, HttpResponse, ServerHandle};
use parking_lot::Mutex;
use tokio::sync::{mpsc, watch};

const PREFIX: &str = "/2018-06-01/runtime/";

/// One event as `GET .../invocation/next` returns it.
#[derive(Debug, Clone)]
pub struct Invocation {
    pub request_id: String,
    pub payload: Bytes,
    /// Unix epoch milliseconds.
    pub deadline_ms: u64,
    pub function_arn: String,
    pub trace_id: String,
}

/// What the runtime told us, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum RuntimeEvent {
    /// The runtime polls for work: on the first poll, init is over.
    Next,
    Response {
        request_id: String,
        body: Bytes,
    },
    Error {
        request_id: String,
        body: Bytes,
    },
    InitError {
        body: Bytes,
    },
}

/// The environment's side of its Runtime API.
pub struct RuntimeApi {
    pub address: String,
    invocations: mpsc::Sender<Invocation>,
    pub events: mpsc::UnboundedReceiver<RuntimeEvent>,
    closed: watch::Sender<bool>,
    server: ServerHandle,
}

impl RuntimeApi {
    pub async fn bind() -> std::io::Result<Self> {
        let (invocations, queue) = mpsc::channel(1);
        let (events_tx, events) = mpsc::unbounded_channel();
        let (closed, closed_rx) = watch::channel(false);
        let state = Arc::new(RuntimeState {
            queue: tokio::sync::Mutex::new(queue),
            current: Mutex::new(None),
            events: events_tx,
            closed: closed_rx,
        });
        let server = localcloud_core::serve_on_ephemeral_port(state).await?;
        Ok(Self {
            address: server.addr.to_string(),
            invocations,
            events,
            closed,
            server,
        })
    }

    /// Queues one invocation for the runtime's next poll; false if the API is closed.
    pub async fn dispatch(&self, invocation: Invocation) -> bool {
        self.invocations.send(invocation).await.is_ok()
    }

    /// Stops the listener and releases any poll still waiting.
    pub fn close(&self) {
        let _ = self.closed.send(true);
        self.server.stop();
    }
}

impl Drop for RuntimeApi {
    fn drop(&mut self) {
        self.close();
    }
}

struct RuntimeState {
    queue: tokio::sync::Mutex<mpsc::Receiver<Invocation>>,
    /// The request id handed out and not yet answered.
    current: Mutex<Option<String>>,
    events: mpsc::UnboundedSender<RuntimeEvent>,
    closed: watch::Receiver<bool>,
}

#[async_trait]
impl Handler for RuntimeState {
    async fn call(&self, request: HttpRequest) -> HttpResponse {
        let path = request.uri().path().to_string();
        let Some(route) = path.strip_prefix(PREFIX) else {
            return reply(StatusCode::NOT_FOUND, "InvalidRequest", "Unknown path");
        };
        let parts: Vec<&str> = route.split('/').collect();
        match (request.method(), parts.as_slice()) {
            (&Method::GET, ["invocation", "next"]) => self.next().await,
            (&Method::POST, ["invocation", id, "response"]) => self.complete(id, false, &request),
            (&Method::POST, ["invocation", id, "error"]) => self.complete(id, true, &request),
            (&Method::POST, ["init", "error"]) => {
                let body = error_body(&request);
                let _ = self.events.send(RuntimeEvent::InitError { body });
                accepted()
            }
            _ => reply(StatusCode::NOT_FOUND, "InvalidRequest", "Unknown path"),
        }
    }
}

impl RuntimeState {
    async fn next(&self) -> HttpResponse {
        let _ = self.events.send(RuntimeEvent::Next);
        let mut queue = self.queue.lock().await;
        let mut closed = self.closed.clone();
        let invocation = tokio::select! {
            invocation = queue.recv() => invocation,
            _ = closed.wait_for(|c| *c) => None,
        };
        let Some(invocation) = invocation else {
            return reply(
                StatusCode::GONE,
                "ServiceShuttingDown",
                "Environment is shutting down",
            );
        };
        *self.current.lock() = Some(invocation.request_id.clone());
        http::Response::builder()
            .status(StatusCode::OK)
            .header("content-type", "application/json")
            .header("lambda-runtime-aws-request-id", &invocation.request_id)
            .header(
                "lambda-runtime-deadline-ms",
                invocation.deadline_ms.to_string(),
            )
            .header(
                "lambda-runtime-invoked-function-arn",
                &invocation.function_arn,
            )
            .header("lambda-runtime-trace-id", &invocation.trace_id)
            .body(invocation.payload)
            .expect("runtime headers are valid")
    }

    /// Records the answer to the current invocation; an id that is not the
    /// current one is refused as on AWS.
    fn complete(&self, id: &str, is_error: bool, request: &HttpRequest) -> HttpResponse {
        let mut current = self.current.lock();
        if current.as_deref() != Some(id) {
            return reply(
                StatusCode::BAD_REQUEST,
                "InvalidRequestID",
                "Invalid request ID",
            );
        }
        *current = None;
        drop(current);
        let request_id = id.to_string();
        let event = if is_error {
            RuntimeEvent::Error {
                request_id,
                body: error_body(request),
            }
        } else {
            RuntimeEvent::Response {
                request_id,
                body: request.body().clone(),
            }
        };
        let _ = self.events.send(event);
        accepted()
    }
}

/// The error document a runtime posted; runtimes that post nothing useful
/// still yield `{"errorType":..,"errorMessage":..}` as AWS shows it.
fn error_body(request: &HttpRequest) -> Bytes {
    let posted: Option<serde_json::Value> = serde_json::from_slice(request.body()).ok();
    if posted
        .as_ref()
        .is_some_and(|v| v.get("errorType").is_some() || v.get("errorMessage").is_some())
    {
        return request.body().clone();
    }
    let error_type = request
        .headers()
        .get("lambda-runtime-function-error-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("Runtime.Unknown");
    let body = serde_json::json!({
        "errorType": error_type,
        "errorMessage": "Unknown application error occurred",
    });
    Bytes::from(body.to_string())
}

fn accepted() -> HttpResponse {
    http::Response::builder()
        .status(StatusCode::ACCEPTED)
        .header("content-type", "application/json")
        .body(Bytes::from_static(b"{\"status\":\"OK\"}"))
        .expect("static response is valid")
}

fn reply(status: StatusCode, error_type: &str, message: &str) -> HttpResponse {
    let body = serde_json::json!({ "errorType": error_type, "errorMessage": message });
    http::Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .body(Bytes::from(body.to_string()))
        .expect("static response is valid")
}
