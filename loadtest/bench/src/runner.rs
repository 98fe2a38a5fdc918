//! One Goose attack: a scenario at a load shape against a base URL, with a
//! progress line every few seconds and the load generator's CPU measured.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use goose::config::GooseConfiguration;
use goose::goose::Scenario;
use goose::GooseAttack;

use crate::cpu::own_cpu_seconds;
use crate::plan::LoadShape;
use crate::recorder::{Recorder, Sample};

/// Seconds between progress lines.
const PROGRESS_EVERY: Duration = Duration::from_secs(5);

pub struct LoadRun {
    pub samples: Vec<Sample>,
    /// Requests begun, answered or not.
    pub sent: u64,
    pub failure_reasons: std::collections::BTreeMap<String, u64>,
    pub wall_s: f64,
    /// CPU of this process during the attack: Goose and its HTTP client.
    pub load_generator_cpu_ms: f64,
}

/// Runs `scenario` (built on `recorder`) with `shape` against `host`; Goose's
/// own HTML and JSON reports go to `goose_report` (.html / .json).
pub async fn run(
    label: &str,
    host: &str,
    scenario: Scenario,
    shape: &LoadShape,
    recorder: Arc<Recorder>,
    goose_report: &Path,
) -> anyhow::Result<LoadRun> {
    let html = goose_report.with_extension("html");
    let json = goose_report.with_extension("json");
    let args = [
        "--host",
        host,
        "--test-plan",
        &shape.goose_plan(),
        "--quiet",
        "--no-telnet",
        "--no-print-metrics",
        "--no-error-summary",
        "--co-mitigation",
        "disabled",
        // Under AWS's 29 s API Gateway limit plus margin: a hung request fails.
        "--timeout",
        "35",
        "--report-file",
        &html.to_string_lossy(),
        "--report-file",
        &json.to_string_lossy(),
    ];
    let config = GooseConfiguration::parse_args_default(&args)
        .map_err(|e| anyhow::anyhow!("goose configuration: {e}"))?;
    let attack = GooseAttack::initialize_with_config(config)
        .map_err(|e| anyhow::anyhow!("goose: {e}"))?
        .register_scenario(scenario);

    let cpu_before = own_cpu_seconds();
    let started = Instant::now();
    let progress = tokio::spawn(progress_lines(
        label.to_string(),
        shape.clone(),
        recorder.clone(),
        started,
    ));
    let outcome = attack.execute().await;
    progress.abort();
    let wall_s = started.elapsed().as_secs_f64();
    let load_generator_cpu_ms = (own_cpu_seconds() - cpu_before) * 1000.0;
    outcome
        .map_err(|e| anyhow::anyhow!("{e}"))
        .with_context(|| format!("goose attack {label}"))?;
    Ok(LoadRun {
        samples: recorder.samples(),
        sent: recorder.sent(),
        failure_reasons: recorder.failure_reasons(),
        wall_s,
        load_generator_cpu_ms,
    })
}

async fn progress_lines(
    label: String,
    shape: LoadShape,
    recorder: Arc<Recorder>,
    started: Instant,
) {
    let total = shape.seconds();
    let mut last = (0u64, 0u64);
    loop {
        tokio::time::sleep(PROGRESS_EVERY).await;
        let elapsed = started.elapsed().as_secs_f64();
        let (ok, failed) = recorder.counts();
        let window = PROGRESS_EVERY.as_secs_f64();
        eprintln!(
            "  [{label}] {elapsed:>4.0}/{total} s  users~{:<4} ok {ok:<7} failed {failed:<6} ({:.1} ok/s, {:.1} failed/s)",
            users_at(&shape, elapsed),
            (ok - last.0) as f64 / window,
            (failed - last.1) as f64 / window,
        );
        last = (ok, failed);
    }
}

/// Users the plan asks for `elapsed` seconds in (linear ramps between steps).
pub fn users_at(shape: &LoadShape, elapsed: f64) -> u64 {
    let (mut from, mut t0) = (0.0, 0.0);
    for step in &shape.steps {
        let t1 = t0 + step.seconds as f64;
        if elapsed < t1 {
            let share = (elapsed - t0) / (t1 - t0).max(1e-9);
            return (from + (step.users as f64 - from) * share).round() as u64;
        }
        from = step.users as f64;
        t0 = t1;
    }
    from as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn users_follow_the_ramp() {
        let shape = LoadShape::new(&[(10, 5), (20, 5), (20, 10)]);
        assert_eq!(users_at(&shape, 0.0), 0);
        assert_eq!(users_at(&shape, 2.5), 5);
        assert_eq!(users_at(&shape, 7.5), 15);
        assert_eq!(users_at(&shape, 15.0), 20);
        assert_eq!(users_at(&shape, 99.0), 20);
    }
}
