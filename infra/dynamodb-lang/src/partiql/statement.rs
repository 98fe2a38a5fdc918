//! The statements' shapes, and the projection of a SELECT's paths.

use crate::expr::{Condition, DocumentPath, ExprError, PathElement, UpdateAction};
use crate::value::{AttributeValue, Item};

#[derive(Clone, Debug, PartialEq)]
pub enum Statement {
    Select(Select),
    Insert(Insert),
    Update(Update),
    Delete(Delete),
    /// `EXISTS(SELECT ...)`: a condition check, only in ExecuteTransaction.
    Exists(Select),
}

impl Statement {
    pub fn table(&self) -> &str {
        match self {
            Statement::Select(s) | Statement::Exists(s) => &s.table,
            Statement::Insert(i) => &i.table,
            Statement::Update(u) => &u.table,
            Statement::Delete(d) => &d.table,
        }
    }

    pub fn is_read(&self) -> bool {
        matches!(self, Statement::Select(_))
    }

    pub fn returning(&self) -> Returning {
        match self {
            Statement::Update(u) => u.returning,
            Statement::Delete(d) => d.returning,
            _ => Returning::None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Select {
    pub table: String,
    pub index: Option<String>,
    /// `None` for `*`.
    pub projection: Option<Vec<DocumentPath>>,
    pub filter: Option<Condition>,
    pub order_by: Vec<OrderBy>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct OrderBy {
    pub path: DocumentPath,
    pub descending: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Insert {
    pub table: String,
    pub item: Item,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Update {
    pub table: String,
    pub actions: Vec<UpdateAction>,
    pub filter: Option<Condition>,
    pub returning: Returning,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Delete {
    pub table: String,
    pub filter: Option<Condition>,
    pub returning: Returning,
}

/// `RETURNING ALL OLD *` and its kin (UPDATE and DELETE).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Returning {
    None,
    AllOld,
    ModifiedOld,
    AllNew,
    ModifiedNew,
}

/// The name a projected path answers under, as DynamoDB's PartiQL names it:
/// its last attribute name with the list indexes after it (`a.b[1]` is `b[1]`).
pub fn projected_name(path: &DocumentPath) -> String {
    let last_attribute = path
        .0
        .iter()
        .rposition(|e| matches!(e, PathElement::Attribute(_)))
        .unwrap_or(0);
    path.0[last_attribute..]
        .iter()
        .map(|e| match e {
            PathElement::Attribute(name) => name.clone(),
            PathElement::Index(i) => format!("[{i}]"),
        })
        .collect()
}

/// The projection of a SELECT applied to an item, named as [`projected_name`].
pub fn project(paths: &[DocumentPath], item: &Item) -> Item {
    paths
        .iter()
        .filter_map(|p| p.get(item).map(|v| (projected_name(p), v.clone())))
        .collect()
}

/// AWS's message for a statement it cannot parse.
/// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.html
pub(crate) fn not_well_formed(detail: impl std::fmt::Display) -> ExprError {
    ExprError::new(format!(
        "Statement wasn't well formed, can't be processed: {detail}"
    ))
}

/// Whether `value` is a set (SS, NS or BS).
pub(crate) fn is_set(value: &AttributeValue) -> bool {
    matches!(
        value,
        AttributeValue::Ss(_) | AttributeValue::Ns(_) | AttributeValue::Bs(_)
    )
}
