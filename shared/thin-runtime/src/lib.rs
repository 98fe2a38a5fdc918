//! A thin Lambda runtime for functions that handle one event at a time.
//!
//! `lambda_runtime` drives the Runtime API through hyper and tower on the
//! Tokio runtime, so that waiting for the next event is itself a task: after
//! every idle gap the whole async stack wakes up. Here the wait is a blocking
//! read on one keep-alive connection, and the Tokio runtime (one thread) runs
//! only while a handler does. On the local cloud this took a no-op HTTP
//! function from 0.53 to 0.13 ms of CPU per invocation after 20 ms idle
//! (docs/benchmarks.md, "The floor of an invocation").
//!
//! Between invocations nothing runs, as in a frozen Lambda environment: tasks
//! a handler spawned and left behind go on during the next invocation.

mod runtime_api;

use std::future::Future;
use std::panic::AssertUnwindSafe;

pub use runtime_api::{Invocation, RuntimeApi};

/// A function: what it answers to one event.
pub trait Function {
    /// The response document for `event`, or the error Lambda reports to the
    /// invoker (`Unhandled`, with this type and message).
    fn invoke(&self, event: &[u8]) -> impl Future<Output = Result<Vec<u8>, FunctionError>>;
}

/// An error a function reports: the Runtime API's error document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionError {
    pub error_type: String,
    pub error_message: String,
}

impl FunctionError {
    pub fn new(error_type: impl Into<String>, error_message: impl Into<String>) -> Self {
        Self {
            error_type: error_type.into(),
            error_message: error_message.into(),
        }
    }

    /// The INIT error of a function whose configuration is wrong; the type
    /// is one the Runtime API page gives as an example.
    pub fn config_invalid(problem: impl std::fmt::Display) -> Self {
        Self::new("Runtime.ConfigInvalid", problem.to_string())
    }
}

impl std::fmt::Display for FunctionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.error_type, self.error_message)
    }
}

impl std::error::Error for FunctionError {}

/// Why the runtime stopped.
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    #[error("{0}")]
    Config(String),
    #[error("{context}: {source}")]
    Io {
        context: String,
        source: std::io::Error,
    },
    #[error("the Runtime API answered {status} to {what}: {body}")]
    Refused {
        what: String,
        status: u16,
        body: String,
    },
    #[error("the Runtime API broke the protocol: {0}")]
    Protocol(String),
    #[error("init failed: {0}")]
    Init(FunctionError),
}

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
