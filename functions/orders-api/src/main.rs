//! `GET /orders/{size}` behind an HTTP API. `TRANSPORT` chooses how the
//! back end is reached: `invoke` or `queue` (SQS request/reply).

use lambda_http::{run, service_fn, Error, Request};
use orders::settings::ApiSettings;

// glibc's malloc and free were a sixth of a request's CPU.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

// On `lambda_http` (over `lambda_runtime`), not `thin_runtime` as the Conduit
// functions: the orders experiment's results (docs/results.md) were measured
// on it, for the direct and the queue path alike, while the thin runtime was
// measured on Conduit only (docs/benchmarks.md, "After: a thin runtime").
// Moving would change the baseline those results are compared with, without a
// measurement of its own; and `lambda_http` writes this function's response
// document, which the thin runtime would have to write again.
//
// One invocation at a time per execution environment: one thread serves it
// without waking others (docs/benchmarks.md, "CPU per request").
#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    sdk_config::init_logs();
    let settings = ApiSettings::from_env()?;
    let config = sdk_config::load().await;
    let transport = orders::api::transport_for(&settings, &config);
    let transport = &transport;
    run(service_fn(move |request: Request| async move {
        Ok::<_, Error>(orders::api::handle(transport, &request).await)
    }))
    .await
}
