//! `GET /orders/{size}` behind an HTTP API. `TRANSPORT` chooses how the
//! back end is reached: `invoke` or `queue` (SQS request/reply).

use std::sync::Arc;

use lambda_http::{run_concurrent, service_fn, Error, Request};
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
// `run_concurrent` serves `AWS_LAMBDA_MAX_CONCURRENCY` invocations at once on
// Lambda Managed Instances; without it (on-demand) it is `run`'s loop, one
// invocation at a time, on one thread (`orders::runtime`).
fn main() -> Result<(), Error> {
    orders::runtime::tokio_runtime()?.block_on(serve())
}

async fn serve() -> Result<(), Error> {
    sdk_config::init_logs();
    let settings = ApiSettings::from_env()?;
    let config = sdk_config::load().await;
    let transport = Arc::new(orders::api::transport_for(&settings, &config));
    run_concurrent(service_fn(move |request: Request| {
        let transport = transport.clone();
        async move { Ok::<_, Error>(orders::api::handle(transport.as_ref(), &request).await) }
    }))
    .await
}
