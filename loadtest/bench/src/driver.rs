//! `bench run`: every scenario x variant (and the orders sweep, the Conduit
//! capacity search), each against a fresh local cloud or a deployed stack,
//! metered, priced and written to `results.json` and the reports.
//!
//! This file runs the passes; its modules, bottom up: `progress` (the log),
//! `template` (parameter defaults), `bench` (what every run shares),
//! `selection` and `filters` (which runs), `skipped` (runs not measured),
//! `seeding`, `one_run` (one measured run), `sweep` and `conduit` (the
//! experiments made of many runs), `writing` (results and reports).

use std::collections::BTreeMap;

use crate::apis;
use crate::compute::ComputeType;
use crate::plan::Mode;
use crate::results::{
    git_commit, machine, CapacityResult, RecordKind, Results, RunRecord, Skipped, SCHEMA_VERSION,
};
use crate::target::REGION;
use crate::variants::Experiment;

mod bench;
mod conduit;
mod filters;
mod one_run;
mod progress;
mod seeding;
mod selection;
mod skipped;
mod sweep;
mod template;
mod writing;

pub(crate) use bench::Bench;
pub use bench::{RunOptions, TargetKind};
pub(crate) use filters::check_filters;
pub(crate) use one_run::run_one;
pub(crate) use progress::{now, phase};
pub(crate) use selection::deployed;
pub(crate) use skipped::record_or_skip;
pub use template::template_defaults;
pub use writing::write_reports;

use selection::{scenario_runs, selected, wants};
use skipped::{failed, skip};

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
    for (pass, (door, text)) in ctx.opts.doors.clone().into_iter().zip(texts).enumerate() {
        (ctx.door, ctx.template_text) = (door, text);
        let searches = selection::searches(&ctx.opts, pass);
        let on = match ctx.door.compute {
            ComputeType::OnDemand => String::new(),
            managed => format!(" on {}", managed.describe()),
        };
        phase(&format!(
            "through the {}s{on}",
            apis::describe(ctx.door.api)
        ));
        if pass > 0 && (ctx.opts.sweep || ctx.opts.capacity) {
            phase("the scenarios only: the sweep and the capacity search measure the first pass");
        }
        let from = skipped.len();
        run_door(&ctx, searches, &mut records, &mut skipped, &mut capacity).await;
        // Every run this pass could not measure was to go through its door.
        for s in &mut skipped[from..] {
            (s.api, s.compute) = (ctx.door.api, ctx.door.compute);
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
        iam: ctx.iam.lock().unwrap_or_else(|e| e.into_inner()).take(),
    };
    write_reports(&results, &ctx.opts.out)?;
    Ok(results)
}

/// One pass through `ctx.door`: the orders scenarios, the sweep, Conduit
/// (the searches as `searches` says).
async fn run_door(
    ctx: &Bench,
    searches: selection::Searches,
    records: &mut Vec<RunRecord>,
    skipped: &mut Vec<Skipped>,
    capacity: &mut Vec<CapacityResult>,
) {
    for (spec, variant) in scenario_runs(&ctx.opts) {
        let shape = crate::plan::scenario_shape(&spec, ctx.opts.mode);
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
    if searches.sweep {
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
            let mut run = conduit::conduit(ctx, &variant, searches.capacity).await;
            records.append(&mut run.records);
            capacity.extend(run.capacity);
            skipped.append(&mut run.not_run);
        }
    }
}
