//! `GET /orders/{size}` behind an HTTP API. `TRANSPORT` chooses how the
//! back end is reached: `invoke` or `queue` (SQS request/reply).

use lambda_http::{run, service_fn, Error, Request};
use orders::settings::ApiSettings;

// glibc's malloc and free were a sixth of a request's CPU.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

// One invocation at a time per execution environment: one thread serves it
// without waking others (docs/benchmarks.md, "CPU per request").
#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    lambda_runtime::tracing::init_default_subscriber();
    let settings = ApiSettings::from_env()?;
    let config = sdk_config::load().await;
    let transport = orders::api::transport_for(&settings, &config);
    let transport = &transport;
    run(service_fn(move |request: Request| async move {
        Ok::<_, Error>(orders::api::handle(transport, &request).await)
    }))
    .await
}
