//! Test fixtures: the service on an ephemeral port and an SDK client for it.
#![allow(dead_code)]

use std::collections::HashMap;
use std::sync::Arc;

use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType,
    LocalSecondaryIndex, Projection, ProjectionType, ScalarAttributeType,
};
use aws_sdk_dynamodb::Client;
use localcloud_core::{serve_on_ephemeral_port, Dispatcher, ServerHandle};
use localcloud_dynamodb::{DynamoDb, DynamoDbConfig};

pub use aws_sdk_dynamodb::types::AttributeValue as Av;

pub struct Local {
    pub db: Arc<DynamoDb>,
    pub client: Client,
    pub server: ServerHandle,
}

pub async fn start() -> Local {
    start_with(DynamoDbConfig::default()).await
}

pub async fn start_with(config: DynamoDbConfig) -> Local {
    let db = DynamoDb::new(config);
    let server = serve_on_ephemeral_port(Arc::new(Dispatcher::new().with_json(db.clone())))
        .await
        .expect("server starts");
    let client = client(&format!("http://{}", server.addr));
    Local { db, client, server }
}

pub fn client(endpoint: &str) -> Client {
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .endpoint_url(endpoint)
        .credentials_provider(Credentials::new("AKIDLOCAL", "secret", None, None, "test"))
        .build();
    Client::from_conf(config)
}

pub fn s(v: &str) -> Av {
    Av::S(v.to_string())
}

pub fn n(v: impl ToString) -> Av {
    Av::N(v.to_string())
}

pub fn item(pairs: &[(&str, Av)]) -> HashMap<String, Av> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

/// (code, message) of any SDK error.
pub fn code_message<E: ProvideErrorMetadata>(err: &E) -> (String, String) {
    (
        err.code().unwrap_or_default().to_string(),
        err.message().unwrap_or_default().to_string(),
    )
}

fn attr(name: &str, ty: ScalarAttributeType) -> AttributeDefinition {
    AttributeDefinition::builder()
        .attribute_name(name)
        .attribute_type(ty)
        .build()
        .unwrap()
}

fn key(name: &str, ty: KeyType) -> KeySchemaElement {
    KeySchemaElement::builder()
        .attribute_name(name)
        .key_type(ty)
        .build()
        .unwrap()
}

/// `name` with pk (S) and sk (N).
pub async fn create_composite(client: &Client, name: &str) {
    client
        .create_table()
        .table_name(name)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(attr("pk", ScalarAttributeType::S))
        .attribute_definitions(attr("sk", ScalarAttributeType::N))
        .key_schema(key("pk", KeyType::Hash))
        .key_schema(key("sk", KeyType::Range))
        .send()
        .await
        .expect("table created");
}

/// `name` with pk (S) only.
pub async fn create_simple(client: &Client, name: &str) {
    client
        .create_table()
        .table_name(name)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(attr("pk", ScalarAttributeType::S))
        .key_schema(key("pk", KeyType::Hash))
        .send()
        .await
        .expect("table created");
}

/// `name` with pk/sk, a GSI `by-email` on email (KEYS_ONLY... ALL here), and an
/// LSI `by-score` on score (N), projecting INCLUDE [title].
pub async fn create_indexed(client: &Client, name: &str) {
    client
        .create_table()
        .table_name(name)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(attr("pk", ScalarAttributeType::S))
        .attribute_definitions(attr("sk", ScalarAttributeType::N))
        .attribute_definitions(attr("email", ScalarAttributeType::S))
        .attribute_definitions(attr("score", ScalarAttributeType::N))
        .key_schema(key("pk", KeyType::Hash))
        .key_schema(key("sk", KeyType::Range))
        .global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name("by-email")
                .key_schema(key("email", KeyType::Hash))
                .projection(
                    Projection::builder()
                        .projection_type(ProjectionType::All)
                        .build(),
                )
                .build()
                .unwrap(),
        )
        .local_secondary_indexes(
            LocalSecondaryIndex::builder()
                .index_name("by-score")
                .key_schema(key("pk", KeyType::Hash))
                .key_schema(key("score", KeyType::Range))
                .projection(
                    Projection::builder()
                        .projection_type(ProjectionType::Include)
                        .non_key_attributes("title")
                        .build(),
                )
                .build()
                .unwrap(),
        )
        .send()
        .await
        .expect("table created");
}
