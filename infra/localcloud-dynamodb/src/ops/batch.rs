//! BatchGetItem and BatchWriteItem: many independent single-item operations.
//! Everything is validated before anything is written; nothing is ever left
//! unprocessed.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use dynamodb_lang::Item;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::capacity::{read_units, Consumed, ReturnCapacity};
use crate::codec::{decode, encode};
use crate::error::{validation, DdbResult};
use crate::key::PrimaryKey;
use crate::ops::common::{
    check_new_item, collection_metrics, item_collection_metrics, read_projection, Names, NewItem,
    OutItem,
};
use crate::ops::legacy;
use crate::registry::DynamoDb;
use crate::table::Table;

const MAX_GET_KEYS: usize = 100;
const MAX_WRITES: usize = 25;

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct KeysAndAttributes {
    #[serde(default)]
    keys: Vec<Item>,
    projection_expression: Option<String>,
    expression_attribute_names: Names,
    #[serde(default)]
    consistent_read: bool,
    attributes_to_get: Option<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct BatchGetInput {
    request_items: Option<BTreeMap<String, KeysAndAttributes>>,
    return_consumed_capacity: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct BatchGetOutput {
    responses: BTreeMap<String, Vec<OutItem>>,
    unprocessed_keys: Value,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    consumed_capacity: Vec<Value>,
}

fn request_items<T>(items: Option<BTreeMap<String, T>>) -> DdbResult<BTreeMap<String, T>> {
    match items {
        Some(items) if !items.is_empty() => Ok(items),
        _ => Err(validation(
            "1 validation error detected: Value null at 'requestItems' failed to satisfy constraint: Member must not be null",
        )),
    }
}

fn duplicates() -> crate::error::DdbError {
    validation("Provided list of item keys contains duplicates")
}

pub fn batch_get(db: &DynamoDb, body: &[u8]) -> DdbResult<Vec<u8>> {
    let input: BatchGetInput = decode(body)?;
    let capacity = ReturnCapacity::parse(input.return_consumed_capacity.as_deref())?;
    let requests = request_items(input.request_items)?;
    // The families may not mix across the whole request, even on different tables.
    legacy::reject_mix(
        &[(
            "AttributesToGet",
            requests.values().any(|r| r.attributes_to_get.is_some()),
        )],
        &[(
            "ProjectionExpression",
            requests.values().any(|r| r.projection_expression.is_some()),
        )],
    )?;
    if requests.values().map(|r| r.keys.len()).sum::<usize>() > MAX_GET_KEYS {
        return Err(validation(
            "Too many items requested for the BatchGetItem call",
        ));
    }
    let mut plans = Vec::new();
    for (name, request) in requests {
        let table = db.table(Some(&name))?;
        let mut projection = read_projection(
            request.expression_attribute_names,
            request.projection_expression.as_deref(),
        )?;
        if let Some(names) = request.attributes_to_get {
            projection = Some(legacy::attributes_to_get(names)?);
        }
        let keys = request
            .keys
            .iter()
            .map(|k| table.def.keys.key_from_request(k))
            .collect::<DdbResult<Vec<_>>>()?;
        if keys.is_empty() {
            return Err(validation("1 validation error detected: Value '[]' at 'requestItems.keys' failed to satisfy constraint: Member must have length greater than or equal to 1"));
        }
        if keys.iter().collect::<HashSet<_>>().len() != keys.len() {
            return Err(duplicates());
        }
        plans.push((table, keys, projection, request.consistent_read));
    }
    let mut responses = BTreeMap::new();
    let mut consumed_out = Vec::new();
    for (table, keys, projection, consistent) in plans {
        let mut units = 0.0;
        let mut found = Vec::new();
        {
            let state = table.read_state()?;
            for key in &keys {
                let stored = state.get(key);
                units += read_units(stored.map_or(0, |s| s.size), consistent);
                if let Some(stored) = stored {
                    found.push(match &projection {
                        Some(p) => OutItem::Owned(p.apply(&stored.item)),
                        None => OutItem::Shared(stored.item.clone()),
                    });
                }
            }
        }
        let consumed = Consumed::read(units);
        db.record(&table, "BatchGetItem", &consumed);
        consumed_out.extend(consumed.to_json(&table.def, capacity));
        responses.insert(table.def.name.clone(), found);
    }
    encode(&BatchGetOutput {
        responses,
        unprocessed_keys: json!({}),
        consumed_capacity: consumed_out,
    })
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct PutRequest {
    item: Item,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct DeleteRequest {
    key: Item,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct WriteRequest {
    put_request: Option<PutRequest>,
    delete_request: Option<DeleteRequest>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct BatchWriteInput {
    request_items: Option<BTreeMap<String, Vec<WriteRequest>>>,
    return_consumed_capacity: Option<String>,
    return_item_collection_metrics: Option<String>,
}

/// One write of a batch: the key and the new item (`None` deletes).
type KeyedWrite = (PrimaryKey, Option<Arc<Item>>);

pub fn batch_write(db: &DynamoDb, body: &[u8]) -> DdbResult<Vec<u8>> {
    let input: BatchWriteInput = decode(body)?;
    let capacity = ReturnCapacity::parse(input.return_consumed_capacity.as_deref())?;
    let want_metrics = item_collection_metrics(input.return_item_collection_metrics.as_deref())?;
    let requests = request_items(input.request_items)?;
    let total: usize = requests.values().map(Vec::len).sum();
    if total > MAX_WRITES {
        return Err(validation(format!(
            "1 validation error detected: Value at 'requestItems' failed to satisfy constraint: Map value must satisfy constraint: [Member must have length less than or equal to 25, Member must have length greater than or equal to 1]; {total} items given"
        )));
    }
    let mut plans: Vec<(Arc<Table>, Vec<KeyedWrite>)> = Vec::new();
    for (name, writes) in requests {
        let table = db.table(Some(&name))?;
        if writes.is_empty() {
            return Err(validation("1 validation error detected: Value at 'requestItems' failed to satisfy constraint: Map value must satisfy constraint: [Member must have length less than or equal to 25, Member must have length greater than or equal to 1]"));
        }
        let mut ops = Vec::with_capacity(writes.len());
        for write in writes {
            ops.push(match (write.put_request, write.delete_request) {
                (Some(put), None) => {
                    let key = check_new_item(&table.def, &put.item, NewItem::Put)?;
                    (key, Some(Arc::new(put.item)))
                }
                (None, Some(delete)) => (table.def.keys.key_from_request(&delete.key)?, None),
                _ => return Err(validation("Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes")),
            });
        }
        if ops.iter().map(|(k, _)| k).collect::<HashSet<_>>().len() != ops.len() {
            return Err(duplicates());
        }
        plans.push((table, ops));
    }
    let mut consumed_out = Vec::new();
    let mut metrics_out = serde_json::Map::new();
    for (table, ops) in plans {
        let mut consumed = Consumed::default();
        let keys: Vec<PrimaryKey> = if want_metrics {
            ops.iter().map(|(k, _)| k.clone()).collect()
        } else {
            Vec::new()
        };
        {
            let mut state = table.write_state()?;
            for (key, item) in ops {
                let (_, units) = state.write(&table.def, &key, item);
                consumed.add(&Consumed::write(&units, 1.0));
            }
        }
        db.record(&table, "BatchWriteItem", &consumed);
        consumed_out.extend(consumed.to_json(&table.def, capacity));
        let metrics: Vec<Value> = keys
            .iter()
            .filter_map(|k| collection_metrics(&table, k))
            .collect();
        if !metrics.is_empty() {
            metrics_out.insert(table.def.name.clone(), Value::Array(metrics));
        }
    }
    let mut out = json!({"UnprocessedItems": {}});
    if !consumed_out.is_empty() {
        out["ConsumedCapacity"] = Value::Array(consumed_out);
    }
    if want_metrics {
        out["ItemCollectionMetrics"] = Value::Object(metrics_out);
    }
    encode(&out)
}
