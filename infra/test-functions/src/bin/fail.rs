//! Returns an error for every event: `{"errorType":"OrderRejected","errorMessage":..}`.

use lambda_runtime::{service_fn, Diagnostic, Error, LambdaEvent};
use serde_json::Value;

#[tokio::main]
async fn main() -> Result<(), Error> {
    lambda_runtime::run(service_fn(|event: LambdaEvent<Value>| async move {
        let reason = event
            .payload
            .get("reason")
            .and_then(Value::as_str)
            .unwrap_or("no reason given")
            .to_string();
        Err::<Value, _>(Diagnostic {
            error_type: "OrderRejected".into(),
            error_message: format!("order rejected: {reason}"),
        })
    }))
    .await
}
