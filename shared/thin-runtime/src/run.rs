//! The runtime's loop: INIT, then invocations, each answered or failed on
//! the Runtime API; one at a time (on-demand Lambda) or as many at once as
//! `AWS_LAMBDA_MAX_CONCURRENCY` says (Lambda Managed Instances).

use std::future::Future;

use crate::concurrent;
use crate::error::RuntimeError;
use crate::function::{Function, FunctionError};
use crate::runtime_api::RuntimeApi;
use crate::serve::{initialise, serve};

/// Runs `init` (the INIT phase), then serves events until the Runtime API
/// goes away. An `init` error is posted to `/runtime/init/error` and ends the
/// process, as Lambda expects of a runtime. On Lambda Managed Instances,
/// which sets `AWS_LAMBDA_MAX_CONCURRENCY`, that many invocations are served
/// at once ([`concurrent::run_concurrent_with`]); without it, one at a time.
pub fn run<F: Function + Sync + 'static>(
    init: impl Future<Output = Result<F, FunctionError>>,
) -> Result<(), RuntimeError> {
    let api = RuntimeApi::from_env()?;
    match concurrent::max_concurrency_from_env()? {
        Some(pollers) => concurrent::run_concurrent_with(api, pollers, init),
        None => run_with(api, init),
    }
}

/// [`run`] on a given Runtime API, one invocation at a time.
pub fn run_with<F: Function>(
    mut api: RuntimeApi,
    init: impl Future<Output = Result<F, FunctionError>>,
) -> Result<(), RuntimeError> {
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|source| RuntimeError::Io {
            context: "starting the Tokio runtime".into(),
            source,
        })?;
    let function = initialise(&mut api, &tokio, init)?;
    Err(serve(&mut api, &function, &tokio))
}
