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
    check_new_item, collection_metrics, condition_failed, empty_item, failed_write,
    item_collection_metrics, read_projection, reject_key_update, required_item,
    return_old_on_failure, write_expressions, ItemRequest, Names, NewItem, OutItem, ReturnValues,
    WriteExpressions,
};
use crate::ops::legacy;
use crate::registry::DynamoDb;
use crate::schema::TableDef;
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
    attributes_to_get: Option<Vec<String>>,
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
    #[serde(skip_serializing_if = "Option::is_none")]
    item_collection_metrics: Option<Value>,
}

pub fn get_item(db: &DynamoDb, body: &[u8]) -> DdbResult<Vec<u8>> {
    let input: GetItemInput = decode(body)?;
    let capacity = ReturnCapacity::parse(input.return_consumed_capacity.as_deref())?;
    legacy::reject_mix(
        &[("AttributesToGet", input.attributes_to_get.is_some())],
        &[(
            "ProjectionExpression",
            input.projection_expression.is_some(),
        )],
    )?;
    let table = db.table(input.table_name.as_deref())?;
    let key = table.def.keys.key_from_request(&required_key(input.key)?)?;
    let mut projection = read_projection(
        input.expression_attribute_names,
        input.projection_expression.as_deref(),
    )?;
    if let Some(names) = input.attributes_to_get {
        projection = Some(legacy::attributes_to_get(names)?);
    }

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
    let options = WriteOptions::parse("PutItem", &input)?;
    let table = db.table(input.table_name.as_deref())?;
    let item = required_item(input.item.take())?;
    let write = ConditionalWrite::parse(options, &mut input)?;
    let key = check_new_item(&table.def, &item, NewItem::Put)?;
    let item = Arc::new(item);
    let written = write.write(db, &table, &key, |_| Ok(Some(item)))?;
    write.answer_old(&table, &key, written)
}

pub fn delete_item(db: &DynamoDb, body: &[u8]) -> DdbResult<Vec<u8>> {
    let mut input: ItemRequest = decode(body)?;
    let options = WriteOptions::parse("DeleteItem", &input)?;
    let table = db.table(input.table_name.as_deref())?;
    let key = table
        .def
        .keys
        .key_from_request(&required_key(input.key.take())?)?;
    let write = ConditionalWrite::parse(options, &mut input)?;
    let written = write.write(db, &table, &key, |_| Ok(None))?;
    write.answer_old(&table, &key, written)
}

pub fn update_item(db: &DynamoDb, body: &[u8]) -> DdbResult<Vec<u8>> {
    let mut input: ItemRequest = decode(body)?;
    let options = WriteOptions::parse("UpdateItem", &input)?;
    let table = db.table(input.table_name.as_deref())?;
    let key_item = required_key(input.key.take())?;
    let key = table.def.keys.key_from_request(&key_item)?;
    let write = ConditionalWrite::parse(options, &mut input)?;
    reject_key_update(&table.def, write.update.as_ref())?;
    let updated: Vec<String> = write
        .update
        .as_ref()
        .map(|u| u.top_level_attributes())
        .unwrap_or_default();

    let Written { old, new, consumed } = write.write(db, &table, &key, |old| {
        updated_item(&table.def, &key_item, write.update.as_ref(), old)
    })?;
    let new = new.expect("an update always writes an item");
    let attributes = returned_attributes(write.return_values, old, new, &updated);
    write.answer(&table, &key, attributes, &consumed)
}

/// The item an update makes of the stored item (or, when there is none, of
/// the key alone), checked before it is stored.
pub(crate) fn updated_item(
    def: &TableDef,
    key_item: &Item,
    update: Option<&UpdateExpression>,
    old: Option<&Arc<Item>>,
) -> DdbResult<Option<Arc<Item>>> {
    let mut new = old.map_or_else(|| key_item.clone(), |o| (**o).clone());
    if let Some(update) = update {
        update.apply(&mut new)?;
    }
    check_new_item(def, &new, NewItem::Updated)?;
    Ok(Some(Arc::new(new)))
}

/// What an update answers for its ReturnValues; `updated` names the
/// top-level attributes it wrote.
pub(crate) fn returned_attributes(
    return_values: ReturnValues,
    old: Option<Arc<Item>>,
    new: Arc<Item>,
    updated: &[String],
) -> Option<OutItem> {
    let only_updated = |item: &Item| -> Item {
        item.iter()
            .filter(|(k, _)| updated.contains(k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    };
    match return_values {
        ReturnValues::None => None,
        ReturnValues::AllOld => old.map(OutItem::Shared),
        ReturnValues::AllNew => Some(OutItem::Shared(new)),
        ReturnValues::UpdatedOld => old.map(|o| OutItem::Owned(only_updated(&o))),
        ReturnValues::UpdatedNew => Some(OutItem::Owned(only_updated(&new))),
    }
}

/// What a write replaced, what it stored (`None`: deleted) and consumed.
pub(crate) struct Written {
    pub(crate) old: Option<Arc<Item>>,
    pub(crate) new: Option<Arc<Item>>,
    pub(crate) consumed: Consumed,
}

/// A PutItem, DeleteItem or UpdateItem: its options and expressions, then the
/// item at `key` replaced (or removed) if the condition holds on the stored
/// item, checked and written under one lock, metered, and answered.
pub(crate) struct ConditionalWrite {
    options: WriteOptions,
    pub(crate) update: Option<UpdateExpression>,
    condition: Option<Condition>,
}

/// What a write asks back, checked (as AWS checks it) before its table is
/// looked up.
pub(crate) struct WriteOptions {
    operation: &'static str,
    return_values: ReturnValues,
    return_old: bool,
    capacity: ReturnCapacity,
    collection_metrics: bool,
}

impl WriteOptions {
    /// Its ReturnValues, ReturnValuesOnConditionCheckFailure,
    /// ReturnConsumedCapacity and ReturnItemCollectionMetrics, in that order,
    /// then that legacy and expression parameters are not mixed.
    fn parse(operation: &'static str, input: &ItemRequest) -> DdbResult<Self> {
        let takes_update = operation == "UpdateItem";
        let return_values = ReturnValues::parse(input.return_values.as_deref(), takes_update)?;
        let return_old =
            return_old_on_failure(input.return_values_on_condition_check_failure.as_deref())?;
        let capacity = ReturnCapacity::parse(input.return_consumed_capacity.as_deref())?;
        let collection_metrics =
            item_collection_metrics(input.return_item_collection_metrics.as_deref())?;
        legacy::reject_mix(
            &[
                ("Expected", input.expected.is_some()),
                (
                    "AttributeUpdates",
                    takes_update && input.attribute_updates.is_some(),
                ),
                ("ConditionalOperator", input.conditional_operator.is_some()),
            ],
            &[
                (
                    "UpdateExpression",
                    takes_update && input.update_expression.is_some(),
                ),
                ("ConditionExpression", input.condition_expression.is_some()),
            ],
        )?;
        Ok(Self {
            operation,
            return_values,
            return_old,
            capacity,
            collection_metrics,
        })
    }
}

impl std::ops::Deref for ConditionalWrite {
    type Target = WriteOptions;

    fn deref(&self) -> &WriteOptions {
        &self.options
    }
}

impl ConditionalWrite {
    /// A write whose update and condition are trees already (a PartiQL
    /// statement); it answers no ReturnValues and no collection metrics.
    pub(crate) fn from_trees(
        operation: &'static str,
        return_old: bool,
        capacity: ReturnCapacity,
        update: Option<UpdateExpression>,
        condition: Option<Condition>,
    ) -> Self {
        let options = WriteOptions {
            operation,
            return_values: ReturnValues::None,
            return_old,
            capacity,
            collection_metrics: false,
        };
        Self {
            options,
            update,
            condition,
        }
    }

    /// Its expressions, or the legacy parameters that stand for them.
    fn parse(options: WriteOptions, input: &mut ItemRequest) -> DdbResult<Self> {
        let takes_update = options.operation == "UpdateItem";
        let WriteExpressions {
            mut update,
            mut condition,
        } = write_expressions(
            input.expression_attribute_names.take(),
            input.expression_attribute_values.take(),
            input.update_expression.as_deref().filter(|_| takes_update),
            input.condition_expression.as_deref(),
            takes_update,
        )?;
        if input.expected.is_some() || input.conditional_operator.is_some() {
            condition = legacy::expected(
                input.expected.take().unwrap_or_default(),
                input.conditional_operator.as_deref(),
            )?;
        }
        if let Some(updates) = input.attribute_updates.take().filter(|_| takes_update) {
            update = Some(legacy::attribute_updates(updates)?);
        }
        Ok(Self {
            options,
            update,
            condition,
        })
    }

    /// Writes what `new_item` makes of the stored item (`None` deletes) if
    /// the condition holds, under the table's write lock; a failed condition
    /// is still metered.
    pub(crate) fn write(
        &self,
        db: &DynamoDb,
        table: &Table,
        key: &PrimaryKey,
        new_item: impl FnOnce(Option<&Arc<Item>>) -> DdbResult<Option<Arc<Item>>>,
    ) -> DdbResult<Written> {
        let (old, new, units) = {
            let mut state = table.write_state()?;
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
    fn answer_old(&self, table: &Table, key: &PrimaryKey, written: Written) -> DdbResult<Vec<u8>> {
        let attributes = written
            .old
            .filter(|_| self.return_values == ReturnValues::AllOld)
            .map(OutItem::Shared);
        self.answer(table, key, attributes, &written.consumed)
    }

    fn answer(
        &self,
        table: &Table,
        key: &PrimaryKey,
        attributes: Option<OutItem>,
        consumed: &Consumed,
    ) -> DdbResult<Vec<u8>> {
        encode(&ItemOutput {
            attributes: attributes.filter(|a| !a.get().is_empty()),
            consumed_capacity: consumed.to_json(&table.def, self.capacity),
            item_collection_metrics: if self.collection_metrics {
                collection_metrics(table, key)
            } else {
                None
            },
            ..Default::default()
        })
    }
}
