//! Why a policy document is refused: IAM's `MalformedPolicyDocument` at
//! deploy time, with where in the document it went wrong.

/// A policy document IAM would refuse. `at` names the statement (by index,
/// and `Sid` when it has one) or the document.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{at}: {message}")]
pub struct PolicyError {
    pub at: String,
    pub message: String,
}

impl PolicyError {
    pub fn new(at: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            at: at.into(),
            message: message.into(),
        }
    }
}
