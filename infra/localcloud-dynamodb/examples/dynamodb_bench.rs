//! GetItem / PutItem / Query throughput and latency through the Rust SDK, side
//! by side against the local cloud and, when given, DynamoDB Local and moto.
//!
//! cargo build --release -p localcloud -p localcloud-dynamodb --bins --examples
//! target/release/examples/dynamodb_bench --clients 1,4,16 --seconds 5 \
//!     --dynamodb-local http://127.0.0.1:8765 --dynamodb-local-pid PID \
//!     --moto http://127.0.0.1:8766 --moto-pid PID
//!
//! The local cloud is the `localcloud serve` binary, started here as a separate
//! process like the other two servers, so that every server's CPU time per
//! operation comes from its own `/proc/<pid>/stat` and the clients (this
//! process) are measured apart. Each operation runs for each client count,
//! after an unmeasured warm-up.
//!
//! The clients' own CPU per operation is reported too, and with it the most
//! any server could be given on this machine: clients that share its cores
//! with the server cannot go faster than their own CPU allows, even against a
//! server that costs nothing: min(clients, cores) / (client CPU per operation).

use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::types::AttributeValue;
use aws_sdk_dynamodb::Client;
use common::client;

/// The integration tests' client and table helpers.
#[path = "../tests/it/common/mod.rs"]
mod common;

const PARTITIONS: usize = 100;
const ITEMS_PER_PARTITION: usize = 10;
const WARM_UP_SECONDS: u64 = 2;

struct Args {
    clients: Vec<usize>,
    seconds: u64,
    localcloud: std::path::PathBuf,
    dynamodb_local: Option<String>,
    moto: Option<String>,
    /// Process ids of the other servers, to read their CPU time.
    dynamodb_local_pid: Option<u32>,
    moto_pid: Option<u32>,
}

fn args() -> Args {
    let exe = std::env::current_exe().expect("example path");
    let profile_dir = exe
        .parent()
        .and_then(std::path::Path::parent)
        .expect("target/<profile>/examples");
    let mut out = Args {
        clients: vec![16],
        seconds: 5,
        localcloud: profile_dir.join("localcloud"),
        dynamodb_local: None,
        moto: None,
        dynamodb_local_pid: None,
        moto_pid: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it
            .next()
            .unwrap_or_else(|| fail(&format!("{flag} needs a value")));
        let pid = || -> u32 {
            value
                .parse()
                .unwrap_or_else(|_| fail(&format!("{flag} needs a process id, not {value}")))
        };
        match flag.as_str() {
            "--clients" => {
                out.clients = value
                    .split(',')
                    .map(|n| match n.trim().parse::<usize>() {
                        Ok(n) if n > 0 => n,
                        _ => fail(&format!("--clients takes counts like 1,4,16, not {value}")),
                    })
                    .collect()
            }
            "--seconds" => {
                out.seconds = value
                    .parse()
                    .unwrap_or_else(|_| fail(&format!("--seconds needs a number, not {value}")))
            }
            "--localcloud" => out.localcloud = value.into(),
            "--dynamodb-local" => out.dynamodb_local = Some(value),
            "--moto" => out.moto = Some(value),
            "--dynamodb-local-pid" => out.dynamodb_local_pid = Some(pid()),
            "--moto-pid" => out.moto_pid = Some(pid()),
            other => fail(&format!(
                "unknown flag {other} (known: --clients --seconds --localcloud --dynamodb-local[-pid] --moto[-pid])"
            )),
        }
    }
    out
}

fn fail(message: &str) -> ! {
    eprintln!("bench: {message}");
    std::process::exit(2)
}

/// `localcloud serve` on a free port, stopped (Ctrl-C, as a user would) on drop.
struct LocalCloud {
    child: Child,
    url: String,
}

impl LocalCloud {
    async fn start(binary: &std::path::Path) -> Self {
        if !binary.is_file() {
            fail(&format!(
                "{} is missing: cargo build --release -p localcloud --bins",
                binary.display()
            ));
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let child = Command::new(binary)
            .args(["serve", "--bind", &format!("127.0.0.1:{port}")])
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| fail(&format!("cannot start {}: {e}", binary.display())));
        let url = format!("http://127.0.0.1:{port}");
        let started = Instant::now();
        while tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err()
        {
            if started.elapsed() > Duration::from_secs(10) {
                fail("localcloud did not listen within 10 s");
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        Self { child, url }
    }
}

impl Drop for LocalCloud {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-s", "INT", &self.child.id().to_string()])
            .status();
        let _ = self.child.wait();
    }
}

/// Creates the bench table (pk S, sk N) and fills it.
async fn setup(client: &Client, table: &str) {
    common::create_composite(client, table).await;
    for p in 0..PARTITIONS {
        for s in 0..ITEMS_PER_PARTITION {
            put(client, table, p, s).await;
        }
    }
}

async fn put(client: &Client, table: &str, p: usize, s: usize) {
    client
        .put_item()
        .table_name(table)
        .item("pk", AttributeValue::S(format!("p{p}")))
        .item("sk", AttributeValue::N(s.to_string()))
        .item("payload", AttributeValue::S("x".repeat(200)))
        .item("count", AttributeValue::N("1".into()))
        .send()
        .await
        .expect("put");
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    GetItem,
    PutItem,
    Query,
}

async fn one(client: &Client, table: &str, op: Op, n: usize) {
    let (p, s) = (n % PARTITIONS, (n / PARTITIONS) % ITEMS_PER_PARTITION);
    match op {
        Op::GetItem => {
            client
                .get_item()
                .table_name(table)
                .key("pk", AttributeValue::S(format!("p{p}")))
                .key("sk", AttributeValue::N(s.to_string()))
                .send()
                .await
                .expect("get");
        }
        Op::PutItem => put(client, table, p, s).await,
        Op::Query => {
            client
                .query()
                .table_name(table)
                .key_condition_expression("pk = :p")
                .expression_attribute_values(":p", AttributeValue::S(format!("p{p}")))
                .send()
                .await
                .expect("query");
        }
    }
}

struct Result {
    ops: usize,
    seconds: f64,
    p50_ms: f64,
    p99_ms: f64,
}

async fn run(client: &Client, table: &str, op: Op, clients: usize, seconds: u64) -> Result {
    let stop = Arc::new(AtomicBool::new(false));
    let start = Instant::now();
    let mut tasks = Vec::new();
    for c in 0..clients {
        let (client, table, stop) = (client.clone(), table.to_string(), stop.clone());
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            let mut n = c * 7919;
            while !stop.load(Ordering::Relaxed) {
                let t = Instant::now();
                one(&client, &table, op, n).await;
                latencies.push(t.elapsed());
                n += 1;
            }
            latencies
        }));
    }
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    stop.store(true, Ordering::Relaxed);
    let mut all: Vec<Duration> = Vec::new();
    for t in tasks {
        all.extend(t.await.unwrap());
    }
    let elapsed = start.elapsed().as_secs_f64();
    all.sort();
    let pct = |q: f64| {
        all.get(((all.len() as f64 * q) as usize).min(all.len().saturating_sub(1)))
            .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
    };
    Result {
        ops: all.len(),
        seconds: elapsed,
        p50_ms: pct(0.50),
        p99_ms: pct(0.99),
    }
}

/// utime + stime of a process, in seconds (`/proc/<pid>/stat`, 10 ms ticks).
fn process_cpu_seconds(pid: u32) -> Option<f64> {
    localcloud_core::procstat::cpu_ms(pid).map(|ms| ms / 1000.0)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args = args();
    let local = LocalCloud::start(&args.localcloud).await;
    let mut targets = vec![("local cloud", local.url.clone(), Some(local.child.id()))];
    if let Some(url) = &args.dynamodb_local {
        targets.push(("DynamoDB Local", url.clone(), args.dynamodb_local_pid));
    }
    if let Some(url) = &args.moto {
        targets.push(("moto", url.clone(), args.moto_pid));
    }
    let table = format!(
        "bench-{}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis()
    );
    println!(
        "clients={:?} seconds={} items={}",
        args.clients,
        args.seconds,
        PARTITIONS * ITEMS_PER_PARTITION
    );
    println!("| target | clients | operation | ops/s | p50 ms | p99 ms | server CPU ms/op | client CPU ms/op |");
    println!("|---|---:|---|---:|---:|---:|---:|---:|");
    let mut measured = Vec::new();
    for (name, url, pid) in &targets {
        let client = client(url);
        setup(&client, &table).await;
        for op in [Op::GetItem, Op::PutItem, Op::Query] {
            // Unmeasured: lets a JVM (DynamoDB Local) compile its hot paths and
            // every server fill its caches before the figures are taken.
            let most_clients = args.clients.iter().copied().max().unwrap_or(1);
            run(&client, &table, op, most_clients, WARM_UP_SECONDS).await;
            for &clients in &args.clients {
                let cpu_before = pid.and_then(process_cpu_seconds);
                let client_before = process_cpu_seconds(std::process::id());
                let r = run(&client, &table, op, clients, args.seconds).await;
                let per_op = |before: Option<f64>, after: Option<f64>| {
                    after
                        .zip(before)
                        .map(|(after, before)| (after - before) * 1000.0 / r.ops.max(1) as f64)
                };
                let server_ms = per_op(cpu_before, pid.and_then(process_cpu_seconds));
                let client_ms = per_op(client_before, process_cpu_seconds(std::process::id()));
                let ops_per_second = r.ops as f64 / r.seconds;
                let show = |ms: Option<f64>| ms.map_or("-".into(), |ms| format!("{ms:.3}"));
                println!(
                    "| {name} | {clients} | {op:?} | {ops_per_second:.0} | {:.2} | {:.2} | {} | {} |",
                    r.p50_ms,
                    r.p99_ms,
                    show(server_ms),
                    show(client_ms),
                );
                measured.push((*name, clients, op, ops_per_second, client_ms));
            }
        }
        let _ = client.delete_table().table_name(&table).send().await;
    }
    print_ceilings(&measured);
}

/// For each step DynamoDB Local ran: what 5x its throughput would be, and the
/// most that this machine's cores allow given what the clients alone spend
/// per operation against the local cloud.
fn print_ceilings(measured: &[(&str, usize, Op, f64, Option<f64>)]) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    let find = |target: &str, clients: usize, op: Op| {
        measured
            .iter()
            .find(|m| m.0 == target && m.1 == clients && m.2 == op)
    };
    let mut lines = Vec::new();
    for &(_, clients, op, reference, _) in measured.iter().filter(|m| m.0 == "DynamoDB Local") {
        let Some(&(_, _, _, local, Some(client_ms))) = find("local cloud", clients, op) else {
            continue;
        };
        // One client's operations run one after the other: one core at most.
        let usable_cores = cores.min(clients as f64);
        let ceiling = usable_cores * 1000.0 / client_ms;
        lines.push(format!(
            "| {clients} | {op:?} | {reference:.0} | {:.0} | {local:.0} ({:.1}x) | {client_ms:.3} | {ceiling:.0} ({:.1}x) |",
            5.0 * reference,
            local / reference,
            ceiling / reference,
        ));
    }
    if lines.is_empty() {
        return;
    }
    println!(
        "\nCeiling on {cores} cores: no server can serve more than min(clients, cores) / (client CPU per operation)\n"
    );
    println!("| clients | operation | DynamoDB Local ops/s | 5x that | local cloud ops/s | client CPU ms/op | ceiling ops/s |");
    println!("|---:|---|---:|---:|---:|---:|---:|");
    for line in lines {
        println!("{line}");
    }
}
