//! Consumed capacity with AWS's rounding rules, and the per-table counters the
//! cost model reads whether or not a request asked for ReturnConsumedCapacity.

use std::collections::BTreeMap;

use parking_lot::Mutex;
use serde_json::{json, Map, Value};

use crate::schema::TableDef;

/// Write units of an item write: 1 KB units, at least one.
pub fn write_units(size: usize) -> f64 {
    size.div_ceil(1024).max(1) as f64
}

/// Read units of `size` bytes read in one request: 4 KB units, at least one;
/// halved for eventually consistent reads.
pub fn read_units(size: usize, consistent: bool) -> f64 {
    let units = size.div_ceil(4096).max(1) as f64;
    if consistent {
        units
    } else {
        units / 2.0
    }
}

/// Write units consumed by one item write: the table's and each touched index's
/// (by index position in the table definition).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WriteUnits {
    pub table: f64,
    pub indexes: Vec<(usize, f64)>,
}

/// Units consumed in one table by one request, split by table and index.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Consumed {
    pub read: bool,
    pub table: f64,
    pub indexes: BTreeMap<usize, f64>,
    /// Transactions also report the units as ReadCapacityUnits or
    /// WriteCapacityUnits (as DynamoDB Local does).
    pub transactional: bool,
}

impl Consumed {
    pub fn read(units: f64) -> Consumed {
        Consumed {
            read: true,
            table: units,
            indexes: BTreeMap::new(),
            transactional: false,
        }
    }

    /// Read units charged to an index (a Query or Scan on it).
    pub fn index_read(index: usize, units: f64) -> Consumed {
        Consumed {
            read: true,
            table: 0.0,
            indexes: BTreeMap::from([(index, units)]),
            transactional: false,
        }
    }

    pub fn write(units: &WriteUnits, factor: f64) -> Consumed {
        let mut out = Consumed {
            read: false,
            table: units.table * factor,
            indexes: BTreeMap::new(),
            transactional: false,
        };
        for (i, u) in &units.indexes {
            *out.indexes.entry(*i).or_default() += u * factor;
        }
        out
    }

    pub fn add(&mut self, other: &Consumed) {
        self.table += other.table;
        for (i, u) in &other.indexes {
            *self.indexes.entry(*i).or_default() += u;
        }
    }

    pub fn total(&self) -> f64 {
        self.table + self.indexes.values().sum::<f64>()
    }

    /// `{"CapacityUnits": u}`, plus the read/write split where DynamoDB Local
    /// shows it: transactions at the top, and per table/index for writes only.
    fn units_json(&self, units: f64, top: bool) -> Value {
        let mut out = json!({"CapacityUnits": units});
        if self.transactional && (top || !self.read) {
            let kind = if self.read {
                "ReadCapacityUnits"
            } else {
                "WriteCapacityUnits"
            };
            out[kind] = json!(units);
        }
        out
    }

    /// The `ConsumedCapacity` member for `mode` (TOTAL or INDEXES), or `None`.
    pub fn to_json(&self, def: &TableDef, mode: ReturnCapacity) -> Option<Value> {
        // Most calls ask for none: nothing to build.
        if mode == ReturnCapacity::None {
            return None;
        }
        let mut out = json!({"TableName": def.name});
        if let (Value::Object(out), Value::Object(units)) =
            (&mut out, self.units_json(self.total(), true))
        {
            out.extend(units);
        }
        match mode {
            ReturnCapacity::None => return None,
            ReturnCapacity::Total => {}
            ReturnCapacity::Indexes => {
                out["Table"] = self.units_json(self.table, false);
                for (global, member) in [
                    (true, "GlobalSecondaryIndexes"),
                    (false, "LocalSecondaryIndexes"),
                ] {
                    let mut map = Map::new();
                    for (i, units) in &self.indexes {
                        if let Some(ix) = def.indexes.get(*i).filter(|ix| ix.global == global) {
                            map.insert(ix.name.clone(), self.units_json(*units, false));
                        }
                    }
                    if !map.is_empty() {
                        out[member] = Value::Object(map);
                    }
                }
            }
        }
        Some(out)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ReturnCapacity {
    #[default]
    None,
    Total,
    Indexes,
}

impl ReturnCapacity {
    pub fn parse(value: Option<&str>) -> crate::error::DdbResult<ReturnCapacity> {
        match value {
            None | Some("NONE") => Ok(ReturnCapacity::None),
            Some("TOTAL") => Ok(ReturnCapacity::Total),
            Some("INDEXES") => Ok(ReturnCapacity::Indexes),
            Some(other) => Err(crate::error::validation(format!(
                "1 validation error detected: Value '{other}' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]"
            ))),
        }
    }
}

pub use localcloud_metrics::{DynamoDbMetrics, TableMetrics};

#[derive(Default)]
pub struct MetricsRecorder {
    tables: Mutex<BTreeMap<String, TableMetrics>>,
}

impl MetricsRecorder {
    pub fn record(&self, table: &str, operation: &str, consumed: &Consumed) {
        let mut tables = self.tables.lock();
        let metrics = match tables.get_mut(table) {
            Some(m) => m,
            None => tables.entry(table.to_string()).or_default(),
        };
        if consumed.read {
            metrics.read_units += consumed.total();
        } else {
            metrics.write_units += consumed.total();
        }
        match metrics.requests.get_mut(operation) {
            Some(n) => *n += 1,
            None => {
                metrics.requests.insert(operation.to_string(), 1);
            }
        }
    }

    pub fn snapshot(&self) -> DynamoDbMetrics {
        DynamoDbMetrics {
            tables: self.tables.lock().clone(),
        }
    }

    pub fn reset(&self) {
        self.tables.lock().clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_round_up_to_4kb_and_eventual_halves() {
        assert_eq!(read_units(0, true), 1.0);
        assert_eq!(read_units(4096, true), 1.0);
        assert_eq!(read_units(4097, true), 2.0);
        assert_eq!(read_units(4097, false), 1.0);
        assert_eq!(read_units(10, false), 0.5);
    }

    #[test]
    fn writes_round_up_to_1kb() {
        assert_eq!(write_units(0), 1.0);
        assert_eq!(write_units(1024), 1.0);
        assert_eq!(write_units(1025), 2.0);
    }

    #[test]
    fn metrics_split_reads_and_writes_per_table() {
        let recorder = MetricsRecorder::default();
        recorder.record("t", "GetItem", &Consumed::read(0.5));
        recorder.record(
            "t",
            "PutItem",
            &Consumed::write(
                &WriteUnits {
                    table: 2.0,
                    indexes: vec![(0, 1.0)],
                },
                1.0,
            ),
        );
        let m = recorder.snapshot();
        assert_eq!(m.tables["t"].read_units, 0.5);
        assert_eq!(m.tables["t"].write_units, 3.0);
        assert_eq!(m.tables["t"].requests["PutItem"], 1);
        recorder.reset();
        assert!(recorder.snapshot().tables.is_empty());
    }
}
