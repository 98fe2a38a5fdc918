//! The runtime's loop: INIT, then invocations, each answered or failed on
//! the Runtime API; one at a time (on-demand Lambda) or as many at once as
//! `AWS_LAMBDA_MAX_CONCURRENCY` says (Lambda Managed Instances).

use std::future::Future;
use std::panic::AssertUnwindSafe;

use crate::concurrent::{self, BlockOn};
use crate::error::RuntimeError;
use crate::function::{Function, FunctionError};
use crate::runtime_api::RuntimeApi;

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

/// The INIT phase on `tokio`; its error posted to the Runtime API.
pub(crate) fn initialise<F>(
    api: &mut RuntimeApi,
    tokio: &tokio::runtime::Runtime,
    init: impl Future<Output = Result<F, FunctionError>>,
) -> Result<F, RuntimeError> {
    match tokio.block_on(init) {
        Ok(function) => Ok(function),
        Err(error) => {
            api.fail_init(&error)?;
            Err(RuntimeError::Init(error))
        }
    }
}

/// Serves invocations from `api` until one of them leaves the runtime in a
/// state it cannot go on from; that error.
pub(crate) fn serve<F: Function>(
    api: &mut RuntimeApi,
    function: &F,
    tokio: &impl BlockOn,
) -> RuntimeError {
    loop {
        let invocation = match api.next_invocation() {
            Ok(invocation) => invocation,
            Err(error) => return error,
        };
        let _span = tracing::info_span!("invoke", requestId = %invocation.request_id).entered();
        let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
            tokio.block_on(function.invoke(&invocation.event))
        }))
        .unwrap_or_else(|panic| Err(panicked(panic)));
        let posted = match outcome {
            Ok(response) => api.respond(&invocation.request_id, &response),
            Err(error) => api.fail(&invocation.request_id, &error),
        };
        match posted {
            // "Non-recoverable state. Runtime should exit promptly." (Runtime API page)
            Err(error @ RuntimeError::Refused { status: 500, .. })
            | Err(error @ RuntimeError::Io { .. }) => return error,
            // A refused answer (too large, already answered) fails this
            // invocation only; Lambda reports it to the invoker.
            Err(e) => tracing::error!("{e}"),
            Ok(()) => {}
        }
    }
}

/// The panic as an invocation error (the default hook has printed it already).
fn panicked(panic: Box<dyn std::any::Any + Send>) -> FunctionError {
    let message = panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "the handler panicked".into());
    FunctionError::new("Runtime.HandlerPanic", message)
}
