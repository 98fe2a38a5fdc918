//! DynamoDB's PartiQL statements (SELECT, INSERT, UPDATE, DELETE and the
//! `EXISTS(SELECT ...)` check of transactions), parsed into the trees the
//! expression languages evaluate: a WHERE clause is a [`Condition`], a SET or
//! REMOVE an [`UpdateAction`], a literal or a `?` parameter an
//! [`AttributeValue`]. Which key a statement names is decided by the service,
//! which knows the table.
//! https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.statements.html

mod lexer;
mod parser;
mod statement;

pub use parser::parse_statement;
pub use statement::{
    project, projected_name, Delete, Insert, OrderBy, Returning, Select, Statement, Update,
};
