//! A small HTTP/1.1 + HTTP/2 server: every request body is collected (up to a
//! limit) and handed to one [`Handler`]. Services never see hyper types.

use std::net::SocketAddr;
use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;

pub type HttpRequest = http::Request<Bytes>;
pub type HttpResponse = http::Response<Bytes>;

/// Largest request body accepted; API Gateway's payload limit is 10 MB and
/// DynamoDB batches can reach 16 MB, so this leaves room for both.
pub const MAX_BODY_BYTES: usize = 32 * 1024 * 1024;

#[async_trait]
pub trait Handler: Send + Sync + 'static {
    async fn call(&self, request: HttpRequest) -> HttpResponse;
}

/// A running server: its address, and a way to stop it and wait until every
/// connection has closed.
pub struct ServerHandle {
    pub addr: SocketAddr,
    stop: watch::Sender<bool>,
    task: JoinHandle<()>,
}

impl ServerHandle {
    pub async fn shutdown(self) {
        let _ = self.stop.send(true);
        let _ = self.task.await;
    }

    /// Stops accepting; does not wait.
    pub fn stop(&self) {
        let _ = self.stop.send(true);
    }
}

/// Serves `handler` on `listener` until the handle is shut down.
pub fn serve(listener: TcpListener, handler: Arc<dyn Handler>) -> std::io::Result<ServerHandle> {
    let addr = listener.local_addr()?;
    let (stop, mut stopped) = watch::channel(false);
    let task = tokio::spawn(async move {
        let graceful = hyper_util::server::graceful::GracefulShutdown::new();
        loop {
            tokio::select! {
                accepted = listener.accept() => {
                    let Ok((stream, _peer)) = accepted else { continue };
                    let _ = stream.set_nodelay(true);
                    let handler = handler.clone();
                    let service = service_fn(move |req: http::Request<hyper::body::Incoming>| {
                        let handler = handler.clone();
                        async move { Ok::<_, std::convert::Infallible>(handle_one(handler, req).await) }
                    });
                    let builder = auto::Builder::new(TokioExecutor::new());
                    let connection = builder.serve_connection_with_upgrades(TokioIo::new(stream), service);
                    let connection = graceful.watch(connection.into_owned());
                    tokio::spawn(async move {
                        let _ = connection.await;
                    });
                }
                _ = stopped.changed() => break,
            }
        }
        drop(listener);
        // Idle keep-alive connections close at once; busy ones get a few seconds.
        let _ = tokio::time::timeout(std::time::Duration::from_secs(5), graceful.shutdown()).await;
    });
    Ok(ServerHandle { addr, stop, task })
}

async fn handle_one(
    handler: Arc<dyn Handler>,
    request: http::Request<hyper::body::Incoming>,
) -> http::Response<Full<Bytes>> {
    let (parts, body) = request.into_parts();
    let body = match Limited::new(body, MAX_BODY_BYTES).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => {
            return http::Response::builder()
                .status(http::StatusCode::PAYLOAD_TOO_LARGE)
                .header("content-type", "application/json")
                .body(Full::new(Bytes::from_static(
                    b"{\"message\":\"Request Entity Too Large\"}",
                )))
                .expect("static response is valid");
        }
    };
    let response = handler.call(http::Request::from_parts(parts, body)).await;
    response.map(Full::new)
}

/// Binds 127.0.0.1 on a free port and serves `handler` there; for tests and
/// benchmarks that start a service in-process.
pub async fn serve_on_ephemeral_port(handler: Arc<dyn Handler>) -> std::io::Result<ServerHandle> {
    let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
    serve(listener, handler)
}
