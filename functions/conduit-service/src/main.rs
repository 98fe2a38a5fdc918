//! Conduit's microservices (see `conduit_micro`), one binary for the four:
//! the function's `CONDUIT_SERVICE` (users, profiles, articles or comments)
//! says which one it is. Each serves its public HTTP API routes, internal
//! requests by Invoke, and SQS batches of internal requests.

use conduit_micro::Service;

// glibc's malloc and free were a sixth of a request's CPU.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

// One invocation at a time per execution environment: one thread serves it
// without waking others (docs/benchmarks.md, "CPU per request").
#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_runtime::Error> {
    // A missing or unknown role fails INIT, not the first request.
    let service = Service::from_env()?;
    conduit_micro::lambda::run(service).await
}
