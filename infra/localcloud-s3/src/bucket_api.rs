//! Bucket operations: create, head, delete, list (buckets and objects),
//! location, settings, and `DeleteObjects`.

use base64::Engine;
use bytes::Bytes;
use http::Method;
use localcloud_core::HttpResponse;

use crate::error::S3Error;
use crate::protocol::{
    empty, encoded, iso, not_implemented, response, url_encoding, xml, Call, S3_NS,
};
use crate::service::S3Service;
use crate::store::Setting;
use crate::uploads_api::max_param;
use localcloud_core::xml::{elements, first, Xml};

pub(crate) fn list_buckets(s3: &S3Service, call: &Call) -> Result<HttpResponse, S3Error> {
    let mut doc = Xml::document("ListAllMyBucketsResult", S3_NS);
    doc.open("Owner")
        .text("ID", &call.ctx.account_id)
        .text("DisplayName", "localcloud")
        .close("Owner");
    doc.open("Buckets");
    for name in s3.bucket_names() {
        let created = s3.with_bucket(&name, |b| Ok(b.created))?;
        doc.open("Bucket")
            .text("Name", &name)
            .text("CreationDate", iso(&created))
            .close("Bucket");
    }
    doc.close("Buckets");
    Ok(xml(doc.finish("ListAllMyBucketsResult")))
}

pub(crate) fn bucket(s3: &S3Service, call: &Call, name: &str) -> Result<HttpResponse, S3Error> {
    let setting = call.query.keys().find_map(|k| Setting::from_query(k));
    match (call.method, setting) {
        (&Method::GET, Some(Setting::Versioning)) => crate::versions_api::get_versioning(s3, name),
        (&Method::GET, Some(Setting::Acl)) => crate::acl_api::get_bucket_acl(s3, call, name),
        (&Method::PUT, Some(Setting::Acl)) => crate::acl_api::put_bucket_acl(s3, call, name),
        (&Method::DELETE, Some(Setting::Versioning | Setting::Acl)) => Err(S3Error::new(
            405,
            "MethodNotAllowed",
            "The specified method is not allowed against this resource.",
        )),
        (&Method::PUT, Some(setting)) => {
            s3.put_setting(name, setting, call.body.clone())?;
            Ok(empty(if setting == Setting::Policy { 204 } else { 200 }))
        }
        (&Method::GET, Some(setting)) => get_setting(s3, name, setting),
        (&Method::DELETE, Some(setting)) => {
            s3.with_bucket(name, |b| Ok(b.settings.remove(&setting)))?;
            Ok(empty(204))
        }
        (&Method::PUT, None) => create(s3, call, name),
        (&Method::HEAD, None) => {
            let region = s3.with_bucket(name, |b| Ok(b.region.clone()))?;
            Ok(response(200)
                .header("x-amz-bucket-region", region)
                .body(Bytes::new())
                .expect("valid"))
        }
        (&Method::DELETE, None) => {
            s3.delete_bucket(name)?;
            Ok(empty(204))
        }
        (&Method::GET, None) if call.has("location") => {
            let region = s3.with_bucket(name, |b| Ok(b.region.clone()))?;
            // us-east-1 buckets have an empty LocationConstraint.
            let region = if region == "us-east-1" {
                String::new()
            } else {
                region
            };
            Ok(xml(format!(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<LocationConstraint xmlns=\"{S3_NS}\">{region}</LocationConstraint>"
            )))
        }
        (&Method::GET, None) if call.has("uploads") => {
            crate::uploads_api::list_uploads(s3, call, name)
        }
        (&Method::GET, None) if call.has("versions") => {
            crate::versions_api::list_versions(s3, call, name)
        }
        (&Method::GET, None) => list_objects(s3, call, name),
        (&Method::POST, None) if call.has("delete") => delete_objects(s3, call, name),
        _ => Err(not_implemented(&format!(
            "{} on a bucket with {:?}",
            call.method,
            call.query.keys().collect::<Vec<_>>()
        ))),
    }
}

fn create(s3: &S3Service, call: &Call, name: &str) -> Result<HttpResponse, S3Error> {
    if !crate::store::valid_bucket_name(name) {
        return Err(S3Error::new(
            400,
            "InvalidBucketName",
            "The specified bucket is not valid.",
        )
        .with("BucketName", name));
    }
    let body = std::str::from_utf8(&call.body).map_err(|_| S3Error::malformed_xml())?;
    let constraint = first(body, "LocationConstraint").filter(|c| !c.is_empty());
    // A region other than us-east-1 must be named in the body.
    // https://docs.aws.amazon.com/AmazonS3/latest/API/API_CreateBucket.html
    let region = match constraint {
        // us-east-1 is named by no constraint at all; naming it is invalid.
        Some(c) if c == "us-east-1" => {
            return Err(S3Error::new(
                400,
                "InvalidLocationConstraint",
                "The specified location-constraint is not valid",
            )
            .with("LocationConstraint", c))
        }
        Some(c) if c != call.ctx.region && call.ctx.region != "us-east-1" => {
            return Err(S3Error::new(
                400,
                "IllegalLocationConstraintException",
                format!("The {c} location constraint is incompatible for the region specific endpoint this request was sent to."),
            ))
        }
        Some(c) => c,
        None if call.ctx.region != "us-east-1" => {
            return Err(S3Error::new(
                400,
                "IllegalLocationConstraintException",
                "The unspecified location constraint is incompatible for the region specific endpoint this request was sent to.",
            ))
        }
        None => "us-east-1".to_string(),
    };
    let creation = crate::acl_api::creation_acl(call)?;
    s3.create_bucket(name, &region)?;
    s3.with_bucket(name, |b| {
        creation.apply(b);
        Ok(())
    })?;
    Ok(response(200)
        .header("location", format!("/{name}"))
        .body(Bytes::new())
        .expect("valid"))
}

fn get_setting(s3: &S3Service, name: &str, setting: Setting) -> Result<HttpResponse, S3Error> {
    match (s3.setting(name, setting)?, setting) {
        (Some(body), Setting::Policy) => Ok(response(200).header("content-type", "application/json").body(body).expect("valid")),
        (Some(body), _) => Ok(xml(String::from_utf8_lossy(&body).into_owned())),
        // Since January 2023 every bucket has SSE-S3 encryption by default.
        // https://docs.aws.amazon.com/AmazonS3/latest/userguide/default-encryption-faq.html
        (None, Setting::Encryption) => Ok(xml(format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ServerSideEncryptionConfiguration xmlns=\"{S3_NS}\"><Rule><ApplyServerSideEncryptionByDefault><SSEAlgorithm>AES256</SSEAlgorithm></ApplyServerSideEncryptionByDefault><BucketKeyEnabled>false</BucketKeyEnabled></Rule></ServerSideEncryptionConfiguration>"
        ))),
        (None, setting) => Err(setting.missing(name)),
    }
}

/// `ListObjectsV2` (`list-type=2`) and the original `ListObjects`.
fn list_objects(s3: &S3Service, call: &Call, name: &str) -> Result<HttpResponse, S3Error> {
    let v2 = call.param("list-type") == Some("2");
    let prefix = call.param("prefix").unwrap_or_default();
    let delimiter = call.param("delimiter").filter(|d| !d.is_empty());
    let max = max_param(call, "max-keys")?;
    let url_encode = url_encoding(call)?;
    let token = call.param("continuation-token");
    let after = match (v2, token) {
        (true, Some(t)) => Some(decode_token(t)?),
        (true, None) => call.param("start-after").map(str::to_string),
        (false, _) => call.param("marker").map(str::to_string),
    };
    let enc = |s: &str| encoded(url_encode, s);
    let mut doc = Xml::document("ListBucketResult", S3_NS);
    let listing = s3.with_bucket(name, |b| {
        let listing = b.list(prefix, delimiter, after.as_deref(), max);
        doc.text("Name", name).text("Prefix", enc(prefix));
        if let Some(d) = delimiter {
            doc.text("Delimiter", enc(d));
        }
        doc.text("MaxKeys", max.to_string());
        if url_encode {
            doc.text("EncodingType", "url");
        }
        doc.text("IsTruncated", listing.next_after.is_some().to_string());
        if v2 {
            doc.text(
                "KeyCount",
                (listing.keys.len() + listing.common_prefixes.len()).to_string(),
            );
            if let Some(t) = token {
                doc.text("ContinuationToken", t);
            }
            if let Some(s) = call.param("start-after") {
                doc.text("StartAfter", enc(s));
            }
            if let Some(next) = &listing.next_after {
                doc.text("NextContinuationToken", encode_token(next));
            }
        } else {
            doc.text("Marker", enc(after.as_deref().unwrap_or_default()));
            if let (Some(next), Some(_)) = (&listing.next_after, delimiter) {
                doc.text("NextMarker", enc(next));
            }
        }
        for (key, o) in listing.keys.iter().filter_map(|k| Some((k, b.current(k)?))) {
            doc.open("Contents")
                .text("Key", enc(key))
                .text("LastModified", iso(&o.last_modified))
                .text("ETag", &o.etag)
                .text("Size", o.body.len().to_string())
                .text("StorageClass", "STANDARD")
                .close("Contents");
        }
        for p in &listing.common_prefixes {
            doc.open("CommonPrefixes")
                .text("Prefix", enc(p))
                .close("CommonPrefixes");
        }
        Ok(listing)
    })?;
    let _ = listing;
    Ok(xml(doc.finish("ListBucketResult")))
}

fn encode_token(key: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(key)
}

fn decode_token(token: &str) -> Result<String, S3Error> {
    base64::engine::general_purpose::STANDARD
        .decode(token)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .ok_or_else(|| S3Error::invalid_argument("The continuation token provided is incorrect"))
}

/// `POST /{bucket}?delete`: each key (or version) deleted as DeleteObject
/// would; keys that do not exist count as deleted.
/// https://docs.aws.amazon.com/AmazonS3/latest/API/API_DeleteObjects.html
fn delete_objects(s3: &S3Service, call: &Call, name: &str) -> Result<HttpResponse, S3Error> {
    let body = std::str::from_utf8(&call.body).map_err(|_| S3Error::malformed_xml())?;
    let objects = elements(body, "Object");
    if objects.is_empty() || objects.len() > 1000 {
        return Err(S3Error::malformed_xml());
    }
    let targets: Vec<(String, Option<String>)> = objects
        .iter()
        .filter_map(|o| Some((first(o, "Key")?, first(o, "VersionId"))))
        .collect();
    let quiet = first(body, "Quiet").is_some_and(|q| q == "true");
    let deletions = s3.with_bucket(name, |b| {
        Ok(targets
            .iter()
            .map(|(key, version)| b.delete(key, version.as_deref()))
            .collect::<Vec<_>>())
    })?;
    let mut doc = Xml::document("DeleteResult", S3_NS);
    if !quiet {
        for ((key, version), deletion) in targets.iter().zip(deletions) {
            doc.open("Deleted").text("Key", key);
            if let Some(version) = version {
                doc.text("VersionId", version);
            }
            if deletion.delete_marker {
                doc.text("DeleteMarker", "true");
                if let Some(marker) = &deletion.version_id {
                    doc.text("DeleteMarkerVersionId", marker);
                }
            }
            doc.close("Deleted");
        }
    }
    Ok(xml(doc.finish("DeleteResult")))
}
