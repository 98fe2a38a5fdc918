//! One table's items and indexes. Every write goes through [`TableState::write`],
//! which keeps the indexes, the item count and the byte count in step and
//! computes the write capacity the write consumed.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use dynamodb_lang::{item_size, Item};
use parking_lot::{Mutex, RwLock};

use crate::capacity::{write_units, WriteUnits};
use crate::error::{DdbError, DdbResult};
use crate::key::{KeyPart, PrimaryKey};
use crate::schema::{IndexDef, Projection, TableDef};

pub type SharedItem = Arc<Item>;

#[derive(Clone, Debug)]
pub struct StoredItem {
    pub item: SharedItem,
    pub size: usize,
}

/// The table keys of the items sharing one index key, in table-key order
/// (the order DynamoDB Local returns them in, whatever the direction).
pub type IndexGroup = BTreeSet<PrimaryKey>;

#[derive(Default, Debug)]
pub struct IndexState {
    /// Index hash key -> index range key -> table keys.
    pub partitions: BTreeMap<KeyPart, BTreeMap<Option<KeyPart>, IndexGroup>>,
    pub count: usize,
    pub bytes: usize,
}

#[derive(Default, Debug)]
pub struct TableState {
    pub partitions: BTreeMap<KeyPart, BTreeMap<Option<KeyPart>, StoredItem>>,
    pub count: usize,
    pub bytes: usize,
    pub indexes: Vec<IndexState>,
    /// UpdateTable moved the items to a table of the new definition: an
    /// operation that still holds this table must look the table up again.
    pub retired: bool,
}

pub struct Table {
    pub def: TableDef,
    pub state: RwLock<TableState>,
    /// The TTL attribute, when TTL is enabled.
    pub ttl: RwLock<Option<String>>,
    /// Tags and backup settings: read and written by their own operations
    /// only, never on the item path.
    pub meta: Mutex<TableMeta>,
}

/// What a table has beside its definition and items: its tags
/// (TagResource) and point-in-time recovery (UpdateContinuousBackups).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TableMeta {
    pub tags: BTreeMap<String, String>,
    pub recovery: Option<Recovery>,
}

/// Point-in-time recovery, when enabled: its period and since when (epoch seconds).
#[derive(Clone, Debug, PartialEq)]
pub struct Recovery {
    pub days: u32,
    pub since: f64,
}

impl Table {
    pub fn new(def: TableDef) -> Table {
        let indexes = def.indexes.iter().map(|_| IndexState::default()).collect();
        Table {
            def,
            state: RwLock::new(TableState {
                indexes,
                ..TableState::default()
            }),
            ttl: RwLock::new(None),
            meta: Mutex::new(TableMeta::default()),
        }
    }

    /// The items, for reading; `TableReplaced` once UpdateTable has moved
    /// them to a new table (the caller runs its operation again).
    pub fn read_state(&self) -> DdbResult<parking_lot::RwLockReadGuard<'_, TableState>> {
        let state = self.state.read();
        if state.retired {
            return Err(DdbError::TableReplaced);
        }
        Ok(state)
    }

    /// The items, for writing; `TableReplaced` as [`Table::read_state`].
    pub fn write_state(&self) -> DdbResult<parking_lot::RwLockWriteGuard<'_, TableState>> {
        let state = self.state.write();
        if state.retired {
            return Err(DdbError::TableReplaced);
        }
        Ok(state)
    }

    /// (item count, bytes) of the table and then of each index.
    pub fn stats(&self) -> Vec<(usize, usize)> {
        let state = self.state.read();
        std::iter::once((state.count, state.bytes))
            .chain(state.indexes.iter().map(|i| (i.count, i.bytes)))
            .collect()
    }
}

impl TableState {
    pub fn get(&self, key: &PrimaryKey) -> Option<&StoredItem> {
        self.partitions.get(&key.hash)?.get(&key.range)
    }

    /// Replaces (or with `None`, deletes) the item at `key`; returns the old item
    /// and the write units consumed by the table and each index.
    pub fn write(
        &mut self,
        def: &TableDef,
        key: &PrimaryKey,
        new: Option<SharedItem>,
    ) -> (Option<SharedItem>, WriteUnits) {
        let new = new.map(|item| StoredItem {
            size: item_size(&item),
            item,
        });
        let old = match &new {
            Some(stored) => self
                .partitions
                .entry(key.hash.clone())
                .or_default()
                .insert(key.range.clone(), stored.clone()),
            None => self.remove(key),
        };
        if let Some(old) = &old {
            self.count -= 1;
            self.bytes -= old.size;
        }
        if let Some(new) = &new {
            self.count += 1;
            self.bytes += new.size;
        }
        let table_units = write_units(
            old.as_ref()
                .map_or(0, |o| o.size)
                .max(new.as_ref().map_or(0, |n| n.size)),
        );
        let mut units = WriteUnits {
            table: table_units,
            indexes: Vec::new(),
        };
        for (i, index) in def.indexes.iter().enumerate() {
            let used = self.indexes[i].update(def, index, key, old.as_ref(), new.as_ref());
            if used > 0.0 {
                units.indexes.push((i, used));
            }
        }
        (old.map(|o| o.item), units)
    }

    fn remove(&mut self, key: &PrimaryKey) -> Option<StoredItem> {
        let partition = self.partitions.get_mut(&key.hash)?;
        let old = partition.remove(&key.range);
        if partition.is_empty() {
            self.partitions.remove(&key.hash);
        }
        old
    }
}

impl IndexState {
    /// Moves the index entry of one item; returns the index write units.
    fn update(
        &mut self,
        def: &TableDef,
        index: &IndexDef,
        key: &PrimaryKey,
        old: Option<&StoredItem>,
        new: Option<&StoredItem>,
    ) -> f64 {
        let old_key = old.and_then(|o| index.keys.index_key_of(&o.item));
        let new_key = new.and_then(|n| index.keys.index_key_of(&n.item));
        let old_size = old_key
            .as_ref()
            .and(old)
            .map(|o| projected_size(def, index, o));
        let new_size = new_key
            .as_ref()
            .and(new)
            .map(|n| projected_size(def, index, n));
        if let Some((hash, range)) = &old_key {
            if let Some(groups) = self.partitions.get_mut(hash) {
                if let Some(group) = groups.get_mut(range) {
                    group.remove(key);
                    if group.is_empty() {
                        groups.remove(range);
                    }
                }
                if groups.is_empty() {
                    self.partitions.remove(hash);
                }
            }
            self.count -= 1;
            self.bytes -= old_size.unwrap_or(0);
        }
        if let Some((hash, range)) = &new_key {
            self.partitions
                .entry(hash.clone())
                .or_default()
                .entry(range.clone())
                .or_default()
                .insert(key.clone());
            self.count += 1;
            self.bytes += new_size.unwrap_or(0);
        }
        match (old_size, new_size) {
            (None, None) => 0.0,
            (Some(s), None) | (None, Some(s)) => write_units(s),
            (Some(o), Some(n)) if old_key != new_key => write_units(o) + write_units(n),
            (Some(_), Some(n)) => {
                let (old, new) = (old.map(|o| &o.item), new.map(|n| &n.item));
                let changed = match (&index.projection, old, new) {
                    (Projection::KeysOnly, _, _) => false,
                    (_, Some(o), Some(n)) => project(def, index, o) != project(def, index, n),
                    _ => true,
                };
                if changed {
                    write_units(n)
                } else {
                    0.0
                }
            }
        }
    }
}

fn projected_size(def: &TableDef, index: &IndexDef, stored: &StoredItem) -> usize {
    match index.projection {
        Projection::All => stored.size,
        _ => item_size(&project(def, index, &stored.item)),
    }
}

/// The attributes of `item` that an index holds: its projection plus the table
/// and index keys.
pub fn project(def: &TableDef, index: &IndexDef, item: &Item) -> Item {
    let keep = |name: &str| -> bool {
        def.keys.is_key_attribute(name)
            || index.keys.is_key_attribute(name)
            || match &index.projection {
                Projection::All => true,
                Projection::KeysOnly => false,
                Projection::Include(attrs) => attrs.iter().any(|a| a == name),
            }
    };
    item.iter()
        .filter(|(k, _)| keep(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}
