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

use std::sync::Arc;

pub use articles::DynamoArticles;
pub use bulk::BulkLoader;
pub use comments::DynamoComments;
pub use follows::DynamoFollows;
pub use tables::{create_tables, TableNames};
pub use users::DynamoUsers;

use aws_sdk_dynamodb::Client;

use crate::app::App;
use crate::auth::Tokens;

impl App {
    /// All four stores on DynamoDB (the monolith).
    pub fn dynamo(client: Client, tables: &TableNames, tokens: Tokens) -> Self {
        Self {
            users: Arc::new(DynamoUsers::new(client.clone(), &tables.users)),
            follows: Arc::new(DynamoFollows::new(client.clone(), &tables.follows)),
            articles: Arc::new(DynamoArticles::new(client.clone(), &tables.articles)),
            comments: Arc::new(DynamoComments::new(client, &tables.comments)),
            tokens,
        }
    }
}
