//! The local cloud's Lambda service. Each function's real binary runs as a
//! child process speaking the Lambda Runtime API to a listener of its own
//! (`AWS_LAMBDA_RUNTIME_API=127.0.0.1:<port>`); environments start on demand
//! (cold start), are reused while warm and shut down when idle. Concurrency
//! limits, timeouts, crashes, memory limits, `Event` retries and metering
//! (REPORT lines, per-invocation records, CPU time) follow AWS.
//!
//! Callers in the same process use [`LambdaService`] as a
//! [`localcloud_core::Invoker`]; SDK clients reach the Invoke API through the
//! shared endpoint, where the service is a [`localcloud_core::PathService`]:
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! use std::sync::Arc;
//! use localcloud_lambda::{FunctionConfig, LambdaConfig, LambdaService};
//!
//! let lambda = LambdaService::start(LambdaConfig {
//!     functions: vec![FunctionConfig::new("orders", "target/debug/orders")],
//!     ..LambdaConfig::default()
//! })?;
//! let dispatcher = localcloud_core::Dispatcher::new().with_path(lambda.clone());
//! let server = localcloud_core::serve_on_ephemeral_port(Arc::new(dispatcher)).await?;
//! // ... invoke through `lambda` (Invoker) or the SDK at `server.addr` ...
//! lambda.shutdown().await;
//! server.shutdown().await;
//! # Ok(())
//! # }
//! ```
//!
//! Layout: `service` (lifecycle, metrics, the Invoke operation), `state`
//! (what the service shares with its background work), `invocation`
//! (one attempt in one environment), `environment` (a process and its
//! `runtime_api`), `managed`, `multi`, `fleet` and `scaler` (Lambda Managed
//! Instances: environments that serve many invocations at once, on a
//! capacity provider's instances, scaled in the background), `attempt` (what both
//! kinds of attempt share), `concurrency`, `async_invoke` (Event retries), `api`
//! (REST-JSON routes), `metering`, `cpu` (CPU time of the function processes,
//! by named thread), `cpu_share` (CPU in proportion to memory, as on AWS), `versions` and
//! `versions_api` (published versions and aliases), `contention` (this
//! machine's contention within each invocation, which AWS would not bill), `failures` (Lambda's own error documents), `faults`
//! (environments killed on purpose).

mod api;
mod async_invoke;
mod attempt;
mod concurrency;
pub mod config;
mod contention;
mod cpu;
pub mod cpu_share;
mod environment;
mod failures;
mod faults;
mod fleet;
mod function;
mod invocation;
mod logs;
mod managed;
pub mod metering;
mod multi;
pub mod names;
mod runtime_api;
mod scaler;
pub mod scheduling;
mod service;
mod state;
mod versions;
mod versions_api;

pub use concurrency::{ACCOUNT_LIMIT_EXCEEDED, RESERVED_LIMIT_EXCEEDED};
pub use config::{
    AliasConfig, Architecture, CapacityProvider, CpuShare, FunctionConfig, LambdaConfig,
    ManagedInstances, Publication,
};
pub use cpu_share::CpuShareMode;
pub use faults::FaultStats;
pub use fleet::{DOUBLING_WINDOW, MIN_ENVIRONMENTS, MIN_INSTANCES};
pub use managed::SCALING_THROTTLE_REASON;
pub use metering::{FunctionMetrics, InvocationRecord, LambdaMetrics, Outcome};
pub use scaler::{ScalingBounds, DEFAULT_MIN_ENVIRONMENTS, SCALE_IN_AFTER, SCALE_PERIOD};
pub use service::LambdaService;
pub use versions::{next_version, Code, InheritedVersion, Snapshot};
