//! The RealWorld Conduit API (spec 2.0.0): business logic over small storage traits,
//! DynamoDB and in-memory stores, and a Lambda-independent HTTP mapping.
//!
//! Layers, each using only those below it: `http` (routes, dispatch) over
//! `resources` (one module per RealWorld resource) over `app`, `auth`,
//! `passwords`, `input` and `views`, over `store` and `model`.

pub mod app;
pub mod auth;
pub mod error;
pub mod http;
pub mod input;
pub mod lambda;
pub mod model;
pub mod passwords;
pub mod resources;
pub mod seed;
pub mod store;
pub mod views;

pub use app::App;
pub use error::ApiError;
pub use http::{handle, ApiRequest, ApiResponse};
