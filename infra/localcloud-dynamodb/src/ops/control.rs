//! Control plane: CreateTable, DescribeTable, ListTables, DeleteTable and TTL.

use std::collections::btree_map::Entry;
use std::sync::Arc;

use localcloud_core::RequestContext;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::codec::{decode, encode};
use crate::error::{table_not_found, validation, DdbError, DdbResult};
use crate::registry::DynamoDb;
use crate::schema::{CreateTableInput, TableDef};
use crate::table::Table;

pub fn create_table(db: &DynamoDb, ctx: &RequestContext, body: &[u8]) -> DdbResult<Vec<u8>> {
    let mut input: CreateTableInput = decode(body)?;
    let tags = crate::ops::tags::initial_tags(input.tags.take())?;
    let def = TableDef::from_input(input, now_seconds())?;
    let table = Arc::new(Table::new(def));
    table.meta.lock().tags = tags;
    match db.tables.write().entry(table.def.name.clone()) {
        Entry::Occupied(_) => {
            return Err(DdbError::ResourceInUse(format!(
                "Table already exists: {}",
                table.def.name
            )))
        }
        Entry::Vacant(slot) => {
            slot.insert(table.clone());
        }
    }
    encode(&json!({"TableDescription": describe(&table, ctx, "ACTIVE")}))
}

fn describe(table: &Table, ctx: &RequestContext, status: &str) -> Value {
    table
        .def
        .describe(&ctx.region, &ctx.account_id, status, &table.stats())
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct TableNameInput {
    table_name: Option<String>,
}

pub fn describe_table(db: &DynamoDb, ctx: &RequestContext, body: &[u8]) -> DdbResult<Vec<u8>> {
    let input: TableNameInput = decode(body)?;
    let table = db.table(input.table_name.as_deref())?;
    encode(&json!({"Table": describe(&table, ctx, "ACTIVE")}))
}

pub fn delete_table(db: &DynamoDb, ctx: &RequestContext, body: &[u8]) -> DdbResult<Vec<u8>> {
    let input: TableNameInput = decode(body)?;
    let table = db.table(input.table_name.as_deref())?;
    if table.def.deletion_protection {
        // https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/WorkingWithTables.Basics.html#WorkingWithTables.Basics.DeletionProtection
        return Err(validation("Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first."));
    }
    let removed = db.tables.write().remove(&table.def.name);
    let Some(removed) = removed else {
        return Err(table_not_found(&table.def.name));
    };
    encode(&json!({"TableDescription": describe(&removed, ctx, "DELETING")}))
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct ListTablesInput {
    exclusive_start_table_name: Option<String>,
    limit: Option<i64>,
}

pub fn list_tables(db: &DynamoDb, body: &[u8]) -> DdbResult<Vec<u8>> {
    let input: ListTablesInput = decode(body)?;
    let limit = match input.limit {
        None => 100,
        Some(n) if (1..=100).contains(&n) => n as usize,
        Some(n) => {
            return Err(validation(format!(
                "1 validation error detected: Value '{n}' at 'limit' failed to satisfy constraint: Member must have value {}",
                if n < 1 { "greater than or equal to 1" } else { "less than or equal to 100" }
            )))
        }
    };
    let tables = db.tables.read();
    let after = |name: &&String| {
        input
            .exclusive_start_table_name
            .as_ref()
            .is_none_or(|start| *name > start)
    };
    let mut names = tables.keys().filter(after);
    let page: Vec<String> = names.by_ref().take(limit).cloned().collect();
    let more = names.next().is_some();
    let mut out = json!({"TableNames": page});
    if more {
        out["LastEvaluatedTableName"] = json!(page.last());
    }
    encode(&out)
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct TtlSpec {
    attribute_name: Option<String>,
    enabled: Option<bool>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct UpdateTtlInput {
    table_name: Option<String>,
    time_to_live_specification: Option<TtlSpec>,
}

pub fn update_ttl(db: &DynamoDb, body: &[u8]) -> DdbResult<Vec<u8>> {
    let input: UpdateTtlInput = decode(body)?;
    let table = db.table(input.table_name.as_deref())?;
    let spec = input.time_to_live_specification.ok_or_else(|| {
        validation("1 validation error detected: Value null at 'timeToLiveSpecification' failed to satisfy constraint: Member must not be null")
    })?;
    let (Some(name), Some(enabled)) = (spec.attribute_name, spec.enabled) else {
        return Err(validation("1 validation error detected: Value null at 'timeToLiveSpecification.attributeName' failed to satisfy constraint: Member must not be null"));
    };
    if name.is_empty() {
        return Err(validation(
            "TimeToLiveSpecification.AttributeName must be non-empty",
        ));
    }
    let mut ttl = table.ttl.write();
    match (&*ttl, enabled) {
        (Some(_), true) => return Err(validation("TimeToLive is already enabled")),
        (None, false) => return Err(validation("TimeToLive is already disabled")),
        (Some(current), false) if *current != name => {
            return Err(validation(
                "TimeToLive is active on a different AttributeName: current AttributeName is "
                    .to_string()
                    + current,
            ))
        }
        _ => {}
    }
    *ttl = enabled.then(|| name.clone());
    encode(&json!({"TimeToLiveSpecification": {"AttributeName": name, "Enabled": enabled}}))
}

pub fn describe_ttl(db: &DynamoDb, body: &[u8]) -> DdbResult<Vec<u8>> {
    let input: TableNameInput = decode(body)?;
    let table = db.table(input.table_name.as_deref())?;
    let description = match &*table.ttl.read() {
        Some(name) => json!({"TimeToLiveStatus": "ENABLED", "AttributeName": name}),
        None => json!({"TimeToLiveStatus": "DISABLED"}),
    };
    encode(&json!({"TimeToLiveDescription": description}))
}

pub(crate) fn now_seconds() -> f64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    (now.as_millis() as f64) / 1000.0
}
