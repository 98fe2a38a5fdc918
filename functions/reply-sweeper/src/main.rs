//! Deletes the reply queues that request/reply callers' environments left
//! behind when they went away, on a schedule (the `Schedule` event of
//! `OrdersReplySweeperFunction` and `ConduitMicroQueueReplySweeperFunction` in
//! template.yaml), so that no caller's request pays for the clean-up
//! (`transport::sweep`). Any event starts one sweep.

use lambda_runtime::{run, service_fn, Error, LambdaEvent};
use serde_json::{json, Value};
use transport::sweep::{delete_stale_reply_queues, SweeperSettings};

// As every function of the template (docs/benchmarks.md, "CPU per request").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

// On `lambda_runtime`, as the orders functions whose reply queues it sweeps
// too, not `thin_runtime`: it runs every 15 minutes, off every request's path,
// where the thin runtime's measured gain (about 0.2 ms an invocation after idle
// time, docs/benchmarks.md) is nothing, and no measurement of its own says move.
#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    sdk_config::init_logs();
    let settings = SweeperSettings::from_env()?;
    let config = sdk_config::load().await;
    let sqs = aws_sdk_sqs::Client::new(&config);
    let (settings, sqs) = (&settings, &sqs);
    run(service_fn(move |_event: LambdaEvent<Value>| async move {
        let swept =
            delete_stale_reply_queues(sqs, &settings.prefixes, settings.stale_after).await?;
        Ok::<_, Error>(json!({"seen": swept.seen, "deleted": swept.deleted.len()}))
    }))
    .await
}
