//! Burns `{"cpu_ms": M}` milliseconds of CPU (default 100) on one long-lived
//! thread named [`THREAD`] (as the Conduit functions hash passwords on their
//! `argon2` thread), then sleeps `{"ms": N}` milliseconds (default 0) and
//! answers `{"thread_cpu_ms": T}`: the thread's CPU time so far as the kernel
//! counts it (`/proc/thread-self/stat`), which the local cloud's metering
//! must show at least.

use std::sync::mpsc;
use std::sync::OnceLock;
use std::time::Duration;

use lambda_runtime::{service_fn, Error, LambdaEvent};
use localcloud_core::procstat::own_thread_cpu_ms;
use serde_json::{json, Value};
use tokio::sync::oneshot;

const THREAD: &str = "burner";

/// Milliseconds to burn, and where to send the thread's CPU time after.
type Job = (f64, oneshot::Sender<f64>);

fn burner() -> &'static mpsc::Sender<Job> {
    static BURNER: OnceLock<mpsc::Sender<Job>> = OnceLock::new();
    BURNER.get_or_init(|| {
        let (jobs, queue) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name(THREAD.into())
            .spawn(move || {
                for (ms, reply) in queue {
                    let until = own_thread_cpu_ms().unwrap_or(0.0) + ms;
                    let mut now = own_thread_cpu_ms().unwrap_or(until);
                    while now < until {
                        now = own_thread_cpu_ms().unwrap_or(until);
                    }
                    let _ = reply.send(now);
                }
            })
            .expect("spawn the burner thread");
        jobs
    })
}

#[tokio::main]
async fn main() -> Result<(), Error> {
    lambda_runtime::run(service_fn(|event: LambdaEvent<Value>| async move {
        let burn = test_functions::millis(&event.payload, "cpu_ms", 100) as f64;
        let (reply, answer) = oneshot::channel();
        burner()
            .send((burn, reply))
            .map_err(|_| "the burner thread is gone")?;
        let thread_cpu_ms = answer.await?;
        let ms = test_functions::millis(&event.payload, "ms", 0);
        tokio::time::sleep(Duration::from_millis(ms)).await;
        Ok::<_, Error>(json!({ "thread_cpu_ms": thread_cpu_ms, "thread": THREAD }))
    }))
    .await
}
