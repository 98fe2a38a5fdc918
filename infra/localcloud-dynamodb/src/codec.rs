//! Request and response bodies: JSON in, JSON out, with the errors AWS gives for
//! a body it cannot read.

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::{DdbError, DdbResult};

/// Decodes a request body. Malformed JSON and members of the wrong JSON type
/// are SerializationExceptions; invalid attribute values are ValidationExceptions.
pub(crate) fn decode<T: DeserializeOwned>(body: &[u8]) -> DdbResult<T> {
    let body = if body.is_empty() {
        b"{}".as_slice()
    } else {
        body
    };
    serde_json::from_slice(body).map_err(|e| {
        let text = e.to_string();
        let message = match text.rfind(" at line ") {
            Some(at) => text[..at].to_string(),
            None => text,
        };
        let structural = e.is_syntax()
            || e.is_eof()
            || message.starts_with("invalid type")
            || message.starts_with("invalid length")
            || message.starts_with("expected ");
        if structural {
            DdbError::Serialization(message)
        } else {
            DdbError::Validation(message)
        }
    })
}

pub(crate) fn encode<T: Serialize>(out: &T) -> DdbResult<Vec<u8>> {
    serde_json::to_vec(out).map_err(|e| DdbError::Internal(e.to_string()))
}
