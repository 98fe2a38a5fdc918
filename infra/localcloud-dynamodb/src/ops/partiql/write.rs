//! PartiQL INSERT, UPDATE and DELETE (and the `EXISTS(SELECT ...)` check of
//! transactions) as the item writes they stand for, run by the code of
//! PutItem, UpdateItem and DeleteItem (one statement) or of
//! TransactWriteItems (a transaction):
//! - INSERT is a put refused when the item exists (DuplicateItemException);
//! - UPDATE is an update of an existing item (`attribute_exists(pk)`), the
//!   rest of its WHERE clause its condition;
//! - DELETE is a delete, the rest of its WHERE clause its condition;
//! - EXISTS is a condition check of an existing item.
//!
//! https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.insert.html
//! https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.update.html
//! https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.delete.html

use std::sync::Arc;

use dynamodb_lang::expr::{DocumentPath, PathElement};
use dynamodb_lang::partiql::{Returning, Statement};
use dynamodb_lang::{Condition, Item, UpdateExpression};

use crate::capacity::{Consumed, ReturnCapacity};
use crate::error::{validation, DdbError, DdbResult};
use crate::key::PrimaryKey;
use crate::ops::common::{check_new_item, reject_key_update, NewItem, OutItem, ReturnValues};
use crate::ops::items::{returned_attributes, updated_item, ConditionalWrite, Written};
use crate::ops::partiql::keys::{check_key_item, single_item};
use crate::ops::transact::{Action, Kind};
use crate::registry::DynamoDb;
use crate::table::Table;

const DUPLICATE: &str = "Duplicate primary key exists in table";

enum Change {
    Insert(Arc<Item>),
    Update(UpdateExpression),
    Delete,
    Check,
}

/// A write statement resolved against its table: which item, what change,
/// under which condition.
pub struct ItemWrite {
    pub table: Arc<Table>,
    pub key: PrimaryKey,
    key_item: Item,
    change: Change,
    condition: Option<Condition>,
    returning: Returning,
}

/// What one write statement answers: the item its RETURNING asked for.
pub struct WriteOutcome {
    pub item: Option<OutItem>,
    pub consumed: Consumed,
}

pub fn exists_outside_transaction() -> DdbError {
    validation("EXISTS statements can only be used in ExecuteTransaction")
}

fn exists(attribute: &str) -> Condition {
    Condition::AttributeExists(DocumentPath(vec![PathElement::Attribute(
        attribute.to_string(),
    )]))
}

fn and(first: Condition, rest: Option<Condition>) -> Condition {
    match rest {
        Some(rest) => Condition::And(Box::new(first), Box::new(rest)),
        None => first,
    }
}

impl ItemWrite {
    /// Resolves an INSERT, UPDATE, DELETE or EXISTS; a SELECT is no write.
    pub fn resolve(db: &DynamoDb, statement: Statement) -> DdbResult<ItemWrite> {
        let returning = statement.returning();
        let table = db.table(Some(statement.table()))?;
        let keys = &table.def.keys;
        let key_of = |key_item: Item| -> DdbResult<(PrimaryKey, Item)> {
            Ok((keys.key_from_request(&key_item)?, key_item))
        };
        let ((key, key_item), change, condition) = match statement {
            Statement::Insert(insert) => {
                check_key_item(keys, &insert.item, |attr| {
                    validation(format!(
                        "Key attribute should be present in the item: Key {}",
                        attr.name
                    ))
                })?;
                let key = check_new_item(&table.def, &insert.item, NewItem::Put)?;
                let change = Change::Insert(Arc::new(insert.item));
                ((key, Item::new()), change, None)
            }
            Statement::Update(update) => {
                let (key_item, rest) = single_item(keys, update.filter.as_ref())?;
                let expression = UpdateExpression {
                    actions: update.actions,
                };
                reject_key_update(&table.def, Some(&expression))?;
                let condition = and(exists(&keys.hash.name), rest);
                (
                    key_of(key_item)?,
                    Change::Update(expression),
                    Some(condition),
                )
            }
            Statement::Delete(delete) => {
                if !matches!(delete.returning, Returning::None | Returning::AllOld) {
                    return Err(validation("Unsupported: DELETE can only return ALL OLD *"));
                }
                let (key_item, rest) = single_item(keys, delete.filter.as_ref())?;
                (key_of(key_item)?, Change::Delete, rest)
            }
            Statement::Exists(select) => {
                let (key_item, rest) = single_item(keys, select.filter.as_ref())?;
                let condition = and(exists(&keys.hash.name), rest);
                (key_of(key_item)?, Change::Check, Some(condition))
            }
            Statement::Select(_) => return Err(validation("A SELECT statement is not a write")),
        };
        Ok(ItemWrite {
            table,
            key,
            key_item,
            change,
            condition,
            returning,
        })
    }

    /// Runs the write alone (ExecuteStatement, BatchExecuteStatement).
    pub fn execute(
        self,
        db: &DynamoDb,
        return_old: bool,
        capacity: ReturnCapacity,
        operation: &'static str,
    ) -> DdbResult<WriteOutcome> {
        let ItemWrite {
            table,
            key,
            key_item,
            change,
            condition,
            returning,
        } = self;
        match change {
            Change::Insert(item) => {
                let not_there =
                    Condition::AttributeNotExists(DocumentPath(vec![PathElement::Attribute(
                        table.def.keys.hash.name.clone(),
                    )]));
                let write = ConditionalWrite::from_trees(
                    operation,
                    return_old,
                    capacity,
                    None,
                    Some(not_there),
                );
                // AWS answers a duplicate INSERT with DuplicateItemException, or with the
                // old item when ReturnValuesOnConditionCheckFailure=ALL_OLD asks for it.
                let written =
                    write
                        .write(db, &table, &key, |_| Ok(Some(item)))
                        .map_err(|e| match e {
                            DdbError::ConditionalCheckFailed { item: None } => {
                                DdbError::DuplicateItem(DUPLICATE.into())
                            }
                            other => other,
                        })?;
                Ok(WriteOutcome {
                    item: None,
                    consumed: written.consumed,
                })
            }
            Change::Update(update) => {
                let updated = update.top_level_attributes();
                let write = ConditionalWrite::from_trees(
                    operation,
                    return_old,
                    capacity,
                    Some(update),
                    condition,
                );
                let Written { old, new, consumed } = write.write(db, &table, &key, |old| {
                    updated_item(&table.def, &key_item, write.update.as_ref(), old)
                })?;
                let new =
                    new.ok_or_else(|| DdbError::Internal("an update stored no item".into()))?;
                Ok(WriteOutcome {
                    item: returned_attributes(return_values(returning), old, new, &updated),
                    consumed,
                })
            }
            Change::Check => Err(exists_outside_transaction()),
            Change::Delete => {
                let write =
                    ConditionalWrite::from_trees(operation, return_old, capacity, None, condition);
                let written = write.write(db, &table, &key, |_| Ok(None))?;
                Ok(WriteOutcome {
                    item: written
                        .old
                        .filter(|_| returning == Returning::AllOld)
                        .map(OutItem::Shared),
                    consumed: written.consumed,
                })
            }
        }
    }

    /// The write as an action of a transaction (ExecuteTransaction).
    pub fn into_action(self, return_old: bool) -> Action {
        let kind = match self.change {
            Change::Insert(item) => Kind::Insert(item),
            Change::Update(update) => Kind::Update(Some(update), self.key_item),
            Change::Delete => Kind::Delete,
            Change::Check => Kind::Check,
        };
        Action {
            table: self.table,
            key: self.key,
            kind,
            condition: self.condition,
            return_old,
        }
    }
}

fn return_values(returning: Returning) -> ReturnValues {
    match returning {
        Returning::None => ReturnValues::None,
        Returning::AllOld => ReturnValues::AllOld,
        Returning::ModifiedOld => ReturnValues::UpdatedOld,
        Returning::AllNew => ReturnValues::AllNew,
        Returning::ModifiedNew => ReturnValues::UpdatedNew,
    }
}
