//! Integration tests of the assembled local cloud, one module per area.
//!
//! One binary for the whole crate: each test binary links the AWS SDK, tokio
//! and hyper stack again, so one per file multiplied the build's link time.

mod common;
mod conduit_cors;
mod deploy_engine;
mod deploy_read_apis;
mod deploy_versions;
mod faults;
mod front_doors;
mod iam;
mod lmi_template;
mod managed_app;
mod metrics_contract;
mod noop_functions;
mod one_endpoint;
mod rest_template;
mod sam_starter;
mod state_file;
mod template_app;
mod versions_app;
