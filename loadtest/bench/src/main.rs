//! `bench run`, `bench tune`, `bench report`, `bench readme`, `bench cost` and
//! `bench seed-orders`: see `docs/bench.md`.

use std::path::PathBuf;

use anyhow::Context;
use bench::apis;
use bench::driver::{self, RunOptions, TargetKind};
use bench::monthly_render::bench_cost;
use bench::plan::Mode;
use bench::results::Results;
use bench::target::CpuShare;
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "bench",
    about = "Load tests of every variant, metered and priced"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the scenarios and write results.json, report.html and summary.md.
    Run(Box<RunArgs>),
    /// Power Tuning for a whole architecture: one scenario on one variant at
    /// several memory sizes, a fresh local cloud each; writes tune.json,
    /// tune.html and tune.md with the cheapest size meeting the SLA, the
    /// fastest and the balanced one.
    Tune(Box<TuneArgs>),
    /// Redo report.html and summary.md from a results.json.
    Report {
        results: PathBuf,
        #[command(flatten)]
        lmi: LmiTemplateArg,
    },
    /// Rewrite README.md's "Results" (between its results markers) from a
    /// results.json: the run's date, commit, machine, verdicts, key figures;
    /// and the results page's latest run (every figure of the same run).
    Readme {
        /// A bench results.json (reports/<run>/results.json).
        #[arg(long)]
        from: PathBuf,
        #[arg(long, default_value = "README.md")]
        readme: PathBuf,
        #[arg(long, default_value = "docs/results.md")]
        results_page: PathBuf,
        /// The IAM page whose per-function tables a local run rewrites.
        #[arg(long, default_value = "docs/iam.md")]
        iam_page: PathBuf,
        #[command(flatten)]
        lmi: LmiTemplateArg,
    },
    /// The monthly bill of each scenario's architectures at the given rates
    /// (successful requests per second, a 30-day month), every line, from
    /// the usage a run measured, and the rates where the bills cross.
    Cost(CostArgs),
    /// Store the orders the back end reads (unless they are there), with the
    /// caller's AWS configuration (credentials, region, AWS_ENDPOINT_URL).
    SeedOrders(SeedArgs),
}

/// Where a run on Lambda Managed Instances that did not record its
/// functions' environment settings (results of local clouds before metrics
/// version 8) takes them from.
#[derive(clap::Args)]
struct LmiTemplateArg {
    /// The LMI template the run started (`bench run --lmi-template`): each
    /// function's PerExecutionEnvironmentMaxConcurrency and memory per vCPU,
    /// with the run's parameters, where results.json lacks them; read only
    /// then (docs/managed-instances.md).
    #[arg(long, default_value = "template-lmi.yaml")]
    lmi_template: PathBuf,
}

#[derive(clap::Args)]
struct CostArgs {
    #[command(flatten)]
    lmi: LmiTemplateArg,
    /// A bench results.json (reports/<run>/results.json).
    #[arg(long)]
    from: PathBuf,
    /// Successful requests per second (repeatable).
    #[arg(long = "rate", required = true, allow_negative_numbers = true)]
    rates: Vec<f64>,
    /// The price table the run was priced with, when not the built-in one.
    #[arg(long)]
    prices: Option<PathBuf>,
    /// Print JSON instead of Markdown.
    #[arg(long)]
    json: bool,
    /// Bill on-demand Lambda (as measured), Lambda Managed Instances (a
    /// fleet sized from the measured usage), or both side by side with the
    /// rate where LMI becomes the cheaper.
    #[arg(long, value_enum, default_value = "on-demand")]
    compute: ComputeKind,
    /// LMI: an instance type the capacity provider allows (repeatable; its
    /// AllowedInstanceTypes, the first one of the run's architecture is
    /// priced); default: the .xlarge of the run's architecture (c7i.xlarge,
    /// c7g.xlarge), where AWS's LMI pricing calculator starts.
    #[arg(long = "instance-type")]
    instance_types: Vec<String>,
    /// LMI: an instance type the capacity provider excludes (repeatable;
    /// its ExcludedInstanceTypes).
    #[arg(long = "exclude-instance-type")]
    excluded_instance_types: Vec<String>,
    /// LMI: the Savings Plans or reserved-instance discount on the EC2
    /// instances, a share from 0 to 1 (0.32 for 32 %); the 15 %
    /// management fee stays on the on-demand price.
    #[arg(long, default_value_t = 0.0)]
    ec2_discount: f64,
    /// LMI: the CPU utilisation the fleet is kept at, 0-1 (AWS keeps room
    /// for traffic to double within five minutes).
    #[arg(long, default_value_t = 0.5)]
    target_cpu: f64,
    /// LMI: each function's memory, MB (at least 2,048).
    #[arg(long, default_value_t = 2048)]
    environment_memory_mb: u32,
    /// LMI: ExecutionEnvironmentMemoryGiBPerVCpu (2, 4 or 8).
    #[arg(long, default_value_t = 2.0)]
    memory_gib_per_vcpu: f64,
    /// LMI: PerExecutionEnvironmentMaxConcurrency of a month modelled from
    /// an on-demand run (default 8 per vCPU); a run measured on LMI is sized
    /// at each function's own, as it ran.
    #[arg(long)]
    max_concurrency: Option<u32>,
    /// LMI: each function's MinExecutionEnvironments (its
    /// FunctionScalingConfig; AWS's default 3).
    #[arg(long, default_value_t = 3)]
    min_environments: u32,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum ComputeKind {
    OnDemand,
    Managed,
    Both,
}

impl CostArgs {
    fn compute(&self) -> bench::monthly::Compute {
        use bench::monthly::Compute;
        let settings = costmodel::managed::FleetSettings {
            allowed_instance_types: self.instance_types.clone(),
            excluded_instance_types: self.excluded_instance_types.clone(),
            environment_memory_gib: f64::from(self.environment_memory_mb) / 1024.0,
            memory_gib_per_vcpu: self.memory_gib_per_vcpu,
            max_concurrency: self.max_concurrency,
            min_environments: self.min_environments,
            target_cpu_utilisation: self.target_cpu,
            ..costmodel::managed::FleetSettings::default()
        };
        match self.compute {
            ComputeKind::OnDemand => Compute::OnDemand,
            ComputeKind::Managed => Compute::Managed(settings),
            ComputeKind::Both => Compute::Both(settings),
        }
    }
}

#[derive(clap::Args)]
#[group(required = true, multiple = false)]
struct SeedArgs {
    /// The orders table's name.
    #[arg(long)]
    table: Option<String>,
    /// `aws cloudformation describe-stacks` output (output OrdersTableName) or a local cloud endpoints file.
    #[arg(long)]
    stack_outputs: Option<PathBuf>,
}

#[derive(clap::Args)]
struct RunArgs {
    /// A few minutes in all (default): original users, durations x 0.4.
    #[arg(long, group = "mode")]
    quick: bool,
    /// The original ramps and durations.
    #[arg(long, group = "mode")]
    full: bool,
    /// Seconds: orders-baseline only, tiny ramp, for CI.
    #[arg(long, group = "mode")]
    smoke: bool,
    #[arg(long, value_enum, default_value = "local")]
    target: TargetKind,
    /// Only these scenarios (orders-baseline, orders-highload, orders-largepayload,
    /// orders-faults, orders-sweep, conduit-mixed, conduit-capacity, conduit-faults).
    #[arg(long = "scenario")]
    scenarios: Vec<String>,
    /// Only these variants (orders-direct, orders-queue, conduit-monolith, ...).
    #[arg(long = "variant")]
    variants: Vec<String>,
    /// Output folder (default reports/<timestamp>).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Function binaries and `localcloud` (target local).
    #[arg(long, default_value = "target/release")]
    binaries_dir: PathBuf,
    /// The front door of every variant: http (template.yaml), rest
    /// (--rest-template), or both in one run (`http,rest` or `both`).
    #[arg(long, default_value = "http")]
    api: String,
    #[arg(long, default_value = "template.yaml")]
    template: PathBuf,
    /// The REST version of the template (`localcloud rest-template`), for `--api rest`.
    #[arg(long, default_value = "template-rest.yaml")]
    rest_template: PathBuf,
    /// Where the functions run: on-demand (template.yaml), managed (Lambda
    /// Managed Instances, --lmi-template), or both in one run, one pass each
    /// (`on-demand,managed` or `both`).
    #[arg(long, default_value = "on-demand")]
    compute: String,
    /// The Lambda Managed Instances version of the template (`localcloud
    /// lmi-template`), for `--compute managed`.
    #[arg(long, default_value = "template-lmi.yaml")]
    lmi_template: PathBuf,
    /// Latency injected by the local cloud into DynamoDB, SQS and Invoke calls, so that
    /// billed durations approximate AWS; each figure cites its public source
    /// (docs/bench.md, "The latency profile"). `none` turns it off.
    #[arg(long, default_value = bench::target::DEFAULT_LATENCY_PROFILE)]
    latency_profile: String,
    /// Remote targets: `[KIND:]variant=URL` (repeatable; KIND http or rest
    /// when --api runs both).
    #[arg(long = "url")]
    urls: Vec<String>,
    /// Remote targets: `[KIND:]FILE`, `aws cloudformation describe-stacks` output or a
    /// local cloud endpoints file (repeatable; `rest:FILE` for the stack of template-rest.yaml).
    #[arg(long)]
    stack_outputs: Vec<String>,
    /// Remote targets: `[KIND:]NAME`, the orders table to seed before the orders runs
    /// (default: the `OrdersTableName` output of --stack-outputs).
    #[arg(long = "orders-table")]
    orders_tables: Vec<String>,
    /// Skip the orders concurrency / batch sweep.
    #[arg(long)]
    no_sweep: bool,
    /// Skip the Conduit capacity search.
    #[arg(long)]
    no_capacity: bool,
    /// The capacity search's first steps, ascending, e.g. `800,1600` to bisect
    /// a known range again; default the mode's doubling steps (full: 100, 200,
    /// 400, 800, 1600, 3200).
    #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u64).range(1..))]
    capacity_steps: Vec<u64>,
    /// Bisect until the most users held and the fewest that broke are at most
    /// this many users apart (default: full 100, quick 50).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    capacity_resolution: Option<u64>,
    /// A price table replacing the built-in loadtest/prices/aws-prices.csv.
    #[arg(long)]
    prices: Option<PathBuf>,
    /// Price with the lines in effect on this day (YYYY-MM-DD); default the newest.
    #[arg(long)]
    price_date: Option<String>,
    /// How each execution environment gets its CPU (`localcloud serve
    /// --cpu-share`): aws (memory / 1,769 vCPU, the kernel's cgroup quota
    /// where permitted, else the model), model, or off (unthrottled).
    #[arg(long, value_enum, default_value = "aws")]
    cpu_share: CpuShare,
}

#[derive(clap::Args)]
struct TuneArgs {
    /// A few minutes per size (default): original users, durations x 0.4.
    #[arg(long, group = "mode")]
    quick: bool,
    /// The original ramps and durations.
    #[arg(long, group = "mode")]
    full: bool,
    /// Seconds per size, for CI.
    #[arg(long, group = "mode")]
    smoke: bool,
    /// One fixed load: orders-baseline, orders-highload, orders-largepayload
    /// or conduit-mixed.
    #[arg(long, default_value = "orders-baseline")]
    scenario: String,
    /// One variant of the scenario's experiment (orders-direct, orders-queue,
    /// conduit-monolith, conduit-micro-invoke, conduit-micro-queue).
    #[arg(long, default_value = "orders-direct")]
    variant: String,
    /// Memory sizes to try, MB.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "128,256,512,1024,1769,3008"
    )]
    memory: Vec<u32>,
    /// Set the memory of this function only (a template logical id of the
    /// variant; repeatable); default every function of the variant.
    #[arg(long = "function")]
    functions: Vec<String>,
    /// The SLA's p95 bound, ms. Default: the scenario's. Orders: the back
    /// end's designed wait (OrdersDelayMs, 500 ms) + 250 ms; conduit-mixed:
    /// 500 ms, the Conduit experiment's.
    #[arg(long)]
    sla_p95_ms: Option<f64>,
    /// The SLA's p99 bound, ms. Default: orders, the back end's wait + 500
    /// ms; conduit-mixed, 1000 ms.
    #[arg(long)]
    sla_p99_ms: Option<f64>,
    /// Only `local`: tuning a deployed stack is not implemented.
    #[arg(long, value_enum, default_value = "local")]
    target: TargetKind,
    /// How each execution environment gets its CPU (`localcloud serve --cpu-share`).
    #[arg(long, value_enum, default_value = "aws")]
    cpu_share: CpuShare,
    /// Latency injected by the local cloud, as `bench run --latency-profile`
    /// (`none` turns it off).
    #[arg(long, default_value = bench::target::DEFAULT_LATENCY_PROFILE)]
    latency_profile: String,
    /// Function binaries and `localcloud`.
    #[arg(long, default_value = "target/release")]
    binaries_dir: PathBuf,
    #[arg(long, default_value = "template.yaml")]
    template: PathBuf,
    /// Output folder (default reports/tune-<timestamp>).
    #[arg(long)]
    out: Option<PathBuf>,
    /// A price table replacing the built-in loadtest/prices/aws-prices.csv.
    #[arg(long)]
    prices: Option<PathBuf>,
    /// Price with the lines in effect on this day (YYYY-MM-DD); default the newest.
    #[arg(long)]
    price_date: Option<String>,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::Tune(args) => {
            let outcome = tokio::select! {
                result = tune(*args) => Ok(result),
                signal = stop_signal() => Err(signal?),
            };
            outcome.unwrap_or_else(|(name, code)| {
                eprintln!(
                    "bench: {name}: the tuning and its local cloud were stopped; no results written"
                );
                std::process::exit(code)
            })
        }
        Command::Run(args) => {
            let outcome = tokio::select! {
                result = run(*args) => Ok(result),
                signal = stop_signal() => Err(signal?),
            };
            // Out of the select, the run is dropped: its local cloud with it.
            outcome.unwrap_or_else(|(name, code)| {
                eprintln!(
                    "bench: {name}: the run and its local cloud were stopped; no results written"
                );
                std::process::exit(code)
            })
        }
        Command::Report { results, lmi } => {
            let parsed = read_results(&results, &lmi)?;
            let out = results.parent().map(PathBuf::from).unwrap_or_default();
            driver::write_reports(&parsed, &out)?;
            println!("{}", bench::report::markdown::summary(&parsed));
            println!("report: {}", out.join("report.html").display());
            Ok(())
        }
        Command::Cost(args) => {
            let prices = args.prices.as_deref();
            let compute = args.compute();
            let discount = costmodel::managed::Ec2Discount::new(args.ec2_discount)?;
            let results = read_results(&args.from, &args.lmi)?;
            let priced = bench_cost(&results, &args.rates, &compute, prices, discount, args.json)?;
            print!("{priced}");
            Ok(())
        }
        Command::Readme {
            from,
            readme,
            results_page,
            iam_page,
            lmi,
        } => {
            bench::report::readme::update(
                &readme,
                &results_page,
                &iam_page,
                &read_results(&from, &lmi)?,
            )?;
            println!(
                "{}, {} and {} (a local run's IAM tables): rewritten from {}",
                readme.display(),
                results_page.display(),
                iam_page.display(),
                from.display()
            );
            Ok(())
        }
        Command::SeedOrders(args) => {
            let table = match (args.table, &args.stack_outputs) {
                (Some(table), _) => table,
                (None, Some(path)) => bench::seed::orders_table_from_document(&read_document(
                    path,
                )?)
                .with_context(|| {
                    format!(
                        "{} names no orders table (output {})",
                        path.display(),
                        bench::seed::ORDERS_TABLE_OUTPUT
                    )
                })?,
                (None, None) => unreachable!("clap requires --table or --stack-outputs"),
            };
            let client = bench::seed::default_client().await;
            println!("{}", bench::seed::seed_orders(&client, &table).await?);
            Ok(())
        }
    }
}

/// SIGTERM (what `kill`, `timeout` and CI runners send): without this it would
/// end the bench at once and leave its local cloud, with every function
/// environment, running. Its name and the exit code a shell gives a process
/// that a signal ended (128 + 15). Ctrl-C in a terminal reaches the local cloud
/// itself (same process group), which stops on it, and Goose's handler, which
/// ends the running load step.
async fn stop_signal() -> anyhow::Result<(&'static str, i32)> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut terminate = signal(SignalKind::terminate()).context("cannot watch SIGTERM")?;
    terminate.recv().await;
    Ok(("SIGTERM", 143))
}

/// A results.json, its LMI runs' missing environment settings taken from
/// the LMI template (`bench::lmi_config`); a template that cannot be read
/// leaves them to the runtime's default, with a warning.
fn read_results(path: &std::path::Path, lmi: &LmiTemplateArg) -> anyhow::Result<Results> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut results = Results::from_json(&text)
        .with_context(|| format!("{} is not a bench results.json", path.display()))?;
    let template = &lmi.lmi_template;
    match bench::lmi_config::complete_from_template(&mut results, template) {
        Ok(done) if done.missing > 0 => eprintln!(
            "bench: {}: {} of the {} LMI functions without recorded settings took them from {}",
            path.display(),
            done.completed,
            done.missing,
            template.display()
        ),
        Ok(_) => {}
        Err(e) => eprintln!(
            "bench: {}: LMI functions without recorded settings are sized at the runtime's default concurrency: {e}",
            path.display()
        ),
    }
    Ok(results)
}

fn read_document(path: &std::path::Path) -> anyhow::Result<serde_json::Value> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{} is not JSON", path.display()))
}

fn mode(full: bool, smoke: bool) -> Mode {
    if full {
        Mode::Full
    } else if smoke {
        Mode::Smoke
    } else {
        Mode::Quick
    }
}

async fn tune(args: TuneArgs) -> anyhow::Result<()> {
    bench::tune::check_target(args.target)?;
    let out = args.out.unwrap_or_else(|| {
        let stamp = chrono::Local::now().format("%Y%m%d-%H%M%S");
        PathBuf::from("reports").join(format!("tune-{stamp}"))
    });
    let doc = bench::tune::run(bench::tune::TuneOptions {
        scenario: args.scenario,
        variant: args.variant,
        memory_mb: args.memory,
        functions: args.functions,
        sla: bench::tune::SlaAsked {
            p95_ms: args.sla_p95_ms,
            p99_ms: args.sla_p99_ms,
        },
        mode: mode(args.full, args.smoke),
        cpu_share: args.cpu_share,
        latency_profile: bench::target::latency_profile(&args.latency_profile)?,
        binaries_dir: args.binaries_dir,
        template: args.template,
        out: out.clone(),
        prices: args.prices,
        price_date: args.price_date,
    })
    .await?;
    println!(
        "{}",
        bench::tune::render::sla_sentence(&doc.sla, &doc.sla_reason)
    );
    for line in bench::tune::render::pick_sentences(&doc) {
        println!("{line}");
    }
    for n in &doc.not_run {
        println!("not run: {} MB: {}", n.memory_mb, n.reason);
    }
    println!("tune:   {}", out.join("tune.json").display());
    println!("report: {}", out.join("tune.html").display());
    println!("        {}", out.join("tune.md").display());
    anyhow::ensure!(!doc.settings.is_empty(), "no memory size could be measured");
    Ok(())
}

async fn run(args: RunArgs) -> anyhow::Result<()> {
    let mode = mode(args.full, args.smoke);
    let computes = bench::compute::parse_types(&args.compute)?;
    if args.target != TargetKind::Local && computes.len() > 1 {
        anyhow::bail!(
            "--target {:?} measures the stack its URLs name: run each --compute on its own",
            args.target
        );
    }
    let doors = apis::doors(&apis::DoorArgs {
        kinds: &apis::parse_kinds(&args.api)?,
        computes: &computes,
        template: &args.template,
        rest_template: &args.rest_template,
        lmi_template: &args.lmi_template,
        stack_outputs: &args.stack_outputs,
        urls: &args.urls,
        orders_tables: &args.orders_tables,
    })?;
    for door in &doors {
        if args.target != TargetKind::Local && door.urls.is_empty() {
            anyhow::bail!(
                "--target {:?} needs --url variant=URL or --stack-outputs FILE for its {}",
                args.target,
                apis::describe(door.api)
            );
        }
    }
    let out = args.out.unwrap_or_else(|| {
        PathBuf::from("reports").join(chrono::Local::now().format("%Y%m%d-%H%M%S").to_string())
    });
    let options = RunOptions {
        mode,
        target: args.target,
        scenarios: args.scenarios,
        variants: args.variants,
        out: out.clone(),
        binaries_dir: args.binaries_dir,
        doors,
        sweep: !args.no_sweep,
        capacity: !args.no_capacity,
        capacity_steps: bench::plan::given_capacity_steps(args.capacity_steps)
            .map_err(anyhow::Error::msg)?,
        capacity_resolution: args.capacity_resolution,
        latency_profile: bench::target::latency_profile(&args.latency_profile)?,
        prices: args.prices,
        price_date: args.price_date,
        cpu_share: args.cpu_share,
        memory_sizes: Vec::new(),
    };
    let results = driver::run(options).await?;
    println!("{}", bench::report::markdown::summary(&results));
    println!("results: {}", out.join("results.json").display());
    println!("report:  {}", out.join("report.html").display());
    let denials = results.iam_denials();
    anyhow::ensure!(
        denials.is_empty(),
        "IAM denied calls (template.yaml lacks a grant the code needs):\n{}",
        denials.join("\n")
    );
    let unaccounted = results.unaccounted();
    anyhow::ensure!(
        unaccounted.is_empty(),
        "requests or messages unaccounted for:\n{}",
        unaccounted.join("\n")
    );
    Ok(())
}
