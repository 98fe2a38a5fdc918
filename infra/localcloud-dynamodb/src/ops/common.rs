//! Pieces shared by the item operations: expression contexts, item checks,
//! ReturnValues and the response item wrapper.

use std::collections::HashMap;
use std::sync::Arc;

use dynamodb_lang::{item_size, AttributeValue, ExpressionContext, Item};
use serde::{Serialize, Serializer};

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

/// Checks an item about to be stored: table key, index key types, size.
/// `too_big` is the message for items over 400 KB (it differs by operation).
pub fn check_new_item(def: &TableDef, item: &Item, too_big: &str) -> DdbResult<PrimaryKey> {
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
        return Err(validation(too_big));
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

/// Refuses the legacy (pre-expression) parameters rather than ignoring them.
pub fn reject_legacy(present: &[(&str, bool)]) -> DdbResult<()> {
    match present.iter().find(|(_, is_set)| *is_set) {
        Some((name, _)) => Err(validation(format!(
            "The legacy parameter {name} is not supported by the local cloud; use expressions"
        ))),
        None => Ok(()),
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
