//! Lambda Managed Instances: one execution environment serves many
//! invocations at once. Lambda says how many in `AWS_LAMBDA_MAX_CONCURRENCY`
//! and expects the runtime to poll `/next` from that many workers
//! (https://docs.aws.amazon.com/lambda/latest/dg/lambda-managed-instances-execution-environment.html).
//!
//! Each worker is a thread of its own with its own keep-alive connection, as
//! in the one-at-a-time loop, and polls its handler's future with
//! `Handle::block_on`, so handlers run in parallel on as many threads as
//! invocations are in flight. One Tokio worker thread drives the I/O and the
//! tasks handlers leave behind (the SDK's connections), busy or not.

use std::future::Future;
use std::sync::mpsc;

use crate::error::RuntimeError;
use crate::function::{Function, FunctionError};
use crate::runtime_api::RuntimeApi;
use crate::serve::{initialise, serve};

/// `AWS_LAMBDA_MAX_CONCURRENCY` when it asks for more than one invocation
/// at a time; `None` (one at a time) when it is unset, 0 or 1.
pub fn max_concurrency_from_env() -> Result<Option<usize>, RuntimeError> {
    max_concurrency(std::env::var("AWS_LAMBDA_MAX_CONCURRENCY").ok().as_deref())
}

fn max_concurrency(value: Option<&str>) -> Result<Option<usize>, RuntimeError> {
    let Some(value) = value else {
        return Ok(None);
    };
    let pollers: usize = value.trim().parse().map_err(|_| {
        RuntimeError::Config(format!(
            "AWS_LAMBDA_MAX_CONCURRENCY is `{value}`, not a number of invocations"
        ))
    })?;
    Ok((pollers > 1).then_some(pollers))
}

/// Runs `init`, then serves up to `pollers` invocations at once until one
/// poller meets an error the runtime cannot go on from (the Runtime API
/// gone, or its 500): that error, and the process ends as Lambda expects.
/// A handler's error or panic fails its own invocation only.
pub fn run_concurrent_with<F: Function + Sync + 'static>(
    mut api: RuntimeApi,
    pollers: usize,
    init: impl Future<Output = Result<F, FunctionError>>,
) -> Result<(), RuntimeError> {
    let io = |context: &str| {
        let context = context.to_owned();
        move |source| RuntimeError::Io { context, source }
    };
    let tokio = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(io("starting the Tokio runtime"))?;
    let function = initialise(&mut api, &tokio, init)?;
    // The function lives as long as the process: the pollers share it.
    let function: &'static F = Box::leak(Box::new(function));
    let (stopped, first_stop) = mpsc::channel();
    for n in 0..pollers {
        let mut api = api.sibling();
        let (handle, stopped) = (tokio.handle().clone(), stopped.clone());
        std::thread::Builder::new()
            .name(format!("poller-{n}"))
            .spawn(move || {
                let _ = stopped.send(serve(&mut api, function, &handle));
            })
            .map_err(io("starting a poller thread"))?;
    }
    drop(stopped);
    let error = first_stop.recv().unwrap_or_else(|_| {
        RuntimeError::Protocol("every poller thread ended without an error".into())
    });
    // The other pollers may be waiting on `/next`: the process ends with them.
    tokio.shutdown_background();
    Err(error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn more_than_one_invocation_at_a_time_only_when_lambda_asks_for_it() {
        assert_eq!(max_concurrency(None).unwrap(), None);
        assert_eq!(max_concurrency(Some("1")).unwrap(), None);
        assert_eq!(max_concurrency(Some("0")).unwrap(), None);
        assert_eq!(max_concurrency(Some("16")).unwrap(), Some(16));
        let error = max_concurrency(Some("many")).unwrap_err();
        assert!(error.to_string().contains("`many`"), "{error}");
    }
}
