//! Exits the process in the middle of an invocation with `{"code": N}` (default 3),
//! as a segfault or `process::exit` in a handler would.

use lambda_runtime::{service_fn, Error, LambdaEvent};
use serde_json::Value;

#[tokio::main]
async fn main() -> Result<(), Error> {
    lambda_runtime::run(service_fn(|event: LambdaEvent<Value>| async move {
        let code = test_functions::millis(&event.payload, "code", 3);
        eprintln!("crash: exiting with code {code}");
        std::process::exit(code as i32);
        #[allow(unreachable_code)]
        Ok::<Value, Error>(Value::Null)
    }))
    .await
}
