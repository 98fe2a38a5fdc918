//! Integration tests of the Conduit microservices, one module per area.
//!
//! One binary for the whole crate: each test binary links the AWS SDK, tokio
//! and hyper stack again, so one per file multiplied the build's link time.

mod call_graph;
mod common;
mod deployed_stack;
mod events;
mod in_process;
mod on_local_cloud;
mod on_local_cloud_lmi;
mod on_local_cloud_rest;
mod template_routes;
