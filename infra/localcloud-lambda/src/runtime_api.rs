//! The Runtime API one execution environment's process polls, on its own
//! listener (`AWS_LAMBDA_RUNTIME_API=127.0.0.1:<port>`), as on AWS where each
//! environment has its own. The environment hands it invocations and reads back
//! what the runtime reported as [`RuntimeEvent`]s.
//!
//! Several invocations may be out at once: an environment of Lambda Managed
//! Instances has as many runtime workers polling `/next` as
//! `AWS_LAMBDA_MAX_CONCURRENCY`, and each answer names its request id
//! (https://docs.aws.amazon.com/lambda/latest/dg/lambda-managed-instances-execution-environment.html).

use std::collections::HashSet;
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
    invocations: mpsc::UnboundedSender<Invocation>,
    pub events: mpsc::UnboundedReceiver<RuntimeEvent>,
    closed: watch::Sender<bool>,
    server: ServerHandle,
}

impl RuntimeApi {
    pub async fn bind() -> std::io::Result<Self> {
        let (state, ends) = RuntimeState::new();
        let server = localcloud_core::serve_on_ephemeral_port(state).await?;
        Ok(Self {
            address: server.addr.to_string(),
            invocations: ends.invocations,
            events: ends.events,
            closed: ends.closed,
            server,
        })
    }

    /// Queues one invocation for the runtime's next poll; false if the API is closed.
    pub fn dispatch(&self, invocation: Invocation) -> bool {
        self.invocations.send(invocation).is_ok()
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
    queue: tokio::sync::Mutex<mpsc::UnboundedReceiver<Invocation>>,
    /// Request ids handed out and not yet answered.
    handed_out: Mutex<HashSet<String>>,
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

/// The environment's ends of the channels to a [`RuntimeState`].
struct Ends {
    invocations: mpsc::UnboundedSender<Invocation>,
    events: mpsc::UnboundedReceiver<RuntimeEvent>,
    closed: watch::Sender<bool>,
}

impl RuntimeState {
    fn new() -> (Arc<Self>, Ends) {
        let (invocations, queue) = mpsc::unbounded_channel();
        let (events_tx, events) = mpsc::unbounded_channel();
        let (closed, closed_rx) = watch::channel(false);
        let state = Arc::new(Self {
            queue: tokio::sync::Mutex::new(queue),
            handed_out: Mutex::new(HashSet::new()),
            events: events_tx,
            closed: closed_rx,
        });
        (
            state,
            Ends {
                invocations,
                events,
                closed,
            },
        )
    }

    async fn next(&self) -> HttpResponse {
        let _ = self.events.send(RuntimeEvent::Next);
        let mut queue = self.queue.lock().await;
        let mut closed = self.closed.clone();
        let invocation = loop {
            let next = tokio::select! {
                invocation = queue.recv() => invocation,
                _ = closed.wait_for(|c| *c) => None,
            };
            // One whose caller stopped waiting before any worker was free
            // is not handed out: it has failed as a timeout already.
            match next {
                Some(invocation) if invocation.deadline_ms <= now_ms() => continue,
                next => break next,
            }
        };
        let Some(invocation) = invocation else {
            return reply(
                StatusCode::GONE,
                "ServiceShuttingDown",
                "Environment is shutting down",
            );
        };
        self.handed_out.lock().insert(invocation.request_id.clone());
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

    /// Records the answer to an invocation handed out; an id that was not
    /// handed out, or was answered already, is refused as on AWS.
    fn complete(&self, id: &str, is_error: bool, request: &HttpRequest) -> HttpResponse {
        if !self.handed_out.lock().remove(id) {
            return reply(
                StatusCode::BAD_REQUEST,
                "InvalidRequestID",
                "Invalid request ID",
            );
        }
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

fn now_ms() -> u64 {
    chrono::Utc::now().timestamp_millis().max(0) as u64
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

#[cfg(test)]
mod tests {
    use super::*;

    struct Harness {
        state: Arc<RuntimeState>,
        invocations: mpsc::UnboundedSender<Invocation>,
        events: mpsc::UnboundedReceiver<RuntimeEvent>,
        closed: watch::Sender<bool>,
    }

    fn harness() -> Harness {
        let (state, ends) = RuntimeState::new();
        Harness {
            state,
            invocations: ends.invocations,
            events: ends.events,
            closed: ends.closed,
        }
    }

    fn invocation(id: &str) -> Invocation {
        Invocation {
            request_id: id.into(),
            payload: Bytes::from_static(b"{\"a\":1}"),
            deadline_ms: now_ms() + 3_000,
            function_arn: "arn:aws:lambda:us-east-1:000000000000:function:f".into(),
            trace_id: "Root=1-00000000-000000000000000000000000".into(),
        }
    }

    fn get(path: &str) -> HttpRequest {
        http::Request::get(path).body(Bytes::new()).unwrap()
    }

    fn post(path: &str, body: &'static [u8]) -> HttpRequest {
        http::Request::post(path)
            .body(Bytes::from_static(body))
            .unwrap()
    }

    #[tokio::test]
    async fn next_hands_out_the_event_with_lambda_headers() {
        let mut h = harness();
        h.invocations.send(invocation("r1")).unwrap();
        let response = h
            .state
            .call(get("/2018-06-01/runtime/invocation/next"))
            .await;
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.headers()["lambda-runtime-aws-request-id"], "r1");
        let deadline: u64 = response.headers()["lambda-runtime-deadline-ms"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!(deadline > now_ms(), "{deadline}");
        assert_eq!(
            response.headers()["lambda-runtime-invoked-function-arn"],
            "arn:aws:lambda:us-east-1:000000000000:function:f"
        );
        assert!(response.headers().contains_key("lambda-runtime-trace-id"));
        assert_eq!(&response.body()[..], b"{\"a\":1}");
        assert_eq!(h.events.recv().await, Some(RuntimeEvent::Next));
    }

    #[tokio::test]
    async fn response_for_the_current_request_is_accepted_once() {
        let mut h = harness();
        h.invocations.send(invocation("r1")).unwrap();
        h.state
            .call(get("/2018-06-01/runtime/invocation/next"))
            .await;
        let ok = h
            .state
            .call(post("/2018-06-01/runtime/invocation/r1/response", b"42"))
            .await;
        let again = h
            .state
            .call(post("/2018-06-01/runtime/invocation/r1/response", b"43"))
            .await;
        assert_eq!(ok.status(), StatusCode::ACCEPTED);
        assert_eq!(again.status(), StatusCode::BAD_REQUEST);
        assert_eq!(h.events.recv().await, Some(RuntimeEvent::Next));
        assert_eq!(
            h.events.recv().await,
            Some(RuntimeEvent::Response {
                request_id: "r1".into(),
                body: Bytes::from_static(b"42")
            })
        );
    }

    #[tokio::test]
    async fn unknown_request_ids_are_refused() {
        let h = harness();
        let response = h
            .state
            .call(post("/2018-06-01/runtime/invocation/nope/response", b"{}"))
            .await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    }

    #[tokio::test]
    async fn error_without_a_document_gets_one_from_its_header() {
        let mut h = harness();
        h.invocations.send(invocation("r1")).unwrap();
        h.state
            .call(get("/2018-06-01/runtime/invocation/next"))
            .await;
        let request = http::Request::post("/2018-06-01/runtime/invocation/r1/error")
            .header("lambda-runtime-function-error-type", "Runtime.Custom")
            .body(Bytes::from_static(b"garbage"))
            .unwrap();
        assert_eq!(h.state.call(request).await.status(), StatusCode::ACCEPTED);
        h.events.recv().await;
        let Some(RuntimeEvent::Error { body, .. }) = h.events.recv().await else {
            panic!("expected an error event");
        };
        let doc: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(doc["errorType"], "Runtime.Custom");
    }

    #[tokio::test]
    async fn init_error_is_reported_and_unknown_paths_are_404() {
        let mut h = harness();
        let posted = br#"{"errorType":"Runtime.InitError","errorMessage":"no config"}"#;
        let response = h
            .state
            .call(post("/2018-06-01/runtime/init/error", posted))
            .await;
        assert_eq!(response.status(), StatusCode::ACCEPTED);
        assert_eq!(
            h.events.recv().await,
            Some(RuntimeEvent::InitError {
                body: Bytes::from_static(posted)
            })
        );
        assert_eq!(
            h.state
                .call(get("/2018-06-01/runtime/elsewhere"))
                .await
                .status(),
            StatusCode::NOT_FOUND
        );
        assert_eq!(
            h.state.call(get("/other")).await.status(),
            StatusCode::NOT_FOUND
        );
    }

    #[tokio::test]
    async fn concurrent_polls_each_get_their_own_invocation_and_answer_by_id() {
        let h = harness();
        let polls: Vec<_> = (0..3)
            .map(|_| {
                let state = h.state.clone();
                tokio::spawn(
                    async move { state.call(get("/2018-06-01/runtime/invocation/next")).await },
                )
            })
            .collect();
        for id in ["r1", "r2", "r3"] {
            h.invocations.send(invocation(id)).unwrap();
        }
        let mut ids = Vec::new();
        for poll in polls {
            let response = poll.await.unwrap();
            let id = response.headers()["lambda-runtime-aws-request-id"].clone();
            ids.push(id.to_str().unwrap().to_string());
        }
        ids.sort();
        assert_eq!(ids, ["r1", "r2", "r3"]);
        // Answered out of order, each once.
        for id in ["r3", "r1", "r2"] {
            let path = format!("/2018-06-01/runtime/invocation/{id}/response");
            let request = http::Request::post(path.as_str())
                .body(Bytes::from(id.to_string()))
                .unwrap();
            assert_eq!(h.state.call(request).await.status(), StatusCode::ACCEPTED);
        }
        let again = post("/2018-06-01/runtime/invocation/r2/response", b"x");
        assert_eq!(h.state.call(again).await.status(), StatusCode::BAD_REQUEST);
    }

    #[tokio::test]
    async fn an_invocation_past_its_deadline_is_not_handed_out() {
        let h = harness();
        let mut stale = invocation("stale");
        stale.deadline_ms = now_ms() - 1;
        h.invocations.send(stale).unwrap();
        h.invocations.send(invocation("fresh")).unwrap();
        let response = h
            .state
            .call(get("/2018-06-01/runtime/invocation/next"))
            .await;
        assert_eq!(response.headers()["lambda-runtime-aws-request-id"], "fresh");
    }

    #[tokio::test]
    async fn closing_releases_a_waiting_poll() {
        let h = harness();
        let state = h.state.clone();
        let poll =
            tokio::spawn(
                async move { state.call(get("/2018-06-01/runtime/invocation/next")).await },
            );
        tokio::task::yield_now().await;
        h.closed.send(true).unwrap();
        let response = poll.await.unwrap();
        assert_eq!(response.status(), StatusCode::GONE);
    }
}
