//! Built on the runtime's own Lambda Managed Instances support:
//! `lambda_runtime::run_concurrent` (feature `concurrency-tokio`) polls
//! `/next` from `AWS_LAMBDA_MAX_CONCURRENCY` workers in one process.
//!
//! Sleeps `{"ms": N}` (default 100) and answers its pid, its request id,
//! the `AWS_LAMBDA_MAX_CONCURRENCY` it was given and the most invocations
//! this process held at once so far; `{"fail": "why"}` fails with
//! `{"errorType":"Refused",..}` after the sleep instead.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use lambda_runtime::{service_fn, Diagnostic, Error, LambdaEvent};
use serde_json::{json, Value};

static IN_FLIGHT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

async fn handle(event: LambdaEvent<Value>) -> Result<Value, Diagnostic> {
    let now = IN_FLIGHT.fetch_add(1, Ordering::SeqCst) + 1;
    PEAK.fetch_max(now, Ordering::SeqCst);
    let ms = test_functions::millis(&event.payload, "ms", 100);
    tokio::time::sleep(Duration::from_millis(ms)).await;
    IN_FLIGHT.fetch_sub(1, Ordering::SeqCst);
    if let Some(why) = event.payload.get("fail").and_then(Value::as_str) {
        return Err(Diagnostic {
            error_type: "Refused".into(),
            error_message: format!("refused: {why}"),
        });
    }
    Ok(json!({
        "pid": std::process::id(),
        "request_id": event.context.request_id,
        "max_concurrency": std::env::var("AWS_LAMBDA_MAX_CONCURRENCY").ok(),
        "peak_in_flight": PEAK.load(Ordering::SeqCst),
    }))
}

#[tokio::main]
async fn main() -> Result<(), Error> {
    lambda_runtime::run_concurrent(service_fn(handle)).await
}
