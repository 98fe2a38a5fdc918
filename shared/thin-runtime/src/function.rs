//! What a function is to the runtime: an answer to one event, or an error
//! document for the Runtime API.

use std::future::Future;

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
