//! One HTTP/1.1 request per connection to an API on 127.0.0.1.

use conduit::ApiResponse;
use http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::client::RawRequest;

pub async fn send(base: &str, request: RawRequest<'_>) -> ApiResponse {
    let RawRequest {
        method,
        path_and_query,
        headers,
        body,
    } = request;
    let rest = base.strip_prefix("http://").expect("http URL");
    let (host, prefix) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let mut request = format!(
        "{method} {prefix}{path_and_query} HTTP/1.1\r\nhost: {host}\r\ncontent-length: {}\r\nconnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    let mut bytes = request.into_bytes();
    bytes.extend_from_slice(body);
    let mut stream = tokio::net::TcpStream::connect(host).await.expect("connect");
    stream.write_all(&bytes).await.expect("request sent");
    let mut response = Vec::new();
    stream
        .read_to_end(&mut response)
        .await
        .expect("response read");
    parse(&response)
}

fn parse(response: &[u8]) -> ApiResponse {
    let split = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a complete response head");
    let head = String::from_utf8_lossy(&response[..split]);
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status: u16 = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status code");
    let mut headers = HeaderMap::new();
    let mut chunked = false;
    for line in lines {
        if let Some((name, value)) = line.split_once(':') {
            let value = value.trim();
            if name.eq_ignore_ascii_case("transfer-encoding") && value.contains("chunked") {
                chunked = true;
            }
            headers.append(
                HeaderName::from_bytes(name.trim().as_bytes()).expect("header name"),
                HeaderValue::from_str(value).expect("header value"),
            );
        }
    }
    let raw = &response[split + 4..];
    let body = if chunked { dechunk(raw) } else { raw.to_vec() };
    ApiResponse {
        status: StatusCode::from_u16(status).expect("status"),
        headers,
        body,
    }
}

fn dechunk(mut raw: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    while let Some(end) = raw.windows(2).position(|w| w == b"\r\n") {
        let size =
            usize::from_str_radix(String::from_utf8_lossy(&raw[..end]).trim(), 16).unwrap_or(0);
        if size == 0 {
            break;
        }
        let start = end + 2;
        body.extend_from_slice(&raw[start..start + size]);
        raw = &raw[start + size + 2..];
    }
    body
}
