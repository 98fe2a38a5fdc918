//! The Conduit API suite, one module per store.
//!
//! One binary for the whole crate: each test binary links the AWS SDK, tokio
//! and hyper stack again, so one per file multiplied the build's link time.

mod api_dynamodb;
mod api_in_memory;
mod common;
