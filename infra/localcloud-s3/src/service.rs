//! The buckets of the local cloud and what can be done to them, below the
//! REST-XML protocol (api.rs and the files it dispatches to).

use std::collections::BTreeMap;

use bytes::Bytes;
use parking_lot::Mutex;

use crate::error::S3Error;
use crate::store::{valid_bucket_name, Bucket, Object, Setting};
use crate::versions::Versioning;

/// Every bucket of the local cloud (bucket names are global, as on AWS).
#[derive(Default)]
pub struct S3Service {
    buckets: Mutex<BTreeMap<String, Bucket>>,
}

impl S3Service {
    pub fn new() -> Self {
        Self::default()
    }

    /// `CreateBucket`. Creating a bucket one already owns is
    /// `BucketAlreadyOwnedByYou` (409), except in us-east-1 where S3 answers
    /// 200 for legacy compatibility; see "BucketAlreadyOwnedByYou" in
    /// https://docs.aws.amazon.com/AmazonS3/latest/API/API_CreateBucket.html
    pub fn create_bucket(&self, name: &str, region: &str) -> Result<(), S3Error> {
        if !valid_bucket_name(name) {
            return Err(S3Error::new(
                400,
                "InvalidBucketName",
                "The specified bucket is not valid.",
            )
            .with("BucketName", name));
        }
        let mut buckets = self.buckets.lock();
        if buckets.contains_key(name) {
            if region == "us-east-1" {
                return Ok(());
            }
            return Err(S3Error::new(
                409,
                "BucketAlreadyOwnedByYou",
                "Your previous request to create the named bucket succeeded and you already own it.",
            )
            .with("BucketName", name));
        }
        buckets.insert(name.to_string(), Bucket::new(name, region));
        Ok(())
    }

    /// `DeleteBucket`: only an empty bucket (`BucketNotEmpty`, 409).
    pub fn delete_bucket(&self, name: &str) -> Result<(), S3Error> {
        let mut buckets = self.buckets.lock();
        let bucket = buckets
            .get(name)
            .ok_or_else(|| S3Error::no_such_bucket(name))?;
        if !bucket.objects.is_empty() {
            return Err(S3Error::new(
                409,
                "BucketNotEmpty",
                "The bucket you tried to delete is not empty",
            )
            .with("BucketName", name));
        }
        buckets.remove(name);
        Ok(())
    }

    pub fn bucket_exists(&self, name: &str) -> bool {
        self.buckets.lock().contains_key(name)
    }

    /// Names of every bucket, sorted.
    pub fn bucket_names(&self) -> Vec<String> {
        self.buckets.lock().keys().cloned().collect()
    }

    /// Runs `f` on one bucket, or fails with `NoSuchBucket`.
    pub fn with_bucket<T>(
        &self,
        name: &str,
        f: impl FnOnce(&mut Bucket) -> Result<T, S3Error>,
    ) -> Result<T, S3Error> {
        let mut buckets = self.buckets.lock();
        let bucket = buckets
            .get_mut(name)
            .ok_or_else(|| S3Error::no_such_bucket(name))?;
        f(bucket)
    }

    pub fn put_object(&self, bucket: &str, key: &str, body: Bytes) -> Result<Object, S3Error> {
        let object = Object::new(body, None, BTreeMap::new());
        self.with_bucket(bucket, |b| Ok(b.put(key, object)))
    }

    /// The key's current object (`NoSuchKey` behind a delete marker).
    pub fn get_object(&self, bucket: &str, key: &str) -> Result<Object, S3Error> {
        self.with_bucket(bucket, |b| b.object_version(key, None).cloned())
    }

    /// The object a read names (the current one, or `version_id`), with
    /// the version id its response shows.
    pub fn read_object(
        &self,
        bucket: &str,
        key: &str,
        version_id: Option<&str>,
    ) -> Result<(Object, Option<String>), S3Error> {
        self.with_bucket(bucket, |b| {
            let object = b.object_version(key, version_id)?.clone();
            let shown = b.shown_version_id(&object.version_id);
            Ok((object, shown))
        })
    }

    /// Stores `object` as the key's newest version (versions.rs); the
    /// stored object and the version id its response shows.
    pub fn store_object(
        &self,
        bucket: &str,
        key: &str,
        object: Object,
    ) -> Result<(Object, Option<String>), S3Error> {
        self.with_bucket(bucket, |b| {
            let stored = b.put(key, object);
            let shown = b.shown_version_id(&stored.version_id);
            Ok((stored, shown))
        })
    }

    /// Stores a setting as `Put{Setting}` would (`PutBucketPolicy`, ...);
    /// versioning takes effect (versions.rs).
    pub fn put_setting(&self, bucket: &str, setting: Setting, value: Bytes) -> Result<(), S3Error> {
        if setting == Setting::OwnershipControls {
            crate::acl::check_ownership_controls(&value)?;
        }
        if setting == Setting::Versioning {
            let state = Versioning::parse(&value)?;
            return self.with_bucket(bucket, |b| {
                b.versioning = state.unwrap_or(b.versioning);
                Ok(())
            });
        }
        self.with_bucket(bucket, |b| {
            b.settings.insert(setting, value);
            Ok(())
        })
    }

    pub fn setting(&self, bucket: &str, setting: Setting) -> Result<Option<Bytes>, S3Error> {
        self.with_bucket(bucket, |b| Ok(b.settings.get(&setting).cloned()))
    }
}
