//! The slow back end: waits (a "healthy but slow" dependency), then reads
//! `size` orders from DynamoDB. It only reads: the table is seeded before any
//! run ([`crate::table::seed`]).

use std::time::Duration;

use aws_sdk_dynamodb::types::AttributeValue;
use aws_sdk_dynamodb::Client;

use crate::error::{store_error, BackendError};
use crate::model::{Order, MAX_SIZE};
use crate::table::{from_item, PARTITION};

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
}
