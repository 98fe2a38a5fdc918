//! The local cloud's DynamoDB: an in-memory, multi-client implementation of the
//! DynamoDB JSON 1.0 API (tables, items, GSIs/LSIs, Query/Scan, batches,
//! transactions, PartiQL, TTL), with consumed capacity computed as AWS bills it and
//! counted per table for the cost model.
//!
//! Layout, imports pointing down: `error`, `key` (key values and their order),
//! `schema` (table definitions), `capacity` (units and metrics), `table`
//! (storage and index maintenance), `codec` (request and response bodies) and
//! `idempotency` (transaction tokens) at the bottom; `registry` (the service's
//! state: tables, counters, tokens) on them; `ops/*` (one module per family of
//! operations) and `ttl` on the registry; `service` (construction and routing)
//! on those, and `persist` (snapshots) on top.

pub mod capacity;
mod codec;
pub mod error;
mod idempotency;
pub mod key;
pub mod ops;
pub mod persist;
pub mod registry;
pub mod schema;
pub mod service;
pub mod table;
pub mod ttl;

pub use capacity::{DynamoDbMetrics, TableMetrics};
pub use error::DdbError;
pub use persist::{DynamoSnapshot, SnapshotError};
pub use registry::DynamoDb;
pub use service::DynamoDbConfig;
