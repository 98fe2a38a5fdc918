//! Integration tests of the local API Gateway, one module per area.
//!
//! One binary for the whole crate: each test binary links the AWS SDK, tokio
//! and hyper stack again, so one per file multiplied the build's link time.

mod common;
mod cors_and_urls;
mod errors_and_metering;
mod event_shape;
mod listener;
mod rest_event;
mod rest_responses;
mod runtime_response;
