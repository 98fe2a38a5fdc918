//! Prints the lines it is given, `{"stdout": [..], "stderr": [..]}`, then
//! returns `{}`: a function whose log output is known to the byte.

use lambda_runtime::{service_fn, Error, LambdaEvent};
use serde_json::{json, Value};

fn lines<'a>(event: &'a Value, stream: &str) -> impl Iterator<Item = &'a str> {
    event[stream]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
}

#[tokio::main]
async fn main() -> Result<(), Error> {
    lambda_runtime::run(service_fn(|event: LambdaEvent<Value>| async move {
        for line in lines(&event.payload, "stdout") {
            println!("{line}");
        }
        for line in lines(&event.payload, "stderr") {
            eprintln!("{line}");
        }
        Ok::<_, Error>(json!({}))
    }))
    .await
}
