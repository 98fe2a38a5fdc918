//! Object operations: put, get (with a byte range), head, delete, and the
//! multipart upload calls.

use std::collections::BTreeMap;

use base64::Engine;
use bytes::Bytes;
use chrono::Utc;
use http::Method;
use localcloud_core::HttpResponse;
use md5::{Digest, Md5};

use crate::error::S3Error;
use crate::protocol::{
    empty, empty_on, http_date, not_implemented, response, xml, xml_on, Call, S3_NS,
};
use crate::service::S3Service;
use crate::store::{Object, Upload};
use crate::versions_api::with_version;
use crate::{acl_api, attributes_api, copy_api};
use localcloud_core::xml::{elements, first, Xml};

pub(crate) fn object(
    s3: &S3Service,
    call: &Call,
    bucket: &str,
    key: &str,
) -> Result<HttpResponse, S3Error> {
    let copy = call.header("x-amz-copy-source").is_some();
    match *call.method {
        Method::PUT if call.has("uploadId") => upload_part(s3, call, bucket, key, copy),
        Method::GET if call.has("uploadId") => {
            crate::uploads_api::list_parts(s3, call, bucket, key)
        }
        Method::PUT if call.has("tagging") => copy_api::put_tagging(s3, call, bucket, key),
        Method::PUT if call.has("acl") => acl_api::put_object_acl(s3, call, bucket, key),
        Method::GET if call.has("acl") => acl_api::get_object_acl(s3, call, bucket, key),
        Method::GET if call.has("attributes") => {
            attributes_api::get_object_attributes(s3, call, bucket, key)
        }
        Method::GET if call.has("tagging") => copy_api::get_tagging(s3, call, bucket, key),
        Method::DELETE if call.has("tagging") => copy_api::delete_tagging(s3, call, bucket, key),
        Method::PUT if copy && call.query.is_empty() => {
            copy_api::copy_object(s3, call, bucket, key, metadata(call))
        }
        Method::PUT if call.query.is_empty() => put(s3, call, bucket, key),
        Method::GET | Method::HEAD
            if call.query.keys().all(|k| {
                k == "versionId" || k.starts_with("response-") || k.starts_with("X-Amz-")
            }) =>
        {
            get(s3, call, bucket, key)
        }
        Method::DELETE if call.has("uploadId") => {
            let id = call.param("uploadId").unwrap_or_default();
            s3.with_bucket(bucket, |b| {
                b.upload(key, id)?;
                b.uploads.remove(id);
                Ok(())
            })?;
            Ok(empty(204))
        }
        Method::DELETE if call.query.keys().all(|k| k == "versionId") => {
            delete(s3, call, bucket, key)
        }
        Method::POST if call.has("uploads") => create_upload(s3, call, bucket, key),
        Method::POST if call.has("uploadId") => complete_upload(s3, call, bucket, key),
        _ => Err(not_implemented(&format!(
            "{} on an object with {:?}",
            call.method,
            call.query.keys().collect::<Vec<_>>()
        ))),
    }
}

fn metadata(call: &Call) -> BTreeMap<String, String> {
    call.headers
        .iter()
        .filter_map(|(name, value)| {
            let name = name.as_str().strip_prefix("x-amz-meta-")?;
            Some((name.to_string(), value.to_str().ok()?.to_string()))
        })
        .collect()
}

/// Checks `Content-MD5` when sent (`BadDigest` on a mismatch).
fn check_md5(call: &Call) -> Result<(), S3Error> {
    let Some(sent) = call.header("content-md5") else {
        return Ok(());
    };
    let actual = base64::engine::general_purpose::STANDARD.encode(Md5::digest(&call.body));
    if sent.trim() != actual {
        return Err(S3Error::new(
            400,
            "BadDigest",
            "The Content-MD5 you specified did not match what we received.",
        ));
    }
    Ok(())
}

fn put(s3: &S3Service, call: &Call, bucket: &str, key: &str) -> Result<HttpResponse, S3Error> {
    check_md5(call)?;
    let mut object = Object::new(
        call.body.clone(),
        call.header("content-type").map(str::to_string),
        metadata(call),
    );
    object.tags = copy_api::header_tags(call)?;
    object.acl = acl_api::upload_acl(s3, call, bucket)?;
    object.checksum = attributes_api::sent_checksum(call);
    let (stored, version) = s3.store_object(bucket, key, object)?;
    let builder = with_version(
        response(200).header("etag", &stored.etag),
        version.as_deref(),
    );
    Ok(empty_on(attributes_api::with_checksum(builder, &stored)))
}

/// `DeleteObject`, of the current object or of `versionId` (versions.rs).
fn delete(s3: &S3Service, call: &Call, bucket: &str, key: &str) -> Result<HttpResponse, S3Error> {
    let deletion = s3.with_bucket(bucket, |b| Ok(b.delete(key, call.param("versionId"))))?;
    let mut builder = with_version(response(204), deletion.version_id.as_deref());
    if deletion.delete_marker {
        builder = builder.header("x-amz-delete-marker", "true");
    }
    Ok(empty_on(builder))
}

fn get(s3: &S3Service, call: &Call, bucket: &str, key: &str) -> Result<HttpResponse, S3Error> {
    let (object, version) = s3.read_object(bucket, key, call.param("versionId"))?;
    let mut builder = with_version(response(200), version.as_deref())
        .header("etag", &object.etag)
        .header("last-modified", http_date(&object.last_modified))
        .header(
            "content-type",
            call.param("response-content-type")
                .unwrap_or(&object.content_type),
        )
        .header("accept-ranges", "bytes");
    for (name, value) in &object.metadata {
        builder = builder.header(format!("x-amz-meta-{name}"), value);
    }
    if !object.tags.is_empty() {
        builder = builder.header("x-amz-tagging-count", object.tags.len());
    }
    let len = object.body.len();
    let body = match call.header("range").map(|r| byte_range(r, len)) {
        None => object.body.clone(),
        Some(Some((start, end))) => {
            builder = builder
                .status(206)
                .header("content-range", format!("bytes {start}-{end}/{len}"));
            object.body.slice(start..=end)
        }
        Some(None) => {
            return Err(S3Error::new(
                416,
                "InvalidRange",
                "The requested range is not satisfiable",
            )
            .with("ActualObjectSize", len.to_string()))
        }
    };
    builder = builder.header("content-length", body.len());
    let body = if *call.method == Method::HEAD {
        Bytes::new()
    } else {
        body
    };
    Ok(builder.body(body).expect("valid object response"))
}

/// `bytes=a-b`, `bytes=a-`, `bytes=-n` -> inclusive (start, end); `None`
/// when unsatisfiable. https://www.rfc-editor.org/rfc/rfc9110#section-14.1.2
fn byte_range(header: &str, len: usize) -> Option<(usize, usize)> {
    let spec = header.strip_prefix("bytes=")?;
    let (a, b) = spec.split_once('-')?;
    let (start, end) = match (a.trim(), b.trim()) {
        ("", n) => {
            let n: usize = n.parse().ok()?;
            (len.checked_sub(n.min(len))?, len.checked_sub(1)?)
        }
        (a, "") => (a.parse().ok()?, len.checked_sub(1)?),
        (a, b) => (
            a.parse().ok()?,
            b.parse::<usize>().ok()?.min(len.checked_sub(1)?),
        ),
    };
    (start <= end && start < len).then_some((start, end))
}

fn create_upload(
    s3: &S3Service,
    call: &Call,
    bucket: &str,
    key: &str,
) -> Result<HttpResponse, S3Error> {
    let id = uuid::Uuid::new_v4().simple().to_string();
    let upload = Upload {
        key: key.to_string(),
        content_type: call.header("content-type").map(str::to_string),
        metadata: metadata(call),
        parts: BTreeMap::new(),
        initiated: Utc::now(),
        acl: acl_api::upload_acl(s3, call, bucket)?,
    };
    s3.with_bucket(bucket, |b| {
        b.uploads.insert(id.clone(), upload);
        Ok(())
    })?;
    let mut doc = Xml::document("InitiateMultipartUploadResult", S3_NS);
    doc.text("Bucket", bucket)
        .text("Key", key)
        .text("UploadId", &id);
    Ok(xml(doc.finish("InitiateMultipartUploadResult")))
}

/// Part numbers run from 1 to 10,000.
/// https://docs.aws.amazon.com/AmazonS3/latest/API/API_UploadPart.html
fn upload_part(
    s3: &S3Service,
    call: &Call,
    bucket: &str,
    key: &str,
    copy: bool,
) -> Result<HttpResponse, S3Error> {
    let id = call.param("uploadId").unwrap_or_default();
    let number = call
        .param("partNumber")
        .and_then(|n| n.parse::<u32>().ok())
        .filter(|n| (1..=10_000).contains(n))
        .ok_or_else(|| {
            S3Error::invalid_argument(
                "Part number must be an integer between 1 and 10000, inclusive",
            )
        })?;
    if copy {
        return copy_api::upload_part_copy(s3, call, bucket, key, number);
    }
    check_md5(call)?;
    let part = Object::new(call.body.clone(), None, BTreeMap::new());
    let etag = part.etag.clone();
    s3.with_bucket(bucket, |b| {
        b.upload(key, id)?.parts.insert(number, part);
        Ok(())
    })?;
    Ok(with_etag(&etag))
}

fn complete_upload(
    s3: &S3Service,
    call: &Call,
    bucket: &str,
    key: &str,
) -> Result<HttpResponse, S3Error> {
    let id = call.param("uploadId").unwrap_or_default();
    let body = std::str::from_utf8(&call.body).map_err(|_| S3Error::malformed_xml())?;
    let mut listed = Vec::new();
    for part in elements(body, "Part") {
        let number = first(&part, "PartNumber").and_then(|n| n.parse::<u32>().ok());
        match (number, first(&part, "ETag")) {
            (Some(n), Some(etag)) => listed.push((n, etag)),
            _ => return Err(S3Error::malformed_xml()),
        }
    }
    let (object, version) = s3.with_bucket(bucket, |b| {
        let object = b.complete(key, id, &listed)?;
        let shown = b.shown_version_id(&object.version_id);
        Ok((object, shown))
    })?;
    let mut doc = Xml::document("CompleteMultipartUploadResult", S3_NS);
    doc.text("Location", format!("/{bucket}/{key}"))
        .text("Bucket", bucket)
        .text("Key", key)
        .text("ETag", &object.etag);
    Ok(xml_on(
        with_version(response(200), version.as_deref()),
        doc.finish("CompleteMultipartUploadResult"),
    ))
}

/// The answer to an upload: 200 with the stored ETag.
fn with_etag(etag: &str) -> HttpResponse {
    empty_on(response(200).header("etag", etag))
}

#[cfg(test)]
mod tests {
    use super::byte_range;

    #[test]
    fn byte_ranges_are_clamped_or_unsatisfiable() {
        assert_eq!(byte_range("bytes=0-3", 10), Some((0, 3)));
        assert_eq!(byte_range("bytes=5-", 10), Some((5, 9)));
        assert_eq!(byte_range("bytes=-4", 10), Some((6, 9)));
        assert_eq!(byte_range("bytes=8-100", 10), Some((8, 9)));
        assert_eq!(byte_range("bytes=10-", 10), None);
        assert_eq!(byte_range("bytes=x-1", 10), None);
    }
}
