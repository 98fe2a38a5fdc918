//! Integration tests of the local SQS, one module per area.
//!
//! One binary for the whole crate: each test binary links the AWS SDK, tokio
//! and hyper stack again, so one per file multiplied the build's link time.

mod billing;
mod common;
mod concurrency;
mod differential_moto;
mod raw_protocol;
mod sdk_fifo;
mod sdk_messages;
mod sdk_permissions;
mod sdk_queues;
