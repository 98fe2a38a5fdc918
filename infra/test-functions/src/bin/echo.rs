//! Returns its event with the invocation context and Lambda environment.

use lambda_runtime::{service_fn, Error, LambdaEvent};
use serde_json::Value;

#[tokio::main]
async fn main() -> Result<(), Error> {
    lambda_runtime::run(service_fn(|event: LambdaEvent<Value>| async move {
        Ok::<_, Error>(test_functions::describe(event))
    }))
    .await
}
