//! One scenario x variant x setting: a fresh local cloud (or the deployed
//! stack), seeding, the load, the metering delta, the price, the record.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use super::bench::{Bench, TargetKind};
use super::progress::{now, phase};
use super::seeding::{seed_for, seed_users};
use crate::apis::ApiKind;
use crate::compute::ComputeType;
use crate::cpu::CpuAccount;
use crate::ledger::{Ledger, MessageLedger, RequestLedger};
use crate::metering::{self, RunMetering};
use crate::pass::Pass;
use crate::plan::{LoadShape, ScenarioSpec};
use crate::pricing::host_architecture;
use crate::recorder::{summarize, time_series, Recorder, Summary};
use crate::results::{CostFigures, LoadSettings, RecordKind, RunRecord, Settings};
use crate::runner::{self, LoadRun};
use crate::target::{LocalCloudProcess, LocalLaunch};
use crate::variants::{Experiment, Variant};
use crate::{report, scenarios};

/// How a run is named: its setting, its label in the log, and the slug of
/// its files (work directory, Goose report).
struct RunName {
    setting: String,
    label: String,
    slug: String,
}

impl RunName {
    fn new(spec: &ScenarioSpec, variant: &Variant, pass: Pass, setting: String) -> Self {
        let label = format!("{} / {} {setting}", spec.name, pass.label(variant.name));
        let api = match pass.api {
            ApiKind::Http => String::new(),
            other => format!("-{other}"),
        };
        let compute = match pass.compute {
            ComputeType::OnDemand => "",
            ComputeType::Managed => "-lmi",
        };
        let door = format!("{api}{compute}");
        let slug = format!(
            "{}-{}{door}-{}",
            spec.name,
            variant.name,
            setting.replace([',', '='], "-").replace(' ', "")
        );
        Self {
            setting,
            label,
            slug,
        }
    }
}

/// What the local cloud metered of one run (all `None` on a remote target).
#[derive(Default)]
struct Metered {
    figures: Option<RunMetering>,
    usage: Option<costmodel::Usage>,
    ledger: Option<Ledger>,
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
    let name = RunName::new(spec, variant, ctx.pass(), setting_name(overrides));
    let work_dir = ctx.opts.out.join("runs").join(&name.slug);
    let cloud = start_local_cloud(ctx, &name.label, overrides, &work_dir).await?;
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
    if let Err(reason) = seed_for(ctx, variant, &name.label, cloud.as_ref(), &work_dir).await? {
        return Ok(Err(reason));
    }
    start_faults(ctx, cloud.as_ref(), spec, variant).await?;
    let before = match &cloud {
        Some(c) => Some(c.metrics(&ctx.http).await?),
        None => None,
    };
    let (started_at, load) = apply_load(ctx, spec, shape, variant, &name, &url).await?;
    let latency_from_ms = crate::plan::latency_from_ms(spec, shape);
    let summary =
        summarize(&load.samples, load.wall_s).latencies_from(&load.samples, latency_from_ms);
    let metered = match (&cloud, before) {
        (Some(c), Some(before)) => meter(ctx, c, &before, variant, &load, &summary).await?,
        _ => Metered::default(),
    };
    if let Some(c) = cloud {
        record_iam(ctx, &c, &name.label).await?;
        c.stop().await;
    }
    let cost = price(ctx, metered.usage.as_ref(), &summary)?;
    let cpu = cpu_account(metered.figures.as_ref(), &load, &summary);
    say_outcome(&name.label, &summary, &cpu);
    let spread =
        crate::stats::spread(&load.samples, load.wall_s, latency_from_ms, &name.slug).map(|s| {
            let usd = cost.as_ref().and_then(|c| c.usd_per_million_successful);
            let duration_share = cost.as_ref().map_or(0.0, CostFigures::duration_share);
            s.with_cost(usd, summary.error_rate, duration_share)
        });
    let settings = settings(ctx, variant, overrides, metered.figures.as_ref(), url);
    Ok(Ok(RunRecord {
        kind,
        scenario: spec.name.clone(),
        variant: variant.name.into(),
        api: ctx.door.api,
        compute: ctx.door.compute,
        setting: name.setting,
        started_at,
        settings,
        load: load_settings(spec, shape),
        series: time_series(&load.samples, 1000),
        summary,
        spread,
        failure_reasons: load.failure_reasons,
        metering: metered.figures,
        cpu,
        cost,
        goose_report: Some(format!("goose/{}.html", name.slug)),
        ledger: metered.ledger,
    }))
}

/// A fresh local cloud for the run (target local), serving the door's
/// template with the run's parameter overrides.
async fn start_local_cloud(
    ctx: &Bench,
    label: &str,
    overrides: &BTreeMap<String, String>,
    work_dir: &Path,
) -> anyhow::Result<Option<LocalCloudProcess>> {
    if ctx.opts.target != TargetKind::Local {
        return Ok(None);
    }
    phase(&format!("{label}: starting the local cloud"));
    let launch = LocalLaunch {
        binaries_dir: &ctx.opts.binaries_dir,
        template: &ctx.door.template,
        parameter_overrides: overrides,
        work_dir,
        latency_profile: ctx.opts.latency_profile.as_deref(),
        cpu_share: ctx.opts.cpu_share,
        memory_sizes: &ctx.opts.memory_sizes,
    };
    Ok(Some(LocalCloudProcess::start(launch).await?))
}

/// Faults start after seeding: the seeding request is not measured, and a
/// kill there would abort the run instead of being counted.
async fn start_faults(
    ctx: &Bench,
    cloud: Option<&LocalCloudProcess>,
    spec: &ScenarioSpec,
    variant: &Variant,
) -> anyhow::Result<()> {
    if let (Some(c), Some(rate)) = (cloud, spec.kill_rate) {
        for function in variant.back_ends() {
            c.set_kill_rate(&ctx.http, function, rate).await?;
        }
    }
    Ok(())
}

/// The scenario's Goose load at `shape` against `url`, and when it started.
async fn apply_load(
    ctx: &Bench,
    spec: &ScenarioSpec,
    shape: &LoadShape,
    variant: &Variant,
    name: &RunName,
    url: &str,
) -> anyhow::Result<(String, LoadRun)> {
    let recorder = Arc::new(Recorder::new());
    let scenario = match variant.experiment {
        Experiment::Orders => scenarios::orders::scenario(spec.size.unwrap_or(5), recorder.clone()),
        Experiment::Conduit => {
            scenarios::conduit::scenario(seed_users(ctx.opts.mode), recorder.clone())
                .map_err(|e| anyhow::anyhow!("{e}"))?
        }
    };
    phase(&format!(
        "{}: load {} against {url}",
        name.label,
        shape.describe()
    ));
    let started_at = now();
    let goose_report = ctx.opts.out.join("goose").join(&name.slug);
    let load = runner::run(&name.label, url, scenario, shape, recorder, &goose_report).await?;
    Ok((started_at, load))
}

/// The variant's share of the local cloud's counters over the run, and its
/// ledger.
async fn meter(
    ctx: &Bench,
    cloud: &LocalCloudProcess,
    before: &serde_json::Value,
    variant: &Variant,
    load: &LoadRun,
    summary: &Summary,
) -> anyhow::Result<Metered> {
    let after = cloud.metrics(&ctx.http).await?;
    let ledger = run_ledger(variant, load.sent, &load.samples, &after);
    let restricted = metering::restrict(&metering::delta(before, &after)?, variant);
    let figures = metering::figures(&restricted)?;
    let usage = metering::usage(&restricted, variant.name, summary.requests as f64)?;
    Ok(Metered {
        figures: Some(figures),
        usage: Some(usage),
        ledger: Some(ledger),
    })
}

/// Adds what IAM allowed and denied the run's functions to the bench's
/// evidence; a denial is said at once.
async fn record_iam(ctx: &Bench, cloud: &LocalCloudProcess, label: &str) -> anyhow::Result<()> {
    let document = cloud.iam(&ctx.http).await?;
    for denial in document.denials() {
        phase(&format!(
            "{label}: IAM DENIED {} {} on {} ({}x)",
            denial.logical_id, denial.action, denial.resource, denial.count
        ));
    }
    let mut evidence = ctx.iam.lock().unwrap_or_else(|e| e.into_inner());
    crate::iam::record(&mut evidence, label, document);
    Ok(())
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

/// The run's bill, when it metered any public request.
fn price(
    ctx: &Bench,
    usage: Option<&costmodel::Usage>,
    summary: &Summary,
) -> anyhow::Result<Option<CostFigures>> {
    usage
        .filter(|u| u.public_requests > 0.0)
        .map(|u| ctx.pricing.price(u, summary.successes, host_architecture()))
        .transpose()
}

fn cpu_account(metering: Option<&RunMetering>, load: &LoadRun, summary: &Summary) -> CpuAccount {
    let mut cpu = CpuAccount::new(
        metering.map_or(0.0, |m| m.functions_cpu_ms()),
        metering.map(|m| m.argon2_cpu_ms()),
        metering.map_or(0.0, |m| m.localcloud_cpu_ms),
        load.load_generator_cpu_ms,
        load.wall_s,
        summary.successes,
    );
    if metering.is_none() {
        // A remote target's CPU is unknown, not zero.
        cpu.functions_ms_per_request = None;
        cpu.localcloud_ms_per_request = None;
    }
    cpu
}

fn say_outcome(label: &str, summary: &Summary, cpu: &CpuAccount) {
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
}

/// Every knob of the system under test for this run.
fn settings(
    ctx: &Bench,
    variant: &Variant,
    overrides: &BTreeMap<String, String>,
    metering: Option<&RunMetering>,
    base_url: String,
) -> Settings {
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
    let memory_mb = metering
        .map(|m| {
            m.functions
                .iter()
                .map(|(n, f)| (n.clone(), f.memory_mb))
                .collect()
        })
        .unwrap_or_default();
    Settings {
        parameters,
        memory_mb,
        account_concurrency_limit: 1000,
        base_url,
    }
}

fn load_settings(spec: &ScenarioSpec, shape: &LoadShape) -> LoadSettings {
    LoadSettings {
        shape: shape.clone(),
        original_shape: spec.shape.clone(),
        size: spec.size,
        think_time_s: spec.think_time_s,
        closed_loop: spec.think_time_s.is_none(),
    }
}

pub(super) fn setting_name(overrides: &BTreeMap<String, String>) -> String {
    if overrides.is_empty() {
        return "template defaults".into();
    }
    overrides
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

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
