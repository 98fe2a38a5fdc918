//! DynamoDB adapters, one per store trait and table. Layout and query plans:
//! `docs/data-model.md`. Every read that must see the caller's own writes is a
//! consistent read on the base table; no GSI is used, so nothing lags.

mod articles;
mod bulk;
mod comments;
mod follows;
mod items;
mod tables;
mod users;

pub use articles::DynamoArticles;
pub use bulk::BulkLoader;
pub use comments::DynamoComments;
pub use follows::DynamoFollows;
pub use tables::{create_tables, TableNames};
pub use users::DynamoUsers;
