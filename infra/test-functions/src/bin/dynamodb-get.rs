//! The floor of a function that calls DynamoDB: the thin runtime (as the
//! Conduit functions use it), the AWS SDK configured by the same `sdk_config::load`, and
//! nothing else. Each invocation makes `CALLS` GetItem calls (default 1) for
//! the key `{"id": "floor"}` of `TABLE_NAME` and answers the API Gateway
//! response `200 "found"` or `200 "missing"`, without reading the event.
//! Beside `noop-raw` (the same runtime, no SDK call) it shows what one SDK call
//! costs a function (docs/benchmarks.md, "The floor of a DynamoDB call").

use aws_sdk_dynamodb::types::AttributeValue;
use thin_runtime::{Function, FunctionError};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

struct DynamoGet {
    client: aws_sdk_dynamodb::Client,
    table: String,
    calls: u32,
}

impl Function for DynamoGet {
    async fn invoke(&self, _event: &[u8]) -> Result<Vec<u8>, FunctionError> {
        let mut found = false;
        for _ in 0..self.calls {
            let item = self
                .client
                .get_item()
                .table_name(&self.table)
                .key("id", AttributeValue::S("floor".to_owned()))
                .send()
                .await
                .map_err(|e| FunctionError::new("GetItem", e.to_string()))?;
            found = item.item.is_some();
        }
        let body = if found { "found" } else { "missing" };
        Ok(format!(
            "{{\"statusCode\":200,\"headers\":{{\"content-type\":\"text/plain\"}},\"body\":\"{body}\",\"isBase64Encoded\":false}}"
        )
        .into_bytes())
    }
}

/// The SDK configured by `sdk_config::load`, as in the Conduit functions.
async fn init() -> Result<DynamoGet, FunctionError> {
    let table = std::env::var("TABLE_NAME")
        .map_err(|_| FunctionError::config_invalid("TABLE_NAME is not set"))?;
    let calls = match std::env::var("CALLS") {
        Err(_) => 1,
        Ok(calls) => calls.parse().map_err(|_| {
            FunctionError::config_invalid(format!("CALLS is not a count: {calls:?}"))
        })?,
    };
    let config = sdk_config::load().await;
    Ok(DynamoGet {
        client: aws_sdk_dynamodb::Client::new(&config),
        table,
        calls,
    })
}

fn main() -> Result<(), thin_runtime::RuntimeError> {
    thin_runtime::run(init())
}
