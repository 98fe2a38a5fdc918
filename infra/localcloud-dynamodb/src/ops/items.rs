//! Single-item operations. A condition is evaluated and the write applied under
//! the same table write lock, so conditional writes are atomic.

use std::sync::Arc;

use dynamodb_lang::Item;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::capacity::{read_units, Consumed, ReturnCapacity};
use crate::codec::{decode, encode};
use crate::error::{validation, DdbResult};
use crate::ops::common::{
    check_new_item, condition_failed, empty_item, failed_write, read_projection, reject_key_update,
    reject_legacy, required_item, return_old_on_failure, write_expressions, Names, NewItem,
    OutItem, ReturnValues, Values, WriteExpressions,
};
use crate::registry::DynamoDb;

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct GetItemInput {
    table_name: Option<String>,
    key: Option<Item>,
    #[serde(default)]
    consistent_read: bool,
    projection_expression: Option<String>,
    expression_attribute_names: Names,
    return_consumed_capacity: Option<String>,
    attributes_to_get: Option<Value>,
}

#[derive(Serialize, Default)]
#[serde(rename_all = "PascalCase")]
struct ItemOutput {
    #[serde(skip_serializing_if = "Option::is_none")]
    item: Option<OutItem>,
    #[serde(skip_serializing_if = "Option::is_none")]
    attributes: Option<OutItem>,
    #[serde(skip_serializing_if = "Option::is_none")]
    consumed_capacity: Option<Value>,
}

pub fn get_item(db: &DynamoDb, body: &[u8]) -> DdbResult<Vec<u8>> {
    let input: GetItemInput = decode(body)?;
    let table = db.table(input.table_name.as_deref())?;
    reject_legacy(&[("AttributesToGet", input.attributes_to_get.is_some())])?;
    let capacity = ReturnCapacity::parse(input.return_consumed_capacity.as_deref())?;
    let key = table.def.keys.key_from_request(&required_key(input.key)?)?;
    let projection = read_projection(
        input.expression_attribute_names,
        input.projection_expression.as_deref(),
    )?;

    let found = table
        .state
        .read()
        .get(&key)
        .map(|s| (s.item.clone(), s.size));
    let consumed = Consumed::read(read_units(
        found.as_ref().map_or(0, |f| f.1),
        input.consistent_read,
    ));
    db.record(&table, "GetItem", &consumed);
    let item = found.map(|(item, _)| match &projection {
        Some(p) => OutItem::Owned(p.apply(&item)),
        None => OutItem::Shared(item),
    });
    encode(&ItemOutput {
        item,
        consumed_capacity: consumed.to_json(&table.def, capacity),
        ..Default::default()
    })
}

fn required_key(key: Option<Item>) -> DdbResult<Item> {
    key.ok_or_else(|| {
        validation("1 validation error detected: Value null at 'key' failed to satisfy constraint: Member must not be null")
    })
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct PutItemInput {
    table_name: Option<String>,
    item: Option<Item>,
    condition_expression: Option<String>,
    expression_attribute_names: Names,
    expression_attribute_values: Values,
    return_values: Option<String>,
    return_values_on_condition_check_failure: Option<String>,
    return_consumed_capacity: Option<String>,
    expected: Option<Value>,
}

pub fn put_item(db: &DynamoDb, body: &[u8]) -> DdbResult<Vec<u8>> {
    let input: PutItemInput = decode(body)?;
    let table = db.table(input.table_name.as_deref())?;
    reject_legacy(&[("Expected", input.expected.is_some())])?;
    let item = required_item(input.item)?;
    let return_values = ReturnValues::parse(input.return_values.as_deref(), false)?;
    let return_old =
        return_old_on_failure(input.return_values_on_condition_check_failure.as_deref())?;
    let capacity = ReturnCapacity::parse(input.return_consumed_capacity.as_deref())?;
    let WriteExpressions { condition, .. } = write_expressions(
        input.expression_attribute_names,
        input.expression_attribute_values,
        None,
        input.condition_expression.as_deref(),
        false,
    )?;
    let key = check_new_item(&table.def, &item, NewItem::Put)?;

    let write = ConditionalWrite {
        operation: "PutItem",
        condition: condition.as_ref(),
        return_old,
        return_values,
        capacity,
    };
    write.apply(db, &table, &key, Some(Arc::new(item)))
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct DeleteItemInput {
    table_name: Option<String>,
    key: Option<Item>,
    condition_expression: Option<String>,
    expression_attribute_names: Names,
    expression_attribute_values: Values,
    return_values: Option<String>,
    return_values_on_condition_check_failure: Option<String>,
    return_consumed_capacity: Option<String>,
    expected: Option<Value>,
}

pub fn delete_item(db: &DynamoDb, body: &[u8]) -> DdbResult<Vec<u8>> {
    let input: DeleteItemInput = decode(body)?;
    let table = db.table(input.table_name.as_deref())?;
    reject_legacy(&[("Expected", input.expected.is_some())])?;
    let key = table.def.keys.key_from_request(&required_key(input.key)?)?;
    let return_values = ReturnValues::parse(input.return_values.as_deref(), false)?;
    let return_old =
        return_old_on_failure(input.return_values_on_condition_check_failure.as_deref())?;
    let capacity = ReturnCapacity::parse(input.return_consumed_capacity.as_deref())?;
    let WriteExpressions { condition, .. } = write_expressions(
        input.expression_attribute_names,
        input.expression_attribute_values,
        None,
        input.condition_expression.as_deref(),
        false,
    )?;

    let write = ConditionalWrite {
        operation: "DeleteItem",
        condition: condition.as_ref(),
        return_old,
        return_values,
        capacity,
    };
    write.apply(db, &table, &key, None)
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct UpdateItemInput {
    table_name: Option<String>,
    key: Option<Item>,
    update_expression: Option<String>,
    condition_expression: Option<String>,
    expression_attribute_names: Names,
    expression_attribute_values: Values,
    return_values: Option<String>,
    return_values_on_condition_check_failure: Option<String>,
    return_consumed_capacity: Option<String>,
    expected: Option<Value>,
    attribute_updates: Option<Value>,
}

pub fn update_item(db: &DynamoDb, body: &[u8]) -> DdbResult<Vec<u8>> {
    let input: UpdateItemInput = decode(body)?;
    let table = db.table(input.table_name.as_deref())?;
    reject_legacy(&[
        ("Expected", input.expected.is_some()),
        ("AttributeUpdates", input.attribute_updates.is_some()),
    ])?;
    let key_item = required_key(input.key)?;
    let key = table.def.keys.key_from_request(&key_item)?;
    let return_values = ReturnValues::parse(input.return_values.as_deref(), true)?;
    let return_old =
        return_old_on_failure(input.return_values_on_condition_check_failure.as_deref())?;
    let capacity = ReturnCapacity::parse(input.return_consumed_capacity.as_deref())?;
    let WriteExpressions { update, condition } = write_expressions(
        input.expression_attribute_names,
        input.expression_attribute_values,
        input.update_expression.as_deref(),
        input.condition_expression.as_deref(),
        true,
    )?;
    reject_key_update(&table.def, update.as_ref())?;
    let updated: Vec<String> = update
        .as_ref()
        .map(|u| u.top_level_attributes())
        .unwrap_or_default();

    let (old, new, units) = {
        let mut state = table.state.write();
        let old = state.get(&key).map(|s| s.item.clone());
        if let Some(condition) = &condition {
            if !condition.evaluate(old.as_deref().unwrap_or(empty_item()))? {
                drop(state);
                db.record(&table, "UpdateItem", &failed_write(old.as_ref()));
                return Err(condition_failed(old.as_ref(), return_old));
            }
        }
        let mut new = old.as_deref().cloned().unwrap_or_else(|| key_item.clone());
        if let Some(update) = &update {
            update.apply(&mut new)?;
        }
        check_new_item(&table.def, &new, NewItem::Updated)?;
        let new = Arc::new(new);
        let (_, units) = state.write(&table.def, &key, Some(new.clone()));
        (old, new, units)
    };
    let consumed = Consumed::write(&units, 1.0);
    db.record(&table, "UpdateItem", &consumed);
    let only_updated = |item: &Item| -> Item {
        item.iter()
            .filter(|(k, _)| updated.contains(k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    };
    let attributes = match return_values {
        ReturnValues::None => None,
        ReturnValues::AllOld => old.map(OutItem::Shared),
        ReturnValues::AllNew => Some(OutItem::Shared(new)),
        ReturnValues::UpdatedOld => old.map(|o| OutItem::Owned(only_updated(&o))),
        ReturnValues::UpdatedNew => Some(OutItem::Owned(only_updated(&new))),
    };
    let attributes = attributes.filter(|a| !a.get().is_empty());
    encode(&ItemOutput {
        attributes,
        consumed_capacity: consumed.to_json(&table.def, capacity),
        ..Default::default()
    })
}

/// A PutItem or DeleteItem: replace (or remove) the item at `key` if the
/// condition holds on the stored item, checked and written under one lock,
/// then meter it and answer with the old item when asked.
struct ConditionalWrite<'a> {
    operation: &'static str,
    condition: Option<&'a dynamodb_lang::Condition>,
    return_old: bool,
    return_values: ReturnValues,
    capacity: ReturnCapacity,
}

impl ConditionalWrite<'_> {
    fn apply(
        &self,
        db: &DynamoDb,
        table: &crate::table::Table,
        key: &crate::key::PrimaryKey,
        new: Option<Arc<Item>>,
    ) -> DdbResult<Vec<u8>> {
        let (old, units) = {
            let mut state = table.state.write();
            let old = state.get(key).map(|s| s.item.clone());
            if let Some(condition) = self.condition {
                if !condition.evaluate(old.as_deref().unwrap_or(empty_item()))? {
                    drop(state);
                    db.record(table, self.operation, &failed_write(old.as_ref()));
                    return Err(condition_failed(old.as_ref(), self.return_old));
                }
            }
            state.write(&table.def, key, new)
        };
        let consumed = Consumed::write(&units, 1.0);
        db.record(table, self.operation, &consumed);
        let attributes = old
            .filter(|_| self.return_values == ReturnValues::AllOld)
            .map(OutItem::Shared);
        encode(&ItemOutput {
            attributes,
            consumed_capacity: consumed.to_json(&table.def, self.capacity),
            ..Default::default()
        })
    }
}
