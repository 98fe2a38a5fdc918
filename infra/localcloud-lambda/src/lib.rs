//! The local cloud's Lambda service. Each function's real binary runs as a
//! child process speaking the Lambda Runtime API to a listener of its own;
//! environments start on demand (cold start), are reused while warm and shut
//! down when idle. Concurrency limits, timeouts, crashes, `Event` retries and
//! metering (REPORT lines, per-invocation records, CPU time) follow AWS.
//!
//! Callers in the same process use [`LambdaService`] as a
//! [`localcloud_core::Invoker`]; SDK clients reach the Invoke API through the
//! shared endpoint, where the service is a [`localcloud_core::PathService`].

mod api;
mod async_invoke;
mod concurrency;
pub mod config;
mod environment;
mod failures;
mod function;
mod invocation;
mod logs;
pub mod metering;
pub mod names;
mod procstat;
mod runtime_api;
mod service;

pub use concurrency::{ACCOUNT_LIMIT_EXCEEDED, RESERVED_LIMIT_EXCEEDED};
pub use config::{Architecture, FunctionConfig, LambdaConfig};
pub use metering::{FunctionMetrics, InvocationRecord, LambdaMetrics, Outcome};
pub use service::LambdaService;
