//! The slow back end of the orders experiment, for both paths: `{"size": N}`
//! from a direct invoke, or SQS batches of requests from the queue path.
//! It only reads its table, which the bench seeds (`bench seed-orders`).

use std::sync::Arc;

use lambda_runtime::{run_concurrent, service_fn, Error, LambdaEvent};
use orders::settings::BackendSettings;
use orders::OrdersBackend;
use serde_json::Value;

// glibc's malloc and free were a sixth of a request's CPU.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

// On `lambda_runtime`, not `thin_runtime` as the Conduit functions: the orders
// experiment's results (docs/results.md) were measured on it, for the direct
// and the queue path alike, while the thin runtime was measured on Conduit only
// (docs/benchmarks.md, "After: a thin runtime"). Moving would change the
// baseline those results are compared with, without a measurement of its own.
//
// `run_concurrent` serves `AWS_LAMBDA_MAX_CONCURRENCY` invocations at once on
// Lambda Managed Instances; without it (on-demand) it is `run`'s loop, one
// invocation at a time, on one thread (`orders::runtime`).
fn main() -> Result<(), Error> {
    orders::runtime::tokio_runtime()?.block_on(serve())
}

async fn serve() -> Result<(), Error> {
    sdk_config::init_logs();
    let settings = BackendSettings::from_env()?;
    let config = sdk_config::load().await;
    let backend = Arc::new(OrdersBackend::new(
        aws_sdk_dynamodb::Client::new(&config),
        settings.table,
        settings.delay,
    ));
    let sqs = aws_sdk_sqs::Client::new(&config);
    run_concurrent(service_fn(move |event: LambdaEvent<Value>| {
        let (backend, sqs) = (backend.clone(), sqs.clone());
        async move {
            orders::worker::handle(&backend, &sqs, event.payload)
                .await
                .map_err(Error::from)
        }
    }))
    .await
}
