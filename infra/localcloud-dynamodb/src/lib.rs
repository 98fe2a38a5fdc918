//! The local cloud's DynamoDB: an in-memory, multi-client implementation of the
//! DynamoDB JSON 1.0 API (tables, items, GSIs/LSIs, Query/Scan, batches,
//! transactions, TTL), with consumed capacity computed as AWS bills it and
//! counted per table for the cost model.
//!
//! Layout: `service` (registry and routing), `ops/*` (one module per family of
//! operations), `table` (storage and index maintenance), `schema` (table
//! definitions), `key` (key values and their order), `capacity` (units and
//! metrics), `ttl`, `persist`, `error`.

pub mod capacity;
pub mod error;
pub mod key;
pub mod ops;
pub mod persist;
pub mod schema;
pub mod service;
pub mod table;
pub mod ttl;

pub use capacity::{DynamoDbMetrics, TableMetrics};
pub use error::DdbError;
pub use persist::{DynamoSnapshot, SnapshotError};
pub use service::{DynamoDb, DynamoDbConfig};
