//! The one error type of the API layer and its mapping to RealWorld error bodies
//! (`{"errors": {"<key>": ["<message>"]}}`).

use std::collections::BTreeMap;

use http::StatusCode;

use crate::store::StoreError;

/// Field name -> messages, the shape of RealWorld's `GenericErrorModel`.
pub type FieldErrors = BTreeMap<String, Vec<String>>;

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// 401: no token, a malformed, forged or expired token, or bad credentials.
    #[error("unauthorized: {key} {message}")]
    Unauthorized {
        key: &'static str,
        message: &'static str,
    },
    /// 403: the caller is not the author of the resource.
    #[error("forbidden: {0}")]
    Forbidden(&'static str),
    /// 404: the key names the resource type (article, profile, comment).
    #[error("not found: {0}")]
    NotFound(&'static str),
    /// 409: a unique field is already taken.
    #[error("conflict: {0} has already been taken")]
    Conflict(&'static str),
    /// 422: the body or a parameter is invalid.
    #[error("unprocessable: {0:?}")]
    Unprocessable(FieldErrors),
    /// 413: body larger than we accept.
    #[error("payload too large")]
    PayloadTooLarge,
    /// No route for this path.
    #[error("no route")]
    NoRoute,
    /// A route exists for the path but not for this method.
    #[error("method not allowed")]
    MethodNotAllowed,
    /// Anything else; logged, never shown to the client.
    #[error("internal error: {0}")]
    Internal(#[source] Box<dyn std::error::Error + Send + Sync>),
}

impl ApiError {
    pub fn missing_token() -> Self {
        Self::Unauthorized {
            key: "token",
            message: "is missing",
        }
    }

    pub fn invalid_token() -> Self {
        Self::Unauthorized {
            key: "token",
            message: "is invalid",
        }
    }

    pub fn invalid_credentials() -> Self {
        Self::Unauthorized {
            key: "credentials",
            message: "invalid",
        }
    }

    /// A 422 with one message for one field.
    pub fn field(field: &str, message: &str) -> Self {
        let mut errors = FieldErrors::new();
        errors.insert(field.to_owned(), vec![message.to_owned()]);
        Self::Unprocessable(errors)
    }

    pub fn internal(source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Self::Internal(source.into())
    }

    pub fn status_code(&self) -> StatusCode {
        match self {
            Self::Unauthorized { .. } => StatusCode::UNAUTHORIZED,
            Self::Forbidden(_) => StatusCode::FORBIDDEN,
            Self::NotFound(_) | Self::NoRoute => StatusCode::NOT_FOUND,
            Self::Conflict(_) => StatusCode::CONFLICT,
            Self::Unprocessable(_) => StatusCode::UNPROCESSABLE_ENTITY,
            Self::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Self::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            Self::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The client-facing body; internal details are deliberately absent.
    pub fn body(&self) -> serde_json::Value {
        let errors: FieldErrors = match self {
            Self::Unauthorized { key, message } => one(key, message),
            Self::Forbidden(resource) => one(resource, "forbidden"),
            Self::NotFound(resource) => one(resource, "not found"),
            Self::Conflict(field) => one(field, "has already been taken"),
            Self::Unprocessable(errors) => errors.clone(),
            Self::PayloadTooLarge => one("body", "is too large"),
            Self::NoRoute => one("path", "not found"),
            Self::MethodNotAllowed => one("method", "not allowed"),
            Self::Internal(_) => one("body", "internal error"),
        };
        serde_json::json!({ "errors": errors })
    }
}

fn one(key: &str, message: &str) -> FieldErrors {
    let mut errors = FieldErrors::new();
    errors.insert(key.to_owned(), vec![message.to_owned()]);
    errors
}

impl From<StoreError> for ApiError {
    fn from(err: StoreError) -> Self {
        match err {
            StoreError::Taken(field) => Self::Conflict(field),
            StoreError::NotFound(resource) => Self::NotFound(resource),
            StoreError::Backend(source) => Self::Internal(source),
        }
    }
}
