//! Sleeps `{"ms": N}` milliseconds (default 100), after burning `{"cpu_ms": M}`
//! milliseconds of CPU and filling `{"alloc_mb": A}` megabytes of memory (both
//! default 0), then answers `{"slept_ms": N}`.

use std::time::{Duration, Instant};

use lambda_runtime::{service_fn, Error, LambdaEvent};
use serde_json::{json, Value};

#[tokio::main]
async fn main() -> Result<(), Error> {
    lambda_runtime::run(service_fn(|event: LambdaEvent<Value>| async move {
        let burn = Duration::from_millis(test_functions::millis(&event.payload, "cpu_ms", 0));
        let started = Instant::now();
        while started.elapsed() < burn {
            std::hint::black_box(started.elapsed());
        }
        let alloc_mb = test_functions::millis(&event.payload, "alloc_mb", 0) as usize;
        // Written, not just reserved, so the pages count as resident.
        let memory = vec![0x5a_u8; alloc_mb * 1024 * 1024];
        let ms = test_functions::millis(&event.payload, "ms", 100);
        tokio::time::sleep(Duration::from_millis(ms)).await;
        std::hint::black_box(&memory);
        Ok::<_, Error>(json!({ "slept_ms": ms, "pid": std::process::id() }))
    }))
    .await
}
