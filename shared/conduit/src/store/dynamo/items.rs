//! Attribute helpers and the batching loops every adapter shares.

use std::collections::HashMap;

use aws_sdk_dynamodb::error::{DisplayErrorContext, SdkError};
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::{
    AttributeValue, Delete, KeysAndAttributes, Put, TransactWriteItem, Update, WriteRequest,
};
use aws_sdk_dynamodb::Client;

use crate::store::{StoreError, StoreResult};

pub type Item = HashMap<String, AttributeValue>;

/// BatchGetItem takes at most 100 keys, BatchWriteItem 25 requests.
const BATCH_GET_MAX: usize = 100;
const BATCH_WRITE_MAX: usize = 25;
/// Unprocessed keys are retried this many times (with a short backoff) before failing.
const BATCH_RETRIES: usize = 8;
/// Hot items (one article favorited by many at once) conflict often: retry longer.
const TX_RETRIES: usize = 20;

/// Keeps the SDK's full error context in the log while the client sees a generic 500.
pub fn backend<E: std::error::Error + Send + Sync + 'static>(err: E) -> StoreError {
    StoreError::backend(DisplayErrorContext(err).to_string())
}

pub fn s(value: impl Into<String>) -> AttributeValue {
    AttributeValue::S(value.into())
}

pub fn n(value: i64) -> AttributeValue {
    AttributeValue::N(value.to_string())
}

pub fn key(pairs: &[(&str, AttributeValue)]) -> Item {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), v.clone()))
        .collect()
}

fn malformed(name: &str) -> StoreError {
    StoreError::backend(format!("stored item lacks a valid `{name}`"))
}

pub fn get_s(item: &Item, name: &str) -> StoreResult<String> {
    item.get(name)
        .and_then(|v| v.as_s().ok())
        .cloned()
        .ok_or_else(|| malformed(name))
}

/// Like `get_s`, moving the string out of the item instead of copying it.
pub fn take_s(item: &mut Item, name: &str) -> StoreResult<String> {
    match item.remove(name) {
        Some(AttributeValue::S(value)) => Ok(value),
        _ => Err(malformed(name)),
    }
}

pub fn take_opt_s(item: &mut Item, name: &str) -> Option<String> {
    match item.remove(name) {
        Some(AttributeValue::S(value)) => Some(value),
        _ => None,
    }
}

pub fn get_opt_s(item: &Item, name: &str) -> Option<String> {
    item.get(name).and_then(|v| v.as_s().ok()).cloned()
}

pub fn get_n(item: &Item, name: &str) -> StoreResult<i64> {
    item.get(name)
        .and_then(|v| v.as_n().ok())
        .and_then(|raw| raw.parse().ok())
        .ok_or_else(|| malformed(name))
}

pub fn get_list_s(item: &Item, name: &str) -> Vec<String> {
    item.get(name)
        .and_then(|v| v.as_l().ok())
        .map(|list| list.iter().filter_map(|v| v.as_s().ok().cloned()).collect())
        .unwrap_or_default()
}

/// Optional strings are stored only when present (DynamoDB has no "null string").
pub fn put_opt_s(item: &mut Item, name: &str, value: &Option<String>) {
    if let Some(v) = value {
        item.insert(name.to_owned(), s(v.clone()));
    }
}

/// Consistent BatchGetItem for any number of keys: chunks of 100, unprocessed keys retried.
pub async fn batch_get(
    client: &Client,
    table: &str,
    keys: Vec<Item>,
    projection: &[&str],
) -> StoreResult<Vec<Item>> {
    let (projection, projection_names) = project(projection);
    let mut found = Vec::with_capacity(keys.len());
    for chunk in keys.chunks(BATCH_GET_MAX) {
        let mut pending = chunk.to_vec();
        for attempt in 0..=BATCH_RETRIES {
            if pending.is_empty() {
                break;
            }
            if attempt == BATCH_RETRIES {
                return Err(StoreError::backend(
                    "BatchGetItem kept returning unprocessed keys",
                ));
            }
            backoff(attempt).await;
            let request = KeysAndAttributes::builder()
                .set_keys(Some(std::mem::take(&mut pending)))
                .consistent_read(true)
                .set_projection_expression(projection.clone())
                .set_expression_attribute_names(projection_names.clone())
                .build()
                .map_err(backend)?;
            let out = client
                .batch_get_item()
                .request_items(table, request)
                .send()
                .await
                .map_err(backend)?;
            // Owned, not cloned: the items are the request's largest allocation.
            if let Some(items) = out.responses.and_then(|mut r| r.remove(table)) {
                found.extend(items);
            }
            if let Some(left) = out.unprocessed_keys.and_then(|mut u| u.remove(table)) {
                pending = left.keys;
            }
        }
    }
    Ok(found)
}

/// BatchWriteItem for any number of requests: chunks of 25, unprocessed items retried.
pub async fn batch_write(
    client: &Client,
    table: &str,
    requests: Vec<WriteRequest>,
) -> StoreResult<()> {
    for chunk in requests.chunks(BATCH_WRITE_MAX) {
        let mut pending = chunk.to_vec();
        for attempt in 0..=BATCH_RETRIES {
            if pending.is_empty() {
                break;
            }
            if attempt == BATCH_RETRIES {
                return Err(StoreError::backend(
                    "BatchWriteItem kept returning unprocessed items",
                ));
            }
            backoff(attempt).await;
            let out = client
                .batch_write_item()
                .request_items(table, std::mem::take(&mut pending))
                .send()
                .await
                .map_err(backend)?;
            if let Some(left) = out.unprocessed_items().and_then(|u| u.get(table)) {
                pending = left.clone();
            }
        }
    }
    Ok(())
}

/// `#p0, #p1` for the given names (reserved words such as `name` stay safe).
fn project(attrs: &[&str]) -> (Option<String>, Option<HashMap<String, String>>) {
    if attrs.is_empty() {
        return (None, None);
    }
    let placeholders: Vec<String> = (0..attrs.len()).map(|i| format!("#p{i}")).collect();
    let names = placeholders
        .iter()
        .cloned()
        .zip(attrs.iter().map(|a| (*a).to_owned()))
        .collect();
    (Some(placeholders.join(", ")), Some(names))
}

async fn backoff(attempt: usize) {
    if attempt > 0 {
        let millis = 10u64 << attempt.min(6);
        tokio::time::sleep(std::time::Duration::from_millis(millis)).await;
    }
}

/// A consistent Query, following pages until `want` items (or the end).
pub struct QuerySpec<'a> {
    pub table: &'a str,
    pub key_condition: &'a str,
    pub names: &'a [(&'a str, &'a str)],
    pub values: Vec<(&'a str, AttributeValue)>,
    pub filter: Option<&'a str>,
    /// Attribute names to return (placeholders are generated); empty means all.
    pub projection: &'a [&'a str],
    pub newest_first: bool,
    pub want: Option<usize>,
}

pub async fn query(client: &Client, spec: QuerySpec<'_>) -> StoreResult<Vec<Item>> {
    let (projection, projection_names) = project(spec.projection);
    let mut items = Vec::new();
    let mut start: Option<Item> = None;
    loop {
        let mut req = client
            .query()
            .table_name(spec.table)
            .key_condition_expression(spec.key_condition)
            .consistent_read(true)
            .scan_index_forward(!spec.newest_first)
            .set_filter_expression(spec.filter.map(str::to_owned))
            .set_projection_expression(projection.clone())
            .set_exclusive_start_key(start.take());
        for (placeholder, name) in projection_names.iter().flatten() {
            req = req.expression_attribute_names(placeholder, name);
        }
        for (placeholder, name) in spec.names {
            req = req.expression_attribute_names(*placeholder, *name);
        }
        for (placeholder, value) in &spec.values {
            req = req.expression_attribute_values(*placeholder, value.clone());
        }
        if let Some(want) = spec.want {
            let missing = want.saturating_sub(items.len()).max(1);
            req = req.limit(i32::try_from(missing).unwrap_or(i32::MAX));
        }
        let out = req.send().await.map_err(backend)?;
        items.extend(out.items.unwrap_or_default());
        let enough = spec.want.is_some_and(|w| items.len() >= w);
        match out.last_evaluated_key {
            Some(last) if !enough => start = Some(last),
            _ => break,
        }
    }
    if let Some(want) = spec.want {
        items.truncate(want);
    }
    Ok(items)
}

pub fn put(table: &str, item: Item, condition: Option<&str>) -> StoreResult<TransactWriteItem> {
    let put = Put::builder()
        .table_name(table)
        .set_item(Some(item))
        .set_condition_expression(condition.map(str::to_owned))
        .set_expression_attribute_names(condition.map(|_| names(&[("#pk", "pk")])))
        .build()
        .map_err(backend)?;
    Ok(TransactWriteItem::builder().put(put).build())
}

pub fn delete(table: &str, key: Item, condition: Option<&str>) -> StoreResult<TransactWriteItem> {
    let delete = Delete::builder()
        .table_name(table)
        .set_key(Some(key))
        .set_condition_expression(condition.map(str::to_owned))
        .set_expression_attribute_names(condition.map(|_| names(&[("#pk", "pk")])))
        .build()
        .map_err(backend)?;
    Ok(TransactWriteItem::builder().delete(delete).build())
}

/// A Put whose condition needs its own names and values.
pub fn put_when(
    table: &str,
    item: Item,
    condition: &str,
    attr_names: &[(&str, &str)],
    values: Vec<(&str, AttributeValue)>,
) -> StoreResult<TransactWriteItem> {
    let put = Put::builder()
        .table_name(table)
        .set_item(Some(item))
        .condition_expression(condition)
        .set_expression_attribute_names(Some(names(attr_names)))
        .set_expression_attribute_values(Some(
            values.into_iter().map(|(k, v)| (k.to_owned(), v)).collect(),
        ))
        .build()
        .map_err(backend)?;
    Ok(TransactWriteItem::builder().put(put).build())
}

/// A Delete whose condition needs its own names and values.
pub fn delete_when(
    table: &str,
    key: Item,
    condition: &str,
    attr_names: &[(&str, &str)],
    values: Vec<(&str, AttributeValue)>,
) -> StoreResult<TransactWriteItem> {
    let delete = Delete::builder()
        .table_name(table)
        .set_key(Some(key))
        .condition_expression(condition)
        .set_expression_attribute_names(Some(names(attr_names)))
        .set_expression_attribute_values(Some(
            values.into_iter().map(|(k, v)| (k.to_owned(), v)).collect(),
        ))
        .build()
        .map_err(backend)?;
    Ok(TransactWriteItem::builder().delete(delete).build())
}

/// An Update with explicit names and values (`#x` / `:x` placeholders).
pub fn update(
    table: &str,
    key: Item,
    expression: &str,
    condition: Option<&str>,
    attr_names: &[(&str, &str)],
    values: Vec<(&str, AttributeValue)>,
) -> StoreResult<TransactWriteItem> {
    let update = Update::builder()
        .table_name(table)
        .set_key(Some(key))
        .update_expression(expression)
        .set_condition_expression(condition.map(str::to_owned))
        .set_expression_attribute_names(Some(names(attr_names)))
        .set_expression_attribute_values(Some(
            values.into_iter().map(|(k, v)| (k.to_owned(), v)).collect(),
        ))
        .build()
        .map_err(backend)?;
    Ok(TransactWriteItem::builder().update(update).build())
}

/// `ADD #n :delta` on a counter item `{pk, sk, n}`.
pub fn counter(table: &str, pk: &str, sk: &str, delta: i64) -> StoreResult<TransactWriteItem> {
    update(
        table,
        key(&[("pk", s(pk)), ("sk", s(sk))]),
        "ADD #n :d",
        None,
        &[("#n", "n")],
        vec![(":d", n(delta))],
    )
}

pub fn names(pairs: &[(&str, &str)]) -> HashMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

/// Outcome of a transaction: done, or cancelled with a per-action condition failure map.
pub enum TxOutcome {
    Done,
    /// `failed[i]` is true when action `i` failed its condition.
    ConditionFailed(Vec<bool>),
}

/// Runs a transaction, retrying when it lost a race with another transaction
/// (`TransactionConflict`), which DynamoDB reports instead of waiting.
/// Whether action `i` failed its condition (out of range: no).
pub fn hit(failed: &[bool], i: usize) -> bool {
    failed.get(i).copied().unwrap_or(false)
}

pub async fn transact(client: &Client, actions: Vec<TransactWriteItem>) -> StoreResult<TxOutcome> {
    let count = actions.len();
    for attempt in 0..TX_RETRIES {
        backoff_jittered(attempt).await;
        let sent = client
            .transact_write_items()
            .set_transact_items(Some(actions.clone()))
            .send()
            .await;
        let cancel = match sent {
            Ok(_) => return Ok(TxOutcome::Done),
            Err(SdkError::ServiceError(err)) => match err.into_err() {
                TransactWriteItemsError::TransactionCanceledException(cancel) => cancel,
                other => return Err(backend(other)),
            },
            Err(other) => return Err(backend(other)),
        };
        let codes: Vec<Option<&str>> = (0..count)
            .map(|i| cancel.cancellation_reasons().get(i).and_then(|r| r.code()))
            .collect();
        let failed: Vec<bool> = codes
            .iter()
            .map(|c| *c == Some("ConditionalCheckFailed"))
            .collect();
        if failed.iter().any(|f| *f) {
            return Ok(TxOutcome::ConditionFailed(failed));
        }
        if !codes.contains(&Some("TransactionConflict")) {
            return Err(backend(cancel));
        }
    }
    Err(StoreError::backend(
        "transaction kept conflicting with others",
    ))
}

/// Random spread so that many writers of one hot item do not retry in lockstep.
async fn backoff_jittered(attempt: usize) {
    if attempt > 0 {
        let cap = 10u64 << attempt.min(6);
        let millis = rand::random_range(cap / 2..=cap);
        tokio::time::sleep(std::time::Duration::from_millis(millis)).await;
    }
}
