//! Buckets, objects and multipart uploads, and the rules S3 applies to them.

use std::collections::BTreeMap;

use bytes::{Bytes, BytesMut};
use chrono::{DateTime, Utc};
use md5::{Digest, Md5};

use crate::acl::{ownership_controls, Acl, DEFAULT_OWNERSHIP};
use crate::error::S3Error;
pub use crate::object::{Object, Tags};
use crate::version::{rolled_up, Version, Versioning};

/// Settings stored as sent (the XML or JSON body of the `Put*` call).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Setting {
    Policy,
    Versioning,
    Encryption,
    Tagging,
    PublicAccessBlock,
    OwnershipControls,
    Acl,
}

impl Setting {
    /// The query flag that names it (`?policy`).
    pub fn from_query(flag: &str) -> Option<Self> {
        Some(match flag {
            "policy" => Self::Policy,
            "versioning" => Self::Versioning,
            "encryption" => Self::Encryption,
            "tagging" => Self::Tagging,
            "publicAccessBlock" => Self::PublicAccessBlock,
            "ownershipControls" => Self::OwnershipControls,
            "acl" => Self::Acl,
            _ => return None,
        })
    }

    /// The error of a `Get*` for a setting never put.
    pub fn missing(self, bucket: &str) -> S3Error {
        let (status, code, message) = match self {
            Self::Policy => (
                404,
                "NoSuchBucketPolicy",
                "The bucket policy does not exist",
            ),
            Self::Encryption => (
                404,
                "ServerSideEncryptionConfigurationNotFoundError",
                "The server side encryption configuration was not found",
            ),
            Self::Tagging => (404, "NoSuchTagSet", "The TagSet does not exist"),
            Self::PublicAccessBlock => (
                404,
                "NoSuchPublicAccessBlockConfiguration",
                "The public access block configuration was not found",
            ),
            Self::OwnershipControls => (
                404,
                "OwnershipControlsNotFoundError",
                "The bucket ownership controls were not found",
            ),
            Self::Versioning | Self::Acl => (
                404,
                "NoSuchConfiguration",
                "The configuration does not exist",
            ),
        };
        S3Error::new(status, code, message).with("BucketName", bucket)
    }
}

#[derive(Debug, Clone)]
pub struct Bucket {
    pub name: String,
    pub region: String,
    pub created: DateTime<Utc>,
    pub settings: BTreeMap<Setting, Bytes>,
    pub versioning: Versioning,
    /// Set by PutBucketAcl; none reads as the owner's FULL_CONTROL.
    pub acl: Option<Acl>,
    /// Each key's versions, newest first (versions.rs).
    pub objects: BTreeMap<String, Vec<Version>>,
    pub uploads: BTreeMap<String, Upload>,
}

/// A multipart upload in progress.
#[derive(Debug, Clone)]
pub struct Upload {
    pub key: String,
    pub content_type: Option<String>,
    pub metadata: BTreeMap<String, String>,
    pub parts: BTreeMap<u32, Object>,
    pub initiated: DateTime<Utc>,
    /// The `x-amz-acl` of CreateMultipartUpload, for the object.
    pub acl: Option<Acl>,
}

/// Bucket names: 3-63 lower-case letters, digits, dots and hyphens,
/// starting and ending with a letter or digit, not an IP address.
/// https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html
pub fn valid_bucket_name(name: &str) -> bool {
    let edge_ok = |b: Option<&u8>| b.is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    (3..=63).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.' || b == b'-')
        && edge_ok(name.as_bytes().first())
        && edge_ok(name.as_bytes().last())
        && !name.contains("..")
        && name.parse::<std::net::Ipv4Addr>().is_err()
}

/// One page of `ListObjectsV2`.
#[derive(Debug, Default, PartialEq)]
pub struct Listing {
    pub keys: Vec<String>,
    pub common_prefixes: Vec<String>,
    /// The last key or prefix returned, when more follow.
    pub next_after: Option<String>,
}

impl Bucket {
    pub fn new(name: &str, region: &str) -> Self {
        // New buckets have ACLs disabled (Object Ownership BucketOwnerEnforced).
        let settings = BTreeMap::from([(
            Setting::OwnershipControls,
            Bytes::from(ownership_controls(DEFAULT_OWNERSHIP)),
        )]);
        Self {
            name: name.to_string(),
            region: region.to_string(),
            created: Utc::now(),
            settings,
            versioning: Versioning::default(),
            acl: None,
            objects: BTreeMap::new(),
            uploads: BTreeMap::new(),
        }
    }

    /// Keys with a current object (not hidden by a delete marker) after
    /// `after` that start with `prefix`, rolled up at the first
    /// `delimiter` after the prefix, at most `max` entries.
    pub fn list(
        &self,
        prefix: &str,
        delimiter: Option<&str>,
        after: Option<&str>,
        max: usize,
    ) -> Listing {
        let mut listing = Listing::default();
        let start = after.unwrap_or("");
        for key in self
            .objects
            .keys()
            .filter(|k| k.as_str() > start && k.starts_with(prefix) && self.current(k).is_some())
        {
            let rolled = rolled_up(key, prefix, delimiter);
            if let Some(common) = &rolled {
                if listing.common_prefixes.last() == Some(common)
                    || after.is_some_and(|a| a.starts_with(common.as_str()))
                {
                    continue;
                }
            }
            if listing.keys.len() + listing.common_prefixes.len() == max {
                let last = listing
                    .keys
                    .last()
                    .max(listing.common_prefixes.last())
                    .cloned();
                listing.next_after = last;
                break;
            }
            match rolled {
                Some(common) => listing.common_prefixes.push(common),
                None => listing.keys.push(key.clone()),
            }
        }
        listing
    }

    pub fn upload(&mut self, key: &str, upload_id: &str) -> Result<&mut Upload, S3Error> {
        self.uploads
            .get_mut(upload_id)
            .filter(|u| u.key == key)
            .ok_or_else(|| S3Error::no_such_upload(upload_id))
    }

    /// Joins the listed parts into the object. Every part but the last must
    /// be at least 5 MiB (EntityTooSmall), listed in ascending order
    /// (InvalidPartOrder), and uploaded with the given ETag (InvalidPart).
    /// https://docs.aws.amazon.com/AmazonS3/latest/API/API_CompleteMultipartUpload.html
    pub fn complete(
        &mut self,
        key: &str,
        upload_id: &str,
        listed: &[(u32, String)],
    ) -> Result<Object, S3Error> {
        const MIN_PART: usize = 5 * 1024 * 1024;
        let upload = self.upload(key, upload_id)?;
        if listed.is_empty() {
            return Err(S3Error::malformed_xml());
        }
        if listed.windows(2).any(|w| w[0].0 >= w[1].0) {
            return Err(S3Error::new(
                400,
                "InvalidPartOrder",
                "The list of parts was not in ascending order. Parts must be ordered by part number.",
            ));
        }
        let mut body = BytesMut::new();
        let mut digests = Vec::new();
        let mut sizes = Vec::new();
        for (i, (number, etag)) in listed.iter().enumerate() {
            let part = upload
                .parts
                .get(number)
                .filter(|p| p.etag.trim_matches('"') == etag.trim_matches('"'))
                .ok_or_else(|| {
                    S3Error::new(
                        400,
                        "InvalidPart",
                        "One or more of the specified parts could not be found. The part may not have been uploaded, or the specified entity tag may not match the part's entity tag.",
                    )
                    .with("PartNumber", number.to_string())
                })?;
            if i + 1 < listed.len() && part.body.len() < MIN_PART {
                return Err(S3Error::new(
                    400,
                    "EntityTooSmall",
                    "Your proposed upload is smaller than the minimum allowed object size.",
                ));
            }
            body.extend_from_slice(&part.body);
            sizes.push((*number, part.body.len()));
            digests.extend(Md5::digest(&part.body));
        }
        let upload = self.uploads.remove(upload_id).expect("upload found above");
        let mut object = Object::new(body.freeze(), upload.content_type, upload.metadata);
        object.acl = upload.acl;
        object.parts = sizes;
        object.etag = format!(
            "\"{}-{}\"",
            hex::encode(Md5::digest(&digests)),
            listed.len()
        );
        Ok(self.put(key, object))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bucket_with(keys: &[&str]) -> Bucket {
        let mut b = Bucket::new("b", "us-east-1");
        for k in keys {
            b.put(
                k,
                Object::new(Bytes::from_static(b"x"), None, BTreeMap::new()),
            );
        }
        b
    }

    #[test]
    fn bucket_names_follow_the_naming_rules() {
        for ok in [
            "abc",
            "my-bucket.1",
            "aws-sam-cli-managed-default-samclisourcebucket-1x2",
        ] {
            assert!(valid_bucket_name(ok), "{ok}");
        }
        for bad in [
            "ab",
            "Upper",
            "-start",
            "end-",
            "a..b",
            "192.168.1.1",
            "under_score",
            &"a".repeat(64),
        ] {
            assert!(!valid_bucket_name(bad), "{bad}");
        }
    }

    #[test]
    fn listing_rolls_keys_up_at_the_delimiter_and_pages() {
        let b = bucket_with(&["a/1", "a/2", "b", "c/x/y", "d"]);
        let all = b.list("", Some("/"), None, 1000);
        assert_eq!(all.keys, vec!["b", "d"]);
        assert_eq!(all.common_prefixes, vec!["a/", "c/"]);
        assert_eq!(all.next_after, None);

        let page = b.list("", Some("/"), None, 2);
        assert_eq!(
            (page.keys.clone(), page.common_prefixes.clone()),
            (vec!["b".to_string()], vec!["a/".to_string()])
        );
        let next = b.list("", Some("/"), page.next_after.as_deref(), 2);
        assert_eq!(next.common_prefixes, vec!["c/"]);
        assert_eq!(next.keys, vec!["d"]);

        let under = b.list("a/", None, None, 1000);
        assert_eq!(under.keys, vec!["a/1", "a/2"]);

        // A key hidden by a delete marker is not listed.
        let mut versioned = bucket_with(&["k", "l"]);
        versioned.versioning = Versioning::Enabled;
        versioned.delete("k", None);
        assert_eq!(versioned.list("", None, None, 1000).keys, vec!["l"]);
    }

    #[test]
    fn completing_joins_parts_and_gives_a_multipart_etag() {
        let mut b = Bucket::new("b", "us-east-1");
        let mut upload = Upload {
            key: "k".into(),
            content_type: None,
            metadata: BTreeMap::new(),
            parts: BTreeMap::new(),
            initiated: Utc::now(),
            acl: None,
        };
        let big = Object::new(
            Bytes::from(vec![1u8; 5 * 1024 * 1024]),
            None,
            BTreeMap::new(),
        );
        let small = Object::new(Bytes::from_static(b"tail"), None, BTreeMap::new());
        let listed = vec![(1, big.etag.clone()), (2, small.etag.clone())];
        upload.parts.insert(1, big);
        upload.parts.insert(2, small);
        b.uploads.insert("u".into(), upload.clone());

        assert_eq!(
            b.complete(
                "k",
                "u",
                &[(2, listed[1].1.clone()), (1, listed[0].1.clone())]
            )
            .unwrap_err()
            .code,
            "InvalidPartOrder"
        );
        assert_eq!(
            b.complete("k", "u", &[(1, "\"nope\"".into())])
                .unwrap_err()
                .code,
            "InvalidPart"
        );
        assert_eq!(
            b.complete("other", "u", &listed).unwrap_err().code,
            "NoSuchUpload"
        );

        let object = b.complete("k", "u", &listed).unwrap();
        assert_eq!(object.body.len(), 5 * 1024 * 1024 + 4);
        assert!(object.etag.ends_with("-2\""), "{}", object.etag);
        assert_eq!(object.parts, vec![(1, 5 * 1024 * 1024), (2, 4)]);
        assert!(b.uploads.is_empty());
        assert!(b.objects.contains_key("k"));
    }

    #[test]
    fn a_small_part_before_the_last_is_too_small() {
        let mut b = Bucket::new("b", "us-east-1");
        let part = Object::new(Bytes::from_static(b"tiny"), None, BTreeMap::new());
        let etag = part.etag.clone();
        let mut parts = BTreeMap::new();
        parts.insert(1, part.clone());
        parts.insert(2, part);
        b.uploads.insert(
            "u".into(),
            Upload {
                key: "k".into(),
                content_type: None,
                metadata: BTreeMap::new(),
                parts,
                initiated: Utc::now(),
                acl: None,
            },
        );
        let err = b
            .complete("k", "u", &[(1, etag.clone()), (2, etag)])
            .unwrap_err();
        assert_eq!(err.code, "EntityTooSmall");
    }
}
