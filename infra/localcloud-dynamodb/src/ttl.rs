//! Time to live: a background sweep deletes items whose TTL attribute (epoch
//! seconds, a Number) is in the past. Until the sweep reaches them expired
//! items are still returned, as on AWS.

use std::sync::{Arc, Weak};
use std::time::Duration;

use dynamodb_lang::{AttributeValue, Item, Number};

use crate::key::PrimaryKey;
use crate::registry::DynamoDb;
use crate::table::Table;

/// Sweeps every `period` until the service is dropped.
pub fn spawn_sweeper(service: Weak<DynamoDb>, period: Duration) {
    let spawned = std::thread::Builder::new()
        .name("dynamodb-ttl".into())
        .spawn(move || loop {
            std::thread::sleep(period);
            let Some(service) = service.upgrade() else {
                return;
            };
            service.sweep_expired(now_epoch_seconds());
        });
    if let Err(e) = spawned {
        tracing::warn!("TTL sweeper not started: {e}");
    }
}

fn now_epoch_seconds() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

impl DynamoDb {
    /// Deletes the items of TTL-enabled tables that expired before `now`
    /// (epoch seconds); returns how many were deleted.
    pub fn sweep_expired(&self, now: u64) -> usize {
        let tables: Vec<Arc<Table>> = self.tables.read().values().cloned().collect();
        tables.iter().map(|t| sweep_table(t, now)).sum()
    }
}

fn sweep_table(table: &Table, now: u64) -> usize {
    let Some(attr) = table.ttl.read().clone() else {
        return 0;
    };
    let now: Number = match now.to_string().parse() {
        Ok(n) => n,
        Err(_) => return 0,
    };
    let expired = |item: &Item| matches!(item.get(&attr), Some(AttributeValue::N(at)) if *at < now);
    // Find candidates under the read lock, delete under the write lock after
    // checking again (the item may have been rewritten meanwhile).
    let candidates: Vec<PrimaryKey> = {
        let state = table.state.read();
        state
            .partitions
            .iter()
            .flat_map(|(h, items)| items.iter().map(move |(r, s)| (h, r, s)))
            .filter(|(_, _, s)| expired(&s.item))
            .map(|(h, r, _)| PrimaryKey {
                hash: h.clone(),
                range: r.clone(),
            })
            .collect()
    };
    if candidates.is_empty() {
        return 0;
    }
    // A table UpdateTable replaced meanwhile: the next sweep finds the new one.
    let Ok(mut state) = table.write_state() else {
        return 0;
    };
    let mut deleted = 0;
    for key in candidates {
        if state.get(&key).is_some_and(|s| expired(&s.item)) {
            state.write(&table.def, &key, None);
            deleted += 1;
        }
    }
    deleted
}
