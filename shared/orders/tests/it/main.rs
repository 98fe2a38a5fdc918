//! Integration tests of the orders functions, one module per area.
//!
//! One binary for the whole crate: each test binary links the AWS SDK, tokio
//! and hyper stack again, so one per file multiplied the build's link time.

mod common;
mod on_local_cloud;
mod seeding;
