//! One module per RealWorld resource; each parses its input, applies the rules and
//! shapes its response envelope.

pub mod articles;
pub mod comments;
pub mod profiles;
pub mod users;

use serde::ser::{Serialize, SerializeMap, Serializer};

/// A successful outcome: status and optional JSON body, already serialised.
#[derive(Debug)]
pub struct Reply {
    pub status: http::StatusCode,
    pub body: Option<Vec<u8>>,
}

impl Reply {
    pub fn ok(body: impl Serialize) -> Self {
        Self::json(http::StatusCode::OK, body)
    }

    pub fn created(body: impl Serialize) -> Self {
        Self::json(http::StatusCode::CREATED, body)
    }

    pub fn no_content() -> Self {
        Self {
            status: http::StatusCode::NO_CONTENT,
            body: None,
        }
    }

    /// Straight to bytes: building a `serde_json::Value` first (`json!`) would
    /// copy every string of the views into small maps only to walk them again.
    fn json(status: http::StatusCode, body: impl Serialize) -> Self {
        Self {
            status,
            // Our views are maps with string keys: serialising them cannot fail.
            body: Some(serde_json::to_vec(&body).unwrap_or_default()),
        }
    }
}

/// `{"<key>": value}`, the envelope of most responses (`{"article": ...}`).
pub struct Keyed<T>(pub &'static str, pub T);

impl<T: Serialize> Serialize for Keyed<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry(self.0, &self.1)?;
        map.end()
    }
}
