//! A no-op HTTP function with the cheapest runtime client there can be: one
//! blocking keep-alive connection to the Runtime API, no async runtime, no
//! event parsing. Behind the HTTP API benchmark it leaves almost nothing but
//! what the emulator itself does (the gateway and the runtime hops), where
//! `noop-http` adds what `lambda_runtime` and `lambda_http` cost.
//!
//! It answers every event with the API Gateway response `200 "ok"` and says
//! in `x-handler-ns` how long it spent between having read the event and
//! starting to write the answer.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Instant;

fn main() {
    let api = std::env::var("AWS_LAMBDA_RUNTIME_API")
        .unwrap_or_else(|_| die("AWS_LAMBDA_RUNTIME_API is not set"));
    // Lambda gives `host:port`; emulators such as cargo lambda give a URL
    // with a path prefix, which `lambda_runtime` accepts too.
    let address = api.strip_prefix("http://").unwrap_or(&api);
    let (host, base) = match address.split_once('/') {
        Some((host, path)) => (host, format!("/{}", path.trim_end_matches('/'))),
        None => (address, String::new()),
    };
    let stream = TcpStream::connect(host)
        .unwrap_or_else(|e| die(&format!("cannot connect to the Runtime API at {api}: {e}")));
    // Nagle would hold the small writes back for the peer's delayed ACK.
    let _ = stream.set_nodelay(true);
    let mut reader = BufReader::new(
        stream
            .try_clone()
            .unwrap_or_else(|e| die(&format!("cannot clone the socket: {e}"))),
    );
    let mut writer = stream;
    let next =
        format!("GET {base}/2018-06-01/runtime/invocation/next HTTP/1.1\r\nHost: {host}\r\n\r\n");
    loop {
        // The Runtime API closing the connection ends the environment.
        let event = send(&mut writer, &mut reader, next.as_bytes())
            .unwrap_or_else(|e| die(&format!("next invocation: {e}")));
        let started = Instant::now();
        let Some(request_id) = event.request_id else {
            die(&format!(
                "the next invocation came without a request id (HTTP {})",
                event.status
            ))
        };
        let handler_ns = started.elapsed().as_nanos();
        // The whole payload 2.0 response, as `lambda_http` writes it.
        let body = format!(
            "{{\"statusCode\":200,\"headers\":{{\"content-type\":\"text/plain\",\"x-handler-ns\":\"{handler_ns}\"}},\"multiValueHeaders\":{{}},\"body\":\"ok\",\"isBase64Encoded\":false,\"cookies\":[]}}"
        );
        let response = format!(
            "POST {base}/2018-06-01/runtime/invocation/{request_id}/response HTTP/1.1\r\n\
             Host: {host}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        );
        let accepted = send(&mut writer, &mut reader, response.as_bytes())
            .unwrap_or_else(|e| die(&format!("posting the response: {e}")));
        // Lambda answers 202; some emulators answer 200.
        if !(200..300).contains(&accepted.status) {
            die(&format!(
                "the Runtime API refused the response with HTTP {}",
                accepted.status
            ));
        }
    }
}

fn die(message: &str) -> ! {
    eprintln!("noop-raw: {message}");
    std::process::exit(1)
}

/// What this function needs of an HTTP response.
struct Reply {
    status: u16,
    request_id: Option<String>,
}

/// Writes one request and reads its whole response (body by content-length
/// or chunked), so that the connection is ready for the next one.
fn send(
    writer: &mut TcpStream,
    reader: &mut BufReader<TcpStream>,
    request: &[u8],
) -> std::io::Result<Reply> {
    writer.write_all(request)?;
    let status_line = read_line(reader)?;
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| invalid(format!("bad status line {status_line:?}")))?;
    let mut reply = Reply {
        status,
        request_id: None,
    };
    let mut content_length = 0;
    let mut chunked = false;
    loop {
        let line = read_line(reader)?;
        if line.is_empty() {
            break;
        }
        let Some((name, value)) = line.split_once(':') else {
            return Err(invalid(format!("bad header line {line:?}")));
        };
        let value = value.trim();
        match name.to_ascii_lowercase().as_str() {
            "content-length" => {
                content_length = value
                    .parse()
                    .map_err(|_| invalid(format!("bad content-length {value:?}")))?;
            }
            "transfer-encoding" => chunked = value.eq_ignore_ascii_case("chunked"),
            "lambda-runtime-aws-request-id" => reply.request_id = Some(value.to_string()),
            _ => {}
        }
    }
    if chunked {
        loop {
            let size_line = read_line(reader)?;
            let size = usize::from_str_radix(size_line.split(';').next().unwrap_or("").trim(), 16)
                .map_err(|_| invalid(format!("bad chunk size {size_line:?}")))?;
            skip(reader, size)?;
            read_line(reader)?;
            if size == 0 {
                break;
            }
        }
    } else {
        skip(reader, content_length)?;
    }
    Ok(reply)
}

fn read_line(reader: &mut BufReader<TcpStream>) -> std::io::Result<String> {
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Err(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            "the Runtime API closed the connection",
        ));
    }
    Ok(line.trim_end_matches(['\r', '\n']).to_string())
}

fn skip(reader: &mut BufReader<TcpStream>, bytes: usize) -> std::io::Result<()> {
    let copied = std::io::copy(
        &mut reader.by_ref().take(bytes as u64),
        &mut std::io::sink(),
    )?;
    if copied < bytes as u64 {
        return Err(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            "the Runtime API closed the connection mid-body",
        ));
    }
    Ok(())
}

fn invalid(message: String) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, message)
}
