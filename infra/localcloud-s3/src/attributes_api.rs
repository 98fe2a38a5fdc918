//! `GetObjectAttributes`: an object's ETag, checksum, parts, storage class
//! and size without its body.
//! https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetObjectAttributes.html

use localcloud_core::xml::Xml;
use localcloud_core::HttpResponse;

use crate::error::S3Error;
use crate::protocol::{http_date, response, xml_on, Call, S3_NS};
use crate::service::S3Service;
use crate::store::Object;
use crate::versions_api::with_version;

const ATTRIBUTES: [&str; 5] = [
    "ETag",
    "Checksum",
    "ObjectParts",
    "StorageClass",
    "ObjectSize",
];

/// The checksum algorithms of `x-amz-checksum-*`, as S3 names them in headers.
const CHECKSUMS: [&str; 5] = ["crc32", "crc32c", "crc64nvme", "sha1", "sha256"];

/// The attributes `x-amz-object-attributes` lists (comma-separated, in
/// one header or several).
fn wanted(header: &str) -> Result<Vec<&str>, S3Error> {
    let names: Vec<&str> = header
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .collect();
    if names.is_empty() {
        return Err(S3Error::invalid_argument(
            "x-amz-object-attributes header specifying the attributes to be retrieved is either missing or empty",
        ));
    }
    if let Some(bad) = names.iter().find(|n| !ATTRIBUTES.contains(*n)) {
        return Err(
            S3Error::invalid_argument("Invalid attribute name specified.")
                .with("ArgumentName", "x-amz-object-attributes")
                .with("ArgumentValue", *bad),
        );
    }
    Ok(names)
}

/// An integer header (`x-amz-max-parts`, `x-amz-part-number-marker`).
fn number_header(call: &Call, name: &str, default: usize) -> Result<usize, S3Error> {
    match call.header(name) {
        None => Ok(default),
        Some(text) => text.trim().parse().map_err(|_| {
            S3Error::invalid_argument(format!(
                "Provided {name} not an integer or within integer range"
            ))
        }),
    }
}

/// The checksum an upload sent in an `x-amz-checksum-*` header or trailer
/// (the SDKs send CRC32 by default), as (algorithm, value).
pub(crate) fn sent_checksum(call: &Call) -> Option<(String, String)> {
    CHECKSUMS.iter().find_map(|algorithm| {
        let value = call.header(&format!("x-amz-checksum-{algorithm}"))?;
        Some((algorithm.to_uppercase(), value.trim().to_string()))
    })
}

/// Echoes the stored checksum, as PutObject answers it (`x-amz-checksum-crc32`).
pub(crate) fn with_checksum(
    builder: http::response::Builder,
    object: &Object,
) -> http::response::Builder {
    match &object.checksum {
        Some((algorithm, value)) => builder
            .header(
                format!("x-amz-checksum-{}", algorithm.to_lowercase()),
                value,
            )
            .header("x-amz-checksum-type", "FULL_OBJECT"),
        None => builder,
    }
}

pub(crate) fn get_object_attributes(
    s3: &S3Service,
    call: &Call,
    bucket: &str,
    key: &str,
) -> Result<HttpResponse, S3Error> {
    let header: Vec<&str> = call
        .headers
        .get_all("x-amz-object-attributes")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect();
    let header = header.join(",");
    let wanted = wanted(&header)?;
    let max_parts = number_header(call, "x-amz-max-parts", 1000)?.min(1000);
    let marker = number_header(call, "x-amz-part-number-marker", 0)?;
    let (object, version) = s3.read_object(bucket, key, call.param("versionId"))?;
    let mut doc = Xml::document("GetObjectAttributesResponse", S3_NS);
    for attribute in ATTRIBUTES.iter().filter(|a| wanted.contains(*a)) {
        match *attribute {
            // Unquoted here, unlike GetObject's ETag header.
            "ETag" => {
                doc.text("ETag", object.etag.trim_matches('"'));
            }
            "Checksum" => checksum(&mut doc, &object),
            "ObjectParts" => parts(&mut doc, &object, marker, max_parts),
            "StorageClass" => {
                doc.text("StorageClass", "STANDARD");
            }
            _ => {
                doc.text("ObjectSize", object.body.len().to_string());
            }
        }
    }
    let builder = with_version(response(200), version.as_deref())
        .header("last-modified", http_date(&object.last_modified));
    Ok(xml_on(builder, doc.finish("GetObjectAttributesResponse")))
}

/// The checksum stored with the object, when its upload sent one.
fn checksum(doc: &mut Xml, object: &Object) {
    if let Some((algorithm, value)) = &object.checksum {
        doc.open("Checksum")
            .text(&format!("Checksum{algorithm}"), value)
            .text("ChecksumType", "FULL_OBJECT")
            .close("Checksum");
    }
}

/// The parts of an object a multipart upload made, from `marker`; nothing
/// for an object uploaded whole.
fn parts(doc: &mut Xml, object: &Object, marker: usize, max: usize) {
    if object.parts.is_empty() {
        return;
    }
    let after: Vec<_> = object
        .parts
        .iter()
        .filter(|(number, _)| *number as usize > marker)
        .collect();
    let shown = &after[..after.len().min(max)];
    // The XML names `TotalPartsCount` `PartsCount`.
    doc.open("ObjectParts")
        .text("PartsCount", object.parts.len().to_string())
        .text("PartNumberMarker", marker.to_string());
    if let Some((last, _)) = shown.last() {
        doc.text("NextPartNumberMarker", last.to_string());
    }
    doc.text("MaxParts", max.to_string())
        .text("IsTruncated", (after.len() > shown.len()).to_string());
    for (number, size) in shown {
        doc.open("Part")
            .text("PartNumber", number.to_string())
            .text("Size", size.to_string())
            .close("Part");
    }
    doc.close("ObjectParts");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_attribute_header_must_name_known_attributes() {
        assert_eq!(
            wanted("ETag, ObjectSize").unwrap(),
            vec!["ETag", "ObjectSize"]
        );
        assert_eq!(wanted("").unwrap_err().code, "InvalidArgument");
        assert_eq!(wanted(" , ").unwrap_err().code, "InvalidArgument");
        let bad = wanted("ETag,Colour").unwrap_err();
        assert!(bad
            .details
            .contains(&("ArgumentValue", "Colour".to_string())));
    }

    #[test]
    fn parts_are_listed_from_the_marker_up_to_the_maximum() {
        let mut object = Object::new(bytes::Bytes::from_static(b"xyz"), None, Default::default());
        let mut doc = Xml::document("R", "ns");
        parts(&mut doc, &object, 0, 10);
        assert_eq!(doc.finish("R"), Xml::document("R", "ns").finish("R"));

        object.parts = vec![(1, 5), (2, 6), (3, 7)];
        let mut doc = Xml::document("R", "ns");
        parts(&mut doc, &object, 1, 1);
        let xml = doc.finish("R");
        assert!(xml.contains("<PartsCount>3</PartsCount>"), "{xml}");
        assert!(
            xml.contains("<NextPartNumberMarker>2</NextPartNumberMarker>"),
            "{xml}"
        );
        assert!(xml.contains("<IsTruncated>true</IsTruncated>"), "{xml}");
        assert!(
            xml.contains("<Part><PartNumber>2</PartNumber><Size>6</Size></Part>"),
            "{xml}"
        );
        assert!(!xml.contains("<PartNumber>3</PartNumber>"), "{xml}");
    }
}
