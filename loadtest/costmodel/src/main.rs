//! `costmodel`: price a what-if, an example variant, a scenario file, Lambda logs or
//! the local cloud's metering, and print a Markdown table (or JSON).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Parser, Subcommand, ValueEnum};
use costmodel::sources::lambda_report::summarise_log;
use costmodel::sources::localcloud;
use costmodel::whatif::{
    ApiKind, ApiSpec, Consumer, FunctionSpec, QueueSpec, ReadSpec, Scenario, TableSpec, Trigger,
    WriteSpec,
};
use costmodel::{
    comparison_markdown, cost, examples, ratio, CostBreakdown, CostOptions, Metering, PriceTable,
    ReadConsistency, Usage, WriteKind,
};

#[derive(Parser)]
#[command(
    name = "costmodel",
    about = "What each architecture costs on AWS for the same traffic"
)]
struct Cli {
    /// Price table to use instead of the embedded one.
    #[arg(long, global = true)]
    prices: Option<PathBuf>,
    #[arg(long, global = true, default_value = "us-east-1")]
    region: String,
    /// Use the prices in effect on this date (YYYY-MM-DD).
    #[arg(long, global = true)]
    price_date: Option<String>,
    /// Print the breakdown as JSON instead of Markdown.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// One function (optionally behind API Gateway, with a queue and a worker).
    WhatIf(WhatIf),
    /// A worked example: conduit-monolith, conduit-micro-invoke, conduit-micro-queue,
    /// orders-direct, orders-queue, or `all`.
    Example {
        name: String,
        /// Requests per second (default: 250 for Conduit, 50 for orders).
        #[arg(long)]
        rate: Option<f64>,
        /// Print the scenario as JSON (to edit and run with `scenario`) instead of pricing it.
        #[arg(long)]
        show_scenario: bool,
    },
    /// A what-if scenario from a JSON file (the `Scenario` type).
    Scenario { file: PathBuf },
    /// Lambda REPORT lines of one function (a log file).
    Logs {
        file: PathBuf,
        #[arg(long)]
        function: String,
        #[arg(long)]
        arch: String,
        #[arg(long)]
        public_requests: f64,
        #[arg(long)]
        rate: Option<f64>,
    },
    /// The local cloud's metering document (JSON).
    Metering {
        file: PathBuf,
        #[arg(long)]
        label: Option<String>,
        #[arg(long)]
        public_requests: f64,
        #[arg(long)]
        rate: Option<f64>,
    },
    /// A `Usage` document (JSON), e.g. written by the bench report.
    Usage {
        file: PathBuf,
        #[arg(long)]
        rate: Option<f64>,
    },
    /// Check and list the price table.
    Prices,
}

#[derive(Args)]
struct WhatIf {
    #[arg(long, default_value_t = 128.0)]
    memory: f64,
    #[arg(long, default_value = "arm64")]
    arch: String,
    /// Public requests per second.
    #[arg(long)]
    rate: f64,
    /// Average Duration of one invocation (waiting included), ms.
    #[arg(long)]
    duration_ms: f64,
    #[arg(long, default_value_t = 0.0)]
    waiting_ms: f64,
    #[arg(long, default_value_t = 1.0)]
    invocations_per_request: f64,
    #[arg(long, default_value_t = 0.0)]
    cold_start_ratio: f64,
    #[arg(long, default_value_t = 13.0)]
    init_ms: f64,
    #[arg(long, value_enum, default_value_t = Api::Http)]
    api: Api,
    #[arg(long, default_value_t = 1024)]
    request_bytes: u64,
    #[arg(long, default_value_t = 350.0)]
    log_bytes_per_invocation: f64,
    #[arg(long, default_value_t = 0.0)]
    reads_per_request: f64,
    #[arg(long, default_value_t = 1024)]
    read_bytes: u64,
    #[arg(long, value_enum, default_value_t = Consistency::Eventual)]
    consistency: Consistency,
    #[arg(long, default_value_t = 0.0)]
    writes_per_request: f64,
    #[arg(long, default_value_t = 1024)]
    write_bytes: u64,
    /// Adds a queue consumed by a `worker` function through an event source mapping,
    /// in batches of this many messages.
    #[arg(long)]
    queue_batch_size: Option<f64>,
    #[arg(long, default_value_t = 1.0)]
    messages_per_request: f64,
    #[arg(long, default_value_t = 1024)]
    message_bytes: u64,
    #[arg(long, default_value_t = 5.0)]
    pollers: f64,
    /// Duration of one worker invocation (one batch), ms; default: --duration-ms.
    #[arg(long)]
    worker_duration_ms: Option<f64>,
}

#[derive(Clone, Copy, ValueEnum)]
enum Api {
    Http,
    Rest,
    None,
}

#[derive(Clone, Copy, ValueEnum)]
enum Consistency {
    Eventual,
    Strong,
    Transactional,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(&cli) {
        Ok(output) => {
            print!("{output}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("costmodel: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: &Cli) -> anyhow::Result<String> {
    let prices = match &cli.prices {
        Some(path) => PriceTable::from_path(path)?,
        None => PriceTable::aws_default(),
    };
    let regional = prices.region(&cli.region, cli.price_date.as_deref())?;
    let metering = Metering::from_prices(&regional)?;
    let price = |usage: &Usage, rate: Option<f64>| {
        let options = CostOptions {
            requests_per_second: rate,
            price_date: cli.price_date.clone(),
            ..CostOptions::default()
        };
        cost(usage, &prices, &cli.region, &options)
    };
    let priced_scenario = |scenario: &Scenario| {
        price(
            &scenario.usage(&metering)?,
            Some(scenario.requests_per_second),
        )
    };
    let breakdowns = match &cli.command {
        Command::WhatIf(args) => vec![priced_scenario(&what_if_scenario(args))?],
        Command::Example {
            name,
            rate,
            show_scenario,
        } => {
            let scenarios = example_scenarios(name, *rate)?;
            if *show_scenario {
                let json = if scenarios.len() == 1 {
                    serde_json::to_string_pretty(&scenarios[0])?
                } else {
                    serde_json::to_string_pretty(&scenarios)?
                };
                return Ok(json + "\n");
            }
            scenarios
                .iter()
                .map(priced_scenario)
                .collect::<Result<Vec<_>, _>>()?
        }
        Command::Scenario { file } => {
            let scenario: Scenario = read_json(file)?;
            vec![priced_scenario(&scenario)?]
        }
        Command::Logs {
            file,
            function,
            arch,
            public_requests,
            rate,
        } => {
            let summary = summarise_log(function, arch, &read_text(file)?)?;
            let usage = Usage {
                label: function.clone(),
                public_requests: *public_requests,
                lambda: vec![summary.usage],
                log_bytes: summary.log_bytes,
                ..Usage::default()
            };
            vec![price(&usage, *rate)?]
        }
        Command::Metering {
            file,
            label,
            public_requests,
            rate,
        } => {
            let text = std::fs::read_to_string(file)
                .with_context(|| format!("cannot read {}", file.display()))?;
            let doc = localcloud_metrics::MetricsDocument::from_json(&text).with_context(|| {
                format!("{} is not a local cloud metrics document", file.display())
            })?;
            let label = label.clone().unwrap_or_else(|| file.display().to_string());
            vec![price(
                &localcloud::usage(&doc, &label, *public_requests),
                *rate,
            )?]
        }
        Command::Usage { file, rate } => vec![price(&read_json::<Usage>(file)?, *rate)?],
        Command::Prices => return Ok(price_listing(&prices)),
    };
    Ok(render(&breakdowns, cli.json))
}

fn example_scenarios(name: &str, rate: Option<f64>) -> anyhow::Result<Vec<Scenario>> {
    let names: Vec<&str> = if name == "all" {
        examples::NAMES.to_vec()
    } else {
        vec![name]
    };
    names
        .into_iter()
        .map(|name| {
            examples::by_name(name, rate).with_context(|| {
                format!(
                    "no example `{name}`; examples: {}, all",
                    examples::NAMES.join(", ")
                )
            })
        })
        .collect()
}

fn render(breakdowns: &[CostBreakdown], json: bool) -> String {
    if json {
        let value = if breakdowns.len() == 1 {
            serde_json::to_value(&breakdowns[0])
        } else {
            serde_json::to_value(breakdowns)
        };
        return value.map(|v| format!("{v:#}\n")).unwrap_or_default();
    }
    let mut out: Vec<String> = breakdowns.iter().map(CostBreakdown::to_markdown).collect();
    // Each variant against the first of its family (`conduit-...`, `orders-...`).
    let family = |b: &CostBreakdown| b.label.split('-').next().unwrap_or("").to_string();
    let mut families: Vec<Vec<CostBreakdown>> = Vec::new();
    for b in breakdowns {
        match families.iter_mut().find(|f| family(&f[0]) == family(b)) {
            Some(members) => members.push(b.clone()),
            None => families.push(vec![b.clone()]),
        }
    }
    for members in families.iter().filter(|f| f.len() > 1) {
        let ratios: Vec<String> = members[1..]
            .iter()
            .map(|b| format!("- {}", ratio(b, &members[0]).to_markdown()))
            .collect();
        out.push(format!(
            "### Comparison\n\n{}\n{}",
            comparison_markdown(members),
            ratios.concat()
        ));
    }
    out.join("\n")
}

fn price_listing(prices: &PriceTable) -> String {
    let mut out = format!(
        "Price table {} ({} lines, regions: {})\n\n| region | architecture | service | item | kind | quantity | unit | usd | effective | source |\n|---|---|---|---|---|--:|---|--:|---|---|\n",
        prices.version(),
        prices.lines().len(),
        prices.regions().join(", ")
    );
    for l in prices.lines() {
        let usd = l.usd.map(|u| u.to_string()).unwrap_or_default();
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {usd} | {} | {} |\n",
            l.region,
            l.architecture,
            l.service,
            l.item,
            l.kind.as_str(),
            l.quantity,
            l.unit,
            l.effective_date,
            l.source
        ));
    }
    out
}

fn what_if_scenario(args: &WhatIf) -> Scenario {
    let api = match args.api {
        Api::Http => Some(ApiKind::Http),
        Api::Rest => Some(ApiKind::Rest),
        Api::None => None,
    };
    let mut functions = vec![FunctionSpec {
        name: "function".into(),
        architecture: args.arch.clone(),
        memory_mb: args.memory,
        trigger: Trigger::PerRequest(args.invocations_per_request),
        duration_ms: args.duration_ms,
        waiting_ms: args.waiting_ms,
        cold_start_ratio: args.cold_start_ratio,
        init_ms: args.init_ms,
        log_bytes_per_invocation: args.log_bytes_per_invocation,
    }];
    let mut queues = Vec::new();
    if let Some(batch_size) = args.queue_batch_size {
        queues.push(QueueSpec {
            name: "queue".into(),
            messages_per_request: args.messages_per_request,
            message_bytes: args.message_bytes,
            consumer: Consumer::EventSourceMapping {
                batch_size,
                pollers: args.pollers,
            },
        });
        functions.push(FunctionSpec {
            name: "worker".into(),
            trigger: Trigger::QueueBatches("queue".into()),
            duration_ms: args.worker_duration_ms.unwrap_or(args.duration_ms),
            waiting_ms: 0.0,
            ..functions[0].clone()
        });
    }
    let consistency = match args.consistency {
        Consistency::Eventual => ReadConsistency::Eventual,
        Consistency::Strong => ReadConsistency::Strong,
        Consistency::Transactional => ReadConsistency::Transactional,
    };
    let table = TableSpec {
        name: "table".into(),
        reads: vec![ReadSpec {
            per_request: args.reads_per_request,
            bytes: args.read_bytes,
            consistency,
        }],
        writes: vec![WriteSpec {
            per_request: args.writes_per_request,
            item_bytes: args.write_bytes,
            kind: WriteKind::Standard,
        }],
    };
    let uses_table = args.reads_per_request > 0.0 || args.writes_per_request > 0.0;
    Scenario {
        label: "what-if".into(),
        requests_per_second: args.rate,
        api: api.map(|kind| ApiSpec {
            kind,
            request_bytes: args.request_bytes,
        }),
        functions,
        queues,
        tables: if uses_table { vec![table] } else { vec![] },
    }
}

fn read_text(path: &PathBuf) -> anyhow::Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))
}

fn read_json<T: serde::de::DeserializeOwned>(path: &PathBuf) -> anyhow::Result<T> {
    serde_json::from_str(&read_text(path)?)
        .with_context(|| format!("{} is not valid", path.display()))
}
