//! The thin runtime against a scripted Runtime API: what it posts where, for
//! answers, errors, panics and a failed INIT, and how it reads events.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use thin_runtime::{Function, FunctionError, RuntimeApi, RuntimeError};

/// A request the fake Runtime API received.
#[derive(Debug, Clone)]
struct Received {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: String,
}

impl Received {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

#[derive(Clone, Copy, Default)]
struct Script {
    /// Send events with `Transfer-Encoding: chunked`.
    chunked: bool,
    /// Close the connection after every answer (without saying so).
    close_after_each: bool,
    /// Answer POSTs with this status instead of 202.
    post_status: Option<u16>,
}

/// Serves `events` to `GET .../next` (request ids `r1`, `r2`, ...), then stops
/// listening, so that the runtime's next wait fails and `run` returns.
struct FakeRuntimeApi {
    address: String,
    received: Arc<Mutex<Vec<Received>>>,
    server: JoinHandle<()>,
}

impl FakeRuntimeApi {
    fn start(events: &[&str], script: Script) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let received = Arc::new(Mutex::new(Vec::new()));
        let mut events: VecDeque<(String, String)> = events
            .iter()
            .enumerate()
            .map(|(i, e)| (format!("r{}", i + 1), e.to_string()))
            .collect();
        let log = received.clone();
        let server = std::thread::spawn(move || {
            for stream in listener.incoming() {
                let stream = stream.unwrap();
                if !serve_connection(stream, &mut events, &log, script) {
                    return;
                }
            }
        });
        Self {
            address,
            received,
            server,
        }
    }

    fn api(&self) -> RuntimeApi {
        RuntimeApi::new(&self.address)
    }

    fn finish(self) -> Vec<Received> {
        self.server.join().unwrap();
        self.received.lock().unwrap().clone()
    }
}

/// Serves requests on one connection; false once the events ran out.
fn serve_connection(
    stream: TcpStream,
    events: &mut VecDeque<(String, String)>,
    log: &Mutex<Vec<Received>>,
    script: Script,
) -> bool {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut writer = stream;
    loop {
        let Some(request) = read_request(&mut reader) else {
            return true;
        };
        let is_next = request.method == "GET";
        log.lock().unwrap().push(request);
        let answer = if is_next {
            let Some((id, event)) = events.pop_front() else {
                return false;
            };
            event_answer(&id, &event, script.chunked)
        } else {
            let status = script.post_status.unwrap_or(202);
            let body = r#"{"status":"OK"}"#;
            format!(
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
                body.len()
            )
        };
        writer.write_all(answer.as_bytes()).unwrap();
        if script.close_after_each {
            return true;
        }
    }
}

fn event_answer(id: &str, event: &str, chunked: bool) -> String {
    let head = format!(
        "HTTP/1.1 200 OK\r\nLambda-Runtime-Aws-Request-Id: {id}\r\nLambda-Runtime-Deadline-Ms: 1700000000000\r\n\
         Lambda-Runtime-Invoked-Function-Arn: arn:aws:lambda:us-east-1:000000000000:function:f\r\n\
         Lambda-Runtime-Trace-Id: Root=1-2-3\r\ncontent-type: application/json\r\n"
    );
    if chunked {
        let (a, b) = event.split_at(event.len() / 2);
        format!(
            "{head}transfer-encoding: chunked\r\n\r\n{:x}\r\n{a}\r\n{:x}\r\n{b}\r\n0\r\n\r\n",
            a.len(),
            b.len()
        )
    } else {
        format!("{head}content-length: {}\r\n\r\n{event}", event.len())
    }
}

fn read_request(reader: &mut BufReader<TcpStream>) -> Option<Received> {
    let mut line = String::new();
    if reader.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_owned();
    let path = parts.next()?.to_owned();
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).ok()?;
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        let (name, value) = header.split_once(':')?;
        headers.push((name.trim().to_owned(), value.trim().to_owned()));
    }
    let length: usize = headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
        .map(|(_, v)| v.parse().unwrap())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(Received {
        method,
        path,
        headers,
        body: String::from_utf8(body).unwrap(),
    })
}

/// Answers `{"echo": event}`, fails on `"fail"`, panics on `"panic"`.
struct Echo;

impl Function for Echo {
    async fn invoke(&self, event: &[u8]) -> Result<Vec<u8>, FunctionError> {
        tokio::task::yield_now().await;
        match event {
            b"\"fail\"" => Err(FunctionError::new("Bad", "it failed")),
            b"\"panic\"" => panic!("on purpose"),
            _ => Ok(format!("{{\"echo\":{}}}", String::from_utf8_lossy(event)).into_bytes()),
        }
    }
}

fn posts(received: &[Received]) -> Vec<&Received> {
    received.iter().filter(|r| r.method == "POST").collect()
}

#[test]
fn answers_errors_and_panics_go_to_their_own_paths_in_event_order() {
    // GIVEN four events: two ordinary ones, one the function fails, one it panics on
    let api = FakeRuntimeApi::start(
        &["{\"n\":1}", "\"fail\"", "\"panic\"", "[2]"],
        Script::default(),
    );
    // WHEN the runtime serves them until the Runtime API goes away
    let ended = thin_runtime::run_with(api.api(), async { Ok(Echo) });
    // THEN it ends with the broken connection, not before
    assert!(matches!(ended, Err(RuntimeError::Io { .. })), "{ended:?}");
    let received = api.finish();
    assert_eq!(
        received.iter().filter(|r| r.method == "GET").count(),
        5,
        "four events and the wait that failed"
    );
    assert!(received
        .iter()
        .filter(|r| r.method == "GET")
        .all(|r| r.path == "/2018-06-01/runtime/invocation/next"));
    let posts = posts(&received);
    let paths: Vec<&str> = posts.iter().map(|p| p.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "/2018-06-01/runtime/invocation/r1/response",
            "/2018-06-01/runtime/invocation/r2/error",
            "/2018-06-01/runtime/invocation/r3/error",
            "/2018-06-01/runtime/invocation/r4/response",
        ]
    );
    assert_eq!(posts[0].body, r#"{"echo":{"n":1}}"#);
    assert_eq!(posts[3].body, r#"{"echo":[2]}"#);
    // AND an error is the Runtime API's error document, its type in the header too
    let error: serde_json::Value = serde_json::from_str(&posts[1].body).unwrap();
    assert_eq!(error["errorType"], "Bad");
    assert_eq!(error["errorMessage"], "it failed");
    assert_eq!(
        posts[1].header("Lambda-Runtime-Function-Error-Type"),
        Some("Bad")
    );
    let panic: serde_json::Value = serde_json::from_str(&posts[2].body).unwrap();
    assert_eq!(panic["errorType"], "Runtime.HandlerPanic");
    assert_eq!(panic["errorMessage"], "on purpose");
}

#[test]
fn a_failed_init_is_posted_to_init_error_and_nothing_is_served() {
    let api = FakeRuntimeApi::start(&["{}"], Script::default());
    let ended = thin_runtime::run_with(api.api(), async {
        Err::<Echo, _>(FunctionError::new(
            "Runtime.ConfigInvalid",
            "JWT_SECRET is not set",
        ))
    });
    assert!(matches!(ended, Err(RuntimeError::Init(_))), "{ended:?}");
    // The fake serves its one event to a second client, so that it ends.
    let mut other = api.api();
    other.next_invocation().unwrap();
    assert!(
        other.next_invocation().is_err(),
        "the fake has no second event"
    );
    let received = api.finish();
    assert_eq!(received[0].method, "POST");
    assert_eq!(received[0].path, "/2018-06-01/runtime/init/error");
    assert_eq!(
        received[0].header("Lambda-Runtime-Function-Error-Type"),
        Some("Runtime.ConfigInvalid")
    );
    let error: serde_json::Value = serde_json::from_str(&received[0].body).unwrap();
    assert_eq!(error["errorMessage"], "JWT_SECRET is not set");
}

#[test]
fn an_event_reads_whole_with_its_headers_chunked_or_not() {
    let event = r#"{"body":"a longer event, cut in two chunks"}"#;
    for chunked in [false, true] {
        let api = FakeRuntimeApi::start(
            &[event],
            Script {
                chunked,
                ..Script::default()
            },
        );
        let mut client = api.api();
        let invocation = client.next_invocation().unwrap();
        assert_eq!(invocation.request_id, "r1");
        assert_eq!(invocation.event, event.as_bytes(), "chunked: {chunked}");
        assert_eq!(invocation.deadline_ms, Some(1_700_000_000_000));
        assert_eq!(
            invocation.function_arn.as_deref(),
            Some("arn:aws:lambda:us-east-1:000000000000:function:f")
        );
        assert_eq!(invocation.trace_id.as_deref(), Some("Root=1-2-3"));
        assert!(
            client.next_invocation().is_err(),
            "the fake has no second event"
        );
        api.finish();
    }
}

#[test]
fn a_connection_closed_between_calls_is_opened_again() {
    let api = FakeRuntimeApi::start(
        &["1", "2"],
        Script {
            close_after_each: true,
            ..Script::default()
        },
    );
    let ended = thin_runtime::run_with(api.api(), async { Ok(Echo) });
    assert!(matches!(ended, Err(RuntimeError::Io { .. })), "{ended:?}");
    let received = api.finish();
    let answers: Vec<&str> = posts(&received).iter().map(|p| p.body.as_str()).collect();
    assert_eq!(answers, [r#"{"echo":1}"#, r#"{"echo":2}"#]);
}

#[test]
fn a_path_prefix_in_the_api_address_is_kept() {
    let api = FakeRuntimeApi::start(&["{}"], Script::default());
    let mut client = RuntimeApi::new(&format!("http://{}/prefix/", api.address));
    client.next_invocation().unwrap();
    assert!(
        client.next_invocation().is_err(),
        "the fake has no second event"
    );
    let received = api.finish();
    assert_eq!(
        received[0].path,
        "/prefix/2018-06-01/runtime/invocation/next"
    );
}

#[test]
fn a_refused_answer_fails_that_invocation_only_and_a_500_ends_the_runtime() {
    // 413 (a response too large) leaves the runtime serving the next event.
    let api = FakeRuntimeApi::start(
        &["1", "2"],
        Script {
            post_status: Some(413),
            ..Script::default()
        },
    );
    let ended = thin_runtime::run_with(api.api(), async { Ok(Echo) });
    assert!(matches!(ended, Err(RuntimeError::Io { .. })), "{ended:?}");
    assert_eq!(posts(&api.finish()).len(), 2);
    // 500: "Non-recoverable state. Runtime should exit promptly."
    let api = FakeRuntimeApi::start(
        &["1", "2"],
        Script {
            post_status: Some(500),
            ..Script::default()
        },
    );
    let ended = thin_runtime::run_with(api.api(), async { Ok(Echo) });
    assert!(
        matches!(ended, Err(RuntimeError::Refused { status: 500, .. })),
        "{ended:?}"
    );
    // Serve the second event elsewhere so that the fake ends.
    let mut other = api.api();
    other.next_invocation().unwrap();
    assert!(
        other.next_invocation().is_err(),
        "the fake has no third event"
    );
    assert_eq!(posts(&api.finish()).len(), 1);
}
