//! Integration tests of the local Lambda service, one module per area.
//!
//! One binary for the whole crate: each test binary links the AWS SDK, tokio
//! and hyper stack again, so one per file multiplied the build's link time.

mod async_invoke;
mod common;
mod concurrency;
mod cpu_share;
mod failures;
mod init_duration;
mod lifecycle;
mod managed;
mod metering;
mod sdk;
mod versions;
