//! Single-item operations. A condition is evaluated and the write applied under
//! the same table write lock, so conditional writes are atomic.

use std::sync::Arc;

use dynamodb_lang::{Condition, Item, UpdateExpression};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::capacity::{read_units, Consumed, ReturnCapacity};
use crate::codec::{decode, encode};
use crate::error::{validation, DdbResult};
use crate::key::PrimaryKey;
use crate::ops::common::{
    check_new_item, condition_failed, empty_item, failed_write, read_projection, reject_key_update,
    reject_legacy, required_item, return_old_on_failure, write_expressions, ItemRequest, Names,
    NewItem, OutItem, ReturnValues, WriteExpressions,
};
use crate::registry::DynamoDb;
use crate::table::Table;

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

pub fn put_item(db: &DynamoDb, body: &[u8]) -> DdbResult<Vec<u8>> {
    let mut input: ItemRequest = decode(body)?;
    let table = db.table(input.table_name.as_deref())?;
    reject_legacy(&[("Expected", input.expected.is_some())])?;
    let item = required_item(input.item.take())?;
    let write = ConditionalWrite::parse("PutItem", &mut input)?;
    let key = check_new_item(&table.def, &item, NewItem::Put)?;
    let item = Arc::new(item);
    let written = write.write(db, &table, &key, |_| Ok(Some(item)))?;
    write.answer_old(&table, written)
}

pub fn delete_item(db: &DynamoDb, body: &[u8]) -> DdbResult<Vec<u8>> {
    let mut input: ItemRequest = decode(body)?;
    let table = db.table(input.table_name.as_deref())?;
    reject_legacy(&[("Expected", input.expected.is_some())])?;
    let key = table
        .def
        .keys
        .key_from_request(&required_key(input.key.take())?)?;
    let write = ConditionalWrite::parse("DeleteItem", &mut input)?;
    let written = write.write(db, &table, &key, |_| Ok(None))?;
    write.answer_old(&table, written)
}

pub fn update_item(db: &DynamoDb, body: &[u8]) -> DdbResult<Vec<u8>> {
    let mut input: ItemRequest = decode(body)?;
    let table = db.table(input.table_name.as_deref())?;
    reject_legacy(&[
        ("Expected", input.expected.is_some()),
        ("AttributeUpdates", input.attribute_updates.is_some()),
    ])?;
    let key_item = required_key(input.key.take())?;
    let key = table.def.keys.key_from_request(&key_item)?;
    let write = ConditionalWrite::parse("UpdateItem", &mut input)?;
    reject_key_update(&table.def, write.update.as_ref())?;
    let updated: Vec<String> = write
        .update
        .as_ref()
        .map(|u| u.top_level_attributes())
        .unwrap_or_default();

    let Written { old, new, consumed } = write.write(db, &table, &key, |old| {
        let mut new = old.map_or_else(|| key_item.clone(), |o| (**o).clone());
        if let Some(update) = &write.update {
            update.apply(&mut new)?;
        }
        check_new_item(&table.def, &new, NewItem::Updated)?;
        Ok(Some(Arc::new(new)))
    })?;
    let new = new.expect("an update always writes an item");
    let only_updated = |item: &Item| -> Item {
        item.iter()
            .filter(|(k, _)| updated.contains(k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    };
    let attributes = match write.return_values {
        ReturnValues::None => None,
        ReturnValues::AllOld => old.map(OutItem::Shared),
        ReturnValues::AllNew => Some(OutItem::Shared(new)),
        ReturnValues::UpdatedOld => old.map(|o| OutItem::Owned(only_updated(&o))),
        ReturnValues::UpdatedNew => Some(OutItem::Owned(only_updated(&new))),
    };
    write.answer(&table, attributes, &consumed)
}

/// What a write replaced, what it stored (`None`: deleted) and consumed.
struct Written {
    old: Option<Arc<Item>>,
    new: Option<Arc<Item>>,
    consumed: Consumed,
}

/// A PutItem, DeleteItem or UpdateItem: its options and expressions, then the
/// item at `key` replaced (or removed) if the condition holds on the stored
/// item, checked and written under one lock, metered, and answered.
struct ConditionalWrite {
    operation: &'static str,
    return_values: ReturnValues,
    return_old: bool,
    capacity: ReturnCapacity,
    update: Option<UpdateExpression>,
    condition: Option<Condition>,
}

impl ConditionalWrite {
    /// Its ReturnValues, ReturnValuesOnConditionCheckFailure,
    /// ReturnConsumedCapacity and expressions, checked in that order.
    fn parse(operation: &'static str, input: &mut ItemRequest) -> DdbResult<Self> {
        let takes_update = operation == "UpdateItem";
        let return_values = ReturnValues::parse(input.return_values.as_deref(), takes_update)?;
        let return_old =
            return_old_on_failure(input.return_values_on_condition_check_failure.as_deref())?;
        let capacity = ReturnCapacity::parse(input.return_consumed_capacity.as_deref())?;
        let WriteExpressions { update, condition } = write_expressions(
            input.expression_attribute_names.take(),
            input.expression_attribute_values.take(),
            input.update_expression.as_deref().filter(|_| takes_update),
            input.condition_expression.as_deref(),
            takes_update,
        )?;
        Ok(Self {
            operation,
            return_values,
            return_old,
            capacity,
            update,
            condition,
        })
    }

    /// Writes what `new_item` makes of the stored item (`None` deletes) if
    /// the condition holds, under the table's write lock; a failed condition
    /// is still metered.
    fn write(
        &self,
        db: &DynamoDb,
        table: &Table,
        key: &PrimaryKey,
        new_item: impl FnOnce(Option<&Arc<Item>>) -> DdbResult<Option<Arc<Item>>>,
    ) -> DdbResult<Written> {
        let (old, new, units) = {
            let mut state = table.state.write();
            let old = state.get(key).map(|s| s.item.clone());
            if let Some(condition) = &self.condition {
                if !condition.evaluate(old.as_deref().unwrap_or(empty_item()))? {
                    drop(state);
                    db.record(table, self.operation, &failed_write(old.as_ref()));
                    return Err(condition_failed(old.as_ref(), self.return_old));
                }
            }
            let new = new_item(old.as_ref())?;
            let (_, units) = state.write(&table.def, key, new.clone());
            (old, new, units)
        };
        let consumed = Consumed::write(&units, 1.0);
        db.record(table, self.operation, &consumed);
        Ok(Written { old, new, consumed })
    }

    /// The answer of a PutItem or DeleteItem: the old item if ALL_OLD.
    fn answer_old(&self, table: &Table, written: Written) -> DdbResult<Vec<u8>> {
        let attributes = written
            .old
            .filter(|_| self.return_values == ReturnValues::AllOld)
            .map(OutItem::Shared);
        self.answer(table, attributes, &written.consumed)
    }

    fn answer(
        &self,
        table: &Table,
        attributes: Option<OutItem>,
        consumed: &Consumed,
    ) -> DdbResult<Vec<u8>> {
        encode(&ItemOutput {
            attributes: attributes.filter(|a| !a.get().is_empty()),
            consumed_capacity: consumed.to_json(&table.def, self.capacity),
            ..Default::default()
        })
    }
}
