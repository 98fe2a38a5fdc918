//! The `concurrent` test function on the thin runtime (`thin_runtime::run`),
//! the runtime of the Conduit functions: on Lambda Managed Instances it
//! polls `/next` from `AWS_LAMBDA_MAX_CONCURRENCY` threads.
//!
//! Sleeps `{"ms": N}` (default 100) and answers its pid, the `tag` it was
//! sent, the `AWS_LAMBDA_MAX_CONCURRENCY` it was given and the most
//! invocations this process held at once so far; `{"fail": "why"}` fails
//! with `Refused` after the sleep, `{"panic": "why"}` panics instead.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{json, Value};
use thin_runtime::{Function, FunctionError};

static IN_FLIGHT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

struct Sleeper;

impl Function for Sleeper {
    async fn invoke(&self, event: &[u8]) -> Result<Vec<u8>, FunctionError> {
        let event: Value = serde_json::from_slice(event)
            .map_err(|e| FunctionError::new("BadRequest", e.to_string()))?;
        let now = IN_FLIGHT.fetch_add(1, Ordering::SeqCst) + 1;
        PEAK.fetch_max(now, Ordering::SeqCst);
        let ms = test_functions::millis(&event, "ms", 100);
        tokio::time::sleep(Duration::from_millis(ms)).await;
        IN_FLIGHT.fetch_sub(1, Ordering::SeqCst);
        if let Some(why) = event.get("panic").and_then(Value::as_str) {
            panic!("asked to: {why}");
        }
        if let Some(why) = event.get("fail").and_then(Value::as_str) {
            return Err(FunctionError::new("Refused", format!("refused: {why}")));
        }
        let answer = json!({
            "pid": std::process::id(),
            "tag": event.get("tag"),
            "max_concurrency": std::env::var("AWS_LAMBDA_MAX_CONCURRENCY").ok(),
            "peak_in_flight": PEAK.load(Ordering::SeqCst),
        });
        Ok(answer.to_string().into_bytes())
    }
}

fn main() -> Result<(), thin_runtime::RuntimeError> {
    thin_runtime::run(async { Ok(Sleeper) })
}
