//! What every operation of the REST-XML protocol shares: one request taken
//! apart, and the shape of S3's answers (headers, XML bodies, timestamps).

use std::collections::BTreeMap;

use bytes::Bytes;
use http::Method;
use localcloud_core::context::new_request_id;
use localcloud_core::{HttpResponse, RequestContext};

use crate::error::S3Error;

/// The XML namespace of S3's documents.
pub(crate) const S3_NS: &str = "http://s3.amazonaws.com/doc/2006-03-01/";

/// One request, taken apart.
pub(crate) struct Call<'r> {
    pub ctx: RequestContext,
    pub method: &'r Method,
    pub headers: &'r http::HeaderMap,
    pub query: BTreeMap<String, String>,
    pub body: Bytes,
}

impl Call<'_> {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    pub fn has(&self, flag: &str) -> bool {
        self.query.contains_key(flag)
    }

    pub fn param(&self, name: &str) -> Option<&str> {
        self.query.get(name).map(String::as_str)
    }
}

pub(crate) fn response(status: u16) -> http::response::Builder {
    let id = new_request_id();
    http::Response::builder()
        .status(status)
        .header("x-amz-request-id", &id)
        .header("x-amz-id-2", &id)
        .header("server", "AmazonS3")
}

/// Adds the header `name` when there is a value.
pub(crate) fn with_optional(
    builder: http::response::Builder,
    name: &str,
    value: Option<&str>,
) -> http::response::Builder {
    match value {
        Some(value) => builder.header(name, value),
        None => builder,
    }
}

pub(crate) fn xml(body: String) -> HttpResponse {
    xml_on(response(200), body)
}

/// An XML answer on `builder`, which carries the operation's headers.
pub(crate) fn xml_on(builder: http::response::Builder, body: String) -> HttpResponse {
    builder
        .header("content-type", "application/xml")
        .body(Bytes::from(body))
        .expect("valid XML response")
}

pub(crate) fn empty(status: u16) -> HttpResponse {
    empty_on(response(status))
}

/// An answer without a body on `builder`, which carries the operation's headers.
pub(crate) fn empty_on(builder: http::response::Builder) -> HttpResponse {
    builder.body(Bytes::new()).expect("valid empty response")
}

pub(crate) fn not_implemented(what: &str) -> S3Error {
    S3Error::new(
        501,
        "NotImplemented",
        format!("{what} is not implemented by the local cloud"),
    )
}

/// `2009-10-12T17:50:30.000Z`, the timestamp shape of S3's XML.
pub(crate) fn iso(t: &chrono::DateTime<chrono::Utc>) -> String {
    t.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

/// `Wed, 01 Mar 2006 12:00:00 GMT`, the shape of `Last-Modified`.
pub(crate) fn http_date(t: &chrono::DateTime<chrono::Utc>) -> String {
    t.format("%a, %d %b %Y %H:%M:%S GMT").to_string()
}

/// True with `encoding-type=url`; any other encoding is refused.
pub(crate) fn url_encoding(call: &Call) -> Result<bool, S3Error> {
    match call.param("encoding-type") {
        None => Ok(false),
        Some("url") => Ok(true),
        Some(_) => Err(S3Error::invalid_argument(
            "Invalid Encoding Method specified in Request",
        )),
    }
}

/// A key or prefix as the listing shows it, URL-encoded when asked.
pub(crate) fn encoded(url_encode: bool, text: &str) -> String {
    if url_encode {
        url_encode_key(text)
    } else {
        text.to_string()
    }
}

/// Keys as `encoding-type=url` returns them: everything but unreserved
/// characters and `/` percent-encoded.
pub(crate) fn url_encode_key(key: &str) -> String {
    let mut out = String::new();
    for b in key.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
