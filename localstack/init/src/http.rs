//! The little HTTP/1.1 the init speaks: requests read from and responses
//! written to keep-alive connections (the Runtime API, the interop port),
//! and one-shot POSTs to LocalStack.

use std::io::{self, BufRead, BufReader, Write};
use std::net::TcpStream;
use std::time::Duration;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        header(&self.headers, name)
    }
}

/// The largest body taken: LocalStack's payload limit is 6 MB + 100 bytes.
const MAX_BODY: usize = 16 * 1024 * 1024;
const MAX_HEAD: usize = 64 * 1024;

fn invalid(message: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message.into())
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// The next request on `reader`; `None` at a clean end of the connection.
pub fn read_request<R: BufRead>(reader: &mut R) -> io::Result<Option<Request>> {
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    let mut parts = line.trim_end().splitn(3, ' ');
    let (method, path) = match (parts.next(), parts.next()) {
        (Some(method), Some(path)) if !method.is_empty() && path.starts_with('/') => {
            (method.to_string(), path.to_string())
        }
        _ => return Err(invalid(format!("bad request line {line:?}"))),
    };
    let headers = read_headers(reader)?;
    let body = read_body(reader, &headers)?;
    Ok(Some(Request {
        method,
        path,
        headers,
        body,
    }))
}

fn read_headers<R: BufRead>(reader: &mut R) -> io::Result<Vec<(String, String)>> {
    let mut headers = Vec::new();
    let mut total = 0;
    loop {
        let mut line = String::new();
        let read = reader.read_line(&mut line)?;
        if read == 0 {
            return Err(invalid("the connection closed in the headers"));
        }
        total += read;
        if total > MAX_HEAD {
            return Err(invalid("headers over 64 KB"));
        }
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            return Ok(headers);
        }
        let (name, value) = line
            .split_once(':')
            .ok_or_else(|| invalid(format!("bad header {line:?}")))?;
        headers.push((name.trim().to_string(), value.trim().to_string()));
    }
}

fn read_body<R: BufRead>(reader: &mut R, headers: &[(String, String)]) -> io::Result<Vec<u8>> {
    let chunked = header(headers, "transfer-encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
    if chunked {
        return read_chunked(reader);
    }
    let length = match header(headers, "content-length") {
        None => 0,
        Some(v) => v
            .parse::<usize>()
            .map_err(|_| invalid(format!("bad Content-Length {v:?}")))?,
    };
    if length > MAX_BODY {
        return Err(invalid(format!("a body of {length} bytes is over 16 MB")));
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    Ok(body)
}

fn read_chunked<R: BufRead>(reader: &mut R) -> io::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return Err(invalid("the connection closed in a chunk"));
        }
        let size_text = line.trim_end().split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(size_text, 16)
            .map_err(|_| invalid(format!("bad chunk size {line:?}")))?;
        if size == 0 {
            read_headers(reader)?; // the trailers, up to the empty line
            return Ok(body);
        }
        if body.len() + size > MAX_BODY {
            return Err(invalid("a chunked body over 16 MB"));
        }
        let start = body.len();
        body.resize(start + size, 0);
        reader.read_exact(&mut body[start..])?;
        let mut crlf = [0u8; 2];
        reader.read_exact(&mut crlf)?;
    }
}

/// A response with its `Content-Length`; the connection stays open.
pub fn write_response<W: Write>(
    out: &mut W,
    status: u16,
    headers: &[(String, String)],
    body: &[u8],
) -> io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {status} {}\r\nContent-Length: {}\r\n",
        reason(status),
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    out.write_all(head.as_bytes())?;
    out.write_all(body)?;
    out.flush()
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        202 => "Accepted",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        413 => "Payload Too Large",
        _ => "Status",
    }
}

/// An `http://host[:port]/prefix` endpoint, LocalStack's
/// `LOCALSTACK_RUNTIME_ENDPOINT`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// `host:port`.
    pub authority: String,
    /// The path every request starts with, without a trailing `/`.
    pub prefix: String,
}

impl Endpoint {
    pub fn parse(url: &str) -> Result<Self, String> {
        let rest = url
            .strip_prefix("http://")
            .ok_or_else(|| format!("{url:?} is not an http:// URL"))?;
        let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        if authority.is_empty() {
            return Err(format!("{url:?} has no host"));
        }
        let authority = if authority.contains(':') {
            authority.to_string()
        } else {
            format!("{authority}:80")
        };
        Ok(Self {
            authority,
            prefix: path.trim_end_matches('/').to_string(),
        })
    }

    /// POSTs `body` to the prefix and `path`; the response's status code.
    pub fn post(&self, path: &str, content_type: &str, body: &[u8]) -> io::Result<u16> {
        let mut stream = TcpStream::connect(&self.authority)?;
        stream.set_read_timeout(Some(Duration::from_secs(30)))?;
        let head = format!(
            "POST {}{path} HTTP/1.1\r\nHost: {}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            self.prefix,
            self.authority,
            body.len()
        );
        stream.write_all(head.as_bytes())?;
        stream.write_all(body)?;
        stream.flush()?;
        let mut status_line = String::new();
        BufReader::new(stream).read_line(&mut status_line)?;
        status_line
            .split_whitespace()
            .nth(1)
            .and_then(|code| code.parse().ok())
            .ok_or_else(|| invalid(format!("bad status line {status_line:?}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keep_alive_requests_are_read_one_after_another_chunked_or_not() {
        let wire = b"GET /2018-06-01/runtime/invocation/next HTTP/1.1\r\nHost: x\r\n\r\n\
POST /a HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello\
POST /b HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n";
        let mut reader = &wire[..];
        let first = read_request(&mut reader).unwrap().unwrap();
        assert_eq!((first.method.as_str(), first.body.len()), ("GET", 0));
        assert_eq!(first.header("HOST"), Some("x"));
        let second = read_request(&mut reader).unwrap().unwrap();
        assert_eq!(
            (second.path.as_str(), second.body.as_slice()),
            ("/a", &b"hello"[..])
        );
        let third = read_request(&mut reader).unwrap().unwrap();
        assert_eq!(third.body, b"abcde");
        assert!(read_request(&mut reader).unwrap().is_none());
    }

    #[test]
    fn malformed_requests_are_errors_not_panics() {
        for wire in [
            &b"NONSENSE\r\n\r\n"[..],
            b"POST /a HTTP/1.1\r\nContent-Length: x\r\n\r\n",
            b"POST /a HTTP/1.1\r\nContent-Length: 99999999999\r\n\r\n",
            b"POST /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            b"POST /a HTTP/1.1\r\nno colon\r\n\r\n",
            b"POST /a HTTP/1.1\r\nContent-Length: 10\r\n\r\nshort",
        ] {
            let mut reader = wire;
            assert!(
                read_request(&mut reader).is_err(),
                "{:?}",
                String::from_utf8_lossy(wire)
            );
        }
    }

    #[test]
    fn endpoints_parse_with_and_without_port_and_prefix() {
        let e = Endpoint::parse("http://172.17.0.2:4566/_localstack_lambda/abc/").unwrap();
        assert_eq!(e.authority, "172.17.0.2:4566");
        assert_eq!(e.prefix, "/_localstack_lambda/abc");
        let e = Endpoint::parse("http://localstack").unwrap();
        assert_eq!(
            (e.authority.as_str(), e.prefix.as_str()),
            ("localstack:80", "")
        );
        assert!(Endpoint::parse("https://x").is_err());
        assert!(Endpoint::parse("http:///x").is_err());
    }
}
