//! Snapshots: every table's CreateTable request, TTL setting and items, as one
//! JSON file, written on shutdown and read back on start.

use std::path::Path;
use std::sync::Arc;

use dynamodb_lang::Item;
use localcloud_core::RequestContext;
use serde::{Deserialize, Serialize};

use crate::error::DdbError;
use crate::schema::CreateTableInput;
use crate::service::{DynamoDb, DynamoDbConfig};

#[derive(Serialize, Deserialize)]
struct Snapshot {
    tables: Vec<TableSnapshot>,
}

#[derive(Serialize, Deserialize)]
struct TableSnapshot {
    definition: CreateTableInput,
    ttl_attribute: Option<String>,
    items: Vec<Item>,
}

#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    #[error("snapshot I/O: {0}")]
    Io(#[from] std::io::Error),
    #[error("snapshot format: {0}")]
    Format(#[from] serde_json::Error),
    #[error("snapshot content: {0}")]
    Content(#[from] DdbError),
}

impl DynamoDb {
    /// Writes every table to `path` (atomically: a temporary file renamed over it).
    pub fn save_to(&self, path: &Path) -> Result<(), SnapshotError> {
        let tables: Vec<_> = self.tables.read().values().cloned().collect();
        let snapshot = Snapshot {
            tables: tables
                .iter()
                .map(|t| TableSnapshot {
                    definition: t.def.input.clone(),
                    ttl_attribute: t.ttl.read().clone(),
                    items: t
                        .state
                        .read()
                        .partitions
                        .values()
                        .flat_map(|p| p.values())
                        .map(|s| (*s.item).clone())
                        .collect(),
                })
                .collect(),
        };
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, serde_json::to_vec(&snapshot)?)?;
        std::fs::rename(&tmp, path)?;
        Ok(())
    }

    /// A service holding the tables saved at `path`.
    pub fn load_from(path: &Path, config: DynamoDbConfig) -> Result<Arc<DynamoDb>, SnapshotError> {
        let snapshot: Snapshot = serde_json::from_slice(&std::fs::read(path)?)?;
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
            let mut state = stored.state.write();
            for item in table.items {
                let key = stored.def.keys.key_of_new_item(&item)?;
                state.write(&stored.def, &key, Some(Arc::new(item)));
            }
        }
        Ok(db)
    }
}
