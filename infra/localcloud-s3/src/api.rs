//! The REST-XML front: which operation a request is, and its response.

use std::collections::BTreeMap;

use async_trait::async_trait;
use bytes::Bytes;
use http::Method;
use localcloud_core::context::{new_request_id, signing_service};
use localcloud_core::{HttpRequest, HttpResponse, PathService, RequestContext};

use crate::address::{address, host_bucket, query};
use crate::error::S3Error;
use crate::{bucket_api, chunked, object_api, S3Service};

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

/// True when the request is for S3: signed for `s3`, or addressed to a
/// virtual-host-style bucket.
fn is_s3(request: &HttpRequest) -> bool {
    match signing_service(request) {
        Some(service) => service == "s3",
        None => host(request).and_then(host_bucket).is_some(),
    }
}

fn host(request: &HttpRequest) -> Option<&str> {
    request
        .headers()
        .get(http::header::HOST)
        .and_then(|v| v.to_str().ok())
        .or_else(|| request.uri().authority().map(|a| a.as_str()))
}

#[async_trait]
impl PathService for S3Service {
    async fn handle(&self, request: HttpRequest) -> Result<HttpResponse, HttpRequest> {
        if !is_s3(&request) {
            return Err(request);
        }
        let head = request.method() == Method::HEAD;
        let request_id = new_request_id();
        let response = self
            .answer(&request)
            .unwrap_or_else(|e| e.into_response(&request_id, head));
        Ok(response)
    }
}

impl S3Service {
    fn answer(&self, request: &HttpRequest) -> Result<HttpResponse, S3Error> {
        let at = address(host(request), request.uri().path());
        let body = if chunked::is_chunked(request.headers()) {
            chunked::decode(request.body())?
        } else {
            request.body().clone()
        };
        let mut query = query(request.uri().query());
        // SDKs name the operation in `x-id` (`?x-id=PutObject`); S3 ignores it.
        query.remove("x-id");
        let call = Call {
            ctx: RequestContext::from_headers(request.headers()),
            method: request.method(),
            headers: request.headers(),
            query,
            body,
        };
        match (at.bucket, at.key) {
            (None, _) if call.method == Method::GET => bucket_api::list_buckets(self, &call),
            (None, _) => Err(S3Error::new(
                405,
                "MethodNotAllowed",
                "The specified method is not allowed against this resource.",
            )),
            (Some(bucket), None) => bucket_api::bucket(self, &call, &bucket),
            (Some(bucket), Some(key)) => object_api::object(self, &call, &bucket, &key),
        }
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

pub(crate) fn xml(body: String) -> HttpResponse {
    response(200)
        .header("content-type", "application/xml")
        .body(Bytes::from(body))
        .expect("valid XML response")
}

pub(crate) fn empty(status: u16) -> HttpResponse {
    response(status)
        .body(Bytes::new())
        .expect("valid empty response")
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
