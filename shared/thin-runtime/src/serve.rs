//! What both modes do: INIT, and the loop of one poller (wait for an
//! invocation, run its handler, post its outcome).

use std::future::Future;
use std::panic::AssertUnwindSafe;

use crate::error::RuntimeError;
use crate::function::{Function, FunctionError};
use crate::runtime_api::RuntimeApi;

/// What runs a handler's future to its end on the calling thread.
pub(crate) trait BlockOn {
    fn block_on<T>(&self, future: impl Future<Output = T>) -> T;
}

impl BlockOn for tokio::runtime::Runtime {
    fn block_on<T>(&self, future: impl Future<Output = T>) -> T {
        tokio::runtime::Runtime::block_on(self, future)
    }
}

impl BlockOn for tokio::runtime::Handle {
    fn block_on<T>(&self, future: impl Future<Output = T>) -> T {
        tokio::runtime::Handle::block_on(self, future)
    }
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
