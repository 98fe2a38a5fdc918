//! A key's versions and its bucket's versioning state: the types the store
//! keeps (what writes and deletes do to them is `versions`).
//! https://docs.aws.amazon.com/AmazonS3/latest/userguide/Versioning.html

use chrono::{DateTime, Utc};
use localcloud_core::xml::first;

use crate::error::S3Error;
use crate::object::Object;
pub use crate::object::NULL_VERSION;

/// A bucket's versioning state. Once enabled it can only be suspended,
/// never turned off again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Versioning {
    #[default]
    Unversioned,
    Enabled,
    Suspended,
}

impl Versioning {
    /// The `Status` of a `VersioningConfiguration`; `None` when the body
    /// names none (it may set only `MfaDelete`).
    /// https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutBucketVersioning.html
    pub fn parse(body: &[u8]) -> Result<Option<Self>, S3Error> {
        let body = std::str::from_utf8(body).map_err(|_| S3Error::malformed_xml())?;
        match first(body, "Status").as_deref() {
            None => Ok(None),
            Some("Enabled") => Ok(Some(Self::Enabled)),
            Some("Suspended") => Ok(Some(Self::Suspended)),
            Some(_) => Err(S3Error::malformed_xml()),
        }
    }

    /// The `Status` GetBucketVersioning answers; none for a bucket never versioned.
    pub fn status(self) -> Option<&'static str> {
        match self {
            Self::Unversioned => None,
            Self::Enabled => Some("Enabled"),
            Self::Suspended => Some("Suspended"),
        }
    }
}

/// One entry of a key's history: an object, or a delete marker.
/// https://docs.aws.amazon.com/AmazonS3/latest/userguide/DeleteMarker.html
// Most entries are objects; boxing them would cost an allocation each to
// make the rare delete marker smaller.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum Version {
    Object(Object),
    DeleteMarker {
        id: String,
        last_modified: DateTime<Utc>,
    },
}

impl Version {
    pub fn id(&self) -> &str {
        match self {
            Self::Object(o) => &o.version_id,
            Self::DeleteMarker { id, .. } => id,
        }
    }

    pub fn last_modified(&self) -> DateTime<Utc> {
        match self {
            Self::Object(o) => o.last_modified,
            Self::DeleteMarker { last_modified, .. } => *last_modified,
        }
    }
}

/// The common prefix `key` rolls up into: up to the first `delimiter`
/// after `prefix`.
pub(crate) fn rolled_up(key: &str, prefix: &str, delimiter: Option<&str>) -> Option<String> {
    let d = delimiter.filter(|d| !d.is_empty())?;
    key.get(prefix.len()..)?
        .find(d)
        .map(|i| key[..prefix.len() + i + d.len()].to_string())
}
