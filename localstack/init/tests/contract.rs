//! The init against LocalStack's side of the contract, played here: a fake
//! LocalStack records what the init POSTs to `LOCALSTACK_RUNTIME_ENDPOINT`
//! and sends invocations to its interop port as LocalStack does; the
//! bootstrap is a small Python runtime speaking the Lambda Runtime API.

use std::io::{BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

use localstack_init::http::{read_request, write_response};
use serde_json::{json, Value};

const RUNTIME_ID: &str = "0123456789abcdef0123456789abcdef";

/// Echoes its event; `{"fail": true}` answers an error, `{"sleep": s}`
/// sleeps first.
const ECHO_RUNTIME: &str = r#"#!/usr/bin/env python3
import json, os, time, urllib.request
base = "http://" + os.environ["AWS_LAMBDA_RUNTIME_API"] + "/2018-06-01/runtime/invocation"
print("bootstrap started", flush=True)
while True:
    with urllib.request.urlopen(base + "/next") as r:
        rid = r.headers["Lambda-Runtime-Aws-Request-Id"]
        event = json.loads(r.read() or b"null")
    print("handling " + rid, flush=True)
    asks = event if isinstance(event, dict) else {}
    if asks.get("sleep"):
        time.sleep(asks["sleep"])
    if asks.get("fail"):
        body, path = {"errorMessage": "asked to fail", "errorType": "Failure"}, base + "/" + rid + "/error"
    else:
        body, path = {"echo": event}, base + "/" + rid + "/response"
    urllib.request.urlopen(urllib.request.Request(path, data=json.dumps(body).encode(), method="POST")).read()
"#;

struct FakeLocalStack {
    port: u16,
    posts: Receiver<(String, Vec<u8>)>,
}

impl FakeLocalStack {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let (tx, posts) = channel();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let mut writer = stream.try_clone().unwrap();
                let mut reader = BufReader::new(stream);
                if let Ok(Some(request)) = read_request(&mut reader) {
                    let _ = tx.send((request.path.clone(), request.body.clone()));
                    let _ = write_response(&mut writer, 202, &[], b"");
                }
            }
        });
        Self { port, posts }
    }

    fn endpoint(&self) -> String {
        format!(
            "http://127.0.0.1:{}/_localstack_lambda/{RUNTIME_ID}",
            self.port
        )
    }

    /// The next POST, its path without the endpoint's prefix.
    fn next_post(&self) -> (String, Vec<u8>) {
        let (path, body) = self
            .posts
            .recv_timeout(Duration::from_secs(15))
            .expect("the init posts to LocalStack within 15 s");
        let prefix = format!("/_localstack_lambda/{RUNTIME_ID}");
        let path = path
            .strip_prefix(&prefix)
            .unwrap_or_else(|| panic!("{path} lacks {prefix}"));
        (path.to_string(), body)
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn script(dir: &Path, name: &str, text: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

struct Init {
    child: Child,
    interop: u16,
}

impl Drop for Init {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_init(ls: &FakeLocalStack, bootstrap: &Path, timeout_s: &str) -> Init {
    // The ports are free when picked, but another test process may take one
    // before the init binds it; the init then exits saying so, and is
    // started again on other ports.
    for _ in 0..5 {
        let interop = free_port();
        let mut child = Command::new(env!("CARGO_BIN_EXE_localstack-init"))
            .arg(bootstrap)
            .env("LOCALSTACK_RUNTIME_ENDPOINT", ls.endpoint())
            .env("LOCALSTACK_RUNTIME_ID", RUNTIME_ID)
            .env("LOCALSTACK_INTEROP_PORT", interop.to_string())
            .env("LOCALSTACK_RUNTIME_API_PORT", free_port().to_string())
            .env("AWS_LAMBDA_FUNCTION_TIMEOUT", timeout_s)
            .env("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "256")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let lost_port = watch_for_lost_port(child.stderr.take().unwrap());
        if !init_lost_a_port(&mut child, interop, &lost_port) {
            return Init { child, interop };
        }
        let _ = child.wait();
    }
    panic!("the init could not listen on free ports in five tries");
}

/// Drains the init's stderr (the bootstrap's output too), telling when it
/// could not listen on a port.
fn watch_for_lost_port(stderr: std::process::ChildStderr) -> Receiver<()> {
    use std::io::BufRead;
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if line.contains("cannot listen") {
                let _ = tx.send(());
            }
        }
    });
    rx
}

/// Waits until the init listens on its interop port (it binds both ports
/// before anything else) or exits; true when it exited for a lost port.
fn init_lost_a_port(child: &mut Child, interop: u16, lost_port: &Receiver<()>) -> bool {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(10) {
        if lost_port.try_recv().is_ok() {
            return true;
        }
        if TcpStream::connect(("127.0.0.1", interop)).is_ok() {
            return false;
        }
        if let Ok(Some(_)) = child.try_wait() {
            // Exited for another reason (a bootstrap that fails): what the
            // test is about. Its stderr has ended or is about to.
            return lost_port.recv_timeout(Duration::from_secs(1)).is_ok();
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    false
}

/// LocalStack's `POST /invoke`; the init's status code.
fn invoke(init: &Init, id: &str, payload: &Value) -> u16 {
    let body = json!({
        "invoke-id": id,
        "invoked-function-arn": "arn:aws:lambda:us-east-1:000000000000:function:echo",
        "payload": payload.to_string(),
        "trace-id": "Root=1-00000000-000000000000000000000000",
    })
    .to_string();
    let started = Instant::now();
    let mut stream = loop {
        match TcpStream::connect(("127.0.0.1", init.interop)) {
            Ok(stream) => break stream,
            Err(_) if started.elapsed() < Duration::from_secs(10) => {
                std::thread::sleep(Duration::from_millis(20))
            }
            Err(e) => panic!("the init's interop port: {e}"),
        }
    };
    write!(
        stream,
        "POST /invoke HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer.split_whitespace().nth(1).unwrap().parse().unwrap()
}

fn json_of(body: &[u8]) -> Value {
    serde_json::from_slice(body)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(body)))
}

fn ready(ls: &FakeLocalStack) {
    let (path, _) = ls.next_post();
    assert_eq!(path, format!("/status/{RUNTIME_ID}/ready"));
}

#[test]
fn an_invocation_is_answered_with_its_logs_first_then_its_response() {
    let dir = tempfile_dir("echo");
    let ls = FakeLocalStack::start();
    let init = start_init(&ls, &script(&dir, "bootstrap", ECHO_RUNTIME), "10");
    // GIVEN the environment said it is ready
    ready(&ls);
    // WHEN LocalStack sends an invocation
    assert_eq!(invoke(&init, "id-1", &json!({"x": 1})), 200);
    // THEN the logs come first, with Lambda's START, END and REPORT lines
    let (path, body) = ls.next_post();
    assert_eq!(path, "/invocations/id-1/logs");
    let logs = json_of(&body)["logs"].as_str().unwrap().to_string();
    assert!(
        logs.starts_with("START RequestId: id-1 Version: $LATEST\n"),
        "{logs}"
    );
    assert!(logs.contains("handling id-1\n"), "{logs}");
    assert!(
        logs.contains("END RequestId: id-1\nREPORT RequestId: id-1\tDuration: "),
        "{logs}"
    );
    assert!(logs.contains("\tMemory Size: 256 MB\t"), "{logs}");
    // AND then the response, the bootstrap's document as it sent it
    let (path, body) = ls.next_post();
    assert_eq!(path, "/invocations/id-1/response");
    assert_eq!(json_of(&body), json!({"echo": {"x": 1}}));
    // AND a handler error goes to the error path, in the same environment
    assert_eq!(invoke(&init, "id-2", &json!({"fail": true})), 200);
    assert_eq!(ls.next_post().0, "/invocations/id-2/logs");
    let (path, body) = ls.next_post();
    assert_eq!(path, "/invocations/id-2/error");
    assert_eq!(json_of(&body)["errorType"], "Failure");
}

#[test]
fn a_timed_out_invocation_fails_and_the_environment_serves_the_next() {
    let dir = tempfile_dir("timeout");
    let ls = FakeLocalStack::start();
    let init = start_init(&ls, &script(&dir, "bootstrap", ECHO_RUNTIME), "1");
    ready(&ls);
    // WHEN an invocation outlives the 1 s timeout
    let started = Instant::now();
    assert_eq!(invoke(&init, "slow", &json!({"sleep": 30})), 200);
    assert_eq!(ls.next_post().0, "/invocations/slow/logs");
    let (path, body) = ls.next_post();
    // THEN it fails as Lambda's timeouts do, soon after the second
    assert_eq!(path, "/invocations/slow/error");
    let error = json_of(&body);
    assert_eq!(error["errorType"], "Sandbox.Timedout");
    assert!(error["errorMessage"]
        .as_str()
        .unwrap()
        .contains("Task timed out after 1.00 seconds"));
    assert!(started.elapsed() < Duration::from_secs(10));
    // AND the restarted bootstrap answers the next one
    assert_eq!(invoke(&init, "after", &json!("again")), 200);
    assert_eq!(ls.next_post().0, "/invocations/after/logs");
    let (path, body) = ls.next_post();
    assert_eq!(path, "/invocations/after/response");
    assert_eq!(json_of(&body), json!({"echo": "again"}));
}

#[test]
fn a_bootstrap_that_exits_before_it_is_ready_fails_the_start_up() {
    let dir = tempfile_dir("exits");
    let ls = FakeLocalStack::start();
    let _init = start_init(&ls, &script(&dir, "bootstrap", "#!/bin/sh\nexit 3\n"), "3");
    let (path, body) = ls.next_post();
    assert_eq!(path, format!("/status/{RUNTIME_ID}/error"));
    let error = json_of(&body);
    assert_eq!(error["errorType"], "Runtime.ExitError");
    assert!(
        error["errorMessage"].as_str().unwrap().contains('3'),
        "{error}"
    );
}

#[test]
fn an_invoke_body_that_is_not_localstacks_is_refused() {
    let dir = tempfile_dir("refused");
    let ls = FakeLocalStack::start();
    let init = start_init(&ls, &script(&dir, "bootstrap", ECHO_RUNTIME), "3");
    ready(&ls);
    let mut stream = TcpStream::connect(("127.0.0.1", init.interop)).unwrap();
    write!(
        stream,
        "POST /invoke HTTP/1.1\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{{}}"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 400 "), "{answer}");
    assert!(answer.contains("invoke-id"), "{answer}");
}

/// A fresh directory under the target's temporary directory.
fn tempfile_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("localstack-init-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
