//! DynamoDB: consumed capacity per table.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DynamoDbMetrics {
    /// By table name.
    pub tables: BTreeMap<String, TableMetrics>,
}

/// Counters of one table since start or the last reset.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableMetrics {
    /// Read request units consumed (indexes included).
    pub read_units: f64,
    /// Write request units consumed (index writes included).
    pub write_units: f64,
    /// Requests by operation name (a batch or transaction counts once per table).
    pub requests: BTreeMap<String, u64>,
}
