//! The orders table is seeded by the bench before any measured window, through
//! the DynamoDB API, with `orders::table::seed` (the one definition of what the
//! back end reads): on the local cloud at its edge endpoint, on AWS (or
//! LocalStack) with the caller's credentials. The functions never write it.
//! `bench seed-orders` does the same on its own (docs/bench.md).

use anyhow::Context;
use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
use aws_sdk_dynamodb::Client;
use orders::table::Seeding;
use serde_json::Value;

use crate::target::REGION;

/// The orders table's logical id in the template.
pub const ORDERS_TABLE: &str = "OrdersTable";
/// The template's output with the orders table's name.
pub const ORDERS_TABLE_OUTPUT: &str = "OrdersTableName";

/// The orders table's name from either document `--stack-outputs` reads: a
/// local cloud endpoints file (`tables.OrdersTable`) or `aws cloudformation
/// describe-stacks` output (output `OrdersTableName`).
pub fn orders_table_from_document(doc: &Value) -> Option<String> {
    if let Some(name) = doc
        .pointer(&format!("/tables/{ORDERS_TABLE}"))
        .and_then(Value::as_str)
    {
        return Some(name.to_string());
    }
    doc.pointer("/Stacks/0/Outputs")?
        .as_array()?
        .iter()
        .find(|o| o.get("OutputKey").and_then(Value::as_str) == Some(ORDERS_TABLE_OUTPUT))?
        .get("OutputValue")?
        .as_str()
        .map(String::from)
}

/// A client of the local cloud at `endpoint` (it takes any credentials).
pub fn local_client(endpoint: &str) -> Client {
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new(REGION))
        .credentials_provider(Credentials::new("test", "test", None, None, "bench"))
        .endpoint_url(endpoint)
        .build();
    Client::from_conf(config)
}

/// A client with the caller's configuration: the usual credential chain,
/// region, and `AWS_ENDPOINT_URL` when set.
pub async fn default_client() -> Client {
    Client::new(&aws_config::load_defaults(BehaviorVersion::latest()).await)
}

/// Seeds `table` unless it is seeded; says what was done.
pub async fn seed_orders(client: &Client, table: &str) -> anyhow::Result<String> {
    let seeding = orders::table::seed(client, table)
        .await
        .with_context(|| format!("seeding the orders table {table}"))?;
    Ok(match seeding {
        Seeding::AlreadySeeded => format!("the orders table {table} is seeded already"),
        Seeding::Written(n) => format!("{n} orders written to {table}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_orders_table_is_read_from_an_endpoints_file_or_stack_outputs() {
        // GIVEN the two documents --stack-outputs takes
        let endpoints =
            json!({"tables": {"OrdersTable": "bench-orders", "ConduitUsersTable": "u"}});
        let outputs = json!({"Stacks": [{"Outputs": [
            {"OutputKey": "OrdersDirectUrl", "OutputValue": "https://x"},
            {"OutputKey": "OrdersTableName", "OutputValue": "prod-orders"}]}]});
        // THEN each names the orders table, and a document without it names none
        assert_eq!(
            orders_table_from_document(&endpoints).as_deref(),
            Some("bench-orders")
        );
        assert_eq!(
            orders_table_from_document(&outputs).as_deref(),
            Some("prod-orders")
        );
        assert_eq!(orders_table_from_document(&json!({"Stacks": []})), None);
    }
}
