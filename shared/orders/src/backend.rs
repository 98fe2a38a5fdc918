//! The slow back end: waits (a "healthy but slow" dependency), then reads
//! `size` orders from DynamoDB.

use std::collections::HashMap;
use std::time::Duration;

use aws_sdk_dynamodb::types::{AttributeValue, PutRequest, WriteRequest};
use aws_sdk_dynamodb::Client;

use crate::model::{Order, MAX_SIZE};

/// All orders live in one partition, sorted by index, so `Query ... Limit
/// size` reads exactly the first `size` of them in one call.
const PARTITION: &str = "orders";
/// The item whose conditional creation elects the one environment that seeds.
const SEED_CLAIM: &str = "seed-claim";
/// How long other environments wait for the seeding one before seeding themselves.
const SEED_WAIT: Duration = Duration::from_secs(10);

#[derive(Debug, thiserror::Error)]
pub enum BackendError {
    #[error("DynamoDB: {0}")]
    Store(String),
    #[error("only {found} of {wanted} orders are stored")]
    Missing { wanted: u32, found: usize },
    #[error("{0}")]
    BadRequest(String),
}

pub struct OrdersBackend {
    ddb: Client,
    table: String,
    delay: Duration,
}

impl OrdersBackend {
    pub fn new(ddb: Client, table: impl Into<String>, delay: Duration) -> Self {
        Self {
            ddb,
            table: table.into(),
            delay,
        }
    }

    pub async fn get_orders(&self, size: u32) -> Result<Vec<Order>, BackendError> {
        if size == 0 || size > MAX_SIZE {
            return Err(BackendError::BadRequest(format!(
                "size must be from 1 to {MAX_SIZE}, got {size}"
            )));
        }
        tokio::time::sleep(self.delay).await;
        let output = self
            .ddb
            .query()
            .table_name(&self.table)
            .key_condition_expression("pk = :pk")
            .expression_attribute_values(":pk", AttributeValue::S(PARTITION.into()))
            .limit(size as i32)
            .send()
            .await
            .map_err(store_error)?;
        let orders: Vec<Order> = output
            .items
            .unwrap_or_default()
            .iter()
            .filter_map(from_item)
            .collect();
        if orders.len() < size as usize {
            return Err(BackendError::Missing {
                wanted: size,
                found: orders.len(),
            });
        }
        Ok(orders)
    }

    /// Stores the [`MAX_SIZE`] orders unless they are there: one GetItem per
    /// cold start. When many environments start at once on an empty table,
    /// one claims the seeding (a conditional put) and the others wait for the
    /// last order to appear, so the table is written once, not once per
    /// environment; if the claimant dies, a waiter seeds after a while.
    pub async fn ensure_seeded(&self) -> Result<(), BackendError> {
        if self.is_seeded().await? {
            return Ok(());
        }
        if !self.claim_seeding().await? {
            let deadline = tokio::time::Instant::now() + SEED_WAIT;
            while tokio::time::Instant::now() < deadline {
                tokio::time::sleep(Duration::from_millis(100)).await;
                if self.is_seeded().await? {
                    return Ok(());
                }
            }
            tracing::warn!("the environment seeding the orders did not finish: seeding here");
        }
        self.seed().await
    }

    async fn is_seeded(&self) -> Result<bool, BackendError> {
        let last = self
            .ddb
            .get_item()
            .table_name(&self.table)
            .set_key(Some(key(MAX_SIZE - 1)))
            .send()
            .await
            .map_err(store_error)?;
        Ok(last.item.is_some())
    }

    /// True when this environment won the right to seed.
    async fn claim_seeding(&self) -> Result<bool, BackendError> {
        let claimed = self
            .ddb
            .put_item()
            .table_name(&self.table)
            .item("pk", AttributeValue::S(SEED_CLAIM.into()))
            .item("sk", AttributeValue::N("0".into()))
            .condition_expression("attribute_not_exists(pk)")
            .send()
            .await;
        match claimed {
            Ok(_) => Ok(true),
            Err(e)
                if e.as_service_error()
                    .is_some_and(|e| e.is_conditional_check_failed_exception()) =>
            {
                Ok(false)
            }
            Err(e) => Err(store_error(e)),
        }
    }

    async fn seed(&self) -> Result<(), BackendError> {
        let indexes: Vec<u32> = (0..MAX_SIZE).collect();
        for chunk in indexes.chunks(25) {
            let writes = chunk
                .iter()
                .map(|&i| {
                    let put = PutRequest::builder()
                        .set_item(Some(to_item(i, &Order::seeded(i))))
                        .build()
                        .expect("item is set");
                    WriteRequest::builder().put_request(put).build()
                })
                .collect();
            let mut pending = HashMap::from([(self.table.clone(), writes)]);
            // BatchWriteItem may leave some items unprocessed: send them again.
            while !pending.is_empty() {
                let output = self
                    .ddb
                    .batch_write_item()
                    .set_request_items(Some(pending))
                    .send()
                    .await
                    .map_err(store_error)?;
                pending = output.unprocessed_items.unwrap_or_default();
                pending.retain(|_, w| !w.is_empty());
            }
        }
        Ok(())
    }
}

fn key(index: u32) -> HashMap<String, AttributeValue> {
    HashMap::from([
        ("pk".to_string(), AttributeValue::S(PARTITION.into())),
        ("sk".to_string(), AttributeValue::N(index.to_string())),
    ])
}

fn to_item(index: u32, order: &Order) -> HashMap<String, AttributeValue> {
    let mut item = key(index);
    item.insert(
        "orderId".into(),
        AttributeValue::S(order.order_id.to_string()),
    );
    let date = serde_json::to_value(order).expect("orders serialise")["orderDate"].clone();
    item.insert(
        "orderDate".into(),
        AttributeValue::S(date.as_str().unwrap_or_default().to_string()),
    );
    item
}

fn from_item(item: &HashMap<String, AttributeValue>) -> Option<Order> {
    let id = item.get("orderId")?.as_s().ok()?;
    let date = item.get("orderDate")?.as_s().ok()?;
    serde_json::from_value(serde_json::json!({"orderId": id, "orderDate": date})).ok()
}

fn store_error(error: impl std::error::Error) -> BackendError {
    BackendError::Store(aws_sdk_dynamodb::error::DisplayErrorContext(error).to_string())
}
