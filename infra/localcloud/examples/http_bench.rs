//! No-op Rust functions behind an HTTP API: requests per second, latency and
//! the latency the emulator adds (gateway and runtime hops, without the
//! function's own time), side by side for the local cloud and, if asked,
//! `cargo lambda watch` on the same functions in the same run.
//!
//! ```text
//! cargo build --release -p test-functions -p localcloud --bins --examples
//! target/release/examples/http_bench --connections 8 --seconds 5 --rounds 3 --cargo-lambda
//! ```
//!
//! The local cloud runs as the `localcloud serve` binary (a separate process,
//! as users run it) on a template written to a temporary folder, with one
//! route per function; `--cargo-lambda` starts `cargo lambda watch --release`
//! in `infra/test-functions` and calls the functions' URLs
//! (`/lambda-url/<binary>/...`). Two functions: `noop-http` (a `lambda_http`
//! function, what users run) and `noop-raw` (a minimal Runtime API client,
//! whose own time is next to nothing, so that its rows show the emulator).
//! Both answer "ok" and report their handler time in `x-handler-ns`; "added"
//! latency is the client's latency minus that. The client is one thread of raw
//! HTTP/1.1 keep-alive connections (hyper), so that it costs little next to
//! what it measures; the floor row is the same client against an in-process
//! server that answers at once: what loopback TCP and HTTP cost on this machine.
//!
//! The relay floor row is a minimal emulator (`support/relay_floor.rs`: one
//! thread, hyper, a fixed event, nothing measured or logged) in a process of
//! its own, in front of the raw-runtime function: the least CPU per request
//! and the most requests per second any emulator of this design reaches here.
//!
//! The local cloud runs with `--cpu-share off`: its function processes use
//! this machine's cores unthrottled, as `cargo lambda watch`'s do. With the
//! default (`aws`), a 128 MB function would get 7 % of a vCPU, and the rows
//! would compare that quota with watch's unthrottled functions rather than
//! the two emulators.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Empty, Full};
use hyper::client::conn::http1::SendRequest;
use tokio::net::TcpStream;

#[path = "support/relay_floor.rs"]
mod relay_floor;

/// `http_bench --relay-floor-serve FUNCTION ENVIRONMENTS`: the relay floor's
/// own process (started by the benchmark itself).
const RELAY_FLOOR_SERVE: &str = "--relay-floor-serve";

/// `localcloud serve --cpu-share`: the functions' CPU share is off, so that
/// both emulators' functions run unthrottled and the rows measure the emulators.
const CPU_SHARE: &str = "off";

/// The benchmarked functions: (binary, route, what the row is called).
/// `noop-http` is a real `lambda_http` function; `noop-raw` has the cheapest
/// possible runtime client, so its rows show what the emulator alone adds.
const FUNCTIONS: [(&str, &str, &str); 2] = [
    ("noop-http", "/noop", "lambda_http"),
    ("noop-raw", "/raw", "raw runtime"),
];
const CARGO_LAMBDA_PORT: u16 = 9077;

struct Args {
    connections: usize,
    seconds: u64,
    sequential: usize,
    rounds: usize,
    cargo_lambda: bool,
    binaries_dir: PathBuf,
}

fn args() -> Args {
    let exe = std::env::current_exe().expect("example path");
    let release_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>/examples")
        .to_path_buf();
    let mut out = Args {
        connections: 8,
        seconds: 5,
        sequential: 3000,
        rounds: 3,
        cargo_lambda: false,
        binaries_dir: release_dir,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if flag == "--cargo-lambda" {
            out.cargo_lambda = true;
            continue;
        }
        let value = it
            .next()
            .unwrap_or_else(|| fail(&format!("{flag} needs a value")));
        let number = || -> usize {
            value
                .parse()
                .unwrap_or_else(|_| fail(&format!("{flag} needs a number, not {value}")))
        };
        match flag.as_str() {
            "--connections" => out.connections = number().max(1),
            "--seconds" => out.seconds = number() as u64,
            "--sequential" => out.sequential = number().max(1),
            "--rounds" => out.rounds = number().max(1),
            "--binaries-dir" => out.binaries_dir = PathBuf::from(&value),
            other => fail(&format!(
                "unknown flag {other} (known: --connections --seconds --sequential --rounds --binaries-dir --cargo-lambda)"
            )),
        }
    }
    out
}

fn fail(message: &str) -> ! {
    eprintln!("http_bench: {message}");
    std::process::exit(2)
}

/// A process killed (with its process group) when dropped.
struct Spawned {
    child: Child,
}

impl Drop for Spawned {
    fn drop(&mut self) {
        // The child leads its own process group (set at spawn), so this also
        // stops what it started (function processes, cargo's children).
        // SIGINT first: `localcloud serve` shuts down cleanly on Ctrl-C.
        let group = format!("-{}", self.child.id());
        let _ = Command::new("kill")
            .args(["-s", "INT", "--", &group])
            .status();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = Command::new("kill")
            .args(["-s", "KILL", "--", &group])
            .status();
        let _ = self.child.wait();
    }
}

fn spawn_in_own_group(command: &mut Command) -> std::io::Result<Spawned> {
    use std::os::unix::process::CommandExt;
    command.process_group(0);
    command.spawn().map(|child| Spawned { child })
}

struct LocalCloud {
    _process: Spawned,
    pid: u32,
    admin: String,
    /// The HTTP API's base URL, without a trailing slash.
    api: String,
    ready_after: Duration,
}

fn start_local_cloud(binaries_dir: &Path, work: &Path) -> LocalCloud {
    let localcloud = binaries_dir.join("localcloud");
    let binaries = FUNCTIONS
        .iter()
        .map(|(binary, _, _)| binaries_dir.join(binary));
    for binary in std::iter::once(localcloud.clone()).chain(binaries) {
        if !binary.is_file() {
            fail(&format!(
                "{} is missing: cargo build --release -p test-functions -p localcloud --bins",
                binary.display()
            ));
        }
    }
    let code_uri = Path::new(env!("CARGO_MANIFEST_DIR")).join("../test-functions");
    let template = work.join("noop.yaml");
    let mut text = String::from(
        "AWSTemplateFormatVersion: \"2010-09-09\"\n\
         Transform: AWS::Serverless-2016-10-31\n\
         Resources:\n\
         \x20 Api:\n\
         \x20   Type: AWS::Serverless::HttpApi\n",
    );
    for (index, (binary, route, _)) in FUNCTIONS.iter().enumerate() {
        text.push_str(&format!(
            "\x20 Function{index}:\n\
             \x20   Type: AWS::Serverless::Function\n\
             \x20   Metadata:\n\
             \x20     BuildMethod: rust-cargolambda\n\
             \x20     BuildProperties:\n\
             \x20       Binary: {binary}\n\
             \x20   Properties:\n\
             \x20     CodeUri: {}\n\
             \x20     Handler: bootstrap\n\
             \x20     Runtime: provided.al2023\n\
             \x20     Architectures: [arm64]\n\
             \x20     MemorySize: 128\n\
             \x20     Events:\n\
             \x20       Get:\n\
             \x20         Type: HttpApi\n\
             \x20         Properties:\n\
             \x20           ApiId: !Ref Api\n\
             \x20           Method: GET\n\
             \x20           Path: {route}\n",
            code_uri.display()
        ));
    }
    std::fs::write(&template, text).expect("write the template");
    let endpoints = work.join("endpoints.json");
    let started = Instant::now();
    let process = spawn_in_own_group(
        Command::new(&localcloud)
            .arg("serve")
            .args(["--bind", "127.0.0.1:0", "--template"])
            .arg(&template)
            .arg("--binaries-dir")
            .arg(binaries_dir)
            .arg("--log-dir")
            .arg(work.join("logs"))
            .arg("--endpoints-file")
            .arg(&endpoints)
            .args(["--cpu-share", CPU_SHARE])
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null()),
    )
    .expect("start localcloud");
    let document = loop {
        if let Ok(text) = std::fs::read_to_string(&endpoints) {
            if let Ok(document) = serde_json::from_str::<serde_json::Value>(&text) {
                break document;
            }
        }
        if started.elapsed() > Duration::from_secs(30) {
            fail("localcloud did not write its endpoints file within 30 s");
        }
        std::thread::sleep(Duration::from_millis(1));
    };
    let ready_after = started.elapsed();
    let api = document["apis"]["Api"]
        .as_str()
        .unwrap_or_else(|| fail(&format!("no Api in the endpoints file: {document}")));
    let admin = document["endpoint"]
        .as_str()
        .unwrap_or_else(|| fail(&format!("no endpoint in the endpoints file: {document}")));
    LocalCloud {
        pid: process.child.id(),
        _process: process,
        admin: admin.trim_end_matches('/').to_string(),
        api: api.trim_end_matches('/').to_string(),
        ready_after,
    }
}

fn start_cargo_lambda(connections: usize) -> Spawned {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../test-functions");
    spawn_in_own_group(
        Command::new("cargo")
            .current_dir(crate_dir)
            .args(["lambda", "watch", "--release", "--ignore-changes"])
            .args(["-A", "127.0.0.1", "-P", &CARGO_LAMBDA_PORT.to_string()])
            .args(["--concurrency", &connections.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null()),
    )
    .unwrap_or_else(|e| {
        fail(&format!(
            "cannot start `cargo lambda watch` ({e}): pip install cargo-lambda"
        ))
    })
}

/// An in-process server that answers "ok" at once: the client's floor.
fn start_floor_server() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("address");
    listener.set_nonblocking(true).expect("non-blocking");
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let _ = stream.set_nodelay(true);
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(|_request| async {
                        Ok::<_, std::convert::Infallible>(hyper::Response::new(Full::new(
                            Bytes::from_static(b"ok"),
                        )))
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                        .await;
                });
            }
        });
    });
    format!("http://{addr}/noop")
}

struct Connection {
    sender: SendRequest<Empty<Bytes>>,
    authority: String,
    path: String,
}

async fn connect(url: &str) -> std::io::Result<Connection> {
    let uri: hyper::Uri = url.parse().expect("a valid URL");
    let authority = uri.authority().expect("URL with host").to_string();
    let addr: SocketAddr = tokio::net::lookup_host(&authority)
        .await?
        .next()
        .ok_or_else(|| std::io::Error::other("no address"))?;
    let stream = TcpStream::connect(addr).await?;
    stream.set_nodelay(true)?;
    let (sender, connection) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
            .await
            .map_err(std::io::Error::other)?;
    tokio::spawn(connection);
    Ok(Connection {
        sender,
        authority,
        path: uri
            .path_and_query()
            .map_or("/".into(), |p| p.as_str().to_string()),
    })
}

/// One GET: (latency, the handler's own time from `x-handler-ns`).
async fn get(connection: &mut Connection) -> Result<(Duration, Duration), String> {
    let request = hyper::Request::get(connection.path.as_str())
        .header(hyper::header::HOST, connection.authority.as_str())
        .body(Empty::<Bytes>::new())
        .expect("request");
    let started = Instant::now();
    connection
        .sender
        .ready()
        .await
        .map_err(|e| format!("connection: {e}"))?;
    let response = connection
        .sender
        .send_request(request)
        .await
        .map_err(|e| format!("request: {e}"))?;
    let status = response.status();
    let handler = response
        .headers()
        .get("x-handler-ns")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
        .map_or(Duration::ZERO, Duration::from_nanos);
    let body = response
        .into_body()
        .collect()
        .await
        .map_err(|e| format!("body: {e}"))?
        .to_bytes();
    let latency = started.elapsed();
    if status != 200 || &body[..] != b"ok" {
        return Err(format!(
            "HTTP {status}: {}",
            String::from_utf8_lossy(&body[..body.len().min(200)])
        ));
    }
    Ok((latency, handler))
}

#[derive(Default)]
struct Sample {
    latencies: Vec<Duration>,
    added: Vec<Duration>,
    errors: usize,
    first_error: Option<String>,
}

impl Sample {
    fn record(&mut self, outcome: Result<(Duration, Duration), String>) {
        match outcome {
            Ok((latency, handler)) => {
                self.latencies.push(latency);
                self.added.push(latency.saturating_sub(handler));
            }
            Err(e) => {
                self.errors += 1;
                self.first_error.get_or_insert(e);
            }
        }
    }

    fn merge(&mut self, other: Sample) {
        self.latencies.extend(other.latencies);
        self.added.extend(other.added);
        self.errors += other.errors;
        if self.first_error.is_none() {
            self.first_error = other.first_error;
        }
    }
}

async fn sequential(url: &str, requests: usize) -> Sample {
    let mut connection = connect(url).await.expect("connect");
    let mut sample = Sample::default();
    for _ in 0..requests {
        sample.record(get(&mut connection).await);
    }
    sample
}

async fn closed_loop(url: &str, connections: usize, seconds: u64) -> (Sample, Duration) {
    let stop = Arc::new(AtomicBool::new(false));
    let mut workers = Vec::new();
    let started = Instant::now();
    for _ in 0..connections {
        let (url, stop) = (url.to_string(), stop.clone());
        workers.push(tokio::spawn(async move {
            let mut sample = Sample::default();
            let mut connection = connect(&url).await.expect("connect");
            while !stop.load(Ordering::Relaxed) {
                sample.record(get(&mut connection).await);
            }
            sample
        }));
    }
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    stop.store(true, Ordering::Relaxed);
    let mut all = Sample::default();
    for worker in workers {
        all.merge(worker.await.expect("worker"));
    }
    (all, started.elapsed())
}

fn percentile(values: &mut [Duration], q: f64) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    values.sort_unstable();
    let index = ((values.len() - 1) as f64 * q).round() as usize;
    values[index].as_secs_f64() * 1e6
}

/// User + system CPU seconds of a process (its own threads, not its children).
fn cpu_seconds(pid: u32) -> Option<f64> {
    localcloud_core::procstat::cpu_ms(pid).map(|ms| ms / 1000.0)
}

async fn admin_metrics(admin: &str) -> serde_json::Value {
    let mut connection = connect(&format!("{admin}/_localcloud/metrics"))
        .await
        .expect("admin");
    let request = hyper::Request::get(connection.path.as_str())
        .header(hyper::header::HOST, connection.authority.as_str())
        .body(Empty::<Bytes>::new())
        .expect("request");
    let response = connection
        .sender
        .send_request(request)
        .await
        .expect("metrics");
    let body = response
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes();
    serde_json::from_slice(&body).expect("metrics JSON")
}

async fn wait_until_answering(url: &str, limit: Duration) -> Duration {
    let started = Instant::now();
    loop {
        if let Ok(mut connection) = connect(url).await {
            if get(&mut connection).await.is_ok() {
                return started.elapsed();
            }
        }
        if started.elapsed() > limit {
            fail(&format!("{url} did not answer 200 \"ok\" within {limit:?}"));
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

struct Row {
    target: String,
    round: usize,
    seq_p50: f64,
    seq_p99: f64,
    added_p50: f64,
    added_p99: f64,
    rps: f64,
    load_p50: f64,
    load_p99: f64,
    errors: usize,
    server_cpu_us: Option<f64>,
}

async fn measure(target: String, round: usize, url: &str, args: &Args, pid: Option<u32>) -> Row {
    let mut seq = sequential(url, args.sequential).await;
    let cpu_before = pid.and_then(cpu_seconds);
    let (mut load, elapsed) = closed_loop(url, args.connections, args.seconds).await;
    let cpu_after = pid.and_then(cpu_seconds);
    let errors = seq.errors + load.errors;
    if let Some(e) = seq.first_error.as_ref().or(load.first_error.as_ref()) {
        eprintln!("{target}: {errors} failed requests, first: {e}");
    }
    let served = load.latencies.len();
    Row {
        target,
        round,
        seq_p50: percentile(&mut seq.latencies, 0.5),
        seq_p99: percentile(&mut seq.latencies, 0.99),
        added_p50: percentile(&mut seq.added, 0.5),
        added_p99: percentile(&mut seq.added, 0.99),
        rps: served as f64 / elapsed.as_secs_f64(),
        load_p50: percentile(&mut load.latencies, 0.5),
        load_p99: percentile(&mut load.latencies, 0.99),
        errors,
        server_cpu_us: cpu_before
            .zip(cpu_after)
            .map(|(before, after)| (after - before) * 1e6 / served.max(1) as f64),
    }
}

fn main() {
    let argv: Vec<String> = std::env::args().collect();
    if argv.get(1).map(String::as_str) == Some(RELAY_FLOOR_SERVE) {
        let (Some(function), Some(environments)) = (argv.get(2), argv.get(3)) else {
            fail("--relay-floor-serve needs a function binary and a number of environments");
        };
        let environments = environments
            .parse()
            .unwrap_or_else(|_| fail("--relay-floor-serve: environments must be a number"));
        relay_floor::run(Path::new(function), environments);
    }
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(bench(args()));
}

/// The relay floor in its own process group, in front of `noop-raw`:
/// (the process, its pid, its URL).
fn start_relay_floor(binaries_dir: &Path, environments: usize) -> (Spawned, u32, String) {
    use std::io::BufRead;
    let exe = std::env::current_exe().expect("own path");
    let mut relay = spawn_in_own_group(
        Command::new(exe)
            .arg(RELAY_FLOOR_SERVE)
            .arg(binaries_dir.join("noop-raw"))
            .arg(environments.to_string())
            .stdout(Stdio::piped()),
    )
    .unwrap_or_else(|e| fail(&format!("cannot start the relay floor: {e}")));
    let stdout = relay.child.stdout.take().expect("piped stdout");
    let mut port = String::new();
    std::io::BufReader::new(stdout)
        .read_line(&mut port)
        .unwrap_or_else(|e| fail(&format!("relay floor: {e}")));
    let port = port.trim().to_owned();
    if port.is_empty() {
        fail("the relay floor exited before printing its port");
    }
    let pid = relay.child.id();
    (relay, pid, format!("http://127.0.0.1:{port}/raw"))
}

async fn bench(args: Args) {
    let work = tempfile::tempdir().expect("temporary folder");
    let floor_url = start_floor_server();

    eprintln!(
        "starting localcloud serve --cpu-share {CPU_SHARE} ({}): the functions run unthrottled, as under cargo lambda watch",
        args.binaries_dir.display()
    );
    let local = start_local_cloud(&args.binaries_dir, work.path());
    let first = Instant::now();
    for (binary, route, _) in FUNCTIONS {
        let url = format!("{}{route}", local.api);
        let mut connection = connect(&url).await.expect("connect to the API");
        if let Err(e) = get(&mut connection).await {
            fail(&format!("first request to {url} ({binary}) failed: {e}"));
        }
    }
    let first_requests = first.elapsed();
    let metrics = admin_metrics(&local.admin).await;
    let init_ms: Vec<String> = metrics["lambda"]["functions"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(name, f)| format!("{name} {:.2} ms", f["init_ms"].as_f64().unwrap_or(f64::NAN)))
        .collect();
    eprintln!(
        "local cloud: ready (endpoints file written) {:.1} ms after spawn; first request to each function (cold starts) {:.2} ms in all; Init Duration: {}",
        local.ready_after.as_secs_f64() * 1e3,
        first_requests.as_secs_f64() * 1e3,
        init_ms.join(", "),
    );

    // (row name, URL, the process whose CPU counts as the server's)
    let mut targets: Vec<(String, String, Option<u32>)> = FUNCTIONS
        .iter()
        .map(|(_, route, label)| {
            (
                format!("local cloud, {label}"),
                format!("{}{route}", local.api),
                Some(local.pid),
            )
        })
        .collect();
    let (_relay_floor, relay_pid, relay_url) =
        start_relay_floor(&args.binaries_dir, args.connections);
    targets.push((
        "relay floor (minimal emulator), raw runtime".into(),
        relay_url,
        Some(relay_pid),
    ));
    let _cargo_lambda = if args.cargo_lambda {
        eprintln!("starting cargo lambda watch --release on port {CARGO_LAMBDA_PORT} (the first request builds the functions)");
        let process = start_cargo_lambda(args.connections);
        for (binary, _, label) in FUNCTIONS {
            let url = format!("http://127.0.0.1:{CARGO_LAMBDA_PORT}/lambda-url/{binary}/noop");
            let first = wait_until_answering(&url, Duration::from_secs(900)).await;
            eprintln!(
                "cargo lambda watch, {binary}: first answer {:.2} s after start (includes its cargo build check)",
                first.as_secs_f64()
            );
            targets.push((format!("cargo lambda watch, {label}"), url, None));
        }
        Some(process)
    } else {
        None
    };

    // Warm every environment the closed loop will use.
    for (_, url, _) in &targets {
        let (_, _) = closed_loop(url, args.connections, 1).await;
    }

    let mut rows = Vec::new();
    for round in 1..=args.rounds {
        eprintln!("round {round}/{}", args.rounds);
        rows.push(
            measure(
                "floor (in-process server)".into(),
                round,
                &floor_url,
                &args,
                None,
            )
            .await,
        );
        for (target, url, pid) in &targets {
            rows.push(measure(target.clone(), round, url, &args, *pid).await);
        }
    }
    println!(
        "\n{} sequential requests, then {} connections for {} s, per round; the local cloud with --cpu-share {CPU_SHARE} (its functions unthrottled, as cargo lambda watch's); server CPU is the localcloud process's own (for the relay floor, its process's)\n",
        args.sequential, args.connections, args.seconds
    );
    println!("| target | round | 1 at a time p50 / p99 | added p50 / p99 | {} connections: req/s | p50 / p99 | errors | server CPU per request |", args.connections);
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for r in &rows {
        println!(
            "| {} | {} | {:.0} / {:.0} us | {:.0} / {:.0} us | {:.0} | {:.0} / {:.0} us | {} | {} |",
            r.target,
            r.round,
            r.seq_p50,
            r.seq_p99,
            r.added_p50,
            r.added_p99,
            r.rps,
            r.load_p50,
            r.load_p99,
            r.errors,
            r.server_cpu_us
                .map_or("-".into(), |us| format!("{us:.0} us")),
        );
    }
    let metrics = admin_metrics(&local.admin).await;
    println!(
        "\nlocal cloud metrics for the functions: {}",
        metrics["lambda"]["functions"]
    );
}
