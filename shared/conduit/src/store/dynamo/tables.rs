//! Table names (from the environment) and their definitions (for tests, seeding and
//! local runs; on AWS `template.yaml` declares the same tables).

use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
};
use aws_sdk_dynamodb::Client;

use super::items::backend;
use crate::store::StoreResult;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableNames {
    pub users: String,
    pub follows: String,
    pub articles: String,
    pub comments: String,
}

impl TableNames {
    /// `USERS_TABLE`, `FOLLOWS_TABLE`, `ARTICLES_TABLE`, `COMMENTS_TABLE`.
    pub fn from_env() -> Result<Self, String> {
        let var = |name: &str| std::env::var(name).map_err(|_| format!("{name} is not set"));
        Ok(Self {
            users: var("USERS_TABLE")?,
            follows: var("FOLLOWS_TABLE")?,
            articles: var("ARTICLES_TABLE")?,
            comments: var("COMMENTS_TABLE")?,
        })
    }

    /// `<prefix>-users` and so on.
    pub fn with_prefix(prefix: &str) -> Self {
        Self {
            users: format!("{prefix}-users"),
            follows: format!("{prefix}-follows"),
            articles: format!("{prefix}-articles"),
            comments: format!("{prefix}-comments"),
        }
    }
}

/// One key attribute: name and type.
type KeyAttr<'a> = (&'a str, ScalarAttributeType);

/// Table name, partition key and optional sort key, per table.
fn schema(tables: &TableNames) -> Vec<(&str, KeyAttr<'_>, Option<KeyAttr<'_>>)> {
    use ScalarAttributeType::{N, S};
    vec![
        (tables.users.as_str(), ("pk", S), None),
        (
            tables.follows.as_str(),
            ("follower", S),
            Some(("followee", S)),
        ),
        (tables.articles.as_str(), ("pk", S), Some(("sk", S))),
        (tables.comments.as_str(), ("articleId", S), Some(("id", N))),
    ]
}

/// Creates the four tables (on-demand billing, no secondary indexes).
pub async fn create_tables(client: &Client, tables: &TableNames) -> StoreResult<()> {
    for (name, (hash, hash_type), range) in schema(tables) {
        let mut req = client
            .create_table()
            .table_name(name)
            .billing_mode(BillingMode::PayPerRequest)
            .key_schema(key_element(hash, KeyType::Hash)?)
            .attribute_definitions(attribute(hash, hash_type)?);
        if let Some((range, range_type)) = range {
            req = req
                .key_schema(key_element(range, KeyType::Range)?)
                .attribute_definitions(attribute(range, range_type)?);
        }
        req.send().await.map_err(backend)?;
    }
    Ok(())
}

fn key_element(name: &str, key_type: KeyType) -> StoreResult<KeySchemaElement> {
    KeySchemaElement::builder()
        .attribute_name(name)
        .key_type(key_type)
        .build()
        .map_err(backend)
}

fn attribute(name: &str, kind: ScalarAttributeType) -> StoreResult<AttributeDefinition> {
    AttributeDefinition::builder()
        .attribute_name(name)
        .attribute_type(kind)
        .build()
        .map_err(backend)
}
