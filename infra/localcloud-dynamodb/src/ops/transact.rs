//! TransactGetItems and TransactWriteItems: all-or-nothing across tables. The
//! tables involved are locked in name order (every multi-table lock in this
//! crate takes that order), conditions are checked, and only if all pass are
//! the writes applied, before any lock is released.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use dynamodb_lang::{Condition, Item, Projection, UpdateExpression};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::capacity::{read_units, write_units, Consumed, ReturnCapacity, WriteUnits};
use crate::codec::{decode, encode};
use crate::error::{validation, DdbError, DdbResult};
use crate::key::PrimaryKey;
use crate::ops::common::{
    check_new_item, empty_item, read_projection, reject_key_update, required_item,
    return_old_on_failure, write_expressions, ItemRequest, NewItem, OutItem, WriteExpressions,
};
use crate::registry::DynamoDb;
use crate::table::{Table, TableState};

const MAX_ACTIONS: usize = 100;

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct TransactItem {
    get: Option<ItemRequest>,
    condition_check: Option<ItemRequest>,
    put: Option<ItemRequest>,
    delete: Option<ItemRequest>,
    update: Option<ItemRequest>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct TransactInput {
    transact_items: Option<Vec<TransactItem>>,
    client_request_token: Option<String>,
    return_consumed_capacity: Option<String>,
    return_item_collection_metrics: Option<String>,
}

pub(crate) enum Kind {
    Check,
    Put(Arc<Item>),
    /// A PartiQL INSERT: a Put refused when the item exists.
    Insert(Arc<Item>),
    Delete,
    Update(Option<UpdateExpression>, Item),
}

pub(crate) struct Action {
    pub(crate) table: Arc<Table>,
    pub(crate) key: PrimaryKey,
    pub(crate) kind: Kind,
    pub(crate) condition: Option<Condition>,
    pub(crate) return_old: bool,
}

fn items_of(input: &mut TransactInput) -> DdbResult<Vec<TransactItem>> {
    let items = input.transact_items.take().unwrap_or_default();
    if items.is_empty() || items.len() > MAX_ACTIONS {
        return Err(validation(format!(
            "1 validation error detected: Value at 'transactItems' failed to satisfy constraint: Member must have length {}",
            if items.is_empty() { "greater than or equal to 1" } else { "less than or equal to 100" }
        )));
    }
    Ok(items)
}

fn multiple_operations() -> DdbError {
    validation("Transaction request cannot include multiple operations on one item")
}

fn one_action() -> DdbError {
    validation("TransactItems can only contain one of Check, Put, Update or Delete")
}

/// Takes the write (or read) locks of the tables, in name order.
fn sorted_tables<'a>(tables: impl Iterator<Item = &'a Arc<Table>>) -> Vec<Arc<Table>> {
    let mut by_name: BTreeMap<&str, &Arc<Table>> = BTreeMap::new();
    for table in tables {
        by_name.insert(&table.def.name, table);
    }
    by_name.into_values().cloned().collect()
}

pub fn transact_get(db: &DynamoDb, body: &[u8]) -> DdbResult<Vec<u8>> {
    let mut input: TransactInput = decode(body)?;
    let capacity = ReturnCapacity::parse(input.return_consumed_capacity.as_deref())?;
    let mut gets: Vec<(Arc<Table>, PrimaryKey, Option<Projection>)> = Vec::new();
    for item in items_of(&mut input)? {
        let TransactItem {
            get: Some(get),
            condition_check: None,
            put: None,
            delete: None,
            update: None,
        } = item
        else {
            return Err(validation("TransactItems can only contain Get"));
        };
        let table = db.table(get.table_name.as_deref())?;
        let key = table
            .def
            .keys
            .key_from_request(get.key.as_ref().unwrap_or(empty_item()))?;
        let projection = read_projection(
            get.expression_attribute_names,
            get.projection_expression.as_deref(),
        )?;
        gets.push((table, key, projection));
    }
    let (keys, projections): (Vec<_>, Vec<_>) =
        gets.into_iter().map(|(t, k, p)| ((t, k), p)).unzip();
    let out = read_all(db, "TransactGetItems", &keys, capacity, |i, item| {
        Some(match &projections[i] {
            Some(p) => OutItem::Owned(p.apply(item)),
            None => OutItem::Shared(item.clone()),
        })
    })?;
    encode(&out)
}

/// Reads every key under the read locks of their tables (one snapshot),
/// answering `{"Responses": [...]}` with `{"Item": ...}` for each key whose
/// item exists and `answer` keeps (`answer` gets the key's position), `{}`
/// otherwise; each read is a transactional (double) consistent read.
pub(crate) fn read_all(
    db: &DynamoDb,
    operation: &str,
    gets: &[(Arc<Table>, PrimaryKey)],
    capacity: ReturnCapacity,
    answer: impl Fn(usize, &Arc<Item>) -> Option<OutItem>,
) -> DdbResult<Value> {
    let mut seen = HashSet::new();
    if !gets.iter().all(|(t, k)| seen.insert((&t.def.name, k))) {
        return Err(multiple_operations());
    }
    let tables = sorted_tables(gets.iter().map(|g| &g.0));
    let guards = tables
        .iter()
        .map(|t| t.read_state())
        .collect::<DdbResult<Vec<_>>>()?;
    let state_of = |table: &Table| -> &TableState {
        let i = tables
            .iter()
            .position(|t| t.def.name == table.def.name)
            .expect("locked above");
        &guards[i]
    };
    let mut responses = Vec::with_capacity(gets.len());
    let mut consumed: BTreeMap<String, (Arc<Table>, Consumed)> = BTreeMap::new();
    for (i, (table, key)) in gets.iter().enumerate() {
        let stored = state_of(table).get(key);
        let units = 2.0 * read_units(stored.map_or(0, |s| s.size), true);
        consumed
            .entry(table.def.name.clone())
            .or_insert_with(|| {
                (
                    table.clone(),
                    Consumed {
                        transactional: true,
                        ..Consumed::read(0.0)
                    },
                )
            })
            .1
            .table += units;
        responses.push(match stored.and_then(|s| answer(i, &s.item)) {
            Some(item) => json!({ "Item": item }),
            None => json!({}),
        });
    }
    drop(guards);
    let mut out = json!({"Responses": responses});
    record_all(db, operation, consumed, capacity, &mut out);
    Ok(out)
}

fn record_all(
    db: &DynamoDb,
    op: &str,
    consumed: BTreeMap<String, (Arc<Table>, Consumed)>,
    mode: ReturnCapacity,
    out: &mut Value,
) {
    let mut list = Vec::new();
    for (table, c) in consumed.values() {
        db.record(table, op, c);
        list.extend(c.to_json(&table.def, mode));
    }
    if !list.is_empty() {
        out["ConsumedCapacity"] = Value::Array(list);
    }
}

fn parse_action(db: &DynamoDb, item: TransactItem) -> DdbResult<Action> {
    let (kind, input) = match item {
        TransactItem {
            condition_check: Some(a),
            put: None,
            delete: None,
            update: None,
            get: None,
        } => ("check", a),
        TransactItem {
            put: Some(a),
            condition_check: None,
            delete: None,
            update: None,
            get: None,
        } => ("put", a),
        TransactItem {
            delete: Some(a),
            condition_check: None,
            put: None,
            update: None,
            get: None,
        } => ("delete", a),
        TransactItem {
            update: Some(a),
            condition_check: None,
            put: None,
            delete: None,
            get: None,
        } => ("update", a),
        _ => return Err(one_action()),
    };
    let table = db.table(input.table_name.as_deref())?;
    let WriteExpressions { update, condition } = write_expressions(
        input.expression_attribute_names,
        input.expression_attribute_values,
        input.update_expression.as_deref(),
        input.condition_expression.as_deref(),
        kind == "update",
    )?;
    let return_old =
        return_old_on_failure(input.return_values_on_condition_check_failure.as_deref())?;
    let key_of = |key: &Option<Item>| {
        table
            .def
            .keys
            .key_from_request(key.as_ref().unwrap_or(empty_item()))
    };
    let (key, kind) = match kind {
        "check" => {
            if condition.is_none() {
                return Err(validation(
                    "The ConditionExpression of a ConditionCheck must be specified",
                ));
            }
            (key_of(&input.key)?, Kind::Check)
        }
        "put" => {
            let item = required_item(input.item)?;
            let key = check_new_item(&table.def, &item, NewItem::Put)?;
            (key, Kind::Put(Arc::new(item)))
        }
        "delete" => (key_of(&input.key)?, Kind::Delete),
        _ => {
            let key_item = input.key.clone().unwrap_or_default();
            reject_key_update(&table.def, update.as_ref())?;
            (key_of(&input.key)?, Kind::Update(update, key_item))
        }
    };
    Ok(Action {
        table,
        key,
        kind,
        condition,
        return_old,
    })
}

pub fn transact_write(db: &DynamoDb, body: &[u8]) -> DdbResult<Vec<u8>> {
    let mut input: TransactInput = decode(body)?;
    let capacity = ReturnCapacity::parse(input.return_consumed_capacity.as_deref())?;
    // Validated; the collections' sizes are answered by the single-item
    // writes and BatchWriteItem only (docs/divergences-dynamodb.md).
    crate::ops::common::item_collection_metrics(input.return_item_collection_metrics.as_deref())?;
    if let Some(token) = &input.client_request_token {
        if let Some(cached) = db.idempotency.lookup(token, body)? {
            return Ok(cached);
        }
    }
    let actions = items_of(&mut input)?
        .into_iter()
        .map(|i| parse_action(db, i))
        .collect::<DdbResult<Vec<_>>>()?;
    let out = write_all(db, "TransactWriteItems", &actions, capacity)?;
    let out = encode(&out)?;
    if let Some(token) = &input.client_request_token {
        db.idempotency.remember(token, body, &out);
    }
    Ok(out)
}

/// Checks every action's condition and, only if all hold, applies every
/// write, under the write locks of all the tables involved; a failed
/// condition cancels the whole with one reason per action. Answers `{}` with
/// the ConsumedCapacity asked for.
pub(crate) fn write_all(
    db: &DynamoDb,
    operation: &str,
    actions: &[Action],
    capacity: ReturnCapacity,
) -> DdbResult<Value> {
    let mut seen = HashSet::new();
    if !actions
        .iter()
        .all(|a| seen.insert((&a.table.def.name, &a.key)))
    {
        return Err(multiple_operations());
    }
    let tables = sorted_tables(actions.iter().map(|a| &a.table));
    let mut guards = tables
        .iter()
        .map(|t| t.write_state())
        .collect::<DdbResult<Vec<_>>>()?;
    let slot = |table: &Table| {
        tables
            .iter()
            .position(|t| t.def.name == table.def.name)
            .expect("locked above")
    };

    // Phase 1: every condition and every new item, without writing anything.
    let mut reasons = Vec::with_capacity(actions.len());
    let mut writes = Vec::with_capacity(actions.len());
    for action in actions {
        let state = &guards[slot(&action.table)];
        let old = state.get(&action.key).map(|s| s.item.clone());
        match evaluate(action, old.as_ref()) {
            Ok(new) => {
                reasons.push(json!({"Code": "None"}));
                writes.push((new, old.as_ref().map_or(0, |o| dynamodb_lang::item_size(o))));
            }
            Err(reason) => {
                reasons.push(reason);
                writes.push((None, 0));
            }
        }
    }
    if reasons.iter().any(|r| r["Code"] != "None") {
        return Err(DdbError::TransactionCanceled { reasons });
    }
    // Phase 2: apply, still under every lock.
    let mut consumed: BTreeMap<String, (Arc<Table>, Consumed)> = BTreeMap::new();
    for (action, (new, old_size)) in actions.iter().zip(writes) {
        let units = match (&action.kind, new) {
            (Kind::Check, _) => WriteUnits {
                table: write_units(old_size),
                indexes: Vec::new(),
            },
            (Kind::Delete, _) => {
                guards[slot(&action.table)]
                    .write(&action.table.def, &action.key, None)
                    .1
            }
            (_, new) => {
                guards[slot(&action.table)]
                    .write(&action.table.def, &action.key, new)
                    .1
            }
        };
        let entry = consumed
            .entry(action.table.def.name.clone())
            .or_insert_with(|| {
                (
                    action.table.clone(),
                    Consumed {
                        transactional: true,
                        ..Consumed::write(&WriteUnits::default(), 0.0)
                    },
                )
            });
        entry.1.add(&Consumed::write(&units, 2.0));
    }
    drop(guards);
    let mut out = json!({});
    record_all(db, operation, consumed, capacity, &mut out);
    Ok(out)
}

/// The item an action writes (`None` to delete or leave alone), or its
/// cancellation reason.
fn evaluate(action: &Action, old: Option<&Arc<Item>>) -> Result<Option<Arc<Item>>, Value> {
    let reason = |code: &str, message: &str| json!({"Code": code, "Message": message});
    if let (Kind::Insert(_), Some(_)) = (&action.kind, old) {
        // https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.insert.html
        return Err(reason(
            "DuplicateItem",
            "Duplicate primary key exists in table",
        ));
    }
    if let Some(condition) = &action.condition {
        match condition.evaluate(old.map_or(empty_item(), |o| &**o)) {
            Ok(true) => {}
            Ok(false) => {
                let mut r = reason("ConditionalCheckFailed", "The conditional request failed");
                if let (true, Some(old)) = (action.return_old, old) {
                    r["Item"] = serde_json::to_value(&**old).unwrap_or(Value::Null);
                }
                return Err(r);
            }
            Err(e) => return Err(reason("ValidationError", &e.message)),
        }
    }
    match &action.kind {
        Kind::Check | Kind::Delete => Ok(None),
        Kind::Put(item) | Kind::Insert(item) => Ok(Some(item.clone())),
        Kind::Update(update, key_item) => {
            let mut new = old.map_or_else(|| key_item.clone(), |o| (**o).clone());
            if let Some(update) = update {
                update
                    .apply(&mut new)
                    .map_err(|e| reason("ValidationError", &e.message))?;
            }
            check_new_item(&action.table.def, &new, NewItem::Updated).map_err(|e| match e {
                DdbError::Validation(m) => reason("ValidationError", &m),
                other => reason("ValidationError", &other.to_string()),
            })?;
            Ok(Some(Arc::new(new)))
        }
    }
}
