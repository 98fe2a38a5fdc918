//! The REST-XML front: which operation a request is, and its response.

use async_trait::async_trait;
use http::Method;
use localcloud_core::context::{new_request_id, signing_service};
use localcloud_core::{HttpRequest, HttpResponse, PathService, RequestContext};

use crate::address::{address, host_bucket, query};
use crate::error::S3Error;
use crate::protocol::Call;
use crate::service::S3Service;
use crate::{bucket_api, chunked, object_api};

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
        // An aws-chunked body's trailers (checksums) read as headers.
        let mut headers = request.headers().clone();
        let body = if chunked::is_chunked(request.headers()) {
            let (body, trailers) = chunked::decode(request.body())?;
            for (name, value) in trailers {
                if let (Ok(name), Ok(value)) = (
                    http::HeaderName::from_bytes(name.as_bytes()),
                    http::HeaderValue::from_str(&value),
                ) {
                    headers.insert(name, value);
                }
            }
            body
        } else {
            request.body().clone()
        };
        let mut query = query(request.uri().query());
        // SDKs name the operation in `x-id` (`?x-id=PutObject`); S3 ignores it.
        query.remove("x-id");
        let call = Call {
            ctx: RequestContext::from_headers(request.headers()),
            method: request.method(),
            headers: &headers,
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
