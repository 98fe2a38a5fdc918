//! The floor of any emulator of "HTTP API -> Lambda function": the least a
//! process must do to hand a client's request to a function on the Runtime
//! API and its answer back, with the same libraries the local cloud uses
//! (tokio on one thread, hyper, serde_json) and nothing else: no routing, no
//! event built per request (one fixed payload 2.0 event), no metering, no
//! logs, no limits. Its CPU per request is what the local cloud's own CPU
//! per request cannot go below on this machine; its requests per second with
//! the same function and client, what no emulator of this design can exceed.
//!
//! It runs as a separate process (`http_bench --relay-floor-serve`), so that
//! its CPU is measured apart from the client's, and starts `environments`
//! copies of the function, each polling its Runtime API, as the local cloud
//! keeps one environment per concurrent request.

use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use parking_lot::Mutex;
use tokio::sync::oneshot;

/// One payload 2.0 event, the size of the local cloud's for `GET /raw`
/// (about 1 KB), written once: the floor does not build events.
const EVENT: &[u8] = br#"{"version":"2.0","routeKey":"GET /raw","rawPath":"/raw","rawQueryString":"","headers":{"host":"127.0.0.1","user-agent":"http_bench","x-forwarded-for":"127.0.0.1","x-forwarded-port":"80","x-forwarded-proto":"http"},"requestContext":{"accountId":"000000000000","apiId":"floor","domainName":"127.0.0.1","domainPrefix":"127","http":{"method":"GET","path":"/raw","protocol":"HTTP/1.1","sourceIp":"127.0.0.1","userAgent":"http_bench"},"requestId":"floor","routeKey":"GET /raw","stage":"$default","time":"06/Dec/2026:00:00:00 +0000","timeEpoch":1796515200000},"isBase64Encoded":false}"#;

type Reply = oneshot::Sender<Bytes>;

#[derive(Default)]
struct Queues {
    next_id: u64,
    /// Events no environment has taken yet.
    events: VecDeque<(String, Reply)>,
    /// Environments waiting in `/next`.
    pollers: VecDeque<oneshot::Sender<(String, Reply)>>,
    /// Events handed out, by request id.
    in_flight: HashMap<String, Reply>,
}

#[derive(Default)]
struct Relay {
    queues: Mutex<Queues>,
}

impl Relay {
    /// Hands an event to a waiting environment, or queues it.
    fn dispatch(&self, mut event: (String, Reply)) {
        let mut queues = self.queues.lock();
        while let Some(poller) = queues.pollers.pop_front() {
            match poller.send(event) {
                Ok(()) => return,
                // That environment's connection closed: try the next one.
                Err(back) => event = back,
            }
        }
        queues.events.push_back(event);
    }

    async fn client(&self) -> Response<Full<Bytes>> {
        let (reply, answer) = oneshot::channel();
        let id = {
            let mut queues = self.queues.lock();
            queues.next_id += 1;
            format!("floor-{}", queues.next_id)
        };
        self.dispatch((id, reply));
        match answer.await {
            Ok(body) => api_response(&body),
            Err(_) => plain(StatusCode::INTERNAL_SERVER_ERROR, "no answer"),
        }
    }

    async fn next(&self) -> Response<Full<Bytes>> {
        let waiting = {
            let mut queues = self.queues.lock();
            match queues.events.pop_front() {
                Some(event) => Ok(event),
                None => {
                    let (poller, event) = oneshot::channel();
                    queues.pollers.push_back(poller);
                    Err(event)
                }
            }
        };
        let (id, reply) = match waiting {
            Ok(event) => event,
            Err(event) => match event.await {
                Ok(event) => event,
                Err(_) => return plain(StatusCode::INTERNAL_SERVER_ERROR, "shutting down"),
            },
        };
        self.queues.lock().in_flight.insert(id.clone(), reply);
        Response::builder()
            .header("lambda-runtime-aws-request-id", id)
            .header("lambda-runtime-deadline-ms", "99999999999999")
            .header(
                "lambda-runtime-invoked-function-arn",
                "arn:aws:lambda:us-east-1:000000000000:function:floor",
            )
            .body(Full::new(Bytes::from_static(EVENT)))
            .expect("static response parts")
    }

    fn respond(&self, id: &str, body: Bytes) -> Response<Full<Bytes>> {
        match self.queues.lock().in_flight.remove(id) {
            Some(reply) => {
                let _ = reply.send(body);
                plain(StatusCode::ACCEPTED, "")
            }
            None => plain(StatusCode::BAD_REQUEST, "unknown request id"),
        }
    }
}

/// The function's payload 2.0 answer as the client's HTTP response: status,
/// headers and body (the gateway's least response mapping).
fn api_response(body: &[u8]) -> Response<Full<Bytes>> {
    #[derive(serde::Deserialize)]
    struct Answer {
        #[serde(rename = "statusCode")]
        status_code: u16,
        #[serde(default)]
        headers: HashMap<String, String>,
        #[serde(default)]
        body: String,
    }
    let Ok(answer) = serde_json::from_slice::<Answer>(body) else {
        return plain(StatusCode::BAD_GATEWAY, "not a payload 2.0 response");
    };
    let mut response = Response::builder().status(answer.status_code);
    for (name, value) in &answer.headers {
        response = response.header(name, value);
    }
    response
        .body(Full::new(Bytes::from(answer.body)))
        .unwrap_or_else(|_| plain(StatusCode::BAD_GATEWAY, "bad response headers"))
}

fn plain(status: StatusCode, text: &'static str) -> Response<Full<Bytes>> {
    Response::builder()
        .status(status)
        .body(Full::new(Bytes::from_static(text.as_bytes())))
        .expect("static response parts")
}

async fn route(relay: Arc<Relay>, request: Request<Incoming>) -> Response<Full<Bytes>> {
    let path = request.uri().path().to_owned();
    if path == "/2018-06-01/runtime/invocation/next" {
        return relay.next().await;
    }
    if let Some(id) = path
        .strip_prefix("/2018-06-01/runtime/invocation/")
        .and_then(|rest| rest.strip_suffix("/response"))
    {
        let id = id.to_owned();
        return match request.into_body().collect().await {
            Ok(body) => relay.respond(&id, body.to_bytes()),
            Err(_) => plain(StatusCode::BAD_REQUEST, "unreadable body"),
        };
    }
    relay.client().await
}

async fn serve(listener: tokio::net::TcpListener, relay: Arc<Relay>) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let _ = stream.set_nodelay(true);
        let relay = relay.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let relay = relay.clone();
                async move { Ok::<_, Infallible>(route(relay, request).await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                .await;
        });
    }
}

/// Runs the relay: clients and the environments' Runtime API on one port,
/// `environments` copies of `function` polling it; prints the port on stdout
/// and serves until killed.
pub fn run(function: &Path, environments: usize) -> ! {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let port = listener.local_addr().expect("address").port();
        // Killed with the relay's process group when the benchmark ends.
        let _environments: Vec<Child> = (0..environments)
            .map(|_| {
                Command::new(function)
                    .env("AWS_LAMBDA_RUNTIME_API", format!("127.0.0.1:{port}"))
                    .stdout(Stdio::null())
                    .spawn()
                    .expect("start the function")
            })
            .collect();
        println!("{port}");
        serve(listener, Arc::new(Relay::default())).await;
    });
    std::process::exit(0)
}
