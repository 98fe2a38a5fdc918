//! One stored object (a version of a key, in a versioned bucket).

use std::collections::BTreeMap;

use bytes::Bytes;
use chrono::{DateTime, Utc};
use md5::{Digest, Md5};

use crate::acl::Acl;

/// The version id of what is written while versioning is off or suspended.
pub const NULL_VERSION: &str = "null";

/// One stored object.
#[derive(Debug, Clone)]
pub struct Object {
    pub body: Bytes,
    /// Quoted, as S3 returns it: `"<md5 hex>"`, or `"<md5 of md5s>-<parts>"`.
    pub etag: String,
    pub last_modified: DateTime<Utc>,
    pub content_type: String,
    /// `x-amz-meta-*` headers, without the prefix.
    pub metadata: BTreeMap<String, String>,
    /// Object tags, in the order they were given.
    pub tags: Tags,
    /// `null` unless written to a bucket with versioning enabled.
    pub version_id: String,
    /// Set by `x-amz-acl` or PutObjectAcl; none reads as the owner's FULL_CONTROL.
    pub acl: Option<Acl>,
    /// The `x-amz-checksum-*` the upload sent, as (algorithm, value), stored unverified.
    pub checksum: Option<(String, String)>,
    /// Part numbers and sizes of an object made by a multipart upload.
    pub parts: Vec<(u32, usize)>,
}

/// An object's tags: (key, value) pairs with unique keys.
pub type Tags = Vec<(String, String)>;

impl Object {
    pub fn new(
        body: Bytes,
        content_type: Option<String>,
        metadata: BTreeMap<String, String>,
    ) -> Self {
        let etag = format!("\"{}\"", hex::encode(Md5::digest(&body)));
        Self {
            body,
            etag,
            last_modified: Utc::now(),
            content_type: content_type.unwrap_or_else(|| "binary/octet-stream".into()),
            metadata,
            tags: Tags::new(),
            version_id: NULL_VERSION.to_string(),
            acl: None,
            checksum: None,
            parts: Vec::new(),
        }
    }
}
