//! A client of the Lambda Runtime API over one blocking keep-alive HTTP/1.1
//! connection: the calls a runtime makes, and nothing else.
//! <https://docs.aws.amazon.com/lambda/latest/dg/runtimes-api.html>

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;

use crate::error::RuntimeError;
use crate::function::FunctionError;

const VERSION: &str = "2018-06-01";

/// One event to handle, as `GET /runtime/invocation/next` gave it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    /// `Lambda-Runtime-Aws-Request-Id`.
    pub request_id: String,
    /// `Lambda-Runtime-Deadline-Ms`: when the invocation times out (Unix ms).
    pub deadline_ms: Option<u64>,
    /// `Lambda-Runtime-Invoked-Function-Arn`.
    pub function_arn: Option<String>,
    /// `Lambda-Runtime-Trace-Id`.
    pub trace_id: Option<String>,
    /// The event document (JSON).
    pub event: Vec<u8>,
}

/// The Runtime API of this execution environment.
pub struct RuntimeApi {
    host: String,
    base: String,
    connection: Option<Connection>,
}

impl RuntimeApi {
    /// The API Lambda names in `AWS_LAMBDA_RUNTIME_API`.
    pub fn from_env() -> Result<Self, RuntimeError> {
        let api = std::env::var("AWS_LAMBDA_RUNTIME_API")
            .map_err(|_| RuntimeError::Config("AWS_LAMBDA_RUNTIME_API is not set".into()))?;
        Ok(Self::new(&api))
    }

    /// Lambda gives `host:port`; emulators such as cargo lambda give a URL
    /// with a path prefix, which `lambda_runtime` accepts too.
    pub fn new(api: &str) -> Self {
        let address = api.strip_prefix("http://").unwrap_or(api);
        let (host, base) = match address.split_once('/') {
            Some((host, path)) => (host, format!("/{}", path.trim_end_matches('/'))),
            None => (address, String::new()),
        };
        Self {
            host: host.to_owned(),
            base,
            connection: None,
        }
    }

    /// The same Runtime API on a connection of its own, for another poller.
    pub fn sibling(&self) -> Self {
        Self {
            host: self.host.clone(),
            base: self.base.clone(),
            connection: None,
        }
    }

    /// Waits for the next event.
    pub fn next_invocation(&mut self) -> Result<Invocation, RuntimeError> {
        let path = format!("{}/{VERSION}/runtime/invocation/next", self.base);
        let reply = self.call("GET", &path, &[], &[])?;
        if reply.status != 200 {
            return Err(refused("next invocation", &reply));
        }
        let request_id = reply
            .header("lambda-runtime-aws-request-id")
            .ok_or_else(|| RuntimeError::Protocol("an invocation without a request id".into()))?
            .to_owned();
        Ok(Invocation {
            request_id,
            deadline_ms: reply
                .header("lambda-runtime-deadline-ms")
                .and_then(|ms| ms.parse().ok()),
            function_arn: reply
                .header("lambda-runtime-invoked-function-arn")
                .map(str::to_owned),
            trace_id: reply.header("lambda-runtime-trace-id").map(str::to_owned),
            event: reply.body,
        })
    }

    /// `POST /runtime/invocation/{id}/response`.
    pub fn respond(&mut self, request_id: &str, response: &[u8]) -> Result<(), RuntimeError> {
        let path = format!(
            "{}/{VERSION}/runtime/invocation/{request_id}/response",
            self.base
        );
        let reply = self.call("POST", &path, &[], response)?;
        accepted("the response", &reply)
    }

    /// `POST /runtime/invocation/{id}/error`.
    pub fn fail(&mut self, request_id: &str, error: &FunctionError) -> Result<(), RuntimeError> {
        let path = format!(
            "{}/{VERSION}/runtime/invocation/{request_id}/error",
            self.base
        );
        self.post_error(&path, error)
    }

    /// `POST /runtime/init/error`: the environment could not start.
    pub fn fail_init(&mut self, error: &FunctionError) -> Result<(), RuntimeError> {
        let path = format!("{}/{VERSION}/runtime/init/error", self.base);
        self.post_error(&path, error)
    }

    fn post_error(&mut self, path: &str, error: &FunctionError) -> Result<(), RuntimeError> {
        // The error document and header the Runtime API page describes.
        let body = serde_json::to_vec(&serde_json::json!({
            "errorMessage": error.error_message,
            "errorType": error.error_type,
        }))
        .expect("two strings serialize");
        let header = [(
            "Lambda-Runtime-Function-Error-Type",
            error.error_type.as_str(),
        )];
        let reply = self.call("POST", path, &header, &body)?;
        accepted("the error", &reply)
    }

    /// One request on the kept connection. A connection found closed is
    /// opened again once: Lambda keeps it, but a restarted emulator does not.
    fn call(
        &mut self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Result<Reply, RuntimeError> {
        let request = request_bytes(method, path, &self.host, headers, body);
        if let Some(connection) = self.connection.as_mut() {
            match connection.exchange(&request) {
                Ok(reply) => return Ok(reply),
                Err(e) => tracing::debug!("the Runtime API connection broke ({e}); reconnecting"),
            }
        }
        let connection = self.connection.insert(Connection::open(&self.host)?);
        connection.exchange(&request).map_err(|e| {
            self.connection = None;
            RuntimeError::Io {
                context: format!("{method} {path}"),
                source: e,
            }
        })
    }
}

fn request_bytes(
    method: &str,
    path: &str,
    host: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Vec<u8> {
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {host}\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if method != "GET" {
        head.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            body.len()
        ));
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

/// 202 is Lambda's answer; some emulators answer 200.
fn accepted(what: &str, reply: &Reply) -> Result<(), RuntimeError> {
    if (200..300).contains(&reply.status) {
        Ok(())
    } else {
        Err(refused(what, reply))
    }
}

fn refused(what: &str, reply: &Reply) -> RuntimeError {
    RuntimeError::Refused {
        what: what.to_owned(),
        status: reply.status,
        body: String::from_utf8_lossy(&reply.body).into_owned(),
    }
}

/// An HTTP response, whole.
#[derive(Debug)]
struct Reply {
    status: u16,
    /// Names in lower case.
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

struct Connection {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Connection {
    fn open(host: &str) -> Result<Self, RuntimeError> {
        let io = |source| RuntimeError::Io {
            context: format!("connecting to the Runtime API at {host}"),
            source,
        };
        let writer = TcpStream::connect(host).map_err(io)?;
        // Nagle would hold the small writes back for the peer's delayed ACK.
        writer.set_nodelay(true).map_err(io)?;
        let reader = BufReader::with_capacity(64 * 1024, writer.try_clone().map_err(io)?);
        Ok(Self { reader, writer })
    }

    /// Writes one request and reads its whole response (body by
    /// content-length or chunked), so that the connection is ready for the next.
    fn exchange(&mut self, request: &[u8]) -> std::io::Result<Reply> {
        self.writer.write_all(request)?;
        let status_line = self.line()?;
        let status = status_line
            .split(' ')
            .nth(1)
            .and_then(|code| code.parse().ok())
            .ok_or_else(|| invalid(format!("bad status line {status_line:?}")))?;
        let mut headers = Vec::new();
        loop {
            let line = self.line()?;
            if line.is_empty() {
                break;
            }
            let (name, value) = line
                .split_once(':')
                .ok_or_else(|| invalid(format!("bad header line {line:?}")))?;
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
        let mut reply = Reply {
            status,
            headers,
            body: Vec::new(),
        };
        if reply
            .header("transfer-encoding")
            .is_some_and(|v| v.eq_ignore_ascii_case("chunked"))
        {
            reply.body = self.chunked_body()?;
        } else if let Some(length) = reply.header("content-length") {
            let length: usize = length
                .parse()
                .map_err(|_| invalid(format!("bad content-length {length:?}")))?;
            reply.body = vec![0; length];
            self.reader.read_exact(&mut reply.body)?;
        }
        Ok(reply)
    }

    fn chunked_body(&mut self) -> std::io::Result<Vec<u8>> {
        let mut body = Vec::new();
        loop {
            let size_line = self.line()?;
            let size = usize::from_str_radix(size_line.split(';').next().unwrap_or("").trim(), 16)
                .map_err(|_| invalid(format!("bad chunk size {size_line:?}")))?;
            if size == 0 {
                // Trailers, then the blank line.
                while !self.line()?.is_empty() {}
                return Ok(body);
            }
            let start = body.len();
            body.resize(start + size, 0);
            self.reader.read_exact(&mut body[start..])?;
            self.line()?;
        }
    }

    fn line(&mut self) -> std::io::Result<String> {
        let mut line = String::new();
        if self.reader.read_line(&mut line)? == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the Runtime API closed the connection",
            ));
        }
        Ok(line.trim_end_matches(['\r', '\n']).to_owned())
    }
}

fn invalid(message: String) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, message)
}
