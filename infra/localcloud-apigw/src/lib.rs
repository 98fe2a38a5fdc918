//! API Gateway for the local cloud: HTTP APIs, REST APIs (`rest`) and
//! Lambda function URLs (an HTTP API with one `$default` route). HTTP APIs: each API on its own listener,
//! routes matched as AWS matches them, payload format 2.0 events sent to
//! Lambda proxy integrations through the [`localcloud_core::Invoker`]
//! contract, responses and errors shaped as AWS shapes them, and metering.

pub mod config;
pub mod cors;
pub mod event;
pub mod gateway;
pub mod metrics;
pub mod response;
pub mod rest;
pub mod routes;
pub mod text;

pub use config::{derive_api_id, ConfigError, HttpApiConfig, RouteConfig};
pub use cors::CorsConfig;
pub use gateway::{
    serve, start, start_on, GatewayHandle, HttpApi, MeteredApi, StartError, MAX_PAYLOAD_BYTES,
};
pub use metrics::{ApiKind, ApiMetrics};
pub use rest::config::{RestApiConfig, Throttle};
pub use rest::cors::RestCors;
pub use rest::{start_rest_on, RestApi};
pub use routes::{RouteMatch, RouteTable};
