//! The error of every expression language and the request parameter it names.

/// An expression problem; `message` is the ValidationException message.
#[derive(Debug, Clone, PartialEq)]
pub struct ExprError {
    pub message: String,
}

impl ExprError {
    pub fn new(message: impl Into<String>) -> Self {
        ExprError {
            message: message.into(),
        }
    }

    pub(crate) fn invalid(kind: ExpressionKind, message: impl std::fmt::Display) -> Self {
        ExprError::new(format!("Invalid {}: {message}", kind.name()))
    }
}

impl std::fmt::Display for ExprError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ExprError {}

/// Which request parameter an expression came from; it names the error prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExpressionKind {
    Condition,
    Filter,
    KeyCondition,
    Update,
    Projection,
}

impl ExpressionKind {
    pub fn name(self) -> &'static str {
        match self {
            ExpressionKind::Condition => "ConditionExpression",
            ExpressionKind::Filter => "FilterExpression",
            ExpressionKind::KeyCondition => "KeyConditionExpression",
            ExpressionKind::Update => "UpdateExpression",
            ExpressionKind::Projection => "ProjectionExpression",
        }
    }
}
