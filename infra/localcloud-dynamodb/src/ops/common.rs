//! Pieces shared by the item operations: expression contexts, item checks,
//! ReturnValues and the response item wrapper.

use std::collections::HashMap;
use std::sync::Arc;

use dynamodb_lang::{
    item_size, parse_condition, parse_projection, parse_update, AttributeValue, Condition,
    ExpressionContext, Item, Projection, UpdateExpression,
};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use crate::error::{validation, DdbError, DdbResult};
use crate::key::{KeyPart, PrimaryKey};
use crate::schema::TableDef;

pub const MAX_ITEM_BYTES: usize = 400 * 1024;

/// An item in a response: shared with the table when returned whole.
#[derive(Clone, Debug)]
pub enum OutItem {
    Shared(Arc<Item>),
    Owned(Item),
}

impl OutItem {
    pub fn get(&self) -> &Item {
        match self {
            OutItem::Shared(item) => item,
            OutItem::Owned(item) => item,
        }
    }
}

impl Serialize for OutItem {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.get().serialize(serializer)
    }
}

pub type Names = Option<HashMap<String, String>>;
pub type Values = Option<HashMap<String, AttributeValue>>;

/// The placeholders of one request. `value_users` names the request's
/// expressions that may use values, with whether each is present;
/// `other_present` tells whether an expression taking only names (a projection)
/// is. AWS rejects placeholders given with no expression to use them.
pub fn expression_context(
    names: Names,
    values: Values,
    value_users: &[(&str, bool)],
    other_present: bool,
) -> DdbResult<ExpressionContext> {
    let any_value_user = value_users.iter().any(|(_, present)| *present);
    if values.is_some() && !any_value_user {
        let absent: Vec<&str> = value_users.iter().map(|(name, _)| *name).collect();
        let verb = if absent.len() > 1 { "are" } else { "is" };
        return Err(validation(format!(
            "ExpressionAttributeValues can only be specified when using expressions: {} {verb} null",
            absent.join(" and ")
        )));
    }
    if names.is_some() && !any_value_user && !other_present {
        return Err(validation(
            "ExpressionAttributeNames can only be specified when using expressions",
        ));
    }
    Ok(ExpressionContext::new(names, values)?)
}

/// Parses the ProjectionExpression of a read by key (GetItem, BatchGetItem, a
/// Get of TransactGetItems) with the request's names, rejecting unused ones.
pub fn read_projection(names: Names, projection: Option<&str>) -> DdbResult<Option<Projection>> {
    let mut ctx = expression_context(names, None, &[], projection.is_some())?;
    let projection = projection
        .map(|e| parse_projection(e, &mut ctx))
        .transpose()?;
    ctx.check_all_used()?;
    Ok(projection)
}

/// The update and condition expressions of one write.
pub struct WriteExpressions {
    pub update: Option<UpdateExpression>,
    pub condition: Option<Condition>,
}

/// Parses the expressions of one write (PutItem, DeleteItem, UpdateItem, or an
/// action of TransactWriteItems) with the request's placeholders, rejecting any
/// placeholder they leave unused. `takes_update` tells whether the operation has
/// an UpdateExpression parameter: AWS names it when values come with no expression.
pub fn write_expressions(
    names: Names,
    values: Values,
    update: Option<&str>,
    condition: Option<&str>,
    takes_update: bool,
) -> DdbResult<WriteExpressions> {
    let condition_user = ("ConditionExpression", condition.is_some());
    let value_users: &[(&str, bool)] = if takes_update {
        &[("UpdateExpression", update.is_some()), condition_user]
    } else {
        &[condition_user]
    };
    let mut ctx = expression_context(names, values, value_users, false)?;
    let update = update.map(|e| parse_update(e, &mut ctx)).transpose()?;
    let condition = condition
        .map(|e| parse_condition(e, &mut ctx))
        .transpose()?;
    ctx.check_all_used()?;
    Ok(WriteExpressions { update, condition })
}

/// The parameters of a write of one item: PutItem, DeleteItem, UpdateItem and
/// each action of TransactWriteItems (and its Get) read theirs from this one
/// shape; a parameter an operation does not take is left unread, as serde
/// ignores a member no field names.
#[derive(Deserialize, Default)]
#[serde(rename_all = "PascalCase")]
pub struct ItemRequest {
    pub table_name: Option<String>,
    pub key: Option<Item>,
    pub item: Option<Item>,
    pub update_expression: Option<String>,
    pub condition_expression: Option<String>,
    pub projection_expression: Option<String>,
    pub expression_attribute_names: Names,
    pub expression_attribute_values: Values,
    pub return_values: Option<String>,
    pub return_values_on_condition_check_failure: Option<String>,
    pub return_consumed_capacity: Option<String>,
    pub return_item_collection_metrics: Option<String>,
    /// Legacy parameters (`ops/legacy.rs`).
    pub expected: Option<crate::ops::legacy::Expected>,
    pub attribute_updates: Option<crate::ops::legacy::AttributeUpdates>,
    pub conditional_operator: Option<String>,
}

/// AWS refuses an update that would change a key attribute.
pub fn reject_key_update(def: &TableDef, update: Option<&UpdateExpression>) -> DdbResult<()> {
    match update
        .iter()
        .flat_map(|u| u.top_level_attributes())
        .find(|a| def.keys.is_key_attribute(a))
    {
        Some(attr) => Err(validation(format!(
            "One or more parameter values were invalid: Cannot update attribute {attr}. This attribute is part of the key"
        ))),
        None => Ok(()),
    }
}

/// The Item parameter of PutItem or of a Put of TransactWriteItems.
pub fn required_item(item: Option<Item>) -> DdbResult<Item> {
    item.ok_or_else(|| validation("Item to put in PutItem cannot be null"))
}

/// How an item about to be stored was made: AWS words its size error by that.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NewItem {
    Put,
    Updated,
}

impl NewItem {
    fn too_big(self) -> &'static str {
        match self {
            NewItem::Put => "Item size has exceeded the maximum allowed size",
            NewItem::Updated => "Item size to update has exceeded the maximum allowed size",
        }
    }
}

/// Checks an item about to be stored: table key, index key types, size.
pub fn check_new_item(def: &TableDef, item: &Item, made: NewItem) -> DdbResult<PrimaryKey> {
    let key = def.keys.key_of_new_item(item)?;
    for index in &def.indexes {
        for attr in index.keys.attrs() {
            let Some(value) = item.get(&attr.name) else {
                continue;
            };
            let Some(part) = KeyPart::from_value(value, attr.ty) else {
                return Err(validation(format!(
                    "One or more parameter values were invalid: Type mismatch for Index Key {} Expected: {} Actual: {} IndexName: {}",
                    attr.name,
                    attr.ty.code(),
                    value.type_code(),
                    index.name
                )));
            };
            if matches!(&part, KeyPart::S(s) if s.is_empty())
                || matches!(&part, KeyPart::B(b) if b.is_empty())
            {
                return Err(validation(format!(
                    "One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: {}, IndexKey: {}",
                    index.name, attr.name
                )));
            }
        }
    }
    if item_size(item) > MAX_ITEM_BYTES {
        return Err(validation(made.too_big()));
    }
    Ok(key)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReturnValues {
    None,
    AllOld,
    UpdatedOld,
    AllNew,
    UpdatedNew,
}

impl ReturnValues {
    /// Parses ReturnValues; `update` allows the UPDATED_* and ALL_NEW kinds.
    pub fn parse(value: Option<&str>, update: bool) -> DdbResult<ReturnValues> {
        let parsed = match value {
            None | Some("NONE") => ReturnValues::None,
            Some("ALL_OLD") => ReturnValues::AllOld,
            Some("UPDATED_OLD") => ReturnValues::UpdatedOld,
            Some("ALL_NEW") => ReturnValues::AllNew,
            Some("UPDATED_NEW") => ReturnValues::UpdatedNew,
            Some(other) => {
                return Err(validation(format!(
                    "1 validation error detected: Value '{other}' at 'returnValues' failed to satisfy constraint: Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]"
                )))
            }
        };
        if !update && !matches!(parsed, ReturnValues::None | ReturnValues::AllOld) {
            return Err(validation("Return values set to invalid value"));
        }
        Ok(parsed)
    }
}

/// Whether a failed condition returns the old item.
pub fn return_old_on_failure(value: Option<&str>) -> DdbResult<bool> {
    match value {
        None | Some("NONE") => Ok(false),
        Some("ALL_OLD") => Ok(true),
        Some(other) => Err(validation(format!(
            "1 validation error detected: Value '{other}' at 'returnValuesOnConditionCheckFailure' failed to satisfy constraint: Member must satisfy enum value set: [ALL_OLD, NONE]"
        ))),
    }
}

pub fn condition_failed(old: Option<&Arc<Item>>, return_old: bool) -> DdbError {
    let item = match (old, return_old) {
        (Some(old), true) => serde_json::to_value(&**old).ok(),
        _ => None,
    };
    DdbError::ConditionalCheckFailed { item }
}

/// Whether a write answers ItemCollectionMetrics (`SIZE`) or not (`NONE`).
pub fn item_collection_metrics(value: Option<&str>) -> DdbResult<bool> {
    match value {
        None | Some("NONE") => Ok(false),
        Some("SIZE") => Ok(true),
        Some(other) => Err(validation(format!(
            "1 validation error detected: Value '{other}' at 'returnItemCollectionMetrics' failed to satisfy constraint: Member must satisfy enum value set: [SIZE, NONE]"
        ))),
    }
}

pub fn empty_item() -> &'static Item {
    static EMPTY: std::sync::OnceLock<Item> = std::sync::OnceLock::new();
    EMPTY.get_or_init(Item::new)
}

/// A write whose condition failed still consumes write units for the item it
/// read (AWS bills failed conditional writes).
pub fn failed_write(old: Option<&Arc<Item>>) -> crate::capacity::Consumed {
    let size = old.map_or(0, |o| item_size(o));
    let units = crate::capacity::WriteUnits {
        table: crate::capacity::write_units(size),
        indexes: Vec::new(),
    };
    crate::capacity::Consumed::write(&units, 1.0)
}

/// The ItemCollectionMetrics of a write (ReturnItemCollectionMetrics=SIZE),
/// which AWS answers only for tables with a local secondary index: the
/// partition key and the collection's size in GB as an estimate range, the
/// whole GB below and above it.
/// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ItemCollectionMetrics.html
pub fn collection_metrics(table: &crate::table::Table, key: &PrimaryKey) -> Option<Value> {
    if table.def.indexes.iter().all(|ix| ix.global) {
        return None;
    }
    let bytes: usize = {
        let state = table.state.read();
        let items: usize = state
            .partitions
            .get(&key.hash)
            .map_or(0, |p| p.values().map(|s| s.size).sum());
        items
    };
    let low = (bytes as f64 / (1u64 << 30) as f64).floor();
    Some(serde_json::json!({
        "ItemCollectionKey": table.def.keys.key_item(&key.hash, None),
        "SizeEstimateRangeGB": [low, low + 1.0],
    }))
}
