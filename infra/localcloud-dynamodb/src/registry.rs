//! The service's state, which every operation works on: the tables by name, the
//! consumed-capacity counters and the transaction tokens.

use std::collections::BTreeMap;
use std::sync::Arc;

use parking_lot::RwLock;

use crate::capacity::{Consumed, DynamoDbMetrics, MetricsRecorder};
use crate::error::{table_not_found, validation, DdbResult};
use crate::idempotency::TokenCache;
use crate::schema::check_name;
use crate::table::Table;

/// The local cloud's DynamoDB. Tables are independent: each has its own lock,
/// so requests on different tables never wait for each other.
pub struct DynamoDb {
    pub(crate) tables: RwLock<BTreeMap<String, Arc<Table>>>,
    pub(crate) metrics: MetricsRecorder,
    pub(crate) idempotency: TokenCache,
}

impl DynamoDb {
    /// Consumed units and request counts per table since start or [`DynamoDb::reset`].
    pub fn metrics(&self) -> DynamoDbMetrics {
        self.metrics.snapshot()
    }

    /// Zeroes the counters; tables and items stay.
    pub fn reset_metrics(&self) {
        self.metrics.reset();
    }

    /// Drops every table and every counter.
    pub fn reset(&self) {
        self.tables.write().clear();
        self.metrics.reset();
    }

    pub(crate) fn table(&self, name: Option<&str>) -> DdbResult<Arc<Table>> {
        let name = name.ok_or_else(|| {
            validation("1 validation error detected: Value null at 'tableName' failed to satisfy constraint: Member must not be null")
        })?;
        match self.tables.read().get(name) {
            Some(table) => Ok(table.clone()),
            None => {
                check_name(name)?;
                Err(table_not_found(name))
            }
        }
    }

    pub(crate) fn record(&self, table: &Table, operation: &str, consumed: &Consumed) {
        self.metrics.record(&table.def.name, operation, consumed);
    }
}
