//! The Conduit experiment: the steady mix, then the capacity search.

use std::collections::BTreeMap;

use super::bench::Bench;
use super::one_run::run_one;
use super::progress::phase;
use super::selection::wants;
use super::skipped::record_or_skip;
use crate::plan::{self, LoadShape, Mode, ScenarioSpec};
use crate::results::{CapacityResult, RecordKind, RunRecord, Skipped};
use crate::sla::{users_held, CapacitySearch, CapacityStep, Sla};
use crate::variants::Variant;

/// What one Conduit variant's runs gave: records, the capacity search's
/// result, and every run that could not be measured, with its reason.
pub(super) struct ConduitRuns {
    pub records: Vec<RunRecord>,
    pub capacity: Option<CapacityResult>,
    pub not_run: Vec<Skipped>,
}

/// The Conduit mix at a steady load, then the capacity search (where
/// `search`: see `selection::searches`).
pub(super) async fn conduit(ctx: &Bench, variant: &Variant, search: bool) -> ConduitRuns {
    let mut runs = ConduitRuns {
        records: Vec::new(),
        capacity: None,
        not_run: Vec::new(),
    };
    if wants(&ctx.opts.scenarios, "conduit-mixed") {
        match steady_mix(ctx, variant).await {
            Ok(record) => runs.records.push(record),
            Err(skipped) => runs.not_run.push(skipped),
        }
    }
    if search {
        runs.capacity = Some(capacity_search(ctx, variant, &mut runs).await);
    }
    runs
}

/// The mix at its steady users (`plan::steady_users`).
async fn steady_mix(ctx: &Bench, variant: &Variant) -> Result<RunRecord, Skipped> {
    let mixed_users = plan::steady_users(ctx.opts.mode);
    let spec = plan::conduit_scenario(mixed_users);
    let shape = plan::conduit_shape(&spec, ctx.opts.mode);
    let defaults = BTreeMap::new();
    let run = run_one(ctx, RecordKind::Scenario, &spec, &shape, variant, &defaults).await;
    record_or_skip(&spec.name, variant, &format!("{mixed_users} users"), run)
}

/// The most users the variant holds within the SLA. A step that cannot run
/// ends the search (nothing can be said above it) and is kept in `runs`,
/// as is every step's record.
async fn capacity_search(ctx: &Bench, variant: &Variant, runs: &mut ConduitRuns) -> CapacityResult {
    let step_seconds = if ctx.opts.mode == Mode::Full { 300 } else { 20 };
    let mut steps = Vec::new();
    let first_steps = ctx
        .opts
        .capacity_steps
        .clone()
        .unwrap_or_else(|| plan::capacity_steps(ctx.opts.mode));
    let resolution = ctx
        .opts
        .capacity_resolution
        .unwrap_or_else(|| plan::capacity_resolution(ctx.opts.mode));
    let mut search = CapacitySearch::new(first_steps, resolution);
    while let Some(users) = search.next_users(&steps) {
        let spec = ScenarioSpec {
            name: "conduit-capacity".into(),
            ..plan::conduit_scenario(users)
        };
        let shape = LoadShape::new(&[(users, step_seconds / 4), (users, step_seconds)]);
        let defaults = BTreeMap::new();
        let run = run_one(ctx, RecordKind::Capacity, &spec, &shape, variant, &defaults).await;
        let record = match record_or_skip(&spec.name, variant, &format!("{users} users"), run) {
            Ok(record) => record,
            Err(skipped) => {
                runs.not_run.push(skipped);
                break;
            }
        };
        steps.push(judged(variant, users, &record));
        runs.records.push(record);
    }
    CapacityResult {
        variant: variant.name.into(),
        api: ctx.door.api,
        compute: ctx.door.compute,
        users_held: users_held(&steps),
        steps,
        step_seconds,
    }
}

/// A step of the search: whether `users` were held within the SLA.
fn judged(variant: &Variant, users: u64, record: &RunRecord) -> CapacityStep {
    let violations = Sla::default().violations(&record.summary);
    let held = violations.is_empty();
    phase(&format!(
        "capacity {}: {users} users {}",
        variant.name,
        if held {
            "held".into()
        } else {
            violations.join(", ")
        }
    ));
    CapacityStep {
        users,
        held,
        violations,
        summary: record.summary.clone(),
    }
}
