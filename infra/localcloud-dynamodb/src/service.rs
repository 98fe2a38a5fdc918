//! The service's front: construction (with the TTL sweeper), the JSON-protocol
//! entry point that routes an operation to its handler, and start-up helpers.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use localcloud_core::{AwsError, JsonService, RequestContext};
use parking_lot::RwLock;

use crate::capacity::MetricsRecorder;
use crate::error::{validation, DdbError, DdbResult};
use crate::ops::{backups, batch, control, items, partiql, read, tags, transact, update_table};
use crate::registry::DynamoDb;
use crate::ttl::spawn_sweeper;

#[derive(Clone, Debug)]
pub struct DynamoDbConfig {
    /// How often expired TTL items are deleted; `None` turns the sweep off.
    pub ttl_sweep_period: Option<Duration>,
}

impl Default for DynamoDbConfig {
    fn default() -> Self {
        DynamoDbConfig {
            ttl_sweep_period: Some(Duration::from_secs(1)),
        }
    }
}

impl DynamoDb {
    pub fn new(config: DynamoDbConfig) -> Arc<DynamoDb> {
        let service = Arc::new(DynamoDb {
            tables: RwLock::new(BTreeMap::new()),
            metrics: MetricsRecorder::default(),
            idempotency: Default::default(),
        });
        if let Some(period) = config.ttl_sweep_period {
            spawn_sweeper(Arc::downgrade(&service), period);
        }
        service
    }

    /// Runs one operation in-process with a JSON body, as the HTTP front door
    /// would; for start-up (tables from a template) and tests.
    pub fn call(
        &self,
        ctx: &RequestContext,
        operation: &str,
        body: &[u8],
    ) -> Result<Vec<u8>, DdbError> {
        // An operation that found a table UpdateTable then replaced has read
        // and written nothing: it runs again, on the new table.
        let mut attempts = 0;
        loop {
            match self.run(ctx, operation, body) {
                Err(DdbError::TableReplaced) if attempts < 8 => attempts += 1,
                answer => return answer,
            }
        }
    }

    fn run(&self, ctx: &RequestContext, operation: &str, body: &[u8]) -> Result<Vec<u8>, DdbError> {
        match operation {
            "CreateTable" => control::create_table(self, ctx, body),
            "DescribeTable" => control::describe_table(self, ctx, body),
            "ListTables" => control::list_tables(self, body),
            "DeleteTable" => control::delete_table(self, ctx, body),
            "UpdateTable" => update_table::update_table(self, ctx, body),
            "TagResource" => tags::tag_resource(self, ctx, body),
            "UntagResource" => tags::untag_resource(self, ctx, body),
            "ListTagsOfResource" => tags::list_tags(self, ctx, body),
            "UpdateContinuousBackups" => backups::update_continuous_backups(self, body),
            "DescribeContinuousBackups" => backups::describe_continuous_backups(self, body),
            "UpdateTimeToLive" => control::update_ttl(self, body),
            "DescribeTimeToLive" => control::describe_ttl(self, body),
            "GetItem" => items::get_item(self, body),
            "PutItem" => items::put_item(self, body),
            "UpdateItem" => items::update_item(self, body),
            "DeleteItem" => items::delete_item(self, body),
            "Query" => read::query(self, body),
            "Scan" => read::scan(self, body),
            "BatchGetItem" => batch::batch_get(self, body),
            "BatchWriteItem" => batch::batch_write(self, body),
            "TransactGetItems" => transact::transact_get(self, body),
            "TransactWriteItems" => transact::transact_write(self, body),
            "ExecuteStatement" => partiql::execute_statement(self, body),
            "BatchExecuteStatement" => partiql::batch_execute_statement(self, body),
            "ExecuteTransaction" => partiql::execute_transaction(self, body),
            other => Err(DdbError::Validation(format!(
                "Operation {other} is not supported by the local cloud"
            ))),
        }
    }

    /// Creates a table from a CreateTable request body (e.g. a template's
    /// `Properties` rendered as JSON); an existing table of that name is kept.
    pub fn ensure_table(&self, ctx: &RequestContext, create_table_json: &[u8]) -> DdbResult<()> {
        match control::create_table(self, ctx, create_table_json) {
            Ok(_) | Err(DdbError::ResourceInUse(_)) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Turns TTL on with `attribute` unless it already is (UpdateTimeToLive
    /// refuses to enable TTL twice, e.g. after a snapshot restore).
    pub fn ensure_ttl(&self, table: &str, attribute: &str) -> DdbResult<()> {
        let table = self.table(Some(table))?;
        let mut ttl = table.ttl.write();
        match ttl.as_deref() {
            Some(current) if current == attribute => Ok(()),
            Some(current) => Err(validation(format!(
                "TimeToLive is active on a different AttributeName: current AttributeName is {current}"
            ))),
            None => {
                *ttl = Some(attribute.to_string());
                Ok(())
            }
        }
    }
}

#[async_trait]
impl JsonService for DynamoDb {
    fn target_prefix(&self) -> &'static str {
        "DynamoDB_20120810"
    }

    fn service_name(&self) -> &'static str {
        "dynamodb"
    }

    async fn handle(
        &self,
        ctx: &RequestContext,
        operation: &str,
        body: Bytes,
    ) -> Result<Bytes, AwsError> {
        if !KNOWN_OPERATIONS.contains(&operation) {
            return Err(self.unknown_operation(operation));
        }
        match self.call(ctx, operation, &body) {
            Ok(out) => Ok(Bytes::from(out)),
            Err(err) => Err(err.into()),
        }
    }
}

const KNOWN_OPERATIONS: &[&str] = &[
    "CreateTable",
    "DescribeTable",
    "ListTables",
    "DeleteTable",
    "UpdateTable",
    "TagResource",
    "UntagResource",
    "ListTagsOfResource",
    "UpdateContinuousBackups",
    "DescribeContinuousBackups",
    "UpdateTimeToLive",
    "DescribeTimeToLive",
    "GetItem",
    "PutItem",
    "UpdateItem",
    "DeleteItem",
    "Query",
    "Scan",
    "BatchGetItem",
    "BatchWriteItem",
    "TransactGetItems",
    "TransactWriteItems",
    "ExecuteStatement",
    "BatchExecuteStatement",
    "ExecuteTransaction",
];

#[cfg(test)]
mod update_table_tests {
    use super::DynamoDbConfig;
    use crate::{DdbError, DynamoDb};
    use localcloud_core::context::RequestContext;

    #[test]
    fn a_write_that_found_the_table_before_update_table_runs_again_on_the_new_one() {
        let db = DynamoDb::new(DynamoDbConfig::default());
        let ctx = RequestContext::new("us-east-1", "000000000000");
        let call = |op: &str, body: &str| db.call(&ctx, op, body.as_bytes());
        call(
            "CreateTable",
            r#"{"TableName":"items","BillingMode":"PAY_PER_REQUEST",
                "AttributeDefinitions":[{"AttributeName":"id","AttributeType":"S"}],
                "KeySchema":[{"AttributeName":"id","KeyType":"HASH"}]}"#,
        )
        .unwrap();
        call(
            "PutItem",
            r#"{"TableName":"items","Item":{"id":{"S":"before"}}}"#,
        )
        .unwrap();
        // GIVEN an operation holding the table as it was looked up
        let found = db.table(Some("items")).unwrap();
        // WHEN UpdateTable replaces it
        call(
            "UpdateTable",
            r#"{"TableName":"items","BillingMode":"PROVISIONED",
                "ProvisionedThroughput":{"ReadCapacityUnits":5,"WriteCapacityUnits":5}}"#,
        )
        .unwrap();
        // THEN the table it holds refuses to be read or written (so that
        // `call` runs the operation again) instead of taking the write
        assert!(matches!(found.write_state(), Err(DdbError::TableReplaced)));
        assert!(matches!(found.read_state(), Err(DdbError::TableReplaced)));
        // AND a write through `call` lands in the new table, beside the old item
        call(
            "PutItem",
            r#"{"TableName":"items","Item":{"id":{"S":"after"}}}"#,
        )
        .unwrap();
        for id in ["before", "after"] {
            let got = call(
                "GetItem",
                &format!(r#"{{"TableName":"items","Key":{{"id":{{"S":"{id}"}}}}}}"#),
            )
            .unwrap();
            assert!(
                String::from_utf8_lossy(&got).contains(&format!(r#""{id}""#)),
                "{id}: {}",
                String::from_utf8_lossy(&got)
            );
        }
    }
}

#[cfg(test)]
// Here and not in ops/partiql: a test there naming the service's config
// would make an import circle with the service that calls it.
mod partiql_tests {
    use localcloud_core::RequestContext;
    use serde_json::{json, Value};

    use super::DynamoDbConfig;
    use crate::DynamoDb;

    fn call(db: &DynamoDb, operation: &str, body: Value) -> Value {
        let ctx = RequestContext::new("us-east-1", "000000000000");
        let out = db
            .call(&ctx, operation, body.to_string().as_bytes())
            .unwrap_or_else(|e| panic!("{operation} {body}: {e}"));
        serde_json::from_slice(&out).unwrap()
    }

    #[test]
    fn pages_of_an_in_query_resume_in_the_partition_they_stopped_in() {
        // GIVEN items in partitions a, b and c
        let db = DynamoDb::new(DynamoDbConfig {
            ttl_sweep_period: None,
        });
        call(
            &db,
            "CreateTable",
            json!({"TableName": "pages", "BillingMode": "PAY_PER_REQUEST",
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"}]}),
        );
        for (pk, sk) in [("a", 1), ("a", 2), ("b", 1), ("c", 1), ("c", 2)] {
            call(
                &db,
                "ExecuteStatement",
                json!({"Statement": format!("INSERT INTO pages VALUE {{'pk': '{pk}', 'sk': {sk}}}")}),
            );
        }
        // WHEN pk IN ['c', 'a'] is read one item a page
        let mut read = Vec::new();
        let mut request =
            json!({"Statement": "SELECT * FROM pages WHERE pk IN ['c', 'a']", "Limit": 1});
        for _ in 0..10 {
            let page = call(&db, "ExecuteStatement", request.clone());
            for item in page["Items"].as_array().unwrap() {
                let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
                read.push(text(&item["pk"]["S"]) + &text(&item["sk"]["N"]));
            }
            match page.get("NextToken") {
                Some(token) => request["NextToken"] = token.clone(),
                None => break,
            }
        }
        // THEN the two partitions come whole, in key order, each item once, b never
        assert_eq!(read, ["a1", "a2", "c1", "c2"]);
    }
}
