//! Listing multipart uploads in progress (`ListMultipartUploads`) and the
//! parts of one (`ListParts`), as S3 answers them.

use localcloud_core::xml::Xml;
use localcloud_core::HttpResponse;

use crate::error::S3Error;
use crate::protocol::{iso, not_implemented, xml, Call, S3_NS};
use crate::service::S3Service;

/// `max-parts` or `max-uploads`: an integer, at most 1,000 (S3 caps larger values).
pub(crate) fn max_param(call: &Call, name: &str) -> Result<usize, S3Error> {
    match call.param(name) {
        None => Ok(1000),
        Some(text) => text.parse::<usize>().map(|n| n.min(1000)).map_err(|_| {
            S3Error::invalid_argument(format!(
                "Provided {name} not an integer or within integer range"
            ))
        }),
    }
}

/// The initiator or owner: the local account, as ListBuckets names it.
pub(crate) fn owner(doc: &mut Xml, element: &str, account: &str) {
    doc.open(element)
        .text("ID", account)
        .text("DisplayName", "localcloud")
        .close(element);
}

/// The parts uploaded so far, by part number, from `part-number-marker`.
/// https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListParts.html
pub(crate) fn list_parts(
    s3: &S3Service,
    call: &Call,
    bucket: &str,
    key: &str,
) -> Result<HttpResponse, S3Error> {
    let upload_id = call.param("uploadId").unwrap_or_default();
    let max = max_param(call, "max-parts")?;
    let marker: u32 = match call.param("part-number-marker") {
        None => 0,
        Some(text) => text.parse().map_err(|_| {
            S3Error::invalid_argument(
                "Provided part-number-marker not an integer or within integer range",
            )
        })?,
    };
    let mut doc = Xml::document("ListPartsResult", S3_NS);
    s3.with_bucket(bucket, |b| {
        let upload = b.upload(key, upload_id)?;
        let after: Vec<_> = upload.parts.range(marker.saturating_add(1)..).collect();
        let shown = &after[..after.len().min(max)];
        let truncated = after.len() > shown.len();
        doc.text("Bucket", bucket)
            .text("Key", key)
            .text("UploadId", upload_id)
            .text("PartNumberMarker", marker.to_string());
        if let Some((last, _)) = shown.last() {
            doc.text("NextPartNumberMarker", last.to_string());
        }
        doc.text("MaxParts", max.to_string())
            .text("IsTruncated", truncated.to_string());
        for (number, part) in shown {
            doc.open("Part")
                .text("PartNumber", number.to_string())
                .text("LastModified", iso(&part.last_modified))
                .text("ETag", &part.etag)
                .text("Size", part.body.len().to_string())
                .close("Part");
        }
        owner(&mut doc, "Initiator", &call.ctx.account_id);
        owner(&mut doc, "Owner", &call.ctx.account_id);
        doc.text("StorageClass", "STANDARD");
        Ok(())
    })?;
    Ok(xml(doc.finish("ListPartsResult")))
}

/// The uploads in progress, by key and then by when each was initiated,
/// from `key-marker` (and `upload-id-marker` within that key), under
/// `prefix`. `delimiter` (common prefixes) is refused as not implemented.
/// https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListMultipartUploads.html
pub(crate) fn list_uploads(
    s3: &S3Service,
    call: &Call,
    bucket: &str,
) -> Result<HttpResponse, S3Error> {
    if call.param("delimiter").is_some_and(|d| !d.is_empty()) {
        return Err(not_implemented("ListMultipartUploads with a delimiter"));
    }
    let max = max_param(call, "max-uploads")?;
    let prefix = call.param("prefix").unwrap_or_default();
    let key_marker = call.param("key-marker").unwrap_or_default();
    // Without a key marker S3 ignores the upload-id marker.
    let id_marker = call
        .param("upload-id-marker")
        .filter(|_| !key_marker.is_empty());
    let mut doc = Xml::document("ListMultipartUploadsResult", S3_NS);
    s3.with_bucket(bucket, |b| {
        let mut uploads: Vec<_> = b
            .uploads
            .iter()
            .filter(|(_, u)| u.key.starts_with(prefix))
            .collect();
        uploads.sort_by(|(a_id, a), (b_id, b)| {
            (&a.key, a.initiated, a_id).cmp(&(&b.key, b.initiated, b_id))
        });
        // After the marker: later keys; with an upload-id marker, also the
        // marker key's uploads initiated after that upload.
        let marker_upload = id_marker.and_then(|id| b.uploads.get(id).map(|u| (u.initiated, id)));
        let after: Vec<_> = uploads
            .into_iter()
            .filter(|(id, u)| match (key_marker.is_empty(), &marker_upload) {
                (true, _) => true,
                (false, None) => u.key.as_str() > key_marker,
                (false, Some((at, marker_id))) => {
                    u.key.as_str() > key_marker
                        || (u.key == key_marker && (u.initiated, id.as_str()) > (*at, *marker_id))
                }
            })
            .collect();
        let shown = &after[..after.len().min(max)];
        let truncated = after.len() > shown.len();
        doc.text("Bucket", bucket)
            .text("KeyMarker", key_marker)
            .text("UploadIdMarker", id_marker.unwrap_or_default());
        if let Some((id, last)) = shown.last().filter(|_| truncated) {
            doc.text("NextKeyMarker", &last.key)
                .text("NextUploadIdMarker", id.as_str());
        }
        if !prefix.is_empty() {
            doc.text("Prefix", prefix);
        }
        doc.text("MaxUploads", max.to_string())
            .text("IsTruncated", truncated.to_string());
        for (id, upload) in shown {
            doc.open("Upload")
                .text("Key", &upload.key)
                .text("UploadId", id.as_str());
            owner(&mut doc, "Initiator", &call.ctx.account_id);
            owner(&mut doc, "Owner", &call.ctx.account_id);
            doc.text("StorageClass", "STANDARD")
                .text("Initiated", iso(&upload.initiated))
                .close("Upload");
        }
        Ok(())
    })?;
    Ok(xml(doc.finish("ListMultipartUploadsResult")))
}
