//! The conduit crate's scenarios against a Conduit API that is already
//! deployed, e.g. by `sam deploy` to the local cloud. scripts/deploy-e2e.sh
//! --whole-template runs them after deploying template.yaml:
//!
//! ```sh
//! CONDUIT_URL=http://127.0.0.1:PORT CONDUIT_TABLES=users,follows,articles,comments \
//!   cargo test --release --workspace --test it deployed_stack:: -- --ignored
//! ```
//!
//! The stack must be deployed with the scenarios' `JwtSecret`
//! (`client::SECRET`: some scenarios forge tokens). Every scenario starts from
//! empty tables: before each one, the stack's Conduit tables are emptied
//! through the DynamoDB API (the SDK's usual configuration, e.g.
//! `AWS_ENDPOINT_URL`), so never point it at tables whose data you keep.
//! The client speaks plain HTTP: local deployments only.

use crate::all_scenarios;
use crate::common::Client;
use aws_sdk_dynamodb::types::{AttributeValue, DeleteRequest, WriteRequest};
use std::collections::HashMap;

/// Scenarios share the deployed tables: one at a time.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

fn required_env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        panic!(
            "{name} is not set: these tests run against a deployed stack (see this file's header)"
        )
    })
}

async fn dynamodb() -> aws_sdk_dynamodb::Client {
    let config = aws_config::defaults(aws_config::BehaviorVersion::latest())
        .load()
        .await;
    aws_sdk_dynamodb::Client::new(&config)
}

/// Deletes every item of `table`, reading its key schema first.
async fn empty_table(db: &aws_sdk_dynamodb::Client, table: &str) {
    let described = db.describe_table().table_name(table).send().await;
    let described = described.unwrap_or_else(|e| panic!("DescribeTable {table}: {e:?}"));
    let keys: Vec<String> = described
        .table()
        .map(|t| t.key_schema().iter().map(|k| k.attribute_name().to_owned()))
        .into_iter()
        .flatten()
        .collect();
    // Placeholders: key names may be reserved words.
    let names: HashMap<String, String> = keys
        .iter()
        .enumerate()
        .map(|(i, key)| (format!("#k{i}"), key.clone()))
        .collect();
    let projection = names.keys().cloned().collect::<Vec<_>>().join(", ");
    let mut start: Option<HashMap<String, AttributeValue>> = None;
    loop {
        let page = db
            .scan()
            .table_name(table)
            .projection_expression(&projection)
            .set_expression_attribute_names(Some(names.clone()))
            .set_exclusive_start_key(start.take())
            .send()
            .await
            .unwrap_or_else(|e| panic!("Scan {table}: {e:?}"));
        for chunk in page.items().chunks(25) {
            let deletes = chunk
                .iter()
                .map(|key| {
                    let delete = DeleteRequest::builder().set_key(Some(key.clone())).build();
                    WriteRequest::builder()
                        .delete_request(delete.expect("a key"))
                        .build()
                })
                .collect();
            delete_all(db, table, deletes).await;
        }
        match page.last_evaluated_key() {
            Some(key) => start = Some(key.clone()),
            None => break,
        }
    }
}

/// BatchWriteItem until nothing is left unprocessed.
async fn delete_all(db: &aws_sdk_dynamodb::Client, table: &str, mut deletes: Vec<WriteRequest>) {
    while !deletes.is_empty() {
        let answer = db
            .batch_write_item()
            .request_items(table, deletes)
            .send()
            .await
            .unwrap_or_else(|e| panic!("BatchWriteItem {table}: {e:?}"));
        deletes = answer
            .unprocessed_items()
            .and_then(|items| items.get(table).cloned())
            .unwrap_or_default();
    }
}

/// The deployed API over empty tables.
async fn fresh_client() -> Client {
    let db = dynamodb().await;
    for table in required_env("CONDUIT_TABLES").split(',') {
        empty_table(&db, table.trim()).await;
    }
    Client::http(&required_env("CONDUIT_URL"))
}

macro_rules! against_the_deployed_stack {
    ($($name:ident),* $(,)?) => {
        $(
            #[tokio::test]
            #[ignore = "needs a deployed stack: CONDUIT_URL and CONDUIT_TABLES (scripts/deploy-e2e.sh --whole-template)"]
            async fn $name() {
                let _turn = ONE_AT_A_TIME.lock().await;
                crate::common::scenarios::$name(&fresh_client().await).await;
            }
        )*
    };
}

all_scenarios!(against_the_deployed_stack);
