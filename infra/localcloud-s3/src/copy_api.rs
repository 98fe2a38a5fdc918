//! Copies and object tags: `CopyObject`, `UploadPartCopy`, and
//! `PutObjectTagging`/`GetObjectTagging`/`DeleteObjectTagging` with the
//! `x-amz-tagging` header of uploads.

use std::collections::BTreeMap;

use chrono::Utc;
use localcloud_core::url::percent_decode;
use localcloud_core::xml::{elements, first, Xml};
use localcloud_core::HttpResponse;

use crate::address::query;
use crate::error::S3Error;
use crate::protocol::{empty_on, iso, response, with_optional, xml_on, Call, S3_NS};
use crate::service::S3Service;
use crate::store::{Object, Tags};
use crate::versions_api::with_version;

/// The object `x-amz-copy-source` names: `bucket/key` or `/bucket/key`,
/// URL-encoded, optionally with `?versionId=`.
/// https://docs.aws.amazon.com/AmazonS3/latest/API/API_CopyObject.html
struct CopySource {
    bucket: String,
    key: String,
    version_id: Option<String>,
}

fn copy_source(call: &Call) -> Result<CopySource, S3Error> {
    let raw = call.header("x-amz-copy-source").unwrap_or_default();
    let (raw, version_id) = match raw.split_once('?') {
        Some((path, q)) => (path, query(Some(q)).remove("versionId")),
        None => (raw, None),
    };
    let raw = raw.strip_prefix('/').unwrap_or(raw);
    match raw.split_once('/') {
        Some((bucket, key)) if !bucket.is_empty() && !key.is_empty() => Ok(CopySource {
            bucket: percent_decode(bucket),
            key: percent_decode(key),
            version_id,
        }),
        _ => Err(S3Error::invalid_argument(
            "Copy Source must mention the source bucket and key: sourcebucket/sourcekey",
        )
        .with("ArgumentName", "x-amz-copy-source")),
    }
}

/// The source object, if its `x-amz-copy-source-if-*` conditions hold,
/// with the version id to show. A delete marker named by version cannot
/// be copied (InvalidRequest, as the CopyObject reference says).
fn source_object(
    s3: &S3Service,
    source: &CopySource,
    call: &Call,
) -> Result<(Object, Option<String>), S3Error> {
    let (object, version) = s3
        .read_object(&source.bucket, &source.key, source.version_id.as_deref())
        .map_err(|e| match e.code {
            "MethodNotAllowed" => S3Error::new(
                400,
                "InvalidRequest",
                "The source of a copy request may not specifically refer to a delete marker by version id.",
            ),
            _ => e,
        })?;
    let failed = call
        .header("x-amz-copy-source-if-match")
        .is_some_and(|etag| etag.trim_matches('"') != object.etag.trim_matches('"'))
        || call
            .header("x-amz-copy-source-if-none-match")
            .is_some_and(|etag| etag.trim_matches('"') == object.etag.trim_matches('"'));
    if failed {
        return Err(S3Error::new(
            412,
            "PreconditionFailed",
            "At least one of the pre-conditions you specified did not hold",
        ));
    }
    Ok((object, version))
}

/// `CopyObject`: metadata and tags copied unless their directive is REPLACE;
/// copying an object onto itself must change its metadata, unless the
/// source is an older version (how a version is restored:
/// https://docs.aws.amazon.com/AmazonS3/latest/userguide/RestoringPreviousVersions.html).
pub(crate) fn copy_object(
    s3: &S3Service,
    call: &Call,
    bucket: &str,
    key: &str,
    metadata: BTreeMap<String, String>,
) -> Result<HttpResponse, S3Error> {
    let replace = |header: &str| -> Result<bool, S3Error> {
        match call.header(header) {
            None | Some("COPY") => Ok(false),
            Some("REPLACE") => Ok(true),
            Some(_) => Err(S3Error::invalid_argument(if header.contains("metadata") {
                "Unknown metadata directive."
            } else {
                "Unknown tagging directive."
            })),
        }
    };
    let replace_metadata = replace("x-amz-metadata-directive")?;
    let replace_tags = replace("x-amz-tagging-directive")?;
    let from = copy_source(call)?;
    let (source, source_version) = source_object(s3, &from, call)?;
    if from.bucket == bucket && from.key == key && from.version_id.is_none() && !replace_metadata {
        return Err(S3Error::new(
            400,
            "InvalidRequest",
            "This copy request is illegal because it is trying to copy an object to itself without changing the object's metadata, storage class, website redirect location or encryption attributes.",
        ));
    }
    let mut object = if replace_metadata {
        Object::new(
            source.body.clone(),
            call.header("content-type").map(str::to_string),
            metadata,
        )
    } else {
        Object::new(
            source.body.clone(),
            Some(source.content_type.clone()),
            source.metadata.clone(),
        )
    };
    object.tags = if replace_tags {
        header_tags(call)?
    } else {
        source.tags.clone()
    };
    object.acl = crate::acl_api::upload_acl(s3, call, bucket)?;
    let (stored, version) = s3.store_object(bucket, key, object)?;
    let mut doc = Xml::document("CopyObjectResult", S3_NS);
    doc.text("LastModified", iso(&stored.last_modified))
        .text("ETag", &stored.etag);
    let builder = with_optional(
        with_version(response(200), version.as_deref()),
        "x-amz-copy-source-version-id",
        source_version.as_deref(),
    );
    Ok(xml_on(builder, doc.finish("CopyObjectResult")))
}

/// `UploadPartCopy`: a part made of the source object, or of the bytes
/// `x-amz-copy-source-range` names.
/// https://docs.aws.amazon.com/AmazonS3/latest/API/API_UploadPartCopy.html
pub(crate) fn upload_part_copy(
    s3: &S3Service,
    call: &Call,
    bucket: &str,
    key: &str,
    number: u32,
) -> Result<HttpResponse, S3Error> {
    let id = call.param("uploadId").unwrap_or_default();
    s3.with_bucket(bucket, |b| b.upload(key, id).map(|_| ()))?;
    let (source, source_version) = source_object(s3, &copy_source(call)?, call)?;
    let len = source.body.len();
    let body = match call.header("x-amz-copy-source-range") {
        None => source.body.clone(),
        Some(range) => {
            let (start, end) = range
                .strip_prefix("bytes=")
                .and_then(|r| r.split_once('-'))
                .and_then(|(a, b)| Some((a.trim().parse::<usize>().ok()?, b.trim().parse::<usize>().ok()?)))
                .ok_or_else(|| {
                    S3Error::invalid_argument("The x-amz-copy-source-range value must be of the form bytes=first-last where first and last are the zero-based offsets of the first and last bytes to copy")
                })?;
            if start > end || end >= len {
                return Err(S3Error::invalid_argument(format!(
                    "Range specified is not valid for source object of size: {len}"
                )));
            }
            source.body.slice(start..=end)
        }
    };
    let part = Object::new(body, None, BTreeMap::new());
    let etag = part.etag.clone();
    s3.with_bucket(bucket, |b| {
        b.upload(key, id)?.parts.insert(number, part);
        Ok(())
    })?;
    let mut doc = Xml::document("CopyPartResult", S3_NS);
    doc.text("LastModified", iso(&Utc::now()))
        .text("ETag", &etag);
    let builder = with_optional(
        response(200),
        "x-amz-copy-source-version-id",
        source_version.as_deref(),
    );
    Ok(xml_on(builder, doc.finish("CopyPartResult")))
}

/// `PutObjectTagging`: replaces the object's tags with the body's TagSet.
/// https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObjectTagging.html
pub(crate) fn put_tagging(
    s3: &S3Service,
    call: &Call,
    bucket: &str,
    key: &str,
) -> Result<HttpResponse, S3Error> {
    let body = std::str::from_utf8(&call.body).map_err(|_| S3Error::malformed_xml())?;
    if first(body, "TagSet").is_none() {
        return Err(S3Error::malformed_xml());
    }
    let mut tags = Tags::new();
    for tag in elements(body, "Tag") {
        let key = first(&tag, "Key").ok_or_else(S3Error::malformed_xml)?;
        tags.push((key, first(&tag, "Value").unwrap_or_default()));
    }
    check_tags(&tags)?;
    let version = change_tags(s3, call, bucket, key, |t| *t = tags)?;
    Ok(empty_on(with_version(response(200), version.as_deref())))
}

/// Changes the tags of the object (or `versionId`) a tagging call names;
/// the version id to show.
fn change_tags(
    s3: &S3Service,
    call: &Call,
    bucket: &str,
    key: &str,
    change: impl FnOnce(&mut Tags),
) -> Result<Option<String>, S3Error> {
    s3.with_bucket(bucket, |b| {
        b.change_object(key, call.param("versionId"), |o| change(&mut o.tags))
    })
}

pub(crate) fn get_tagging(
    s3: &S3Service,
    call: &Call,
    bucket: &str,
    key: &str,
) -> Result<HttpResponse, S3Error> {
    let (object, version) = s3.read_object(bucket, key, call.param("versionId"))?;
    let tags = object.tags;
    let mut doc = Xml::document("Tagging", S3_NS);
    doc.open("TagSet");
    for (k, v) in &tags {
        doc.open("Tag").text("Key", k).text("Value", v).close("Tag");
    }
    doc.close("TagSet");
    Ok(xml_on(
        with_version(response(200), version.as_deref()),
        doc.finish("Tagging"),
    ))
}

pub(crate) fn delete_tagging(
    s3: &S3Service,
    call: &Call,
    bucket: &str,
    key: &str,
) -> Result<HttpResponse, S3Error> {
    let version = change_tags(s3, call, bucket, key, Vec::clear)?;
    Ok(empty_on(with_version(response(204), version.as_deref())))
}

/// The tags of an upload's `x-amz-tagging` header (`k1=v1&k2=v2`).
pub(crate) fn header_tags(call: &Call) -> Result<Tags, S3Error> {
    let Some(header) = call.header("x-amz-tagging") else {
        return Ok(Tags::new());
    };
    let tags: Tags = query(Some(header)).into_iter().collect();
    check_tags(&tags)?;
    Ok(tags)
}

/// At most 10 tags per object, unique keys of up to 128 characters, values
/// of up to 256. https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-tagging.html
fn check_tags(tags: &Tags) -> Result<(), S3Error> {
    let invalid = |message: &str| S3Error::new(400, "InvalidTag", message);
    if tags.len() > 10 {
        return Err(invalid("Object tags cannot be greater than 10"));
    }
    for (i, (key, value)) in tags.iter().enumerate() {
        if tags[..i].iter().any(|(k, _)| k == key) {
            return Err(invalid("Cannot provide multiple Tags with the same key"));
        }
        if key.is_empty() || key.chars().count() > 128 {
            return Err(invalid("The TagKey you have provided is invalid"));
        }
        if value.chars().count() > 256 {
            return Err(invalid("The TagValue you have provided is invalid"));
        }
    }
    Ok(())
}
