//! `aws-chunked` bodies: SDKs stream uploads as
//! `<hex size>[;chunk-signature=..]\r\n<data>\r\n ... 0..\r\n<trailers>\r\n\r\n`
//! (SigV4 streaming, and unsigned payloads with a trailing checksum).
//! https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming.html

use bytes::{Bytes, BytesMut};
use http::HeaderMap;

use crate::error::S3Error;

/// True when the body is `aws-chunked` and must be decoded.
pub fn is_chunked(headers: &HeaderMap) -> bool {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    header("x-amz-content-sha256").is_some_and(|v| v.starts_with("STREAMING-"))
        || header("content-encoding").is_some_and(|v| v.contains("aws-chunked"))
}

/// The payload of an `aws-chunked` body and its trailers (`x-amz-checksum-crc32`),
/// as (name, value); signatures are not checked.
pub fn decode(body: &[u8]) -> Result<(Bytes, Vec<(String, String)>), S3Error> {
    let bad = || {
        S3Error::new(
            400,
            "IncompleteBody",
            "The request body is not valid aws-chunked encoding",
        )
    };
    let mut out = BytesMut::with_capacity(body.len());
    let mut rest = body;
    loop {
        let line_end = find_crlf(rest).ok_or_else(bad)?;
        let line = std::str::from_utf8(&rest[..line_end]).map_err(|_| bad())?;
        let size_hex = line.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(size_hex, 16).map_err(|_| bad())?;
        rest = &rest[line_end + 2..];
        if size == 0 {
            return Ok((out.freeze(), trailers(rest)));
        }
        if rest.len() < size + 2 || &rest[size..size + 2] != b"\r\n" {
            return Err(bad());
        }
        out.extend_from_slice(&rest[..size]);
        rest = &rest[size + 2..];
    }
}

/// `name:value` lines up to the empty line that ends the body.
fn trailers(rest: &[u8]) -> Vec<(String, String)> {
    String::from_utf8_lossy(rest)
        .split("\r\n")
        .take_while(|line| !line.is_empty())
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_string()))
        .collect()
}

fn find_crlf(data: &[u8]) -> Option<usize> {
    data.windows(2).position(|w| w == b"\r\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signed_and_unsigned_chunks_are_joined_and_trailers_dropped() {
        let signed = b"5;chunk-signature=abc\r\nhello\r\n6;chunk-signature=def\r\n world\r\n0;chunk-signature=0\r\n\r\n";
        let (payload, trailers) = decode(signed).unwrap();
        assert_eq!((&payload[..], trailers.len()), (&b"hello world"[..], 0));
        let unsigned = b"3\r\nabc\r\n0\r\nx-amz-checksum-crc32:NSRBwg==\r\n\r\n";
        let (payload, trailers) = decode(unsigned).unwrap();
        assert_eq!(&payload[..], b"abc");
        assert_eq!(
            trailers,
            vec![("x-amz-checksum-crc32".to_string(), "NSRBwg==".to_string())]
        );
    }

    #[test]
    fn a_truncated_chunk_is_an_error() {
        assert_eq!(
            decode(b"a\r\nshort\r\n").unwrap_err().code,
            "IncompleteBody"
        );
        assert_eq!(decode(b"zz\r\n").unwrap_err().code, "IncompleteBody");
    }
}
