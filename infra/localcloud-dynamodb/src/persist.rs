//! Snapshots: every table's CreateTable request, TTL setting and items, as one
//! serialisable value. The local cloud writes it into its state file with the
//! other services' snapshots (`infra/localcloud/src/state.rs`).

use std::collections::BTreeMap;
use std::sync::Arc;

use dynamodb_lang::Item;
use localcloud_core::RequestContext;
use serde::{Deserialize, Serialize};

use crate::error::DdbError;
use crate::registry::DynamoDb;
use crate::schema::CreateTableInput;
use crate::service::DynamoDbConfig;

#[derive(Debug, Serialize, Deserialize)]
pub struct DynamoSnapshot {
    tables: Vec<TableSnapshot>,
}

#[derive(Debug, Serialize, Deserialize)]
struct TableSnapshot {
    definition: CreateTableInput,
    ttl_attribute: Option<String>,
    #[serde(default)]
    tags: BTreeMap<String, String>,
    /// Point-in-time recovery period in days, when enabled.
    #[serde(default)]
    recovery_days: Option<u32>,
    items: Vec<Item>,
}

#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    #[error("snapshot format: {0}")]
    Format(#[from] serde_json::Error),
    #[error("snapshot content: {0}")]
    Content(#[from] DdbError),
}

impl DynamoDb {
    /// Every table, its TTL setting and its items, as they are now.
    pub fn snapshot(&self) -> DynamoSnapshot {
        let tables: Vec<_> = self.tables.read().values().cloned().collect();
        DynamoSnapshot {
            tables: tables
                .iter()
                .map(|t| {
                    let meta = t.meta.lock().clone();
                    TableSnapshot {
                        definition: t.def.input.clone(),
                        ttl_attribute: t.ttl.read().clone(),
                        tags: meta.tags,
                        recovery_days: meta.recovery.map(|r| r.days),
                        items: t
                            .state
                            .read()
                            .partitions
                            .values()
                            .flat_map(|p| p.values())
                            .map(|s| (*s.item).clone())
                            .collect(),
                    }
                })
                .collect(),
        }
    }

    /// A new service holding the tables of `snapshot`; an error leaves nothing
    /// behind (the service is only returned whole).
    pub fn restore(
        snapshot: DynamoSnapshot,
        config: DynamoDbConfig,
    ) -> Result<Arc<DynamoDb>, SnapshotError> {
        let db = DynamoDb::new(config);
        let ctx = RequestContext::new(
            localcloud_core::context::DEFAULT_REGION,
            localcloud_core::context::DEFAULT_ACCOUNT,
        );
        for table in snapshot.tables {
            let body = serde_json::to_vec(&table.definition)?;
            crate::ops::control::create_table(&db, &ctx, &body)?;
            let stored = db.table(table.definition.table_name.as_deref())?;
            *stored.ttl.write() = table.ttl_attribute;
            {
                let mut meta = stored.meta.lock();
                meta.tags = table.tags;
                meta.recovery = table.recovery_days.map(|days| crate::table::Recovery {
                    days,
                    since: crate::ops::control::now_seconds(),
                });
            }
            let mut state = stored.state.write();
            for item in table.items {
                let key = stored.def.keys.key_of_new_item(&item)?;
                state.write(&stored.def, &key, Some(Arc::new(item)));
            }
        }
        Ok(db)
    }
}
