//! Invoke latency and throughput of a Lambda emulator, through `aws-sdk-lambda`.
//!
//! ```text
//! # the local cloud, started in-process with test-functions' `echo`:
//! cargo build -p test-functions --bins
//! cargo run -p localcloud-lambda --example invoke_bench -- local 2000 8
//! # any other emulator with the Invoke API, e.g. `cargo lambda watch`:
//! cargo run -p localcloud-lambda --example invoke_bench -- http://127.0.0.1:9001 2000 8
//! # the local cloud's CPU share on and off, `echo` at 1,769 MB (one vCPU):
//! cargo run -p localcloud-lambda --example invoke_bench -- local 2000 8 aws 1769
//! cargo run -p localcloud-lambda --example invoke_bench -- local 2000 8 off 1769
//! ```
//! Arguments: endpoint (`local` or a URL), requests, concurrency, and for
//! `local` the CPU share (`aws`, `model` or `off`, default `aws`) and the
//! function's memory size (default 128). The function is `echo`; 50 warm-up
//! invocations run first. For `local` it also prints this process's CPU per
//! invocation (the local cloud and the client, which is the same in every
//! run: compare runs side by side).

use std::sync::Arc;
use std::time::{Duration, Instant};

use aws_sdk_lambda::config::{BehaviorVersion, Credentials, Region};
use aws_sdk_lambda::primitives::Blob;
use aws_sdk_lambda::Client;
use localcloud_core::{serve_on_ephemeral_port, Dispatcher};
use localcloud_lambda::{FunctionConfig, LambdaConfig, LambdaService};

const WARM_UP: usize = 50;

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let target = args.first().map(String::as_str).unwrap_or("local");
    let requests: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(2000);
    let concurrency: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(8);

    let cpu_share: localcloud_lambda::CpuShare = args
        .get(3)
        .map(|a| a.parse().expect("aws, model or off"))
        .unwrap_or_default();
    let memory_mb: u32 = args.get(4).and_then(|a| a.parse().ok()).unwrap_or(128);
    let own_cpu_before = localcloud_core::procstat::cpu_ms(std::process::id());
    let (endpoint, _local) = if target == "local" {
        let (endpoint, service, server) = start_local(cpu_share, memory_mb).await;
        (endpoint, Some((service, server)))
    } else {
        (target.to_string(), None)
    };
    let client = client(&endpoint);
    for _ in 0..WARM_UP {
        invoke(&client).await;
    }

    let mut latencies = Vec::with_capacity(requests);
    for _ in 0..requests {
        latencies.push(invoke(&client).await);
    }
    latencies.sort();
    let started = Instant::now();
    let per_worker = requests / concurrency.max(1);
    let workers: Vec<_> = (0..concurrency.max(1))
        .map(|_| {
            let client = client.clone();
            tokio::spawn(async move {
                for _ in 0..per_worker {
                    invoke(&client).await;
                }
            })
        })
        .collect();
    for worker in workers {
        worker.await.expect("worker finishes");
    }
    let elapsed = started.elapsed();
    let throughput = (per_worker * concurrency.max(1)) as f64 / elapsed.as_secs_f64();
    println!(
        "target={target} requests={requests} p50={:.2}ms p90={:.2}ms p99={:.2}ms mean={:.2}ms throughput(c={concurrency})={throughput:.0}/s",
        ms(percentile(&latencies, 0.50)),
        ms(percentile(&latencies, 0.90)),
        ms(percentile(&latencies, 0.99)),
        ms(latencies.iter().sum::<Duration>() / latencies.len().max(1) as u32),
    );
    if let Some((service, _server)) = _local {
        let all = service.metrics();
        let metrics = &all.functions["echo"];
        let own_cpu = localcloud_core::procstat::cpu_ms(std::process::id())
            .zip(own_cpu_before)
            .map_or(0.0, |(after, before)| after - before);
        println!(
            "local: cpu share={} at {memory_mb} MB cold starts={} mean init={:.2}ms function cpu per invocation={:.3}ms emulator+client cpu per invocation={:.3}ms",
            all.cpu_share.mode.as_str(),
            metrics.cold_starts,
            metrics.init_ms / metrics.cold_starts.max(1) as f64,
            metrics.cpu_ms / metrics.invocations.max(1) as f64,
            own_cpu / metrics.invocations.max(1) as f64,
        );
        service.shutdown().await;
    }
}

async fn start_local(
    cpu_share: localcloud_lambda::CpuShare,
    memory_mb: u32,
) -> (String, Arc<LambdaService>, localcloud_core::ServerHandle) {
    let exe = std::env::current_exe().expect("example path");
    let bin_dir = exe
        .parent()
        .and_then(|p| p.parent())
        .expect("target/<profile>");
    let service = LambdaService::start(LambdaConfig {
        functions: vec![FunctionConfig {
            memory_mb,
            ..FunctionConfig::new("echo", bin_dir.join("echo"))
        }],
        cpu_share,
        ..LambdaConfig::default()
    })
    .expect("service starts");
    let dispatcher = Dispatcher::new().with_path(service.clone());
    let server = serve_on_ephemeral_port(Arc::new(dispatcher))
        .await
        .expect("server starts");
    (format!("http://{}", server.addr), service, server)
}

fn client(endpoint: &str) -> Client {
    let config = aws_sdk_lambda::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .endpoint_url(endpoint)
        .credentials_provider(Credentials::new("AKIDLOCAL", "secret", None, None, "bench"))
        .build();
    Client::from_conf(config)
}

async fn invoke(client: &Client) -> Duration {
    let started = Instant::now();
    let output = client
        .invoke()
        .function_name("echo")
        .payload(Blob::new(r#"{"bench":true}"#))
        .send()
        .await
        .expect("invoke succeeds");
    assert_eq!(output.function_error(), None, "echo failed");
    started.elapsed()
}

fn percentile(sorted: &[Duration], q: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
