//! S3's errors: an XML body `<Error><Code>..</Code><Message>..</Message>..`
//! with the status the S3 API reference lists for each code
//! (https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html).

use bytes::Bytes;
use http::StatusCode;

use localcloud_core::xml::escape;

#[derive(Debug, Clone, PartialEq)]
pub struct S3Error {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
    /// Extra elements AWS adds (`BucketName`, `Key`, `UploadId`, ...).
    pub details: Vec<(&'static str, String)>,
    /// Response headers AWS sends with the error (`x-amz-delete-marker`, ...).
    pub headers: Vec<(&'static str, String)>,
}

impl S3Error {
    pub fn new(status: u16, code: &'static str, message: impl Into<String>) -> Self {
        Self {
            status: StatusCode::from_u16(status).expect("S3 error statuses are valid"),
            code,
            message: message.into(),
            details: Vec::new(),
            headers: Vec::new(),
        }
    }

    pub fn with_header(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.headers.push((name, value.into()));
        self
    }

    pub fn with(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.details.push((name, value.into()));
        self
    }

    pub fn no_such_bucket(bucket: &str) -> Self {
        Self::new(404, "NoSuchBucket", "The specified bucket does not exist")
            .with("BucketName", bucket)
    }

    pub fn no_such_key(key: &str) -> Self {
        Self::new(404, "NoSuchKey", "The specified key does not exist.").with("Key", key)
    }

    pub fn no_such_upload(upload_id: &str) -> Self {
        Self::new(
            404,
            "NoSuchUpload",
            "The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.",
        )
        .with("UploadId", upload_id)
    }

    pub fn malformed_xml() -> Self {
        Self::new(
            400,
            "MalformedXML",
            "The XML you provided was not well-formed or did not validate against our published schema",
        )
    }

    pub fn invalid_argument(message: impl Into<String>) -> Self {
        Self::new(400, "InvalidArgument", message)
    }

    /// The response; HEAD responses carry no body, as on AWS.
    pub fn into_response(self, request_id: &str, head: bool) -> http::Response<Bytes> {
        let mut builder = http::Response::builder()
            .status(self.status)
            .header("x-amz-request-id", request_id)
            .header("x-amz-id-2", request_id);
        for (name, value) in &self.headers {
            builder = builder.header(*name, value);
        }
        if head {
            return builder.body(Bytes::new()).expect("valid error response");
        }
        let mut body = format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>{}</Code><Message>{}</Message>",
            self.code,
            escape(&self.message)
        );
        for (name, value) in &self.details {
            body.push_str(&format!("<{name}>{}</{name}>", escape(value)));
        }
        body.push_str(&format!(
            "<RequestId>{request_id}</RequestId><HostId>{request_id}</HostId></Error>"
        ));
        builder
            .header("content-type", "application/xml")
            .body(Bytes::from(body))
            .expect("valid error response")
    }
}

impl std::fmt::Display for S3Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for S3Error {}
