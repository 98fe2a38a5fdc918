//! Integration tests of the DynamoDB expression language, one module per area.
//!
//! One binary for the whole crate: each test binary is linked on its own, so
//! one per file multiplied the build's link time.

mod common;
mod conditions;
mod projection_and_keys;
mod properties;
mod updates;
