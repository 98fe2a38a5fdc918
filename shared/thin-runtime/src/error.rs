//! Why the runtime stops.

use crate::function::FunctionError;

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
