//! One module per RealWorld resource; each parses its input, applies the rules and
//! shapes its response envelope.

pub mod articles;
pub mod comments;
pub mod profiles;
pub mod users;

use serde_json::Value;

/// A successful outcome: status and optional JSON body.
#[derive(Debug)]
pub struct Reply {
    pub status: http::StatusCode,
    pub body: Option<Value>,
}

impl Reply {
    pub fn ok(body: Value) -> Self {
        Self {
            status: http::StatusCode::OK,
            body: Some(body),
        }
    }

    pub fn created(body: Value) -> Self {
        Self {
            status: http::StatusCode::CREATED,
            body: Some(body),
        }
    }

    pub fn no_content() -> Self {
        Self {
            status: http::StatusCode::NO_CONTENT,
            body: None,
        }
    }
}
