//! The slow back end of the orders experiment, for both paths: `{"size": N}`
//! from a direct invoke, or SQS batches of requests from the queue path.
//! It only reads its table, which the bench seeds (`bench seed-orders`).

use lambda_runtime::{run, service_fn, Error, LambdaEvent};
use orders::settings::BackendSettings;
use orders::OrdersBackend;
use serde_json::Value;

// glibc's malloc and free were a sixth of a request's CPU.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

// One invocation at a time per execution environment: one thread serves it
// without waking others (docs/benchmarks.md, "CPU per request").
#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    lambda_runtime::tracing::init_default_subscriber();
    let settings = BackendSettings::from_env()?;
    let config = sdk_config::load().await;
    let backend = OrdersBackend::new(
        aws_sdk_dynamodb::Client::new(&config),
        settings.table,
        settings.delay,
    );
    let sqs = aws_sdk_sqs::Client::new(&config);
    let (backend, sqs) = (&backend, &sqs);
    run(service_fn(move |event: LambdaEvent<Value>| async move {
        orders::worker::handle(backend, sqs, event.payload)
            .await
            .map_err(Error::from)
    }))
    .await
}
