//! `bench run`: every scenario x variant (and the orders sweep, the Conduit
//! capacity search), each against a fresh local cloud or a deployed stack,
//! metered, priced and written to `results.json` and the reports.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;

use crate::apis::{self, ApiKind, Door};
use crate::cpu::CpuAccount;
use crate::ledger::{Ledger, MessageLedger, RequestLedger};
use crate::plan::{self, LoadShape, Mode, ScenarioSpec};
use crate::pricing::{host_architecture, log_retention_days, Pricing};
use crate::recorder::{summarize, time_series, Recorder};
use crate::results::*;
use crate::target::{CpuShare, LocalCloudProcess, LocalLaunch};
use crate::variants::{self, Experiment, Variant};
use crate::{metering, report, runner, scenarios, seed};

mod conduit;
mod filters;
mod sweep;

use conduit::{seed_conduit, seed_users};
pub(crate) use filters::check_filters;

pub use crate::pricing::REGION;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TargetKind {
    Local,
    Localstack,
    Aws,
}

pub struct RunOptions {
    pub mode: Mode,
    pub target: TargetKind,
    pub scenarios: Vec<String>,
    pub variants: Vec<String>,
    pub out: PathBuf,
    pub binaries_dir: PathBuf,
    /// One pass per front door (`--api`), each with its template and URLs.
    pub doors: Vec<Door>,
    pub sweep: bool,
    pub capacity: bool,
    /// The capacity search's first steps, ascending (`--capacity-steps`);
    /// default the mode's doubling steps.
    pub capacity_steps: Option<Vec<u64>>,
    /// How many users apart the search leaves held and broken
    /// (`--capacity-resolution`); default the mode's.
    pub capacity_resolution: Option<u64>,
    /// Passed to `localcloud serve --latency-profile` (target local).
    pub latency_profile: Option<PathBuf>,
    /// A price table replacing the built-in one (`--prices`).
    pub prices: Option<PathBuf>,
    /// Prices in effect on this day, YYYY-MM-DD (`--price-date`).
    pub price_date: Option<String>,
    /// Passed to `localcloud serve --cpu-share` (target local).
    pub cpu_share: CpuShare,
    /// Passed to `localcloud serve --memory-size` (`[FUNCTION=]MB`; `bench tune`).
    pub memory_sizes: Vec<String>,
}

/// What every run of a bench shares: its options, prices, and the pass
/// running now (its front door and its template's text).
pub(crate) struct Bench {
    pub(crate) opts: RunOptions,
    pub(crate) pricing: Pricing,
    http: reqwest::Client,
    defaults: BTreeMap<String, String>,
    pub(crate) door: Door,
    pub(crate) template_text: String,
}

impl Bench {
    /// The templates of `opts.doors` read (their texts, in order) and the
    /// price table loaded: everything that can fail before any load.
    pub(crate) fn new(opts: RunOptions) -> anyhow::Result<(Self, Vec<String>)> {
        let mut texts = Vec::new();
        for door in &opts.doors {
            let text = std::fs::read_to_string(&door.template).unwrap_or_default();
            if opts.target == TargetKind::Local && text.is_empty() {
                anyhow::bail!("cannot read the template {}", door.template.display());
            }
            texts.push(text);
        }
        anyhow::ensure!(!opts.doors.is_empty(), "no --api to run");
        // The doors' templates share their parameters (one is made from the other).
        let defaults = template_defaults(&texts[0]);
        let retention = log_retention_days(&defaults);
        let ctx = Bench {
            defaults,
            door: opts.doors[0].clone(),
            template_text: texts[0].clone(),
            pricing: Pricing::load(opts.prices.as_deref(), opts.price_date.clone(), retention)?,
            http: reqwest::Client::new(),
            opts,
        };
        Ok((ctx, texts))
    }
}

pub async fn run(opts: RunOptions) -> anyhow::Result<Results> {
    check_filters(&opts.scenarios, &opts.variants)?;
    std::fs::create_dir_all(opts.out.join("goose"))?;
    let (mut ctx, texts) = Bench::new(opts)?;
    let started_at = now();
    // Read now: a run can last an hour, and the checkout can move meanwhile.
    let git_commit = git_commit();
    phase(&format!(
        "bench run: {} against {:?}, writing to {}",
        ctx.opts.mode.describe(),
        ctx.opts.target,
        ctx.opts.out.display()
    ));
    let mut records = Vec::new();
    let mut skipped = Vec::new();
    let mut capacity = Vec::new();
    for (door, text) in ctx.opts.doors.clone().into_iter().zip(texts) {
        (ctx.door, ctx.template_text) = (door, text);
        phase(&format!("through the {}s", apis::describe(ctx.door.api)));
        let from = skipped.len();
        run_door(&ctx, &mut records, &mut skipped, &mut capacity).await;
        // Every run this pass could not measure was to go through its door.
        for s in &mut skipped[from..] {
            s.api = ctx.door.api;
        }
    }
    let results = Results {
        schema_version: SCHEMA_VERSION,
        started_at,
        finished_at: now(),
        mode: ctx.opts.mode,
        scaling: ctx.opts.mode.describe(),
        target: format!("{:?}", ctx.opts.target).to_lowercase(),
        git_commit,
        machine: machine(),
        region: REGION.into(),
        price_table_version: ctx.pricing.prices.version().to_string(),
        price_date: ctx.pricing.options.price_date.clone(),
        log_retention_days: ctx.pricing.options.log_retention_days,
        latency_profile: ctx
            .opts
            .latency_profile
            .as_ref()
            .map(|p| p.display().to_string()),
        cpu_share: (ctx.opts.target == TargetKind::Local).then_some(ctx.opts.cpu_share),
        records,
        capacity,
        skipped,
    };
    write_reports(&results, &ctx.opts.out)?;
    Ok(results)
}

/// One pass through `ctx.door`: the orders scenarios, the sweep, Conduit.
async fn run_door(
    ctx: &Bench,
    records: &mut Vec<RunRecord>,
    skipped: &mut Vec<Skipped>,
    capacity: &mut Vec<CapacityResult>,
) {
    for (spec, variant) in scenario_runs(&ctx.opts) {
        let shape = spec.shape.scaled(ctx.opts.mode);
        match run_one(
            ctx,
            RecordKind::Scenario,
            &spec,
            &shape,
            &variant,
            &BTreeMap::new(),
        )
        .await
        {
            Ok(Ok(record)) => records.push(record),
            Ok(Err(reason)) => skipped.push(skip(&spec.name, &variant, reason)),
            // One broken run must not lose the others' results.
            Err(e) => skipped.push(failed(&spec.name, &variant, &e)),
        }
    }
    if ctx.opts.sweep
        && wants(&ctx.opts.scenarios, "orders-sweep")
        && ctx.opts.mode != Mode::Smoke
        && ctx.opts.target == TargetKind::Local
    {
        let (mut swept, mut not_swept) = sweep::orders_sweep(ctx).await;
        records.append(&mut swept);
        skipped.append(&mut not_swept);
    }
    let conduit_wanted = ["conduit-mixed", "conduit-capacity"]
        .iter()
        .any(|name| wants(&ctx.opts.scenarios, name));
    if conduit_wanted && ctx.opts.mode != Mode::Smoke {
        for variant in selected(&ctx.opts, Experiment::Conduit) {
            if !deployed(ctx, &variant) {
                let reason = format!("not deployed: {} is not in the template", variant.api);
                phase(&format!("skip conduit-mixed / {}: {reason}", variant.name));
                skipped.push(skip("conduit-mixed", &variant, reason));
                continue;
            }
            let mut run = conduit::conduit(ctx, &variant).await;
            records.append(&mut run.records);
            capacity.extend(run.capacity);
            skipped.append(&mut run.not_run);
        }
    }
}

/// `results.json`, `report.html` and `summary.md` into `out`.
pub fn write_reports(results: &Results, out: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(out)?;
    std::fs::write(out.join("results.json"), results.to_json()?)?;
    std::fs::write(out.join("report.html"), report::html::render(results))?;
    std::fs::write(out.join("summary.md"), report::markdown::summary(results))?;
    Ok(())
}

/// The fixed-load scenarios and the variants each runs on: every orders
/// scenario on both orders paths, and the Conduit fault scenario on the
/// microservices that call each other through queues.
fn scenario_runs(opts: &RunOptions) -> Vec<(ScenarioSpec, Variant)> {
    let orders = plan::orders_scenarios()
        .into_iter()
        .map(|s| (s, selected(opts, Experiment::Orders)));
    let conduit_faults = (
        plan::conduit_faults_scenario(),
        selected(opts, Experiment::Conduit)
            .into_iter()
            .filter(|v| *v == variants::CONDUIT_MICRO_QUEUE)
            .collect(),
    );
    orders
        .chain([conduit_faults])
        .filter(|(s, _)| scenario_selected(opts, s))
        .flat_map(|(s, variants)| variants.into_iter().map(move |v| (s.clone(), v)))
        .collect()
}

fn scenario_selected(opts: &RunOptions, spec: &ScenarioSpec) -> bool {
    // Smoke runs the baseline, and other scenarios only when named.
    let in_mode = opts.mode != Mode::Smoke
        || spec.name == "orders-baseline"
        || opts.scenarios.contains(&spec.name);
    // Environments can be killed on the local cloud only.
    let on_target = spec.kill_rate.is_none() || opts.target == TargetKind::Local;
    in_mode && on_target && wants(&opts.scenarios, &spec.name)
}

fn selected(opts: &RunOptions, experiment: Experiment) -> Vec<Variant> {
    variants::of(experiment)
        .into_iter()
        .filter(|v| opts.variants.is_empty() || opts.variants.iter().any(|n| n == v.name))
        .collect()
}

pub(super) fn wants(filter: &[String], name: &str) -> bool {
    filter.is_empty() || filter.iter().any(|f| f == name)
}

pub(crate) fn deployed(ctx: &Bench, variant: &Variant) -> bool {
    match ctx.opts.target {
        TargetKind::Local => ctx.template_text.contains(&format!("\n  {}:", variant.api)),
        _ => ctx.door.urls.contains_key(variant.api),
    }
}

/// Requests sent against their outcomes and, for a queue path, each of its
/// request queues' messages against processed, dead-lettered and still queued.
fn run_ledger(
    variant: &Variant,
    sent: u64,
    samples: &[crate::recorder::Sample],
    metrics: &serde_json::Value,
) -> Ledger {
    let ledger = Ledger {
        requests: RequestLedger::of(sent, samples),
        messages: MessageLedger::request_queues(metrics, |q| variant.owns_queue(q)),
    };
    phase(&format!("{}: {}", variant.name, ledger.describe()));
    ledger
}

/// The record of a run at `setting`, or why there is none (not deployed,
/// the local cloud did not start, seeding or the load failed): every run
/// that could not be measured becomes a `Skipped` in results.json and a row
/// of the report, never only a printed line.
pub(crate) fn record_or_skip(
    scenario: &str,
    variant: &Variant,
    setting: &str,
    run: anyhow::Result<Result<RunRecord, String>>,
) -> Result<RunRecord, Skipped> {
    let at = |reason: String| format!("{setting}: {reason}");
    match run {
        Ok(Ok(record)) => Ok(record),
        Ok(Err(reason)) => Err(skip(scenario, variant, at(reason))),
        Err(e) => {
            let reason = at(format!("failed: {e:#}"));
            phase(&format!("{scenario} / {}: {reason}", variant.name));
            Err(skip(scenario, variant, reason))
        }
    }
}

fn failed(scenario: &str, variant: &Variant, error: &anyhow::Error) -> Skipped {
    let reason = format!("failed: {error:#}");
    phase(&format!("{scenario} / {}: {reason}", variant.name));
    skip(scenario, variant, reason)
}

fn skip(scenario: &str, variant: &Variant, reason: String) -> Skipped {
    Skipped {
        scenario: scenario.into(),
        variant: variant.name.into(),
        // Its pass names the door (`run`).
        api: ApiKind::default(),
        reason,
    }
}

/// Seeds the orders table before the measured window (the functions only
/// read it): the run's local cloud's table, or on a remote target the one
/// `--stack-outputs` or `--orders-table` names. `Ok(Err(reason))`: not known.
async fn seed_orders(
    ctx: &Bench,
    label: &str,
    cloud: Option<&LocalCloudProcess>,
) -> anyhow::Result<Result<(), String>> {
    let (client, table) = match cloud {
        Some(c) => {
            let table = c.tables().get(seed::ORDERS_TABLE).cloned();
            let table = table.context("the local cloud has no OrdersTable")?;
            (seed::local_client(&c.endpoint), table)
        }
        None => match &ctx.door.orders_table {
            Some(table) => (seed::default_client().await, table.clone()),
            None => {
                return Ok(Err(format!(
                "the orders table is unknown: pass --stack-outputs (output {}) or --orders-table",
                seed::ORDERS_TABLE_OUTPUT
            )))
            }
        },
    };
    phase(&format!("{label}: seeding the orders table (not measured)"));
    phase(&format!(
        "{label}: {}",
        seed::seed_orders(&client, &table).await?
    ));
    Ok(Ok(()))
}

/// One scenario x variant x setting. `Ok(Err(reason))`: not run.
pub(crate) async fn run_one(
    ctx: &Bench,
    kind: RecordKind,
    spec: &ScenarioSpec,
    shape: &LoadShape,
    variant: &Variant,
    overrides: &BTreeMap<String, String>,
) -> anyhow::Result<Result<RunRecord, String>> {
    let setting = setting_name(overrides);
    let api = ctx.door.api;
    let label = format!(
        "{} / {}{} {}",
        spec.name,
        variant.name,
        apis::title_note(api),
        setting
    );
    let slug = format!(
        "{}-{}{}-{}",
        spec.name,
        variant.name,
        match api {
            ApiKind::Http => String::new(),
            other => format!("-{other}"),
        },
        setting.replace([',', '='], "-").replace(' ', "")
    );
    let work_dir = ctx.opts.out.join("runs").join(&slug);
    let cloud = match ctx.opts.target {
        TargetKind::Local => {
            phase(&format!("{label}: starting the local cloud"));
            let launch = LocalLaunch {
                binaries_dir: &ctx.opts.binaries_dir,
                template: &ctx.door.template,
                parameter_overrides: overrides,
                work_dir: &work_dir,
                latency_profile: ctx.opts.latency_profile.as_deref(),
                cpu_share: ctx.opts.cpu_share,
                memory_sizes: &ctx.opts.memory_sizes,
            };
            Some(LocalCloudProcess::start(launch).await?)
        }
        _ => None,
    };
    let url = match &cloud {
        Some(c) => c.url_of(variant),
        None => ctx.door.urls.get(variant.api).cloned(),
    };
    let Some(url) = url else {
        if let Some(c) = cloud {
            c.stop().await;
        }
        return Ok(Err(format!("not deployed: no URL for {}", variant.api)));
    };
    match (&cloud, variant.experiment) {
        (Some(c), Experiment::Conduit) => seed_conduit(ctx, c, &work_dir).await?,
        (_, Experiment::Orders) => {
            if let Err(reason) = seed_orders(ctx, &label, cloud.as_ref()).await? {
                return Ok(Err(reason));
            }
        }
        _ => {}
    }
    // Faults start after seeding: the seeding request is not measured, and a
    // kill there would abort the run instead of being counted.
    if let (Some(c), Some(rate)) = (&cloud, spec.kill_rate) {
        for function in variant.back_ends() {
            c.set_kill_rate(&ctx.http, function, rate).await?;
        }
    }
    let before = match &cloud {
        Some(c) => Some(c.metrics(&ctx.http).await?),
        None => None,
    };
    let recorder = Arc::new(Recorder::new());

    let scenario = match variant.experiment {
        Experiment::Orders => scenarios::orders::scenario(spec.size.unwrap_or(5), recorder.clone()),
        Experiment::Conduit => {
            scenarios::conduit::scenario(seed_users(ctx.opts.mode), recorder.clone())
                .map_err(|e| anyhow::anyhow!("{e}"))?
        }
    };
    phase(&format!("{label}: load {} against {url}", shape.describe()));
    let started_at = now();
    let goose_report = ctx.opts.out.join("goose").join(&slug);
    let load = runner::run(&label, &url, scenario, shape, recorder, &goose_report).await?;
    let summary = summarize(&load.samples, load.wall_s);
    let mut ledger = None;
    let (metering, usage) = match (&cloud, before) {
        (Some(c), Some(before)) => {
            let after = c.metrics(&ctx.http).await?;
            ledger = Some(run_ledger(variant, load.sent, &load.samples, &after));
            let restricted = metering::restrict(&metering::delta(&before, &after)?, variant);
            let figures = metering::figures(&restricted)?;
            let usage = metering::usage(&restricted, variant.name, summary.requests as f64)?;
            (Some(figures), Some(usage))
        }
        _ => (None, None),
    };
    if let Some(c) = cloud {
        c.stop().await;
    }
    let cost = usage
        .filter(|u| u.public_requests > 0.0)
        .map(|u| {
            ctx.pricing
                .price(&u, summary.successes, host_architecture())
        })
        .transpose()?;
    let mut cpu = CpuAccount::new(
        metering.as_ref().map_or(0.0, |m| m.functions_cpu_ms()),
        metering.as_ref().map(|m| m.argon2_cpu_ms()),
        metering.as_ref().map_or(0.0, |m| m.localcloud_cpu_ms),
        load.load_generator_cpu_ms,
        load.wall_s,
        summary.successes,
    );
    if metering.is_none() {
        // A remote target's CPU is unknown, not zero.
        cpu.functions_ms_per_request = None;
        cpu.localcloud_ms_per_request = None;
    }
    phase(&format!(
        "{label}: {} ok ({:.1}/s), {} failed ({:.1}/s), p95 {} ms{}",
        summary.successes,
        summary.successful_rps,
        summary.failures,
        summary.failed_rps,
        report::ms(summary.p95_ms),
        if cpu.load_generator_saturated {
            ", LOAD GENERATOR SATURATED"
        } else {
            ""
        }
    ));
    // The experiment's own knobs: the orders parameters say nothing of Conduit.
    let mut parameters: BTreeMap<String, String> = ctx
        .defaults
        .iter()
        .filter(|(name, _)| {
            name.starts_with("Orders") == (variant.experiment == Experiment::Orders)
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    parameters.extend(overrides.clone());
    Ok(Ok(RunRecord {
        kind,
        scenario: spec.name.clone(),
        variant: variant.name.into(),
        api,
        setting,
        started_at,
        settings: Settings {
            parameters,
            memory_mb: metering
                .as_ref()
                .map(|m| {
                    m.functions
                        .iter()
                        .map(|(n, f)| (n.clone(), f.memory_mb))
                        .collect()
                })
                .unwrap_or_default(),
            account_concurrency_limit: 1000,
            base_url: url,
        },
        load: LoadSettings {
            shape: shape.clone(),
            original_shape: spec.shape.clone(),
            size: spec.size,
            think_time_s: spec.think_time_s,
            closed_loop: spec.think_time_s.is_none(),
        },
        series: time_series(&load.samples, 1000),
        summary,
        failure_reasons: load.failure_reasons,
        metering,
        cpu,
        cost,
        goose_report: Some(format!("goose/{slug}.html")),
        ledger,
    }))
}

fn setting_name(overrides: &BTreeMap<String, String>) -> String {
    if overrides.is_empty() {
        return "template defaults".into();
    }
    overrides
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// `Parameters:` defaults of a SAM template (two-space names, four-space `Default:`).
pub fn template_defaults(template: &str) -> BTreeMap<String, String> {
    let mut defaults = BTreeMap::new();
    let mut in_parameters = false;
    let mut current: Option<String> = None;
    for line in template.lines() {
        if !line.starts_with(' ') && !line.trim().is_empty() {
            in_parameters = line.trim_end() == "Parameters:";
            continue;
        }
        if !in_parameters {
            continue;
        }
        if let Some(name) = line.strip_prefix("  ").filter(|l| !l.starts_with(' ')) {
            current = name.trim_end().strip_suffix(':').map(String::from);
        } else if let (Some(name), Some(value)) = (&current, line.trim().strip_prefix("Default:")) {
            defaults.insert(name.clone(), value.trim().trim_matches('"').to_string());
        }
    }
    defaults
}

pub(crate) fn phase(line: &str) {
    eprintln!("[{}] {line}", chrono::Local::now().format("%H:%M:%S"));
}

pub(crate) fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_defaults_are_read_from_parameters_only() {
        let template = "Parameters:\n  OrdersDelayMs:\n    Type: Number\n    Default: 500\n  Name:\n    Default: \"x\"\nResources:\n  T:\n    Default: 9\n";
        let defaults = template_defaults(template);
        assert_eq!(defaults.len(), 2);
        assert_eq!(defaults["OrdersDelayMs"], "500");
        assert_eq!(defaults["Name"], "x");
    }

    fn options(mode: Mode, target: TargetKind, scenarios: &[&str]) -> RunOptions {
        RunOptions {
            mode,
            target,
            scenarios: scenarios.iter().map(|s| s.to_string()).collect(),
            variants: Vec::new(),
            out: PathBuf::new(),
            binaries_dir: PathBuf::new(),
            doors: Vec::new(),
            sweep: false,
            capacity: false,
            capacity_steps: None,
            capacity_resolution: None,
            latency_profile: None,
            prices: None,
            price_date: None,
            cpu_share: CpuShare::Aws,
            memory_sizes: Vec::new(),
        }
    }

    fn runs(opts: &RunOptions) -> Vec<String> {
        scenario_runs(opts)
            .iter()
            .map(|(s, v)| format!("{} / {}", s.name, v.name))
            .collect()
    }

    #[test]
    fn the_conduit_fault_scenario_runs_on_the_queue_microservices_on_the_local_cloud_only() {
        // GIVEN a smoke run naming the Conduit fault scenario
        let named = options(Mode::Smoke, TargetKind::Local, &["conduit-faults"]);
        // THEN it runs on conduit-micro-queue alone
        assert_eq!(runs(&named), ["conduit-faults / conduit-micro-queue"]);
        // AND a smoke run without names runs the orders baseline only
        let smoke = options(Mode::Smoke, TargetKind::Local, &[]);
        assert_eq!(
            runs(&smoke),
            [
                "orders-baseline / orders-direct",
                "orders-baseline / orders-queue"
            ]
        );
        // AND a quick run has it, but not against AWS, where nothing is killed
        let quick = runs(&options(Mode::Quick, TargetKind::Local, &[]));
        assert!(quick.contains(&"conduit-faults / conduit-micro-queue".to_string()));
        assert!(quick.contains(&"orders-faults / orders-queue".to_string()));
        let aws = runs(&options(Mode::Quick, TargetKind::Aws, &[]));
        assert!(aws.iter().all(|r| !r.contains("faults")), "{aws:?}");
        assert_eq!(aws.len(), 6, "{aws:?}");
    }

    #[test]
    fn a_run_that_could_not_be_measured_is_kept_with_its_setting_and_reason() {
        // GIVEN a sweep setting whose local cloud did not start, and a
        // capacity step that was refused
        let crashed = record_or_skip(
            "orders-sweep",
            &variants::ORDERS_QUEUE,
            "OrdersQueueBatchSize=10",
            Err(anyhow::anyhow!(
                "localcloud exited before writing its endpoints"
            )),
        );
        let refused = record_or_skip(
            "conduit-capacity",
            &variants::CONDUIT_MONOLITH,
            "400 users",
            Ok(Err("no URL".into())),
        );
        // THEN both are records of what did not run, naming setting and reason
        let crashed = crashed.unwrap_err();
        assert_eq!(crashed.scenario, "orders-sweep");
        assert_eq!(crashed.variant, "orders-queue");
        assert_eq!(
            crashed.reason,
            "OrdersQueueBatchSize=10: failed: localcloud exited before writing its endpoints"
        );
        assert_eq!(refused.unwrap_err().reason, "400 users: no URL");
    }

    #[test]
    fn settings_are_named_by_their_overrides() {
        let overrides: BTreeMap<String, String> = [
            ("OrdersQueueBatchSize".to_string(), "10".to_string()),
            ("OrdersQueueMaxConcurrency".to_string(), "50".to_string()),
        ]
        .into();
        assert_eq!(
            setting_name(&overrides),
            "OrdersQueueBatchSize=10,OrdersQueueMaxConcurrency=50"
        );
        assert_eq!(setting_name(&BTreeMap::new()), "template defaults");
    }
}
