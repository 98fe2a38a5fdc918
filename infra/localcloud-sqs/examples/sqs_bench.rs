//! Send + receive + delete throughput and latency through the Rust SDK, side
//! by side against the local cloud (in-process, on its own runtime threads)
//! and moto server, plus the local cloud's own CPU per operation.
//!
//!   scripts/oracles/moto.sh 8766
//!   cargo run --release -p localcloud-sqs --example sqs_bench -- \
//!       --clients 16 --cycles 4000 --moto http://127.0.0.1:8766 \
//!       --moto-pid "$(cat target/oracles/moto/moto-8766.pid)"

use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Parser;
use localcloud_core::{serve_on_ephemeral_port, Dispatcher};
use localcloud_sqs::SqsService;

/// The integration tests' client builder.
#[path = "../tests/it/common/mod.rs"]
mod common;
use common::client_for as client;

#[derive(Parser, Debug)]
struct Args {
    /// Concurrent SDK clients (tasks), each doing send, receive, delete.
    #[arg(long, default_value_t = 16)]
    clients: usize,
    /// Send+receive+delete cycles in total, per target.
    #[arg(long, default_value_t = 4000)]
    cycles: usize,
    /// moto server endpoint; without it only the local cloud is measured.
    #[arg(long, env = "MOTO_ENDPOINT")]
    moto: Option<String>,
    /// moto's process id, to report its CPU per operation too.
    #[arg(long)]
    moto_pid: Option<u32>,
    /// Message body size in bytes.
    #[arg(long, default_value_t = 256)]
    body: usize,
    /// Alternate the targets this many times (each round runs cycles/rounds),
    /// so load from other processes hits both alike.
    #[arg(long, default_value_t = 3)]
    rounds: usize,
}

/// Clock ticks per second of /proc's utime/stime (USER_HZ, 100 on Linux).
const TICKS_PER_SECOND: f64 = 100.0;

struct Report {
    name: String,
    wall: Duration,
    cycles: usize,
    send: Vec<Duration>,
    receive: Vec<Duration>,
    delete: Vec<Duration>,
    empty_receives: usize,
    server_cpu: Option<Duration>,
}

/// utime + stime of threads whose name starts with `prefix` (or of the
/// whole process `pid` when given).
fn cpu_of(pid: Option<u32>, prefix: &str) -> Duration {
    let ticks = match pid {
        Some(pid) => stat_ticks(&format!("/proc/{pid}/stat")),
        None => std::fs::read_dir("/proc/self/task")
            .map(|dir| {
                dir.flatten()
                    .filter(|t| {
                        std::fs::read_to_string(t.path().join("comm"))
                            .is_ok_and(|c| c.starts_with(prefix))
                    })
                    .map(|t| stat_ticks(&t.path().join("stat").to_string_lossy()))
                    .sum()
            })
            .unwrap_or(0),
    };
    Duration::from_secs_f64(ticks as f64 / TICKS_PER_SECOND)
}

fn stat_ticks(path: &str) -> u64 {
    let Ok(stat) = std::fs::read_to_string(path) else {
        return 0;
    };
    // Fields after the `(comm)`; utime and stime are fields 14 and 15.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let field = |i: usize| {
        fields
            .get(i - 3)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    field(14) + field(15)
}

async fn run(
    name: &str,
    endpoint: &str,
    args: &Args,
    cpu: impl Fn() -> Option<Duration>,
) -> Report {
    let c = client(endpoint);
    let queue = format!("bench-{}-{}", std::process::id(), name);
    let url = c
        .create_queue()
        .queue_name(&queue)
        .send()
        .await
        .expect("create")
        .queue_url
        .unwrap();
    let body = "b".repeat(args.body);
    let per_client = args.cycles / args.rounds.max(1) / args.clients;
    let cpu_before = cpu();
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..args.clients {
        let (c, url, body) = (client(endpoint), url.clone(), body.clone());
        tasks.push(tokio::spawn(async move {
            let (mut send, mut receive, mut delete, mut empty) = (vec![], vec![], vec![], 0);
            for _ in 0..per_client {
                let t = Instant::now();
                c.send_message()
                    .queue_url(&url)
                    .message_body(&body)
                    .send()
                    .await
                    .expect("send");
                send.push(t.elapsed());
                let handle = loop {
                    let t = Instant::now();
                    let got = c
                        .receive_message()
                        .queue_url(&url)
                        .send()
                        .await
                        .expect("receive");
                    receive.push(t.elapsed());
                    match got.messages().first().and_then(|m| m.receipt_handle()) {
                        Some(h) => break h.to_string(),
                        None => empty += 1,
                    }
                };
                let t = Instant::now();
                c.delete_message()
                    .queue_url(&url)
                    .receipt_handle(handle)
                    .send()
                    .await
                    .expect("delete");
                delete.push(t.elapsed());
            }
            (send, receive, delete, empty)
        }));
    }
    let mut report = Report {
        name: name.to_string(),
        wall: Duration::ZERO,
        cycles: per_client * args.clients,
        send: vec![],
        receive: vec![],
        delete: vec![],
        empty_receives: 0,
        server_cpu: None,
    };
    for task in tasks {
        let (s, r, d, e) = task.await.expect("client task");
        report.send.extend(s);
        report.receive.extend(r);
        report.delete.extend(d);
        report.empty_receives += e;
    }
    report.wall = started.elapsed();
    report.server_cpu = cpu()
        .zip(cpu_before)
        .map(|(after, before)| after.saturating_sub(before));
    let _ = c.delete_queue().queue_url(&url).send().await;
    report
}

impl Report {
    fn merge(&mut self, other: Report) {
        self.wall += other.wall;
        self.cycles += other.cycles;
        self.send.extend(other.send);
        self.receive.extend(other.receive);
        self.delete.extend(other.delete);
        self.empty_receives += other.empty_receives;
        self.server_cpu = match (self.server_cpu, other.server_cpu) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
    }
}

fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    if samples.is_empty() {
        return Duration::ZERO;
    }
    samples.sort();
    let index = ((samples.len() as f64 - 1.0) * p).round() as usize;
    samples[index]
}

fn print(report: &mut Report) {
    let requests = report.send.len() + report.receive.len() + report.delete.len();
    let cycles_per_s = report.cycles as f64 / report.wall.as_secs_f64();
    println!(
        "{:<12} {:>8} cycles in {:>7.2} s = {:>8.0} cycles/s ({:>8.0} requests/s, {} empty receives)",
        report.name,
        report.cycles,
        report.wall.as_secs_f64(),
        cycles_per_s,
        requests as f64 / report.wall.as_secs_f64(),
        report.empty_receives
    );
    for (op, samples) in [
        ("send", &mut report.send),
        ("receive", &mut report.receive),
        ("delete", &mut report.delete),
    ] {
        println!(
            "{:<12}   {:<8} p50 {:>8.2} ms   p99 {:>8.2} ms",
            "",
            op,
            percentile(samples, 0.50).as_secs_f64() * 1e3,
            percentile(samples, 0.99).as_secs_f64() * 1e3
        );
    }
    if let Some(cpu) = report.server_cpu {
        println!(
            "{:<12}   server CPU {:.2} s = {:.1} us per request",
            "",
            cpu.as_secs_f64(),
            cpu.as_secs_f64() * 1e6 / requests as f64
        );
    }
}

fn merge_into(total: &mut Option<Report>, round: Report) {
    match total {
        Some(t) => t.merge(round),
        None => *total = Some(round),
    }
}

fn main() {
    let args = Args::parse();
    // The service runs on its own runtime, so its threads' CPU can be told
    // apart from the SDK clients'.
    let server_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("sqs-server")
        .enable_all()
        .build()
        .expect("server runtime");
    let service = Arc::new(SqsService::new("http://localhost"));
    let dispatcher = Dispatcher::new().with_json(service.clone());
    let server = server_rt
        .block_on(serve_on_ephemeral_port(Arc::new(dispatcher)))
        .expect("bind");
    let endpoint = format!("http://{}", server.addr);
    service.set_endpoint(&endpoint);

    let client_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("bench-client")
        .enable_all()
        .build()
        .expect("client runtime");
    println!(
        "SQS send+receive+delete, {} clients, {} cycles per target in {} alternating rounds, {} B bodies",
        args.clients, args.cycles, args.rounds, args.body
    );
    let local_cpu = || Some(cpu_of(None, "sqs-server"));
    let pid = args.moto_pid;
    let moto_cpu = || pid.map(|p| cpu_of(Some(p), ""));
    let mut local: Option<Report> = None;
    let mut oracle: Option<Report> = None;
    for _ in 0..args.rounds.max(1) {
        let round = client_rt.block_on(run("local-cloud", &endpoint, &args, local_cpu));
        merge_into(&mut local, round);
        if let Some(moto) = &args.moto {
            let round = client_rt.block_on(run("moto", moto, &args, moto_cpu));
            merge_into(&mut oracle, round);
        }
    }
    let mut local = local.expect("at least one round");
    print(&mut local);
    if let Some(mut oracle) = oracle {
        print(&mut oracle);
        let ratio = (local.cycles as f64 / local.wall.as_secs_f64())
            / (oracle.cycles as f64 / oracle.wall.as_secs_f64());
        println!("throughput ratio local-cloud / moto: {ratio:.1}x");
    }
    let metrics = service.metrics();
    println!("local cloud billed requests: {}", metrics.billed_requests);
}
