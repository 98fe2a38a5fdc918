//! API Gateway HTTP API for the local cloud: each API on its own listener,
//! routes matched as AWS matches them, payload format 2.0 events sent to
//! Lambda proxy integrations through the [`localcloud_core::Invoker`]
//! contract, responses and errors shaped as AWS shapes them, and metering.

pub mod config;
pub mod event;
pub mod gateway;
pub mod metrics;
pub mod response;
pub mod routes;
pub mod text;

pub use config::{ConfigError, HttpApiConfig, RouteConfig};
pub use gateway::{start, start_on, GatewayHandle, HttpApi, StartError, MAX_PAYLOAD_BYTES};
pub use metrics::ApiMetrics;
pub use routes::{RouteMatch, RouteTable};
