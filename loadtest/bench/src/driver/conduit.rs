//! The Conduit experiment: seeded data, the steady mix, the capacity search.

use std::collections::BTreeMap;
use std::path::Path;

use super::{phase, record_or_skip, run_one, wants, Bench, REGION};
use crate::plan::{self, LoadShape, Mode, ScenarioSpec};
use crate::results::{CapacityResult, RecordKind, RunRecord, Skipped};
use crate::sla::{users_held, CapacitySearch, CapacityStep, Sla};
use crate::target::LocalCloudProcess;
use crate::variants::Variant;

pub(super) fn seed_users(mode: Mode) -> usize {
    match mode {
        Mode::Full => 1_000,
        _ => 200,
    }
}

/// Loads the seeded data set with the conduit crate's `conduit-seed`.
pub(super) async fn seed_conduit(
    ctx: &Bench,
    cloud: &LocalCloudProcess,
    work_dir: &Path,
) -> anyhow::Result<()> {
    let seed = ctx.opts.binaries_dir.join("conduit-seed");
    anyhow::ensure!(
        seed.is_file(),
        "missing {}: build the workspace's binaries",
        seed.display()
    );
    let full = ctx.opts.mode == Mode::Full;
    let tables = cloud.tables();
    let table = |part: &str| {
        tables
            .iter()
            .find(|(id, _)| id.to_lowercase().contains(part))
            .map(|(_, n)| n.clone())
    };
    let mut command = tokio::process::Command::new(seed);
    command
        .args(["--users", if full { "1000" } else { "200" }])
        .args(["--articles", if full { "10000" } else { "2000" }])
        .args(["--comments", if full { "50000" } else { "10000" }])
        .env("AWS_ENDPOINT_URL", &cloud.endpoint)
        .env("AWS_REGION", REGION)
        .env("AWS_ACCESS_KEY_ID", "test")
        .env("AWS_SECRET_ACCESS_KEY", "test")
        .stdout(std::fs::File::create(work_dir.join("seed.log"))?);
    for (env, part) in [
        ("USERS_TABLE", "user"),
        ("FOLLOWS_TABLE", "follow"),
        ("ARTICLES_TABLE", "article"),
        ("COMMENTS_TABLE", "comment"),
    ] {
        if let Some(name) = table(part) {
            command.env(env, name);
        }
    }
    phase("seeding Conduit data with conduit-seed");
    let status = command.status().await?;
    anyhow::ensure!(
        status.success(),
        "conduit-seed failed ({status}); see {}",
        work_dir.join("seed.log").display()
    );
    Ok(())
}

/// What one Conduit variant's runs gave: records, the capacity search's
/// result, and every run that could not be measured, with its reason.
pub(super) struct ConduitRuns {
    pub records: Vec<RunRecord>,
    pub capacity: Option<CapacityResult>,
    pub not_run: Vec<Skipped>,
}

/// The Conduit mix at a steady load, then the capacity search. A step that
/// cannot run ends the search (nothing can be said above it) and is kept.
pub(super) async fn conduit(ctx: &Bench, variant: &Variant) -> ConduitRuns {
    let mut runs = ConduitRuns {
        records: Vec::new(),
        capacity: None,
        not_run: Vec::new(),
    };
    let mixed_users = plan::capacity_steps(ctx.opts.mode)[0];
    let spec = plan::conduit_scenario(mixed_users);
    let shape = plan::conduit_shape(&spec, ctx.opts.mode);
    if wants(&ctx.opts.scenarios, "conduit-mixed") {
        let defaults = BTreeMap::new();
        let run = run_one(ctx, RecordKind::Scenario, &spec, &shape, variant, &defaults).await;
        let setting = format!("{mixed_users} users");
        match record_or_skip(&spec.name, variant, &setting, run) {
            Ok(record) => runs.records.push(record),
            Err(skipped) => runs.not_run.push(skipped),
        }
    }
    if !ctx.opts.capacity || !wants(&ctx.opts.scenarios, "conduit-capacity") {
        return runs;
    }
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
        steps.push(CapacityStep {
            users,
            held,
            violations,
            summary: record.summary.clone(),
        });
        runs.records.push(record);
    }
    let result = CapacityResult {
        variant: variant.name.into(),
        api: ctx.door.api,
        users_held: users_held(&steps),
        steps,
        step_seconds,
    };
    runs.capacity = Some(result);
    runs
}
