//! The RealWorld Conduit API (spec 2.0.0): business logic over small storage traits,
//! DynamoDB and in-memory stores, and a Lambda-independent HTTP mapping.

pub mod app;
pub mod auth;
pub mod error;
pub mod http;
pub mod lambda;
pub mod model;
pub mod resources;
pub mod seed;
pub mod store;

pub use app::App;
pub use error::ApiError;
pub use http::{handle, ApiRequest, ApiResponse};
