//! GetItem / PutItem / Query throughput and latency through the Rust SDK, side
//! by side against the local cloud (in-process) and, when given, DynamoDB Local
//! and moto.
//!
//! cargo run --release -p localcloud-dynamodb --example bench -- \
//!     --clients 16 --seconds 5 --dynamodb-local http://127.0.0.1:8765 --moto http://127.0.0.1:5000
//!
//! The local cloud's server runs on its own runtime threads ("ddb-server"), so
//! its CPU time per operation is read from those threads' /proc stat alone.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, KeySchemaElement, KeyType,
    ScalarAttributeType,
};
use aws_sdk_dynamodb::Client;
use localcloud_core::{serve_on_ephemeral_port, Dispatcher};
use localcloud_dynamodb::{DynamoDb, DynamoDbConfig};

const PARTITIONS: usize = 100;
const ITEMS_PER_PARTITION: usize = 10;
const SERVER_THREAD: &str = "ddb-server";

struct Args {
    clients: usize,
    seconds: u64,
    dynamodb_local: Option<String>,
    moto: Option<String>,
    /// Process ids of the other servers, to read their CPU time.
    dynamodb_local_pid: Option<u32>,
    moto_pid: Option<u32>,
}

fn args() -> Args {
    let mut out = Args {
        clients: 16,
        seconds: 5,
        dynamodb_local: None,
        moto: None,
        dynamodb_local_pid: None,
        moto_pid: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().unwrap_or_else(|| panic!("{flag} needs a value"));
        match flag.as_str() {
            "--clients" => out.clients = value.parse().expect("--clients N"),
            "--seconds" => out.seconds = value.parse().expect("--seconds S"),
            "--dynamodb-local" => out.dynamodb_local = Some(value),
            "--moto" => out.moto = Some(value),
            "--dynamodb-local-pid" => {
                out.dynamodb_local_pid = Some(value.parse().expect("--dynamodb-local-pid PID"))
            }
            "--moto-pid" => out.moto_pid = Some(value.parse().expect("--moto-pid PID")),
            other => panic!("unknown flag {other}"),
        }
    }
    out
}

fn client(endpoint: &str) -> Client {
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
        .region(aws_sdk_dynamodb::config::Region::new("us-east-1"))
        .endpoint_url(endpoint)
        .credentials_provider(aws_sdk_dynamodb::config::Credentials::new(
            "AKID", "secret", None, None, "bench",
        ))
        .build();
    Client::from_conf(config)
}

async fn setup(client: &Client, table: &str) {
    let attr = |n: &str, t| {
        AttributeDefinition::builder()
            .attribute_name(n)
            .attribute_type(t)
            .build()
            .unwrap()
    };
    let key = |n: &str, t| {
        KeySchemaElement::builder()
            .attribute_name(n)
            .key_type(t)
            .build()
            .unwrap()
    };
    client
        .create_table()
        .table_name(table)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(attr("pk", ScalarAttributeType::S))
        .attribute_definitions(attr("sk", ScalarAttributeType::N))
        .key_schema(key("pk", KeyType::Hash))
        .key_schema(key("sk", KeyType::Range))
        .send()
        .await
        .expect("create bench table");
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

#[derive(Clone, Copy, Debug)]
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

/// utime + stime, in clock ticks (10 ms), of one /proc `stat` file.
fn stat_ticks(path: &std::path::Path) -> u64 {
    let stat = std::fs::read_to_string(path).unwrap_or_default();
    // Fields after the parenthesised name: state is field 3, utime 14, stime 15.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    let field = |i: usize| {
        fields
            .get(i - 3)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    field(14) + field(15)
}

/// CPU seconds of this process's threads whose name starts with `prefix`.
fn thread_cpu_seconds(prefix: &str) -> f64 {
    let mut ticks = 0u64;
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0.0;
    };
    for task in tasks.flatten() {
        let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
        if comm.trim_end().starts_with(prefix) {
            ticks += stat_ticks(&task.path().join("stat"));
        }
    }
    ticks as f64 / 100.0
}

/// CPU seconds of the server behind a target: our own threads, or another process.
fn server_cpu_seconds(pid: Option<u32>) -> Option<f64> {
    match pid {
        None => Some(thread_cpu_seconds(SERVER_THREAD)),
        Some(pid) => {
            let path = std::path::PathBuf::from(format!("/proc/{pid}/stat"));
            path.exists().then(|| stat_ticks(&path) as f64 / 100.0)
        }
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args = args();
    // The service gets its own runtime so that its threads can be told apart.
    let server_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name(SERVER_THREAD)
        .enable_all()
        .build()
        .unwrap();
    let db = DynamoDb::new(DynamoDbConfig {
        ttl_sweep_period: None,
    });
    let handler = Arc::new(Dispatcher::new().with_json(db.clone()));
    let server = server_rt.block_on_in_place(handler);
    let mut targets = vec![("local cloud", format!("http://{}", server.addr), None)];
    if let Some(url) = &args.dynamodb_local {
        targets.push(("DynamoDB Local", url.clone(), Some(args.dynamodb_local_pid)));
    }
    if let Some(url) = &args.moto {
        targets.push(("moto", url.clone(), Some(args.moto_pid)));
    }
    let table = format!(
        "bench-{}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis()
    );
    println!(
        "clients={} seconds={} items={}",
        args.clients,
        args.seconds,
        PARTITIONS * ITEMS_PER_PARTITION
    );
    println!("| target | operation | ops/s | p50 ms | p99 ms | server CPU ms/op |");
    println!("|---|---|---:|---:|---:|---:|");
    for (name, url, pid) in &targets {
        // `None`: our own threads; `Some(None)`: a process whose pid we were not given.
        let pid = match pid {
            None => None,
            Some(None) => Some(0),
            Some(Some(p)) => Some(*p),
        };
        let client = client(url);
        setup(&client, &table).await;
        for op in [Op::GetItem, Op::PutItem, Op::Query] {
            let cpu_before = server_cpu_seconds(pid);
            let r = run(&client, &table, op, args.clients, args.seconds).await;
            let cpu = server_cpu_seconds(pid)
                .zip(cpu_before)
                .map(|(after, before)| after - before);
            let cpu_per_op = cpu.map_or("-".into(), |cpu| {
                format!("{:.3}", cpu * 1000.0 / r.ops as f64)
            });
            println!(
                "| {name} | {op:?} | {:.0} | {:.2} | {:.2} | {cpu_per_op} |",
                r.ops as f64 / r.seconds,
                r.p50_ms,
                r.p99_ms
            );
        }
        let _ = client.delete_table().table_name(&table).send().await;
    }
    let m = db.metrics();
    if let Some(t) = m.tables.get(&table) {
        println!(
            "\nlocal cloud metering for {table}: {:.0} read units, {:.0} write units",
            t.read_units, t.write_units
        );
    }
}

/// Starts the server on `rt` and returns its handle (kept alive by leaking the
/// runtime: the benchmark exits when done).
trait StartOn {
    fn block_on_in_place(self, handler: Arc<Dispatcher>) -> localcloud_core::ServerHandle;
}

impl StartOn for tokio::runtime::Runtime {
    fn block_on_in_place(self, handler: Arc<Dispatcher>) -> localcloud_core::ServerHandle {
        let rt: &'static tokio::runtime::Runtime = Box::leak(Box::new(self));
        let (tx, rx) = std::sync::mpsc::channel();
        rt.spawn(async move {
            let server = serve_on_ephemeral_port(handler)
                .await
                .expect("bench server starts");
            let _ = tx.send(server);
        });
        rx.recv().expect("server handle")
    }
}
