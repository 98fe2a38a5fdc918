//! Integration tests of the local DynamoDB, one module per area.
//!
//! One binary for the whole crate: each test binary links the AWS SDK, tokio
//! and hyper stack again, so one per file multiplied the build's link time.

mod batch_transact;
mod common;
mod concurrency;
mod control_plane;
mod differential;
mod differential_legacy;
mod differential_partiql;
mod items;
mod legacy;
mod lifecycle;
mod partiql;
mod query_scan;
mod robustness;
mod table_settings;
