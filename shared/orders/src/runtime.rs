//! The Tokio runtime the orders functions run on, by compute type.

use tokio::runtime::{Builder, Runtime};

/// On-demand Lambda (no `AWS_LAMBDA_MAX_CONCURRENCY`): one thread, for one
/// invocation at a time, so it serves without waking others
/// (docs/benchmarks.md, "CPU per request") and the measured baseline stays
/// the same. On Lambda Managed Instances, where `run_concurrent` serves many
/// invocations at once, a worker per vCPU of the environment.
pub fn tokio_runtime() -> Result<Runtime, Box<dyn std::error::Error + Send + Sync>> {
    let runtime = match thin_runtime::max_concurrency_from_env()? {
        None => Builder::new_current_thread().enable_all().build()?,
        Some(_) => Builder::new_multi_thread().enable_all().build()?,
    };
    Ok(runtime)
}
