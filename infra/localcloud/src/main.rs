//! `localcloud serve`: the local cloud on the command line.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::{Args, Parser, Subcommand};
use localcloud::{LocalCloud, LocalCloudConfig, StackConfig, DEFAULT_BIND};

/// Every request allocates and frees on whichever worker thread runs it;
/// glibc's allocator took almost a fifth of the server's CPU in the HTTP API
/// benchmark (docs/benchmarks.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "localcloud",
    version,
    about = "A Docker-free local AWS: API Gateway, Lambda, SQS, DynamoDB"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// Parsed once at start: the size of `Serve`'s options does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Command {
    /// Serve every emulated service on one endpoint until Ctrl-C.
    Serve {
        /// Address to listen on. Anything but loopback exposes the emulator to the network.
        #[arg(long, default_value = DEFAULT_BIND, env = "LOCALCLOUD_BIND")]
        bind: SocketAddr,
        /// Load DynamoDB tables and SQS queues (with their messages) from this file at
        /// start and save them there on Ctrl-C or SIGTERM.
        #[arg(long, env = "LOCALCLOUD_STATE_FILE")]
        state_file: Option<PathBuf>,
        /// Latency profile (JSON) injected into DynamoDB, SQS and Invoke calls, so
        /// that billed durations approximate AWS; e.g. infra/localcloud/profiles/aws-us-east-1.json.
        #[arg(long, env = "LOCALCLOUD_LATENCY_PROFILE")]
        latency_profile: Option<PathBuf>,
        /// Where stacks deployed with `sam deploy` keep their unpacked code and logs.
        #[arg(long, default_value = ".localcloud", env = "LOCALCLOUD_STATE_DIR")]
        state_dir: PathBuf,
        /// CPU of each execution environment: `aws`, in proportion to its memory
        /// size (1,769 MB = one vCPU) through the kernel's cgroup quota, or where
        /// no cgroup can be written a model from each invocation's CPU time;
        /// `model`, that model always; `off`, unthrottled on this machine's cores.
        #[arg(long, default_value = "aws", env = "LOCALCLOUD_CPU_SHARE")]
        cpu_share: localcloud_lambda::CpuShare,
        /// IAM for calls signed with a function role's credentials: `enforce`
        /// (AccessDenied as on AWS), `warn` (answered, logged, recorded) or
        /// `off`. Other callers (your CLI, `sam deploy`) are the account's
        /// administrator. `localcloud iam-report` prints what each function used.
        #[arg(long, default_value = "enforce", env = "LOCALCLOUD_IAM")]
        iam: localcloud_iam::Mode,
        /// Threads that run the emulator's requests. One (the default) keeps
        /// the emulator quiet: on a machine it shares with the functions it
        /// runs, a second worker costs more in waking and parking threads
        /// than it gains (docs/benchmarks.md, "A quiet emulator"); it cannot
        /// use more than one core then.
        #[arg(long, default_value_t = DEFAULT_WORKER_THREADS, env = "LOCALCLOUD_WORKER_THREADS",
              value_parser = clap::value_parser!(u16).range(1..))]
        worker_threads: u16,
        /// How the emulator's threads are scheduled: `batch` (`SCHED_BATCH`,
        /// the default) never preempts a function when the emulator wakes
        /// up, so a function does not wait on its core for the emulator's
        /// work (a contention AWS would not have); `normal`, the kernel's
        /// default policy (docs/cpu-share.md, "Contention is not quota").
        #[arg(long, default_value = "batch", env = "LOCALCLOUD_SCHED_POLICY")]
        sched_policy: localcloud_lambda::scheduling::SchedPolicy,
        #[command(flatten)]
        app: AppArgs,
    },
    /// Print the REST API version of a SAM template (every HttpApi as a REST
    /// API, stage Prod), for LocalStack's free plan: template-rest.yaml.
    RestTemplate {
        /// The template to convert.
        #[arg(long, default_value = "template.yaml")]
        template: PathBuf,
        /// Write here instead of standard output.
        #[arg(long)]
        output: Option<PathBuf>,
    },
    /// Print, per function, the calls it was allowed and denied since the
    /// local cloud started, the least policy that allows them and the grants
    /// of its role that nothing used (`GET /_localcloud/iam`).
    IamReport {
        /// The running local cloud.
        #[arg(
            long,
            default_value = "http://127.0.0.1:4566",
            env = "AWS_ENDPOINT_URL"
        )]
        endpoint: String,
        /// Print the JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Print the Lambda Managed Instances version of a SAM template (every
    /// function on one capacity provider, at least 2,048 MB):
    /// template-lmi.yaml.
    LmiTemplate {
        /// The template to convert.
        #[arg(long, default_value = "template.yaml")]
        template: PathBuf,
        /// Write here instead of standard output.
        #[arg(long)]
        output: Option<PathBuf>,
    },
}

/// A SAM application to bring up with the data services.
#[derive(Args)]
struct AppArgs {
    /// SAM template to run: tables, queues, functions (their real binaries),
    /// HTTP APIs and SQS event source mappings.
    #[arg(long, env = "LOCALCLOUD_TEMPLATE")]
    template: Option<PathBuf>,
    /// Parameter overrides, as `Name=Value` (repeatable).
    #[arg(long = "parameter-overrides", value_name = "NAME=VALUE", num_args = 1..)]
    parameter_overrides: Vec<String>,
    /// `AWS::StackName`, also the prefix of generated resource names.
    #[arg(long, default_value = "local")]
    stack_name: String,
    /// Directory holding the functions' binaries (`cargo build` output). Without
    /// it, each function's binary is looked for where `sam build`
    /// (`.aws-sam/build/<LogicalId>/bootstrap`) and `cargo lambda build`
    /// (`target/lambda/<binary>/bootstrap`) put it beside the template, then in
    /// target/debug; the log says which was used.
    #[arg(long)]
    binaries_dir: Option<PathBuf>,
    /// Port of the first HTTP API; the others follow in template order. Default: free ports.
    #[arg(long)]
    api_port: Option<u16>,
    /// Where each function's log (output, START/END/REPORT lines) is written.
    #[arg(long, default_value = ".localcloud/logs")]
    log_dir: PathBuf,
    /// Write the endpoints (APIs, queues, tables, outputs) as JSON to this file.
    #[arg(long)]
    endpoints_file: Option<PathBuf>,
    /// Account-wide concurrent executions (AWS default 1000).
    #[arg(long, default_value_t = 1000)]
    account_concurrency: u32,
    /// Seconds a warm execution environment may stay idle before it is shut down.
    #[arg(long, default_value_t = 300)]
    idle_seconds: u64,
    /// Fault injection: kill the execution environment of this share of a
    /// function's invocations while they run, as `FUNCTION=RATE` (name or
    /// logical id, rate 0 to 1; repeatable). Also `POST /_localcloud/faults`.
    #[arg(long = "kill-rate", value_name = "FUNCTION=RATE", value_parser = localcloud::faults::parse_kill_rate)]
    kill_rates: Vec<(String, f64)>,
    /// Memory size replacing the template's, as `FUNCTION=MB` (logical id or
    /// name) or `MB` for every function (repeatable; 128 to 10240).
    #[arg(long = "memory-size", value_name = "[FUNCTION=]MB")]
    memory_sizes: Vec<localcloud::MemorySizeOverride>,
}

impl AppArgs {
    fn stack_config(&self) -> anyhow::Result<Option<StackConfig>> {
        let Some(template) = &self.template else {
            anyhow::ensure!(
                self.kill_rates.is_empty(),
                "--kill-rate needs --template: there are no functions to kill"
            );
            return Ok(None);
        };
        let mut overrides = BTreeMap::new();
        for pair in &self.parameter_overrides {
            let (name, value) = pair
                .split_once('=')
                .with_context(|| format!("--parameter-overrides takes Name=Value, got {pair:?}"))?;
            overrides.insert(name.to_string(), value.to_string());
        }
        Ok(Some(StackConfig {
            template: template.clone(),
            stack_name: self.stack_name.clone(),
            parameter_overrides: overrides,
            binaries_dir: self
                .binaries_dir
                .clone()
                .unwrap_or_else(|| PathBuf::from("target/debug")),
            build_outputs: self.binaries_dir.is_none(),
            first_api_port: self.api_port,
            log_dir: self.log_dir.clone(),
            account_concurrency_limit: self.account_concurrency,
            idle_timeout: Duration::from_secs(self.idle_seconds),
            memory_sizes: self.memory_sizes.clone(),
            ..StackConfig::new(template)
        }))
    }
}

/// See `serve --worker-threads`.
const DEFAULT_WORKER_THREADS: u16 = 1;

fn main() -> anyhow::Result<()> {
    let started = Instant::now();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("LOCALCLOUD_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_target(false)
        .init();
    let cli = Cli::parse();
    let workers = match &cli.command {
        Command::Serve {
            worker_threads,
            sched_policy,
            ..
        } => {
            // Before the runtime starts: its threads inherit the policy.
            localcloud_lambda::scheduling::apply_to_this_thread(*sched_policy)
                .with_context(|| format!("cannot set the scheduling policy {sched_policy:?}"))?;
            usize::from(*worker_threads)
        }
        _ => 1,
    };
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?
        .block_on(run(cli, started))
}

async fn run(cli: Cli, started: Instant) -> anyhow::Result<()> {
    match cli.command {
        Command::Serve {
            bind,
            state_file,
            latency_profile,
            state_dir,
            cpu_share,
            iam,
            worker_threads: _,
            sched_policy: _,
            app,
        } => {
            let data = DataArgs {
                state_file,
                latency_profile,
                state_dir,
                cpu_share,
                iam,
            };
            serve(bind, data, app, started).await
        }
        Command::IamReport { endpoint, json } => {
            let report = fetch_json(&endpoint, "/_localcloud/iam").await?;
            let report = localcloud_metrics::iam::IamDocument::from_value(report)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                print!("{}", localcloud::iam_report::render(&report));
            }
            Ok(())
        }
        Command::RestTemplate { template, output } => write_variant(
            &template,
            output.as_deref(),
            "a REST version",
            localcloud_template::rest_variant,
        ),
        Command::LmiTemplate { template, output } => write_variant(
            &template,
            output.as_deref(),
            "a Lambda Managed Instances version",
            localcloud_template::lmi_variant,
        ),
    }
}

/// Writes the version `variant` makes of `template`.
fn write_variant(
    template: &std::path::Path,
    output: Option<&std::path::Path>,
    kind: &str,
    variant: fn(&str) -> Result<String, Vec<localcloud_template::VariantError>>,
) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(template)
        .with_context(|| format!("cannot read {}", template.display()))?;
    let generated = variant(&text).map_err(|errors| {
        let listed: Vec<String> = errors.iter().map(ToString::to_string).collect();
        anyhow::anyhow!(
            "{} has no {kind}:\n  {}",
            template.display(),
            listed.join("\n  ")
        )
    })?;
    match output {
        Some(path) => std::fs::write(path, generated)
            .with_context(|| format!("cannot write {}", path.display())),
        None => {
            print!("{generated}");
            Ok(())
        }
    }
}

/// What `serve` keeps and how it runs, beside the application.
struct DataArgs {
    state_file: Option<PathBuf>,
    latency_profile: Option<PathBuf>,
    state_dir: PathBuf,
    cpu_share: localcloud_lambda::CpuShare,
    iam: localcloud_iam::Mode,
}

/// `GET {endpoint}{path}` as JSON, over plain HTTP/1.0 (the local cloud's
/// admin endpoints).
async fn fetch_json(endpoint: &str, path: &str) -> anyhow::Result<serde_json::Value> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let host = endpoint
        .strip_prefix("http://")
        .with_context(|| format!("{endpoint}: an http:// endpoint"))?
        .trim_end_matches('/');
    let mut stream = tokio::net::TcpStream::connect(host)
        .await
        .with_context(|| format!("cannot reach the local cloud at {endpoint}"))?;
    stream
        .write_all(format!("GET {path} HTTP/1.0\r\nHost: {host}\r\n\r\n").as_bytes())
        .await?;
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await?;
    let text = String::from_utf8_lossy(&response);
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b)
        .context("no HTTP response")?;
    serde_json::from_str(body).with_context(|| format!("{endpoint}{path} did not answer JSON"))
}

async fn serve(
    bind: SocketAddr,
    data: DataArgs,
    app: AppArgs,
    started: Instant,
) -> anyhow::Result<()> {
    let DataArgs {
        state_file,
        latency_profile,
        state_dir,
        cpu_share,
        iam,
    } = data;
    let latency = match &latency_profile {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read the latency profile {}", path.display()))?;
            let profile = localcloud_core::LatencyProfile::from_json(&text)
                .with_context(|| format!("in {}", path.display()))?;
            tracing::info!("injecting latency from {}", path.display());
            Some(std::sync::Arc::new(profile))
        }
        None => None,
    };
    if !bind.ip().is_loopback() {
        tracing::warn!(
            "listening on {bind}: the emulator accepts unauthenticated requests from the network"
        );
    }
    let config = LocalCloudConfig {
        bind,
        state_file: state_file.clone(),
        stack: app.stack_config()?,
        latency,
        state_dir,
        cpu_share,
        iam,
        ..LocalCloudConfig::default()
    };
    let cloud = LocalCloud::start(config).await?;
    let endpoint = cloud.endpoint();
    if let Some(stack) = cloud.stack() {
        for warning in &stack.app.warnings {
            tracing::warn!("template: {warning}");
        }
        for name in stack.app.generated_parameters() {
            tracing::info!("parameter {name} has no value: using a random development value");
        }
        let cpu = stack.lambda.metrics().cpu_share;
        tracing::info!(
            "CPU share: {}{}",
            cpu.mode.as_str(),
            match cpu.mode {
                localcloud_lambda::CpuShareMode::Off =>
                    " (environments unthrottled: durations under-count AWS's CPU time)",
                localcloud_lambda::CpuShareMode::Model =>
                    " (durations stretched from each invocation's CPU time at memory / 1,769 MB vCPU)",
                _ => " (each environment's cgroup quota: memory / 1,769 MB vCPU)",
            }
        );
        for function in &stack.lambda.config().functions {
            tracing::info!(
                "function {} ({} MB = {:.3} vCPU, {} s)",
                function.name,
                function.memory_mb,
                localcloud_lambda::cpu_share::share_vcpus(function.memory_mb),
                function.timeout.as_secs()
            );
        }
        for (function, rate) in &app.kill_rates {
            let name = localcloud::faults::function_name(stack, function)
                .with_context(|| format!("--kill-rate: no function {function} in the template"))?;
            stack
                .lambda
                .set_kill_rate(&name, *rate)
                .map_err(anyhow::Error::msg)?;
            tracing::warn!(
                "fault injection: killing {rate} of {name}'s environments mid-invocation"
            );
        }
        for (api, url) in stack.api_urls() {
            tracing::info!("API {api}: {url}");
        }
        if let Some(path) = &app.endpoints_file {
            let endpoints = serde_json::to_string_pretty(&stack.endpoints(&endpoint))?;
            std::fs::write(path, endpoints)
                .with_context(|| format!("cannot write {}", path.display()))?;
            tracing::info!("endpoints written to {}", path.display());
        }
    }
    tracing::info!(
        "local cloud ready in {:.1} ms at {endpoint} (admin at {endpoint}/_localcloud/health)",
        started.elapsed().as_secs_f64() * 1000.0
    );
    if let Some(path) = &state_file {
        tracing::info!(
            "DynamoDB and SQS state is saved to {} on a clean stop",
            path.display()
        );
    }
    tracing::info!("use it with: export AWS_ENDPOINT_URL={endpoint}");
    stop_signal().await?;
    tracing::info!("stopping");
    cloud.shutdown().await?;
    tracing::info!("stopped");
    Ok(())
}

/// Ctrl-C or SIGTERM (what `kill` and service managers send): both stop
/// cleanly, saving the state file.
async fn stop_signal() -> std::io::Result<()> {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    tokio::select! {
        result = tokio::signal::ctrl_c() => result,
        _ = term.recv() => Ok(()),
    }
}
