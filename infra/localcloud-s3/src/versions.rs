//! Object versions: what writes, deletes and reads do to a key's history
//! under each versioning state of its bucket, and `ListObjectVersions`.
//! https://docs.aws.amazon.com/AmazonS3/latest/userguide/Versioning.html

use chrono::Utc;

use crate::error::S3Error;
use crate::store::{Bucket, Object};
pub(crate) use crate::version::rolled_up;
pub use crate::version::{Version, Versioning, NULL_VERSION};

/// What a `DeleteObject` did, for its response headers.
#[derive(Debug, Default, PartialEq)]
pub struct Deletion {
    /// The version removed or the delete marker written; `None` on a
    /// bucket never versioned.
    pub version_id: Option<String>,
    /// True when a delete marker was written or removed.
    pub delete_marker: bool,
}

/// One page of `ListObjectVersions`.
#[derive(Debug, Default)]
pub struct VersionListing<'b> {
    /// Key, version and whether it is the key's latest, newest first per key.
    pub entries: Vec<(&'b str, &'b Version, bool)>,
    pub common_prefixes: Vec<String>,
    /// Key (or common prefix) and version id of the last entry, when more follow.
    pub next: Option<(String, Option<String>)>,
}

fn new_version_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

fn no_such_version(key: &str, version_id: &str) -> S3Error {
    S3Error::new(
        404,
        "NoSuchVersion",
        "The specified version does not exist.",
    )
    .with("Key", key)
    .with("VersionId", version_id)
}

impl Bucket {
    /// Stores `object` as the key's newest version: a new version id when
    /// versioning is enabled, else the `null` version, which replaces the
    /// key's previous `null` version (the only one of a bucket never versioned).
    /// https://docs.aws.amazon.com/AmazonS3/latest/userguide/AddingObjectstoVersionSuspendedBuckets.html
    pub fn put(&mut self, key: &str, mut object: Object) -> Object {
        object.version_id = match self.versioning {
            Versioning::Enabled => new_version_id(),
            _ => NULL_VERSION.to_string(),
        };
        self.push_version(key, Version::Object(object.clone()));
        object
    }

    fn push_version(&mut self, key: &str, version: Version) {
        let history = self.objects.entry(key.to_string()).or_default();
        if version.id() == NULL_VERSION {
            history.retain(|v| v.id() != NULL_VERSION);
        }
        history.insert(0, version);
    }

    /// The version id to answer in `x-amz-version-id`: none on a bucket
    /// never versioned.
    pub fn shown_version_id(&self, id: &str) -> Option<String> {
        (self.versioning != Versioning::Unversioned).then(|| id.to_string())
    }

    /// The key's current object, if its latest version is not a delete marker.
    pub fn current(&self, key: &str) -> Option<&Object> {
        match self.objects.get(key)?.first()? {
            Version::Object(o) => Some(o),
            Version::DeleteMarker { .. } => None,
        }
    }

    /// Where the object a read names sits in the key's history: the latest
    /// version, or `version_id`. A delete marker answers as AWS documents
    /// for GetObject: 404 NoSuchKey when it is the latest, 405 when named.
    /// https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetObject.html
    fn locate(&self, key: &str, version_id: Option<&str>) -> Result<usize, S3Error> {
        let history = self.objects.get(key);
        let (index, version) = match version_id {
            None => history
                .and_then(|h| h.first())
                .map(|v| (0, v))
                .ok_or_else(|| S3Error::no_such_key(key))?,
            Some(id) => history
                .and_then(|h| h.iter().enumerate().find(|(_, v)| v.id() == id))
                .ok_or_else(|| no_such_version(key, id))?,
        };
        match version {
            Version::Object(_) => Ok(index),
            Version::DeleteMarker { id, last_modified } => {
                let error = match version_id {
                    None => S3Error::no_such_key(key),
                    Some(_) => S3Error::new(
                        405,
                        "MethodNotAllowed",
                        "The specified method is not allowed against this resource.",
                    )
                    .with("ResourceType", "DeleteMarker")
                    .with_header("allow", "DELETE")
                    .with_header("last-modified", crate::protocol::http_date(last_modified)),
                };
                Err(error
                    .with_header("x-amz-delete-marker", "true")
                    .with_header("x-amz-version-id", id.as_str()))
            }
        }
    }

    /// The object a read names (see [`Bucket::locate`]).
    pub fn object_version(&self, key: &str, version_id: Option<&str>) -> Result<&Object, S3Error> {
        let index = self.locate(key, version_id)?;
        match self.objects.get(key).and_then(|h| h.get(index)) {
            Some(Version::Object(o)) => Ok(o),
            _ => Err(S3Error::no_such_key(key)),
        }
    }

    /// The object a call changes (see [`Bucket::locate`]).
    fn object_version_mut(
        &mut self,
        key: &str,
        version_id: Option<&str>,
    ) -> Result<&mut Object, S3Error> {
        let index = self.locate(key, version_id)?;
        match self.objects.get_mut(key).and_then(|h| h.get_mut(index)) {
            Some(Version::Object(o)) => Ok(o),
            _ => Err(S3Error::no_such_key(key)),
        }
    }

    /// Changes the object a call names (its tags, its ACL); the version id
    /// its response shows.
    pub fn change_object(
        &mut self,
        key: &str,
        version_id: Option<&str>,
        change: impl FnOnce(&mut Object),
    ) -> Result<Option<String>, S3Error> {
        let object = self.object_version_mut(key, version_id)?;
        change(object);
        let id = object.version_id.clone();
        Ok(self.shown_version_id(&id))
    }

    /// `DeleteObject`. With a version id: removes that version for good
    /// (none such is no error). Without: a bucket never versioned forgets
    /// the key; a versioned one writes a delete marker, which with
    /// versioning suspended is the `null` version and replaces the old one.
    /// https://docs.aws.amazon.com/AmazonS3/latest/userguide/DeletingObjectVersions.html
    pub fn delete(&mut self, key: &str, version_id: Option<&str>) -> Deletion {
        match (version_id, self.versioning) {
            (Some(id), _) => {
                let mut removed = None;
                if let Some(history) = self.objects.get_mut(key) {
                    removed = history
                        .iter()
                        .position(|v| v.id() == id)
                        .map(|i| history.remove(i));
                    if history.is_empty() {
                        self.objects.remove(key);
                    }
                }
                Deletion {
                    version_id: Some(id.to_string()),
                    delete_marker: matches!(removed, Some(Version::DeleteMarker { .. })),
                }
            }
            (None, Versioning::Unversioned) => {
                self.objects.remove(key);
                Deletion::default()
            }
            (None, state) => {
                let id = if state == Versioning::Enabled {
                    new_version_id()
                } else {
                    NULL_VERSION.to_string()
                };
                self.push_version(
                    key,
                    Version::DeleteMarker {
                        id: id.clone(),
                        last_modified: Utc::now(),
                    },
                );
                Deletion {
                    version_id: Some(id),
                    delete_marker: true,
                }
            }
        }
    }

    /// Every version of the keys under `prefix`, by key and newest first,
    /// after `key_marker` (or after its version `version_marker`), rolled
    /// up at `delimiter`; at most `max` entries (a common prefix is one).
    /// https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectVersions.html
    pub fn list_versions(
        &self,
        prefix: &str,
        delimiter: Option<&str>,
        key_marker: Option<&str>,
        version_marker: Option<&str>,
        max: usize,
    ) -> Result<VersionListing<'_>, S3Error> {
        let mut listing = VersionListing::default();
        let mut last: Option<(String, Option<String>)> = None;
        for (key, history) in &self.objects {
            if !key.starts_with(prefix) {
                continue;
            }
            let start = match key_marker {
                Some(marker) if key.as_str() < marker => continue,
                Some(marker) if key == marker => match version_marker {
                    None => continue,
                    Some(v) => {
                        1 + history.iter().position(|x| x.id() == v).ok_or_else(|| {
                            S3Error::invalid_argument("Invalid version id specified")
                                .with("ArgumentName", "version-id-marker")
                                .with("ArgumentValue", v)
                        })?
                    }
                },
                _ => 0,
            };
            if let Some(common) = rolled_up(key, prefix, delimiter) {
                if listing.common_prefixes.last() == Some(&common)
                    || key_marker.is_some_and(|m| m.starts_with(common.as_str()))
                {
                    continue;
                }
                if listing.entries.len() + listing.common_prefixes.len() == max {
                    listing.next = last;
                    return Ok(listing);
                }
                last = Some((common.clone(), None));
                listing.common_prefixes.push(common);
                continue;
            }
            for (i, version) in history.iter().enumerate().skip(start) {
                if listing.entries.len() + listing.common_prefixes.len() == max {
                    listing.next = last;
                    return Ok(listing);
                }
                last = Some((key.clone(), Some(version.id().to_string())));
                listing.entries.push((key.as_str(), version, i == 0));
            }
        }
        Ok(listing)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use bytes::Bytes;

    use super::*;

    fn object(body: &'static str) -> Object {
        Object::new(Bytes::from_static(body.as_bytes()), None, BTreeMap::new())
    }

    fn bucket(versioning: Versioning) -> Bucket {
        let mut b = Bucket::new("b", "us-east-1");
        b.versioning = versioning;
        b
    }

    fn body_of(b: &Bucket, key: &str, version: Option<&str>) -> Result<Bytes, S3Error> {
        b.object_version(key, version).map(|o| o.body.clone())
    }

    #[test]
    fn an_unversioned_bucket_keeps_one_null_version_per_key() {
        let mut b = bucket(Versioning::Unversioned);
        assert_eq!(b.put("k", object("one")).version_id, "null");
        b.put("k", object("two"));
        assert_eq!(b.objects["k"].len(), 1);
        assert_eq!(body_of(&b, "k", Some("null")).unwrap(), "two");
        assert_eq!(b.shown_version_id("null"), None);
        assert_eq!(b.delete("k", None), Deletion::default());
        assert!(b.objects.is_empty());
    }

    #[test]
    fn an_enabled_bucket_keeps_every_version_and_hides_the_key_behind_a_delete_marker() {
        let mut b = bucket(Versioning::Enabled);
        let first = b.put("k", object("one")).version_id;
        let second = b.put("k", object("two")).version_id;
        assert_ne!(first, second);
        assert_eq!(body_of(&b, "k", None).unwrap(), "two");
        assert_eq!(body_of(&b, "k", Some(&first)).unwrap(), "one");

        let deletion = b.delete("k", None);
        assert!(deletion.delete_marker);
        let marker = deletion.version_id.unwrap();
        assert!(b.current("k").is_none());
        let hidden = body_of(&b, "k", None).unwrap_err();
        assert_eq!((hidden.status.as_u16(), hidden.code), (404, "NoSuchKey"));
        assert!(hidden
            .headers
            .contains(&("x-amz-delete-marker", "true".to_string())));
        let named = body_of(&b, "k", Some(&marker)).unwrap_err();
        assert_eq!(
            (named.status.as_u16(), named.code),
            (405, "MethodNotAllowed")
        );
        assert_eq!(
            body_of(&b, "k", Some("nope")).unwrap_err().code,
            "NoSuchVersion"
        );

        // Removing the marker brings the object back.
        let removed = b.delete("k", Some(&marker));
        assert!(removed.delete_marker);
        assert_eq!(body_of(&b, "k", None).unwrap(), "two");
        assert!(!b.delete("k", Some(&second)).delete_marker);
        assert_eq!(body_of(&b, "k", None).unwrap(), "one");
    }

    #[test]
    fn a_suspended_bucket_replaces_only_the_null_version() {
        let mut b = bucket(Versioning::Enabled);
        let kept = b.put("k", object("versioned")).version_id;
        b.versioning = Versioning::Suspended;
        assert_eq!(b.put("k", object("null one")).version_id, "null");
        b.put("k", object("null two"));
        let ids: Vec<_> = b.objects["k"].iter().map(|v| v.id().to_string()).collect();
        assert_eq!(ids, vec!["null".to_string(), kept.clone()]);

        // A simple delete replaces the null version with a null delete marker.
        let deletion = b.delete("k", None);
        assert_eq!(deletion.version_id.as_deref(), Some("null"));
        let history = &b.objects["k"];
        assert_eq!(history.len(), 2);
        assert!(matches!(history[0], Version::DeleteMarker { .. }));
        assert_eq!(body_of(&b, "k", Some(&kept)).unwrap(), "versioned");
    }

    #[test]
    fn versioning_configurations_parse_their_status() {
        let enabled =
            b"<VersioningConfiguration><Status>Enabled</Status></VersioningConfiguration>";
        assert_eq!(
            Versioning::parse(enabled).unwrap(),
            Some(Versioning::Enabled)
        );
        assert_eq!(
            Versioning::parse(b"<VersioningConfiguration><MfaDelete>Disabled</MfaDelete></VersioningConfiguration>")
                .unwrap(),
            None
        );
        assert_eq!(
            Versioning::parse(
                b"<VersioningConfiguration><Status>On</Status></VersioningConfiguration>"
            )
            .unwrap_err()
            .code,
            "MalformedXML"
        );
    }

    #[test]
    fn version_listings_page_by_key_and_version_and_roll_up_prefixes() {
        let mut b = bucket(Versioning::Enabled);
        for key in ["a", "a", "b", "dir/x", "dir/y"] {
            b.put(key, object("x"));
        }
        b.delete("b", None);
        let all = b.list_versions("", Some("/"), None, None, 1000).unwrap();
        let seen: Vec<_> = all
            .entries
            .iter()
            .map(|(k, _, latest)| (*k, *latest))
            .collect();
        assert_eq!(
            seen,
            vec![("a", true), ("a", false), ("b", true), ("b", false)]
        );
        assert_eq!(all.common_prefixes, vec!["dir/"]);
        assert!(all.next.is_none());

        let page = b.list_versions("", Some("/"), None, None, 3).unwrap();
        let (key, version) = page.next.clone().unwrap();
        assert_eq!(key, "b");
        let rest = b
            .list_versions("", Some("/"), Some(&key), version.as_deref(), 3)
            .unwrap();
        assert_eq!(rest.entries.len(), 1);
        assert!(!rest.entries[0].2);
        assert_eq!(rest.common_prefixes, vec!["dir/"]);
        assert!(rest.next.is_none());

        let after_prefix = b
            .list_versions("", Some("/"), Some("dir/"), None, 10)
            .unwrap();
        assert!(after_prefix.entries.is_empty() && after_prefix.common_prefixes.is_empty());
        assert_eq!(
            b.list_versions("", None, Some("a"), Some("nope"), 10)
                .unwrap_err()
                .code,
            "InvalidArgument"
        );
    }
}
