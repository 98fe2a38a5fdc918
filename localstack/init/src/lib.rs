//! Our init for LocalStack's Lambda containers. LocalStack (open-source
//! core, `localstack-core`) starts each execution environment as a container
//! whose entrypoint is `/var/rapid/init`, a program it otherwise downloads
//! from GitHub at first use (`localstack/lambda-runtime-init`, a fork of AWS's
//! runtime interface emulator). This one speaks the same protocol
//! (`localstack-core`'s `services/lambda_/invocation/executor_endpoint.py`
//! and `docker_runtime_executor.py`; localstack/README.md):
//!
//! - it serves the Lambda Runtime API on 127.0.0.1:9001 to the bootstrap
//!   (`/var/task/bootstrap`, `/opt/bootstrap` or `/var/runtime/bootstrap`,
//!   or the command given), which it starts with `AWS_LAMBDA_RUNTIME_API`;
//! - when the bootstrap first asks for an invocation it POSTs
//!   `{LOCALSTACK_RUNTIME_ENDPOINT}/status/{LOCALSTACK_RUNTIME_ID}/ready`; a
//!   bootstrap that exits before that is reported to `.../status/{id}/error`;
//! - LocalStack POSTs each invocation to port 9563, `/invoke`, as JSON
//!   (`invoke-id`, `invoked-function-arn`, `payload`, `trace-id`); the
//!   answer goes back as `/invocations/{id}/logs` (`{"logs": ...}`, first:
//!   LocalStack reads the logs when the result arrives) then
//!   `/invocations/{id}/response` or `/invocations/{id}/error`;
//! - an invocation past `AWS_LAMBDA_FUNCTION_TIMEOUT` seconds fails with
//!   `Sandbox.Timedout` and the bootstrap is restarted, as Lambda resets an
//!   environment after a timeout.

pub mod http;

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use http::{read_request, write_response, Endpoint, Request};

/// Where the runtime interface emulator looks for the bootstrap, in order.
pub const BOOTSTRAP_PATHS: [&str; 3] = [
    "/var/task/bootstrap",
    "/opt/bootstrap",
    "/var/runtime/bootstrap",
];
const RUNTIME_API_PREFIX: &str = "/2018-06-01/runtime";

#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub endpoint: Endpoint,
    pub runtime_id: String,
    /// Where LocalStack sends invocations (`0.0.0.0:9563`).
    pub interop: SocketAddr,
    /// Where the bootstrap finds the Runtime API (`127.0.0.1:9001`).
    pub runtime_api: SocketAddr,
    pub timeout: Duration,
    pub version: String,
    pub memory_mb: u64,
    /// The bootstrap's command line.
    pub bootstrap: Vec<String>,
    /// `LOCALSTACK_CHMOD_PATHS`: paths and octal modes to set before starting.
    pub chmod: Vec<(String, u32)>,
}

impl Config {
    /// From LocalStack's environment (`var`) and the init's arguments (the
    /// bootstrap's command line, when given).
    pub fn from_env(
        var: impl Fn(&str) -> Option<String>,
        args: Vec<String>,
    ) -> Result<Self, String> {
        let required = |name: &str| {
            var(name)
                .filter(|v| !v.is_empty())
                .ok_or(format!("{name} is not set"))
        };
        let port = |name: &str, default: u16| -> Result<u16, String> {
            var(name).map_or(Ok(default), |v| {
                v.parse().map_err(|_| format!("{name}={v:?} is not a port"))
            })
        };
        let timeout: f64 = match var("AWS_LAMBDA_FUNCTION_TIMEOUT") {
            None => 3.0,
            Some(v) => v
                .parse()
                .ok()
                .filter(|t: &f64| t.is_finite() && *t > 0.0)
                .ok_or(format!(
                    "AWS_LAMBDA_FUNCTION_TIMEOUT={v:?} is not a number of seconds"
                ))?,
        };
        let bootstrap = if args.is_empty() {
            let found = BOOTSTRAP_PATHS.iter().find(|p| Path::new(p).exists());
            vec![found
                .ok_or(format!(
                    "no bootstrap: none of {} exists",
                    BOOTSTRAP_PATHS.join(", ")
                ))?
                .to_string()]
        } else {
            args
        };
        Ok(Self {
            endpoint: Endpoint::parse(&required("LOCALSTACK_RUNTIME_ENDPOINT")?)?,
            runtime_id: required("LOCALSTACK_RUNTIME_ID")?,
            interop: SocketAddr::from(([0, 0, 0, 0], port("LOCALSTACK_INTEROP_PORT", 9563)?)),
            // Not LocalStack's: lets tests run beside another init.
            runtime_api: SocketAddr::from((
                [127, 0, 0, 1],
                port("LOCALSTACK_RUNTIME_API_PORT", 9001)?,
            )),
            timeout: Duration::from_secs_f64(timeout),
            version: var("AWS_LAMBDA_FUNCTION_VERSION").unwrap_or_else(|| "$LATEST".into()),
            memory_mb: var("AWS_LAMBDA_FUNCTION_MEMORY_SIZE")
                .and_then(|v| v.parse().ok())
                .unwrap_or(128),
            bootstrap,
            chmod: var("LOCALSTACK_CHMOD_PATHS").map_or(Ok(Vec::new()), |v| chmod_paths(&v))?,
        })
    }
}

/// `[{"path": "/tmp", "mode": "0700"}, ...]`.
fn chmod_paths(json: &str) -> Result<Vec<(String, u32)>, String> {
    let bad = || format!("LOCALSTACK_CHMOD_PATHS={json:?} is not a list of {{path, mode}}");
    let list: Vec<serde_json::Value> = serde_json::from_str(json).map_err(|_| bad())?;
    list.iter()
        .map(|entry| {
            let path = entry.get("path").and_then(|p| p.as_str()).ok_or_else(bad)?;
            let mode = entry.get("mode").and_then(|m| m.as_str()).ok_or_else(bad)?;
            let mode = u32::from_str_radix(mode, 8).map_err(|_| bad())?;
            Ok((path.to_string(), mode))
        })
        .collect()
}

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

struct Running {
    invocation: Invocation,
    started: Instant,
    deadline: Instant,
}

enum Outcome {
    Response(Vec<u8>),
    Error(Vec<u8>),
}

/// The state the threads share.
pub struct Init {
    config: Config,
    queue: Mutex<VecDeque<Invocation>>,
    arrived: Condvar,
    running: Mutex<Option<Running>>,
    /// The bootstrap's output since the last invocation ended.
    output: Mutex<String>,
    ready: AtomicBool,
    /// Set to make the supervisor kill the bootstrap (a timeout).
    kill: AtomicBool,
    child_pid: Mutex<Option<u32>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
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
            output: Mutex::new(String::new()),
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

    fn post_status(&self, status: &str, body: &[u8]) {
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
    fn report(&self, running: &Running, outcome: Outcome) {
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
        let output = std::mem::take(&mut *lock(&self.output));
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
    fn check_deadline(&self) {
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

type Handler = fn(&Init, &Request) -> (u16, Vec<(String, String)>, Vec<u8>);

/// Serves `listener`'s connections, a thread each, keep-alive.
fn serve(init: Arc<Init>, listener: TcpListener, handler: Handler) {
    for stream in listener.incoming().flatten() {
        let init = Arc::clone(&init);
        std::thread::spawn(move || serve_connection(&init, stream, handler));
    }
}

fn serve_connection(init: &Init, stream: TcpStream, handler: Handler) {
    let Ok(mut writer) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(stream);
    loop {
        match read_request(&mut reader) {
            Ok(Some(request)) => {
                let (status, headers, body) = handler(init, &request);
                let close = request
                    .header("Connection")
                    .is_some_and(|v| v.eq_ignore_ascii_case("close"));
                if write_response(&mut writer, status, &headers, &body).is_err() || close {
                    return;
                }
            }
            Ok(None) => return,
            Err(e) => {
                let _ = write_response(&mut writer, 400, &[], e.to_string().as_bytes());
                return;
            }
        }
    }
}

/// Copies the bootstrap's output to the init's stderr (the container's log)
/// and to the running invocation's logs.
fn capture(init: Arc<Init>, from: impl Read + Send + 'static) {
    std::thread::spawn(move || {
        for line in BufReader::new(from).lines().map_while(Result::ok) {
            eprintln!("{line}");
            let mut output = lock(&init.output);
            output.push_str(&line);
            output.push('\n');
        }
    });
}

fn spawn_bootstrap(init: &Arc<Init>) -> std::io::Result<Child> {
    let (program, args) = init
        .config
        .bootstrap
        .split_first()
        .expect("a bootstrap command");
    let mut child = Command::new(program)
        .args(args)
        .env(
            "AWS_LAMBDA_RUNTIME_API",
            init.config.runtime_api.to_string(),
        )
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    if let Some(out) = child.stdout.take() {
        capture(Arc::clone(init), out);
    }
    if let Some(err) = child.stderr.take() {
        capture(Arc::clone(init), err);
    }
    *lock(&init.child_pid) = Some(child.id());
    Ok(child)
}

/// Runs the bootstrap, restarting it after a timeout or a crash once the
/// environment is ready; a bootstrap that cannot start or exits before it
/// asked for an invocation fails the environment's start-up.
fn supervise(init: &Arc<Init>) -> Result<(), String> {
    loop {
        let mut child = spawn_bootstrap(init).map_err(|e| {
            let message = format!("cannot start {}: {e}", init.config.bootstrap[0]);
            init_failed(init, &message, "Runtime.InvalidEntrypoint");
            message
        })?;
        let status = loop {
            if init.kill.swap(false, Ordering::SeqCst) {
                let _ = child.kill();
            }
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) => std::thread::sleep(Duration::from_millis(10)),
                Err(e) => return Err(format!("cannot wait for the bootstrap: {e}")),
            }
            init.check_deadline();
        };
        *lock(&init.child_pid) = None;
        let message = format!("Runtime exited with error: {status}");
        if !init.ready.load(Ordering::SeqCst) {
            init_failed(init, &message, "Runtime.ExitError");
            return Err(message);
        }
        let running = lock(&init.running).take();
        if let Some(running) = running {
            let error =
                serde_json::json!({ "errorMessage": message, "errorType": "Runtime.ExitError" });
            init.report(&running, Outcome::Error(error.to_string().into_bytes()));
        }
    }
}

fn init_failed(init: &Init, message: &str, error_type: &str) {
    let error = serde_json::json!({ "errorMessage": message, "errorType": error_type });
    init.post_status("error", error.to_string().as_bytes());
}

/// Applies `LOCALSTACK_CHMOD_PATHS`, opens both ports, starts the bootstrap
/// and serves until the bootstrap fails to start.
pub fn run(config: Config) -> Result<(), String> {
    for (path, mode) in &config.chmod {
        use std::os::unix::fs::PermissionsExt;
        if let Err(e) = std::fs::set_permissions(path, std::fs::Permissions::from_mode(*mode)) {
            eprintln!("init: cannot chmod {path} to {mode:o}: {e}");
        }
    }
    let bind = |addr: SocketAddr| {
        TcpListener::bind(addr).map_err(|e| format!("cannot listen on {addr}: {e}"))
    };
    let runtime_api = bind(config.runtime_api)?;
    let interop = bind(config.interop)?;
    let init = Init::new(config);
    let api = Arc::clone(&init);
    std::thread::spawn(move || serve(api, runtime_api, Init::runtime_api));
    let ls = Arc::clone(&init);
    std::thread::spawn(move || serve(ls, interop, Init::interop));
    supervise(&init)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        }
    }

    const BASE: [(&str, &str); 2] = [
        (
            "LOCALSTACK_RUNTIME_ENDPOINT",
            "http://10.0.0.1:4566/_localstack_lambda/abc",
        ),
        ("LOCALSTACK_RUNTIME_ID", "abc"),
    ];

    #[test]
    fn localstacks_environment_configures_the_init() {
        let mut vars = BASE.to_vec();
        vars.extend([
            ("AWS_LAMBDA_FUNCTION_TIMEOUT", "30"),
            ("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "256"),
            (
                "LOCALSTACK_CHMOD_PATHS",
                r#"[{"path": "/tmp", "mode": "0700"}]"#,
            ),
        ]);
        let config = Config::from_env(env(&vars), vec!["/bin/true".into()]).unwrap();
        assert_eq!(config.endpoint.prefix, "/_localstack_lambda/abc");
        assert_eq!(config.interop.port(), 9563);
        assert_eq!(config.runtime_api.to_string(), "127.0.0.1:9001");
        assert_eq!(config.timeout, Duration::from_secs(30));
        assert_eq!(
            (config.memory_mb, config.version.as_str()),
            (256, "$LATEST")
        );
        assert_eq!(config.chmod, [("/tmp".to_string(), 0o700)]);
        assert_eq!(config.bootstrap, ["/bin/true"]);
    }

    #[test]
    fn a_missing_or_malformed_setting_is_an_error_that_names_it() {
        let args = || vec!["/bin/true".to_string()];
        let err = Config::from_env(env(&BASE[..1]), args()).unwrap_err();
        assert!(err.contains("LOCALSTACK_RUNTIME_ID"), "{err}");
        for (name, value) in [
            ("AWS_LAMBDA_FUNCTION_TIMEOUT", "soon"),
            ("LOCALSTACK_INTEROP_PORT", "99999"),
            (
                "LOCALSTACK_CHMOD_PATHS",
                "[{\"path\": \"/tmp\", \"mode\": \"rwx\"}]",
            ),
        ] {
            let mut vars = BASE.to_vec();
            vars.push((name, value));
            let err = Config::from_env(env(&vars), args()).unwrap_err();
            assert!(err.contains(name), "{err}");
        }
    }

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
