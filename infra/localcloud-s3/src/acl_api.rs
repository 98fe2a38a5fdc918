//! `GetBucketAcl`/`PutBucketAcl`, `GetObjectAcl`/`PutObjectAcl`, and the
//! `x-amz-acl` header of uploads (acl.rs).

use bytes::Bytes;
use localcloud_core::HttpResponse;

use crate::acl::{self, Acl};
use crate::error::S3Error;
use crate::protocol::{empty_on, response, xml_on, Call};
use crate::service::S3Service;
use crate::store::{Bucket, Setting};
use crate::versions_api::with_version;

impl Bucket {
    /// The bucket's Object Ownership (BucketOwnerEnforced for a new bucket).
    pub fn ownership(&self) -> Option<String> {
        acl::ownership(
            self.settings
                .get(&Setting::OwnershipControls)
                .map(|b| &b[..]),
        )
    }

    /// With ACLs disabled every ACL reads as the owner's FULL_CONTROL.
    /// https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-ownership-error-responses.html
    pub fn shown_acl(&self, stored: Option<&Acl>, owner: &str) -> Acl {
        match stored {
            Some(acl) if self.ownership().as_deref() != Some(acl::DEFAULT_OWNERSHIP) => acl.clone(),
            _ => Acl::private(owner),
        }
    }
}

/// The ACL a `Put*Acl` call sets, if the bucket's Object Ownership allows it.
fn requested(s3: &S3Service, call: &Call, bucket: &str) -> Result<Acl, S3Error> {
    let owner = &call.ctx.account_id;
    let grant_headers = call
        .headers
        .keys()
        .any(|name| name.as_str().starts_with("x-amz-grant-"));
    let acl = acl::requested(call.header("x-amz-acl"), grant_headers, &call.body, owner)?;
    allowed(s3, bucket, acl, owner)
}

/// `acl`, if the bucket's Object Ownership allows it.
fn allowed(s3: &S3Service, bucket: &str, acl: Acl, owner: &str) -> Result<Acl, S3Error> {
    s3.with_bucket(bucket, |b| {
        acl::check_allowed(b.ownership().as_deref(), &acl, owner)
    })?;
    Ok(acl)
}

/// The ACL of an upload's `x-amz-acl` (PutObject, CopyObject,
/// CreateMultipartUpload), if the bucket allows it.
pub(crate) fn upload_acl(
    s3: &S3Service,
    call: &Call,
    bucket: &str,
) -> Result<Option<Acl>, S3Error> {
    let owner = &call.ctx.account_id;
    match call.header("x-amz-acl") {
        None => Ok(None),
        Some(name) => allowed(s3, bucket, Acl::canned(name, owner)?, owner).map(Some),
    }
}

/// CreateBucket's `x-amz-object-ownership` and `x-amz-acl`, checked before
/// the bucket is made and applied to it after.
/// https://docs.aws.amazon.com/AmazonS3/latest/API/API_CreateBucket.html
pub(crate) struct CreationAcl {
    controls: Option<String>,
    acl: Option<Acl>,
}

/// An ACL other than the owner's full control on a bucket created with
/// ACLs disabled (the default) is refused, as S3 does.
pub(crate) fn creation_acl(call: &Call) -> Result<CreationAcl, S3Error> {
    let owner = &call.ctx.account_id;
    let ownership = call.header("x-amz-object-ownership");
    let controls = ownership.map(acl::ownership_controls);
    if let Some(controls) = &controls {
        acl::check_ownership_controls(controls.as_bytes()).map_err(|_| {
            S3Error::invalid_argument("Invalid x-amz-object-ownership header")
                .with("ArgumentName", "x-amz-object-ownership")
        })?;
    }
    let acl = call
        .header("x-amz-acl")
        .map(|name| Acl::canned(name, owner))
        .transpose()?;
    let disabled = ownership.unwrap_or(acl::DEFAULT_OWNERSHIP) == acl::DEFAULT_OWNERSHIP;
    if disabled
        && acl
            .as_ref()
            .is_some_and(|a| !a.owner_full_control_only(owner))
    {
        return Err(S3Error::new(
            400,
            "InvalidBucketAclWithObjectOwnership",
            "Bucket cannot have ACLs set with ObjectOwnership's BucketOwnerEnforced setting",
        ));
    }
    Ok(CreationAcl { controls, acl })
}

impl CreationAcl {
    pub(crate) fn apply(self, bucket: &mut Bucket) {
        if let Some(controls) = self.controls {
            bucket
                .settings
                .insert(Setting::OwnershipControls, Bytes::from(controls));
        }
        if self.acl.is_some() {
            bucket.acl = self.acl;
        }
    }
}

pub(crate) fn get_bucket_acl(
    s3: &S3Service,
    call: &Call,
    bucket: &str,
) -> Result<HttpResponse, S3Error> {
    let owner = &call.ctx.account_id;
    let acl = s3.with_bucket(bucket, |b| Ok(b.shown_acl(b.acl.as_ref(), owner)))?;
    Ok(xml_on(response(200), acl.to_xml(owner)))
}

/// https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutBucketAcl.html
pub(crate) fn put_bucket_acl(
    s3: &S3Service,
    call: &Call,
    bucket: &str,
) -> Result<HttpResponse, S3Error> {
    let acl = requested(s3, call, bucket)?;
    s3.with_bucket(bucket, |b| {
        b.acl = Some(acl);
        Ok(())
    })?;
    Ok(empty_on(response(200)))
}

pub(crate) fn get_object_acl(
    s3: &S3Service,
    call: &Call,
    bucket: &str,
    key: &str,
) -> Result<HttpResponse, S3Error> {
    let owner = &call.ctx.account_id;
    let (acl, version) = s3.with_bucket(bucket, |b| {
        let object = b.object_version(key, call.param("versionId"))?;
        Ok((
            b.shown_acl(object.acl.as_ref(), owner),
            b.shown_version_id(&object.version_id),
        ))
    })?;
    Ok(xml_on(
        with_version(response(200), version.as_deref()),
        acl.to_xml(owner),
    ))
}

/// https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObjectAcl.html
pub(crate) fn put_object_acl(
    s3: &S3Service,
    call: &Call,
    bucket: &str,
    key: &str,
) -> Result<HttpResponse, S3Error> {
    let acl = requested(s3, call, bucket)?;
    let version = s3.with_bucket(bucket, |b| {
        b.change_object(key, call.param("versionId"), |o| o.acl = Some(acl))
    })?;
    Ok(empty_on(with_version(response(200), version.as_deref())))
}
