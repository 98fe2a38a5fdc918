//! The data a run's functions read, loaded before the measured window: the
//! orders table, or the Conduit data set.

use std::path::Path;

use anyhow::Context;

use super::bench::Bench;
use super::progress::phase;
use crate::plan::Mode;
use crate::seed;
use crate::target::{LocalCloudProcess, REGION};
use crate::variants::{Experiment, Variant};

/// Seeds what `variant`'s experiment reads: Conduit's data set on the local
/// cloud, the orders table on any target. `Ok(Err(reason))`: not possible.
pub(super) async fn seed_for(
    ctx: &Bench,
    variant: &Variant,
    label: &str,
    cloud: Option<&LocalCloudProcess>,
    work_dir: &Path,
) -> anyhow::Result<Result<(), String>> {
    match (cloud, variant.experiment) {
        (Some(c), Experiment::Conduit) => seed_conduit(ctx, c, work_dir).await.map(Ok),
        (_, Experiment::Orders) => seed_orders(ctx, label, cloud).await,
        _ => Ok(Ok(())),
    }
}

/// Users in the Conduit data set, whom the scenario logs in as.
pub(super) fn seed_users(mode: Mode) -> usize {
    match mode {
        Mode::Full => 1_000,
        _ => 200,
    }
}

/// Loads the seeded data set with the conduit crate's `conduit-seed`.
async fn seed_conduit(
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
    let users = seed_users(ctx.opts.mode).to_string();
    let tables = cloud.tables();
    let table = |part: &str| {
        tables
            .iter()
            .find(|(id, _)| id.to_lowercase().contains(part))
            .map(|(_, n)| n.clone())
    };
    let mut command = tokio::process::Command::new(seed);
    command
        .args(["--users", &users])
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
