//! The orders table, defined once: how an order is stored (read by the back
//! end) and the seeding that stores the [`MAX_SIZE`] orders (run by the bench's
//! `seed-orders` and by tests, never by a function: the back end only reads).

use std::collections::HashMap;
use std::time::Duration;

use aws_sdk_dynamodb::types::{AttributeValue, PutRequest, WriteRequest};
use aws_sdk_dynamodb::Client;

use crate::error::{store_error, BackendError};
use crate::model::{Order, MAX_SIZE};

/// All orders live in one partition, sorted by index, so `Query ... Limit
/// size` reads exactly the first `size` of them in one call.
pub const PARTITION: &str = "orders";
/// The most items one BatchWriteItem call takes.
const BATCH: usize = 25;

/// What [`seed`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seeding {
    /// The last order was there already: nothing was written.
    AlreadySeeded,
    /// This many orders were written.
    Written(u32),
}

/// The key of the `index`-th order.
pub fn key(index: u32) -> HashMap<String, AttributeValue> {
    HashMap::from([
        ("pk".to_string(), AttributeValue::S(PARTITION.into())),
        ("sk".to_string(), AttributeValue::N(index.to_string())),
    ])
}

/// The stored item of the `index`-th order.
pub fn to_item(index: u32, order: &Order) -> HashMap<String, AttributeValue> {
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

/// The order a stored item holds; `None` for an item of another shape.
pub fn from_item(item: &HashMap<String, AttributeValue>) -> Option<Order> {
    let id = item.get("orderId")?.as_s().ok()?;
    let date = item.get("orderDate")?.as_s().ok()?;
    serde_json::from_value(serde_json::json!({"orderId": id, "orderDate": date})).ok()
}

/// Stores the [`MAX_SIZE`] orders ([`Order::seeded`]) unless the last one is
/// there: one GetItem when the table is seeded, else BatchWriteItem calls of
/// 25, unprocessed items sent again after a growing pause (as AWS advises,
/// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchWriteItem.html).
pub async fn seed(ddb: &Client, table: &str) -> Result<Seeding, BackendError> {
    let last = ddb
        .get_item()
        .table_name(table)
        .set_key(Some(key(MAX_SIZE - 1)))
        .consistent_read(true)
        .send()
        .await
        .map_err(store_error)?;
    if last.item.is_some() {
        return Ok(Seeding::AlreadySeeded);
    }
    let indexes: Vec<u32> = (0..MAX_SIZE).collect();
    for chunk in indexes.chunks(BATCH) {
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
        let mut pending = HashMap::from([(table.to_string(), writes)]);
        for attempt in 0u32.. {
            if pending.is_empty() {
                break;
            }
            if attempt > 0 {
                tokio::time::sleep(Duration::from_millis(50 << attempt.min(5))).await;
            }
            let output = ddb
                .batch_write_item()
                .set_request_items(Some(pending))
                .send()
                .await
                .map_err(store_error)?;
            pending = output.unprocessed_items.unwrap_or_default();
            pending.retain(|_, w| !w.is_empty());
        }
    }
    Ok(Seeding::Written(MAX_SIZE))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_order_reads_back_as_itself() {
        // GIVEN an order stored as the seeder stores it
        let order = Order::seeded(42);
        let item = to_item(42, &order);
        // THEN its key is the orders partition and its index
        assert_eq!(item["pk"], AttributeValue::S(PARTITION.into()));
        assert_eq!(item["sk"], AttributeValue::N("42".into()));
        // AND the back end reads the same order from it
        assert_eq!(from_item(&item), Some(order));
    }

    #[test]
    fn an_item_of_another_shape_is_no_order() {
        assert_eq!(from_item(&key(3)), None);
    }
}
