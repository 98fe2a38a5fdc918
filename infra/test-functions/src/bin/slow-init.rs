//! Sleeps `SLOW_INIT_MS` milliseconds (default 300) before its runtime loop, like a
//! function that loads a large configuration, then behaves like `echo`.

use std::time::Duration;

use lambda_runtime::{service_fn, Error, LambdaEvent};
use serde_json::Value;

#[tokio::main]
async fn main() -> Result<(), Error> {
    let ms = std::env::var("SLOW_INIT_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300);
    tokio::time::sleep(Duration::from_millis(ms)).await;
    lambda_runtime::run(service_fn(|event: LambdaEvent<Value>| async move {
        Ok::<_, Error>(test_functions::describe(event))
    }))
    .await
}
