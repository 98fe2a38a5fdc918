//! Burns `{"cpu_ms": W}` milliseconds of CPU (default 100) split evenly over
//! `{"threads": T}` threads (default 1), each counting its own CPU clock, and
//! answers `{"cpu_ms": used}`: a fixed amount of work whose duration shows
//! the CPU the environment was given (the local cloud's CPU share tests).

use std::time::Duration;

use lambda_runtime::{service_fn, Error, LambdaEvent};
use serde_json::{json, Value};

/// CPU time of the calling thread, from its own CPU clock (nanoseconds;
/// `/proc`'s 10 ms ticks are too coarse for the work asked).
fn thread_cpu() -> Duration {
    let mut time = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `time` is a valid timespec to write into.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut time) };
    Duration::new(time.tv_sec as u64, time.tv_nsec as u32)
}

fn burn(work: Duration) -> Duration {
    let start = thread_cpu();
    let mut x = 1u64;
    while thread_cpu() - start < work {
        for _ in 0..1000 {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
    }
    thread_cpu() - start
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    lambda_runtime::run(service_fn(|event: LambdaEvent<Value>| async move {
        let work = test_functions::millis(&event.payload, "cpu_ms", 100);
        let threads = test_functions::millis(&event.payload, "threads", 1).max(1);
        let each = Duration::from_micros(work * 1000 / threads);
        let used: Duration = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads)
                .map(|_| scope.spawn(move || burn(each)))
                .collect();
            workers
                .into_iter()
                .map(|w| w.join().unwrap_or_default())
                .sum()
        });
        Ok::<_, Error>(json!({ "cpu_ms": used.as_secs_f64() * 1000.0 }))
    }))
    .await
}
