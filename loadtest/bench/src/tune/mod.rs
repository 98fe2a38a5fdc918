//! `bench tune`: AWS Lambda Power Tuning for a whole architecture. Power
//! Tuning (a Step Functions state machine) invokes one function at several
//! memory sizes and reports cost and speed; this runs one scenario on one
//! variant, under its real request mix, once per memory size on a fresh local
//! cloud (`localcloud serve --memory-size`), and picks the cheapest size
//! meeting the SLA, the fastest, and the balanced one (`picks`), by an SLA a
//! size can meet unless one is given (`chosen_sla`).

pub mod chosen_sla;
pub mod document;
pub mod picks;
pub mod render;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::apis::{ApiKind, Door};
use crate::driver::{self, check_filters, phase, Bench, RunOptions, TargetKind};
use crate::plan::{self, LoadShape, Mode, ScenarioSpec};
use crate::results::{git_commit, machine, RecordKind};
use crate::target::CpuShare;
use crate::variants::{self, Experiment, Variant};
pub use chosen_sla::SlaAsked;
use document::{NotRun, TuneDocument, TuneSetting, TUNE_SCHEMA_VERSION};

/// Power Tuning's usual power values, up to 1,769 MB (one vCPU) and 3,008 MB.
pub const DEFAULT_MEMORY_MB: [u32; 6] = [128, 256, 512, 1024, 1769, 3008];

/// Lambda's memory range.
const MEMORY_RANGE: std::ops::RangeInclusive<u32> = 128..=10_240;

/// The scenarios a tuning can run: the fixed loads (no sweep, no capacity
/// search, no fault injection, whose kills would blur the comparison).
pub const TUNABLE_SCENARIOS: [&str; 4] = [
    "orders-baseline",
    "orders-highload",
    "orders-largepayload",
    "conduit-mixed",
];

pub struct TuneOptions {
    pub scenario: String,
    pub variant: String,
    /// Sizes to try (MB), in any order.
    pub memory_mb: Vec<u32>,
    /// Logical ids whose memory is set; empty: every function of the variant.
    pub functions: Vec<String>,
    /// The bounds given; the others are the scenario's default (orders: the
    /// back end's designed wait + a margin; Conduit: the Conduit experiment's),
    /// `chosen_sla::choose`. What the cheapest and balanced picks must meet.
    pub sla: SlaAsked,
    pub mode: Mode,
    pub cpu_share: CpuShare,
    pub latency_profile: Option<PathBuf>,
    pub binaries_dir: PathBuf,
    pub template: PathBuf,
    pub out: PathBuf,
    pub prices: Option<PathBuf>,
    pub price_date: Option<String>,
}

/// Only the local cloud can be tuned: `--target aws` (or localstack) is
/// refused, saying what it would need.
pub fn check_target(target: TargetKind) -> anyhow::Result<()> {
    if target == TargetKind::Local {
        return Ok(());
    }
    anyhow::bail!(
        "bench tune --target {}: not implemented. It would change each tuned function's memory on the \
deployed stack with UpdateFunctionConfiguration (waiting for each update to finish, then restoring the \
sizes it found), and the bench only reads a deployed stack, it never changes one. Tune on the local \
cloud (the default), then set MemorySize in template.yaml and deploy it.",
        format!("{target:?}").to_lowercase()
    )
}

/// Runs the scenario once per memory size and writes tune.json, tune.html
/// and tune.md into `opts.out`.
pub async fn run(opts: TuneOptions) -> anyhow::Result<TuneDocument> {
    let (spec, variant) = scenario_and_variant(&opts.scenario, &opts.variant)?;
    let memory_mb = memory_sizes(&opts.memory_mb)?;
    let template_text = std::fs::read_to_string(&opts.template).map_err(|e| {
        anyhow::anyhow!("cannot read the template {}: {e}", opts.template.display())
    })?;
    let functions = functions_to_tune(&template_text, &variant, &opts.functions)?;
    let delay_ms = chosen_sla::orders_delay_ms(&driver::template_defaults(&template_text))?;
    let chosen = chosen_sla::choose(spec.experiment, delay_ms, opts.sla);
    let (spec, shape) = load(spec, opts.mode);
    let (mut ctx, _) = Bench::new(run_options(&opts))?;
    anyhow::ensure!(
        driver::deployed(&ctx, &variant),
        "{} is not in {}",
        variant.api,
        opts.template.display()
    );
    let started_at = driver::now();
    let git_commit = git_commit();
    phase(&format!(
        "bench tune: {} on {} at {} MB ({}), {}, writing to {}",
        spec.name,
        variant.name,
        memory_mb
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        functions.join(", "),
        opts.mode.describe(),
        opts.out.display()
    ));
    phase(&render::sla_sentence(&chosen.sla, &chosen.reason));
    let sla = chosen.sla;
    let (mut settings, mut not_run) = (Vec::new(), Vec::new());
    for &mb in &memory_mb {
        ctx.opts.memory_sizes = memory_args(&functions, mb);
        ctx.opts.out = opts.out.join(format!("{mb}mb"));
        std::fs::create_dir_all(ctx.opts.out.join("goose"))?;
        phase(&format!("{} / {}: {mb} MB", spec.name, variant.name));
        let run = driver::run_one(
            &ctx,
            RecordKind::Scenario,
            &spec,
            &shape,
            &variant,
            &BTreeMap::new(),
        )
        .await;
        match driver::record_or_skip(&spec.name, &variant, &format!("{mb} MB"), run) {
            Ok(mut record) => {
                record.setting = format!("memory {mb} MB");
                let setting = TuneSetting::of(mb, record, &sla);
                phase(&format!(
                    "{mb} MB: p95 {} ms, errors {:.2} %, ${} per million ok, SLA {}",
                    crate::report::ms(setting.p95_ms),
                    setting.error_rate * 100.0,
                    setting
                        .usd_per_million_ok
                        .map_or_else(|| "-".into(), |v| format!("{v:.2}")),
                    if setting.meets_sla { "met" } else { "broken" }
                ));
                settings.push(setting);
            }
            Err(skipped) => not_run.push(NotRun {
                memory_mb: mb,
                reason: skipped.reason,
            }),
        }
    }
    let candidates: Vec<_> = settings.iter().map(TuneSetting::candidate).collect();
    let doc = TuneDocument {
        schema_version: TUNE_SCHEMA_VERSION,
        started_at,
        finished_at: driver::now(),
        git_commit,
        machine: machine(),
        mode: opts.mode,
        scaling: opts.mode.describe(),
        scenario: spec.name.clone(),
        variant: variant.name.into(),
        functions_tuned: functions,
        memory_mb,
        cpu_share_asked: opts.cpu_share,
        latency_profile: opts
            .latency_profile
            .as_ref()
            .map(|p| p.display().to_string()),
        region: crate::target::REGION.into(),
        price_table_version: ctx.pricing.prices.version().to_string(),
        price_date: ctx.pricing.options.price_date.clone(),
        sla,
        sla_reason: chosen.reason,
        picks: picks::pick(&candidates, picks::BALANCED_WEIGHT),
        settings,
        not_run,
    };
    write(&doc, &opts.out)?;
    Ok(doc)
}

/// tune.json, tune.html and tune.md into `out`.
pub fn write(doc: &TuneDocument, out: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(out)?;
    std::fs::write(out.join("tune.json"), doc.to_json()? + "\n")?;
    std::fs::write(out.join("tune.html"), render::html(doc))?;
    std::fs::write(out.join("tune.md"), render::markdown(doc))?;
    Ok(())
}

fn run_options(opts: &TuneOptions) -> RunOptions {
    RunOptions {
        mode: opts.mode,
        target: TargetKind::Local,
        scenarios: vec![opts.scenario.clone()],
        variants: vec![opts.variant.clone()],
        out: opts.out.clone(),
        binaries_dir: opts.binaries_dir.clone(),
        doors: vec![Door {
            api: ApiKind::Http,
            compute: crate::compute::ComputeType::OnDemand,
            template: opts.template.clone(),
            urls: BTreeMap::new(),
            orders_table: None,
        }],
        sweep: false,
        capacity: false,
        capacity_steps: None,
        capacity_resolution: None,
        latency_profile: opts.latency_profile.clone(),
        prices: opts.prices.clone(),
        price_date: opts.price_date.clone(),
        cpu_share: opts.cpu_share,
        memory_sizes: Vec::new(),
    }
}

/// The scenario's spec and the variant, checked to belong together.
fn scenario_and_variant(scenario: &str, variant: &str) -> anyhow::Result<(ScenarioSpec, Variant)> {
    check_filters(&[scenario.to_string()], &[variant.to_string()])?;
    anyhow::ensure!(
        TUNABLE_SCENARIOS.contains(&scenario),
        "bench tune runs one fixed load ({}), not {scenario}",
        TUNABLE_SCENARIOS.join(", ")
    );
    let variant = variants::by_name(variant).expect("checked above");
    let spec = match plan::orders_scenarios()
        .into_iter()
        .find(|s| s.name == scenario)
    {
        Some(spec) => spec,
        None => plan::conduit_scenario(0),
    };
    anyhow::ensure!(
        spec.experiment == variant.experiment,
        "{scenario} does not run on {}: pick a variant of the {} experiment",
        variant.name,
        match spec.experiment {
            Experiment::Orders => "orders (orders-direct, orders-queue)",
            Experiment::Conduit =>
                "Conduit (conduit-monolith, conduit-micro-invoke, conduit-micro-queue)",
        }
    );
    Ok((spec, variant))
}

/// The load of each setting: the scenario's ramp as `bench run` scales it
/// (conduit-mixed at the users of its first capacity step, as there).
fn load(spec: ScenarioSpec, mode: Mode) -> (ScenarioSpec, LoadShape) {
    match spec.experiment {
        Experiment::Orders => {
            let shape = plan::scenario_shape(&spec, mode);
            (spec, shape)
        }
        Experiment::Conduit => {
            let spec = plan::conduit_scenario(plan::capacity_steps(mode)[0]);
            let shape = plan::conduit_shape(&spec, mode);
            (spec, shape)
        }
    }
}

/// Ascending, without repeats, each within Lambda's 128-10,240 MB.
pub fn memory_sizes(given: &[u32]) -> anyhow::Result<Vec<u32>> {
    let mut sizes = given.to_vec();
    sizes.sort_unstable();
    sizes.dedup();
    anyhow::ensure!(!sizes.is_empty(), "--memory needs at least one size");
    if let Some(bad) = sizes.iter().find(|mb| !MEMORY_RANGE.contains(mb)) {
        anyhow::bail!("--memory {bad}: Lambda's memory is 128 to 10,240 MB");
    }
    Ok(sizes)
}

/// Logical ids of a SAM template's functions (`Type: AWS::Serverless::Function`).
pub fn template_functions(template: &str) -> Vec<String> {
    let mut functions = Vec::new();
    let mut current: Option<&str> = None;
    for line in template.lines() {
        if let Some(name) = line.strip_prefix("  ").filter(|l| !l.starts_with(' ')) {
            current = name.trim_end().strip_suffix(':');
        } else if line.starts_with("    ")
            && !line.starts_with("     ")
            && line.trim() == "Type: AWS::Serverless::Function"
        {
            functions.extend(current.map(String::from));
        }
    }
    functions
}

/// The functions whose memory is set: those named (each a function of the
/// variant), or every function of the variant in the template.
pub fn functions_to_tune(
    template: &str,
    variant: &Variant,
    named: &[String],
) -> anyhow::Result<Vec<String>> {
    let own: Vec<String> = template_functions(template)
        .into_iter()
        .filter(|id| variant.owns_function(id))
        .collect();
    if named.is_empty() {
        anyhow::ensure!(
            !own.is_empty(),
            "the template has no function of {}",
            variant.name
        );
        return Ok(own);
    }
    for name in named {
        anyhow::ensure!(
            own.contains(name),
            "--function {name}: not a function of {} in the template (its functions: {})",
            variant.name,
            own.join(", ")
        );
    }
    Ok(named.to_vec())
}

/// `localcloud serve --memory-size` values: `FUNCTION=MB` for each function.
pub fn memory_args(functions: &[String], mb: u32) -> Vec<String> {
    functions.iter().map(|f| format!("{f}={mb}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEMPLATE: &str = "Resources:\n  OrdersDirectFunction:\n    Type: AWS::Serverless::Function\n    Properties:\n      MemorySize: 128\n  OrdersDirectApi:\n    Type: AWS::Serverless::HttpApi\n  OrdersBackendFunction:\n    Type: AWS::Serverless::Function\n  OrdersQueueFunction:\n    Type: AWS::Serverless::Function\n";

    #[test]
    fn every_function_of_the_variant_is_tuned_unless_some_are_named() {
        let direct = variants::ORDERS_DIRECT;
        assert_eq!(
            template_functions(TEMPLATE),
            [
                "OrdersDirectFunction",
                "OrdersBackendFunction",
                "OrdersQueueFunction"
            ]
        );
        assert_eq!(
            functions_to_tune(TEMPLATE, &direct, &[]).unwrap(),
            ["OrdersDirectFunction", "OrdersBackendFunction"]
        );
        let named = ["OrdersBackendFunction".to_string()];
        assert_eq!(functions_to_tune(TEMPLATE, &direct, &named).unwrap(), named);
        // another variant's function is refused by name
        let other = ["OrdersQueueFunction".to_string()];
        let err = functions_to_tune(TEMPLATE, &direct, &other).unwrap_err();
        assert!(
            err.to_string()
                .contains("--function OrdersQueueFunction: not a function of orders-direct"),
            "{err}"
        );
        assert_eq!(memory_args(&named, 1769), ["OrdersBackendFunction=1769"]);
    }

    #[test]
    fn memory_sizes_are_sorted_once_each_within_lambdas_range() {
        assert_eq!(
            memory_sizes(&[1769, 128, 512, 128]).unwrap(),
            [128, 512, 1769]
        );
        assert!(memory_sizes(&[64])
            .unwrap_err()
            .to_string()
            .contains("128 to 10,240 MB"));
        assert!(memory_sizes(&[]).is_err());
    }

    #[test]
    fn a_scenario_runs_on_its_experiments_variants_only_and_no_search_is_tuned() {
        assert!(scenario_and_variant("orders-baseline", "orders-direct").is_ok());
        let (spec, _) = scenario_and_variant("conduit-mixed", "conduit-monolith").unwrap();
        assert_eq!(spec.experiment, Experiment::Conduit);
        let err = scenario_and_variant("conduit-mixed", "orders-queue").unwrap_err();
        assert!(
            err.to_string().contains("does not run on orders-queue"),
            "{err}"
        );
        let err = scenario_and_variant("conduit-capacity", "conduit-monolith").unwrap_err();
        assert!(err.to_string().contains("one fixed load"), "{err}");
        assert!(scenario_and_variant("orders-basline", "orders-direct").is_err());
    }

    #[test]
    fn the_aws_target_is_refused_saying_what_it_would_need() {
        assert!(check_target(TargetKind::Local).is_ok());
        let err = check_target(TargetKind::Aws).unwrap_err().to_string();
        assert!(
            err.starts_with("bench tune --target aws: not implemented."),
            "{err}"
        );
        assert!(err.contains("UpdateFunctionConfiguration"), "{err}");
        assert!(err.contains("only reads a deployed stack"), "{err}");
        assert!(check_target(TargetKind::Localstack).is_err());
    }

    #[test]
    fn conduit_mixed_is_tuned_at_the_users_of_bench_runs_steady_run() {
        let (spec, _) = scenario_and_variant("conduit-mixed", "conduit-monolith").unwrap();
        let (spec, shape) = load(spec, Mode::Quick);
        assert_eq!(spec.shape.peak_users(), 50);
        assert_eq!(shape.describe(), "50,10s;50,30s");
        let (spec, _) = scenario_and_variant("orders-baseline", "orders-direct").unwrap();
        let (_, shape) = load(spec, Mode::Smoke);
        assert_eq!(shape.describe(), "1,1s;2,1s;5,2s");
    }
}
