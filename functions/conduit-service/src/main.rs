//! Conduit's microservices (see `conduit_micro`), one binary for the four:
//! the function's `CONDUIT_SERVICE` (users, profiles, articles or comments)
//! says which one it is. Each serves its public HTTP API routes, internal
//! requests by Invoke, and SQS batches of internal requests.

use conduit_micro::Service;
use thin_runtime::FunctionError;

// glibc's malloc and free were a sixth of a request's CPU.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> Result<(), thin_runtime::RuntimeError> {
    sdk_config::init_logs();
    thin_runtime::run(async {
        // A missing or unknown role fails INIT, not the first request.
        let service = Service::from_env().map_err(FunctionError::config_invalid)?;
        conduit_micro::lambda::init(service).await
    })
}
