//! One environment's invocations: LocalStack's `/invoke` queues them, the
//! bootstrap takes them from the Runtime API's `/next` and answers each,
//! and the answer goes back to LocalStack, logs first.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::config::Config;
use crate::http::Request;
use crate::output::Output;

const RUNTIME_API_PREFIX: &str = "/2018-06-01/runtime";

/// One invocation as LocalStack sends it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    pub id: String,
    pub function_arn: String,
    pub payload: String,
    pub trace_id: Option<String>,
}

impl Invocation {
    pub fn parse(body: &[u8]) -> Result<Self, String> {
        let value: serde_json::Value = serde_json::from_slice(body)
            .map_err(|e| format!("the invoke body is not JSON: {e}"))?;
        let text = |key: &str| value.get(key).and_then(|v| v.as_str()).map(str::to_string);
        Ok(Self {
            id: text("invoke-id").ok_or("the invoke body has no invoke-id")?,
            function_arn: text("invoked-function-arn").unwrap_or_default(),
            payload: text("payload").unwrap_or_default(),
            trace_id: text("trace-id"),
        })
    }
}

pub(crate) struct Running {
    invocation: Invocation,
    started: Instant,
    deadline: Instant,
}

pub(crate) enum Outcome {
    Response(Vec<u8>),
    Error(Vec<u8>),
}

/// The state the threads share.
pub struct Init {
    pub(crate) config: Config,
    pub(crate) queue: Mutex<VecDeque<Invocation>>,
    pub(crate) arrived: Condvar,
    pub(crate) running: Mutex<Option<Running>>,
    /// The bootstrap's output since the last invocation ended.
    pub(crate) output: Arc<Output>,
    pub(crate) ready: AtomicBool,
    /// Set to make the supervisor kill the bootstrap (a timeout).
    pub(crate) kill: AtomicBool,
    pub(crate) child_pid: Mutex<Option<u32>>,
}

pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Init {
    pub fn new(config: Config) -> Arc<Self> {
        Arc::new(Self {
            config,
            queue: Mutex::new(VecDeque::new()),
            arrived: Condvar::new(),
            running: Mutex::new(None),
            output: Arc::default(),
            ready: AtomicBool::new(false),
            kill: AtomicBool::new(false),
            child_pid: Mutex::new(None),
        })
    }

    fn post(&self, path: &str, content_type: &str, body: &[u8]) {
        match self.config.endpoint.post(path, content_type, body) {
            Ok(status) if (200..300).contains(&status) => {}
            Ok(status) => eprintln!("init: LocalStack answered {status} to {path}"),
            Err(e) => eprintln!("init: cannot reach LocalStack for {path}: {e}"),
        }
    }

    pub(crate) fn post_status(&self, status: &str, body: &[u8]) {
        let path = format!("/status/{}/{status}", self.config.runtime_id);
        self.post(&path, "application/json", body);
    }

    /// Blocks until LocalStack sends an invocation; the first call tells
    /// LocalStack the environment is ready.
    fn next(&self) -> Invocation {
        if !self.ready.swap(true, Ordering::SeqCst) {
            self.post_status("ready", b"");
        }
        let mut queue = lock(&self.queue);
        let invocation = loop {
            if let Some(invocation) = queue.pop_front() {
                break invocation;
            }
            queue = self.arrived.wait(queue).unwrap_or_else(|p| p.into_inner());
        };
        drop(queue);
        let started = Instant::now();
        *lock(&self.running) = Some(Running {
            invocation: invocation.clone(),
            started,
            deadline: started + self.config.timeout,
        });
        invocation
    }

    fn enqueue(&self, invocation: Invocation) {
        lock(&self.queue).push_back(invocation);
        self.arrived.notify_one();
    }

    /// Ends the running invocation `id` with `outcome`; false when `id` is
    /// not the one running.
    fn finish(&self, id: &str, outcome: Outcome) -> bool {
        let running = {
            let mut running = lock(&self.running);
            match running.as_ref() {
                Some(r) if r.invocation.id == id => running.take(),
                _ => None,
            }
        };
        let Some(running) = running else {
            return false;
        };
        self.report(&running, outcome);
        true
    }

    /// Posts the invocation's logs, then its outcome.
    pub(crate) fn report(&self, running: &Running, outcome: Outcome) {
        let id = &running.invocation.id;
        let logs = self.logs_of(running);
        let logs = serde_json::json!({ "logs": logs }).to_string();
        self.post(
            &format!("/invocations/{id}/logs"),
            "application/json",
            logs.as_bytes(),
        );
        match outcome {
            Outcome::Response(body) => self.post(
                &format!("/invocations/{id}/response"),
                "application/json",
                &body,
            ),
            Outcome::Error(body) => self.post(
                &format!("/invocations/{id}/error"),
                "application/json",
                &body,
            ),
        }
    }

    /// START, the bootstrap's output, END and REPORT, as Lambda writes them.
    fn logs_of(&self, running: &Running) -> String {
        let id = &running.invocation.id;
        let output = self.output.take();
        let ms = running.started.elapsed().as_secs_f64() * 1000.0;
        let memory = self.config.memory_mb;
        let used = lock(&self.child_pid).and_then(peak_rss_mb).unwrap_or(0);
        format!(
            "START RequestId: {id} Version: {}\n{output}END RequestId: {id}\nREPORT RequestId: {id}\tDuration: {ms:.2} ms\tBilled Duration: {} ms\tMemory Size: {memory} MB\tMax Memory Used: {used} MB\t\n",
            self.config.version,
            ms.ceil() as u64,
        )
    }

    /// Fails the running invocation when its deadline has passed, and has
    /// the bootstrap restarted.
    pub(crate) fn check_deadline(&self) {
        let expired = {
            let mut running = lock(&self.running);
            match running.as_ref() {
                Some(r) if Instant::now() >= r.deadline => running.take(),
                _ => None,
            }
        };
        if let Some(running) = expired {
            let seconds = self.config.timeout.as_secs_f64();
            let error = serde_json::json!({
                "errorMessage": format!("{} Task timed out after {seconds:.2} seconds", running.invocation.id),
                "errorType": "Sandbox.Timedout",
            });
            self.report(&running, Outcome::Error(error.to_string().into_bytes()));
            self.kill.store(true, Ordering::SeqCst);
        }
    }

    /// The Runtime API: status, headers and body of the answer to `request`.
    pub fn runtime_api(&self, request: &Request) -> (u16, Vec<(String, String)>, Vec<u8>) {
        let Some(path) = request.path.strip_prefix(RUNTIME_API_PREFIX) else {
            return not_found();
        };
        let accepted = || (202, json_header(), br#"{"status":"OK"}"#.to_vec());
        match (request.method.as_str(), path) {
            ("GET", "/invocation/next") => {
                let invocation = self.next();
                (
                    200,
                    next_headers(&invocation, self.config.timeout),
                    invocation.payload.into_bytes(),
                )
            }
            ("POST", "/init/error") => {
                self.post_status("error", &error_body(request));
                accepted()
            }
            ("POST", path) => {
                let Some(rest) = path.strip_prefix("/invocation/") else {
                    return not_found();
                };
                let outcome = match rest.rsplit_once('/') {
                    Some((id, "response")) => (id, Outcome::Response(request.body.clone())),
                    Some((id, "error")) => (id, Outcome::Error(error_body(request))),
                    _ => return not_found(),
                };
                if self.finish(outcome.0, outcome.1) {
                    accepted()
                } else {
                    let body = serde_json::json!({
                        "errorMessage": format!("Invalid request ID: {:?}", outcome.0),
                        "errorType": "InvalidRequestID",
                    });
                    (400, json_header(), body.to_string().into_bytes())
                }
            }
            _ => not_found(),
        }
    }

    /// LocalStack's side: `POST /invoke`.
    pub fn interop(&self, request: &Request) -> (u16, Vec<(String, String)>, Vec<u8>) {
        match (request.method.as_str(), request.path.as_str()) {
            ("POST", "/invoke") => match Invocation::parse(&request.body) {
                Ok(invocation) => {
                    self.enqueue(invocation);
                    (200, Vec::new(), b"OK".to_vec())
                }
                Err(message) => (400, Vec::new(), message.into_bytes()),
            },
            _ => not_found(),
        }
    }
}

fn json_header() -> Vec<(String, String)> {
    vec![("Content-Type".into(), "application/json".into())]
}

fn not_found() -> (u16, Vec<(String, String)>, Vec<u8>) {
    (
        404,
        json_header(),
        br#"{"errorMessage":"not found","errorType":"NotFound"}"#.to_vec(),
    )
}

/// The runtime's error document, or one built from its error type header
/// when it sent no body.
fn error_body(request: &Request) -> Vec<u8> {
    if !request.body.is_empty() {
        return request.body.clone();
    }
    let error_type = request
        .header("Lambda-Runtime-Function-Error-Type")
        .unwrap_or("Runtime.Unknown");
    serde_json::json!({ "errorMessage": "", "errorType": error_type })
        .to_string()
        .into_bytes()
}

fn next_headers(invocation: &Invocation, timeout: Duration) -> Vec<(String, String)> {
    let deadline = SystemTime::now() + timeout;
    let deadline_ms = deadline
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let mut headers = json_header();
    headers.extend([
        (
            "Lambda-Runtime-Aws-Request-Id".into(),
            invocation.id.clone(),
        ),
        ("Lambda-Runtime-Deadline-Ms".into(), deadline_ms.to_string()),
        (
            "Lambda-Runtime-Invoked-Function-Arn".into(),
            invocation.function_arn.clone(),
        ),
    ]);
    if let Some(trace) = &invocation.trace_id {
        headers.push(("Lambda-Runtime-Trace-Id".into(), trace.clone()));
    }
    headers
}

/// The process's peak resident memory (`VmHWM`), in MB.
fn peak_rss_mb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb.div_ceil(1024))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invocations_parse_from_localstacks_body() {
        let body = br#"{"invoke-id": "id-1", "invoked-function-arn": "arn:aws:lambda:us-east-1:000000000000:function:f", "payload": "{\"a\":1}", "trace-id": "Root=1-2-3"}"#;
        let invocation = Invocation::parse(body).unwrap();
        assert_eq!(invocation.id, "id-1");
        assert_eq!(invocation.payload, r#"{"a":1}"#);
        assert_eq!(invocation.trace_id.as_deref(), Some("Root=1-2-3"));
        assert!(Invocation::parse(b"{}").is_err());
        assert!(Invocation::parse(b"not json").is_err());
    }
}
