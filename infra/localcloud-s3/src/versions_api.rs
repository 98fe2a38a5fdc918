//! `GetBucketVersioning` and `ListObjectVersions` as S3 answers them, and
//! the version headers of object responses.

use localcloud_core::xml::Xml;
use localcloud_core::HttpResponse;

use crate::error::S3Error;
use crate::protocol::{encoded, iso, url_encoding, with_optional, xml, Call, S3_NS};
use crate::service::S3Service;
use crate::uploads_api::{max_param, owner};
use crate::versions::Version;

/// A bucket never versioned answers an empty configuration.
/// https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetBucketVersioning.html
pub(crate) fn get_versioning(s3: &S3Service, bucket: &str) -> Result<HttpResponse, S3Error> {
    let state = s3.with_bucket(bucket, |b| Ok(b.versioning))?;
    let mut doc = Xml::document("VersioningConfiguration", S3_NS);
    if let Some(status) = state.status() {
        doc.text("Status", status);
    }
    Ok(xml(doc.finish("VersioningConfiguration")))
}

/// `GET /{bucket}?versions`.
/// https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectVersions.html
pub(crate) fn list_versions(
    s3: &S3Service,
    call: &Call,
    bucket: &str,
) -> Result<HttpResponse, S3Error> {
    let prefix = call.param("prefix").unwrap_or_default();
    let delimiter = call.param("delimiter").filter(|d| !d.is_empty());
    let key_marker = call.param("key-marker").filter(|m| !m.is_empty());
    let version_marker = call.param("version-id-marker").filter(|m| !m.is_empty());
    if version_marker.is_some() && key_marker.is_none() {
        return Err(S3Error::invalid_argument(
            "A version-id marker cannot be specified without a key marker.",
        )
        .with("ArgumentName", "version-id-marker"));
    }
    let max = max_param(call, "max-keys")?;
    let url_encode = url_encoding(call)?;
    let enc = |s: &str| encoded(url_encode, s);
    let mut doc = Xml::document("ListVersionsResult", S3_NS);
    s3.with_bucket(bucket, |b| {
        let listing = b.list_versions(prefix, delimiter, key_marker, version_marker, max)?;
        doc.text("Name", bucket)
            .text("Prefix", enc(prefix))
            .text("KeyMarker", enc(key_marker.unwrap_or_default()))
            .text("VersionIdMarker", version_marker.unwrap_or_default());
        if let Some((key, version)) = &listing.next {
            doc.text("NextKeyMarker", enc(key));
            if let Some(version) = version {
                doc.text("NextVersionIdMarker", version);
            }
        }
        doc.text("MaxKeys", max.to_string());
        if let Some(d) = delimiter {
            doc.text("Delimiter", enc(d));
        }
        if url_encode {
            doc.text("EncodingType", "url");
        }
        doc.text("IsTruncated", listing.next.is_some().to_string());
        for (key, version, latest) in &listing.entries {
            let element = match version {
                Version::Object(_) => "Version",
                Version::DeleteMarker { .. } => "DeleteMarker",
            };
            doc.open(element)
                .text("Key", enc(key))
                .text("VersionId", version.id())
                .text("IsLatest", latest.to_string())
                .text("LastModified", iso(&version.last_modified()));
            if let Version::Object(o) = version {
                doc.text("ETag", &o.etag)
                    .text("Size", o.body.len().to_string())
                    .text("StorageClass", "STANDARD");
            }
            owner(&mut doc, "Owner", &call.ctx.account_id);
            doc.close(element);
        }
        for p in &listing.common_prefixes {
            doc.open("CommonPrefixes")
                .text("Prefix", enc(p))
                .close("CommonPrefixes");
        }
        Ok(())
    })?;
    Ok(xml(doc.finish("ListVersionsResult")))
}

/// Adds `x-amz-version-id` when the bucket shows version ids.
pub(crate) fn with_version(
    builder: http::response::Builder,
    version_id: Option<&str>,
) -> http::response::Builder {
    with_optional(builder, "x-amz-version-id", version_id)
}
