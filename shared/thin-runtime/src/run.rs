//! The runtime's loop: INIT, then one invocation at a time, each answered
//! or failed on the Runtime API.

use std::future::Future;
use std::panic::AssertUnwindSafe;

use crate::error::RuntimeError;
use crate::function::{Function, FunctionError};
use crate::runtime_api::RuntimeApi;

/// Runs `init` (the INIT phase), then serves events until the Runtime API
/// goes away. An `init` error is posted to `/runtime/init/error` and ends the
/// process, as Lambda expects of a runtime.
pub fn run<F: Function>(
    init: impl Future<Output = Result<F, FunctionError>>,
) -> Result<(), RuntimeError> {
    run_with(RuntimeApi::from_env()?, init)
}

/// [`run`] on a given Runtime API.
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
    let function = match tokio.block_on(init) {
        Ok(function) => function,
        Err(error) => {
            api.fail_init(&error)?;
            return Err(RuntimeError::Init(error));
        }
    };
    loop {
        let invocation = api.next_invocation()?;
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
            Err(RuntimeError::Refused { status: 500, .. }) | Err(RuntimeError::Io { .. }) => {
                return posted
            }
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
