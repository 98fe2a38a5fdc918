//! UpdateTable: billing mode and throughput, global secondary indexes
//! (create, update, delete), deletion protection and table class.
//! https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateTable.html
//!
//! A table's definition is fixed for the item path's sake (no lock to read
//! it), so an update builds the new definition, checks it as CreateTable
//! would, and replaces the table with one holding the same items (indexes
//! rebuilt when they changed), under the registry's and the old table's
//! write locks. Like AWS the change is answered as UPDATING; unlike AWS it
//! is complete when the answer comes (a new index is backfilled at once).

use std::sync::Arc;

use localcloud_core::RequestContext;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::codec::{decode, encode};
use crate::error::{validation, DdbError, DdbResult};
use crate::registry::DynamoDb;
use crate::schema::{AttributeDefinition, CreateTableInput, IndexSpec, TableDef, Throughput};
use crate::table::Table;

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct UpdateTableInput {
    table_name: Option<String>,
    attribute_definitions: Option<Vec<AttributeDefinition>>,
    billing_mode: Option<String>,
    provisioned_throughput: Option<Throughput>,
    global_secondary_index_updates: Option<Vec<GsiUpdate>>,
    deletion_protection_enabled: Option<bool>,
    table_class: Option<String>,
    stream_specification: Option<StreamSpecification>,
    #[serde(rename = "SSESpecification")]
    sse_specification: Option<Value>,
    replica_updates: Option<Value>,
    on_demand_throughput: Option<Value>,
    warm_throughput: Option<Value>,
    multi_region_consistency: Option<Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct StreamSpecification {
    stream_enabled: Option<bool>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct GsiUpdate {
    create: Option<IndexSpec>,
    update: Option<GsiThroughput>,
    delete: Option<GsiName>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct GsiThroughput {
    index_name: String,
    provisioned_throughput: Option<Throughput>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct GsiName {
    index_name: String,
}

pub fn update_table(db: &DynamoDb, ctx: &RequestContext, body: &[u8]) -> DdbResult<Vec<u8>> {
    let input: UpdateTableInput = decode(body)?;
    let table = db.table(input.table_name.as_deref())?;
    // Streams, encryption settings and replicas are not emulated: refused by
    // name rather than accepted and ignored. Turning streams off is a no-op.
    for (name, given) in [
        (
            "StreamSpecification",
            input
                .stream_specification
                .as_ref()
                .is_some_and(|s| s.stream_enabled != Some(false)),
        ),
        ("SSESpecification", input.sse_specification.is_some()),
        ("ReplicaUpdates", input.replica_updates.is_some()),
        ("OnDemandThroughput", input.on_demand_throughput.is_some()),
        ("WarmThroughput", input.warm_throughput.is_some()),
        (
            "MultiRegionConsistency",
            input.multi_region_consistency.is_some(),
        ),
    ] {
        if given {
            return Err(validation(format!(
                "UpdateTable parameter {name} is not supported by the local cloud"
            )));
        }
    }
    let changes_something = input.billing_mode.is_some()
        || input.provisioned_throughput.is_some()
        || input.global_secondary_index_updates.is_some()
        || input.deletion_protection_enabled.is_some()
        || input.table_class.is_some()
        || input.stream_specification.is_some();
    if !changes_something {
        return Err(validation("At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates or SSESpecification or ReplicaUpdates is required"));
    }
    let mut new = table.def.input.clone();
    apply(&mut new, input, &table.def)?;
    let def = TableDef::from_input(new, table.def.created_at)?;
    let replaced = replace(db, &table, def)?;
    let description =
        replaced
            .def
            .describe(&ctx.region, &ctx.account_id, "UPDATING", &replaced.stats());
    encode(&json!({ "TableDescription": description }))
}

/// Applies the request to a copy of the table's CreateTable request.
fn apply(new: &mut CreateTableInput, input: UpdateTableInput, old: &TableDef) -> DdbResult<()> {
    if let Some(defs) = input.attribute_definitions {
        for def in defs {
            match new
                .attribute_definitions
                .iter_mut()
                .find(|d| d.attribute_name == def.attribute_name)
            {
                Some(existing) => *existing = def,
                None => new.attribute_definitions.push(def),
            }
        }
    }
    if let Some(mode) = input.billing_mode {
        if mode == "PAY_PER_REQUEST" {
            new.provisioned_throughput = None;
            for gsi in new.global_secondary_indexes.iter_mut().flatten() {
                gsi.provisioned_throughput = None;
            }
        }
        new.billing_mode = Some(mode);
    }
    if let Some(throughput) = input.provisioned_throughput {
        let same = !old.pay_per_request
            && throughput.read_capacity_units == Some(old.read_capacity)
            && throughput.write_capacity_units == Some(old.write_capacity);
        if same {
            return Err(validation(format!(
                "The provisioned throughput for the table will not change. The requested value equals the current value. Current ReadCapacityUnits provisioned for the table: {r}. Requested ReadCapacityUnits: {r}. Current WriteCapacityUnits provisioned for the table: {w}. Requested WriteCapacityUnits: {w}. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.",
                r = old.read_capacity,
                w = old.write_capacity
            )));
        }
        new.provisioned_throughput = Some(throughput);
    }
    for update in input.global_secondary_index_updates.into_iter().flatten() {
        let gsis = new.global_secondary_indexes.get_or_insert_with(Vec::new);
        match (update.create, update.update, update.delete) {
            (Some(spec), None, None) => {
                if old.indexes.iter().any(|ix| ix.name == spec.index_name)
                    || gsis.iter().any(|g| g.index_name == spec.index_name)
                {
                    return Err(validation(format!(
                        "One or more parameter values were invalid: Attempting to create an index which already exists: {}",
                        spec.index_name
                    )));
                }
                gsis.push(spec);
            }
            (None, Some(change), None) => {
                let gsi = gsis
                    .iter_mut()
                    .find(|g| g.index_name == change.index_name)
                    .ok_or_else(|| index_not_found(&change.index_name))?;
                gsi.provisioned_throughput = change.provisioned_throughput;
            }
            (None, None, Some(delete)) => {
                let before = gsis.len();
                gsis.retain(|g| g.index_name != delete.index_name);
                if gsis.len() == before {
                    return Err(index_not_found(&delete.index_name));
                }
            }
            _ => {
                return Err(validation(
                    "One or more parameter values were invalid: One of GlobalSecondaryIndexUpdate.Create, GlobalSecondaryIndexUpdate.Update or GlobalSecondaryIndexUpdate.Delete must be specified",
                ))
            }
        }
    }
    if new
        .global_secondary_indexes
        .as_ref()
        .is_some_and(Vec::is_empty)
    {
        new.global_secondary_indexes = None;
    }
    // A deleted index's key attributes leave the definitions with it, as on AWS.
    let used = |name: &str| {
        let in_schema = |keys: &[crate::schema::KeySchemaElement]| {
            keys.iter().any(|k| k.attribute_name == name)
        };
        in_schema(&new.key_schema)
            || new
                .global_secondary_indexes
                .iter()
                .chain(new.local_secondary_indexes.iter())
                .flatten()
                .any(|ix| in_schema(&ix.key_schema))
    };
    let kept: Vec<AttributeDefinition> = new
        .attribute_definitions
        .iter()
        .filter(|d| used(&d.attribute_name))
        .cloned()
        .collect();
    new.attribute_definitions = kept;
    if let Some(protect) = input.deletion_protection_enabled {
        new.deletion_protection_enabled = Some(protect);
    }
    if let Some(class) = input.table_class {
        new.table_class = Some(class);
    }
    Ok(())
}

fn index_not_found(name: &str) -> DdbError {
    DdbError::ResourceNotFound(format!(
        "Requested resource not found: Index: {name} not found"
    ))
}

/// Puts a table of the new definition, holding the old one's items, TTL,
/// tags and backup settings, in the old one's place.
fn replace(db: &DynamoDb, old: &Arc<Table>, def: TableDef) -> DdbResult<Arc<Table>> {
    let same_indexes = def.indexes == old.def.indexes;
    let table = Arc::new(Table::new(def));
    let mut tables = db.tables.write();
    match tables.get(&old.def.name) {
        Some(current) if Arc::ptr_eq(current, old) => {}
        _ => {
            return Err(DdbError::ResourceInUse(format!(
                "Attempt to change a resource which is still in use: Table is being updated: {}",
                old.def.name
            )))
        }
    }
    {
        let mut old_state = old.state.write();
        if same_indexes {
            *table.state.write() = std::mem::take(&mut *old_state);
        } else {
            let mut state = table.state.write();
            for partition in old_state.partitions.values() {
                for stored in partition.values() {
                    let key = table.def.keys.key_of_new_item(&stored.item)?;
                    state.write(&table.def, &key, Some(stored.item.clone()));
                }
            }
        }
        *table.ttl.write() = old.ttl.read().clone();
        *table.meta.lock() = old.meta.lock().clone();
        // Operations that found the old table before the swap and lock it
        // after run again on the new one (`DynamoDb::call`): none is lost.
        old_state.retired = true;
    }
    tables.insert(table.def.name.clone(), table.clone());
    Ok(table)
}
