//! The service object: the table registry, request decoding, and the
//! JSON-protocol entry point that routes an operation to its handler.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use localcloud_core::{AwsError, JsonService, RequestContext};
use parking_lot::RwLock;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::capacity::{Consumed, DynamoDbMetrics, MetricsRecorder};
use crate::error::{validation, DdbError, DdbResult};
use crate::table::Table;

#[derive(Clone, Debug)]
pub struct DynamoDbConfig {
    /// How often expired TTL items are deleted; `None` turns the sweep off.
    pub ttl_sweep_period: Option<Duration>,
}

impl Default for DynamoDbConfig {
    fn default() -> Self {
        DynamoDbConfig {
            ttl_sweep_period: Some(Duration::from_secs(1)),
        }
    }
}

/// The local cloud's DynamoDB. Tables are independent: each has its own lock,
/// so requests on different tables never wait for each other.
pub struct DynamoDb {
    pub(crate) tables: RwLock<BTreeMap<String, Arc<Table>>>,
    pub(crate) metrics: MetricsRecorder,
    pub(crate) idempotency: crate::ops::transact::TokenCache,
}

impl DynamoDb {
    pub fn new(config: DynamoDbConfig) -> Arc<DynamoDb> {
        let service = Arc::new(DynamoDb {
            tables: RwLock::new(BTreeMap::new()),
            metrics: MetricsRecorder::default(),
            idempotency: Default::default(),
        });
        if let Some(period) = config.ttl_sweep_period {
            crate::ttl::spawn_sweeper(Arc::downgrade(&service), period);
        }
        service
    }

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

    /// Runs one operation in-process with a JSON body, as the HTTP front door
    /// would; for start-up (tables from a template) and tests.
    pub fn call(
        &self,
        ctx: &RequestContext,
        operation: &str,
        body: &[u8],
    ) -> Result<Vec<u8>, DdbError> {
        use crate::ops::{batch, control, items, read, transact};
        match operation {
            "CreateTable" => control::create_table(self, ctx, body),
            "DescribeTable" => control::describe_table(self, ctx, body),
            "ListTables" => control::list_tables(self, body),
            "DeleteTable" => control::delete_table(self, ctx, body),
            "UpdateTimeToLive" => control::update_ttl(self, body),
            "DescribeTimeToLive" => control::describe_ttl(self, body),
            "GetItem" => items::get_item(self, body),
            "PutItem" => items::put_item(self, body),
            "UpdateItem" => items::update_item(self, body),
            "DeleteItem" => items::delete_item(self, body),
            "Query" => read::query(self, body),
            "Scan" => read::scan(self, body),
            "BatchGetItem" => batch::batch_get(self, body),
            "BatchWriteItem" => batch::batch_write(self, body),
            "TransactGetItems" => transact::transact_get(self, body),
            "TransactWriteItems" => transact::transact_write(self, body),
            other => Err(DdbError::Validation(format!(
                "Operation {other} is not supported by the local cloud"
            ))),
        }
    }

    /// Creates a table from a CreateTable request body (e.g. a template's
    /// `Properties` rendered as JSON); an existing table of that name is kept.
    pub fn ensure_table(&self, ctx: &RequestContext, create_table_json: &[u8]) -> DdbResult<()> {
        match crate::ops::control::create_table(self, ctx, create_table_json) {
            Ok(_) | Err(DdbError::ResourceInUse(_)) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Turns TTL on with `attribute` unless it already is (UpdateTimeToLive
    /// refuses to enable TTL twice, e.g. after a snapshot restore).
    pub fn ensure_ttl(&self, table: &str, attribute: &str) -> DdbResult<()> {
        let table = self.table(Some(table))?;
        let mut ttl = table.ttl.write();
        match ttl.as_deref() {
            Some(current) if current == attribute => Ok(()),
            Some(current) => Err(validation(format!(
                "TimeToLive is active on a different AttributeName: current AttributeName is {current}"
            ))),
            None => {
                *ttl = Some(attribute.to_string());
                Ok(())
            }
        }
    }

    pub(crate) fn table(&self, name: Option<&str>) -> DdbResult<Arc<Table>> {
        let name = name.ok_or_else(|| {
            validation("1 validation error detected: Value null at 'tableName' failed to satisfy constraint: Member must not be null")
        })?;
        match self.tables.read().get(name) {
            Some(table) => Ok(table.clone()),
            None => {
                crate::schema::check_name(name)?;
                Err(crate::error::table_not_found(name))
            }
        }
    }

    pub(crate) fn record(&self, table: &Table, operation: &str, consumed: &Consumed) {
        self.metrics.record(&table.def.name, operation, consumed);
    }
}

#[async_trait]
impl JsonService for DynamoDb {
    fn target_prefix(&self) -> &'static str {
        "DynamoDB_20120810"
    }

    fn service_name(&self) -> &'static str {
        "dynamodb"
    }

    async fn handle(
        &self,
        ctx: &RequestContext,
        operation: &str,
        body: Bytes,
    ) -> Result<Bytes, AwsError> {
        if !KNOWN_OPERATIONS.contains(&operation) {
            return Err(self.unknown_operation(operation));
        }
        match self.call(ctx, operation, &body) {
            Ok(out) => Ok(Bytes::from(out)),
            Err(err) => Err(err.into()),
        }
    }
}

const KNOWN_OPERATIONS: &[&str] = &[
    "CreateTable",
    "DescribeTable",
    "ListTables",
    "DeleteTable",
    "UpdateTimeToLive",
    "DescribeTimeToLive",
    "GetItem",
    "PutItem",
    "UpdateItem",
    "DeleteItem",
    "Query",
    "Scan",
    "BatchGetItem",
    "BatchWriteItem",
    "TransactGetItems",
    "TransactWriteItems",
];

/// Decodes a request body. Malformed JSON and members of the wrong JSON type
/// are SerializationExceptions; invalid attribute values are ValidationExceptions.
pub(crate) fn decode<T: DeserializeOwned>(body: &[u8]) -> DdbResult<T> {
    let body = if body.is_empty() {
        b"{}".as_slice()
    } else {
        body
    };
    serde_json::from_slice(body).map_err(|e| {
        let text = e.to_string();
        let message = match text.rfind(" at line ") {
            Some(at) => text[..at].to_string(),
            None => text,
        };
        let structural = e.is_syntax()
            || e.is_eof()
            || message.starts_with("invalid type")
            || message.starts_with("invalid length")
            || message.starts_with("expected ");
        if structural {
            DdbError::Serialization(message)
        } else {
            DdbError::Validation(message)
        }
    })
}

pub(crate) fn encode<T: Serialize>(out: &T) -> DdbResult<Vec<u8>> {
    serde_json::to_vec(out).map_err(|e| DdbError::Internal(e.to_string()))
}
