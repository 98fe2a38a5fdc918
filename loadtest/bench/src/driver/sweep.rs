//! Issue 6: the orders sweep over the paths' concurrency and batch settings.

use std::collections::BTreeMap;

use super::bench::Bench;
use super::one_run::{run_one, setting_name};
use super::progress::phase;
use super::selection::variant_selected;
use super::skipped::record_or_skip;
use crate::plan::{self, Mode, ScenarioSpec};
use crate::results::{RecordKind, RunRecord, Skipped};
use crate::variants::{self, Experiment, Variant};

/// Issue 6: where each orders path breaks and what it costs, one local cloud
/// per setting, under the same short overload.
/// The records of the settings that ran, and why the others did not.
pub(super) async fn orders_sweep(ctx: &Bench) -> (Vec<RunRecord>, Vec<Skipped>) {
    let spec = ScenarioSpec {
        name: "orders-sweep".into(),
        experiment: Experiment::Orders,
        shape: plan::sweep_shape(),
        size: Some(5),
        think_time_s: None,
        kill_rate: None,
    };
    let shape = spec.shape.scaled(ctx.opts.mode);
    let mut settings: Vec<(Variant, BTreeMap<String, String>)> = Vec::new();
    for cap in sweep_values(ctx.opts.mode, &[10, 50, 100, 200]) {
        settings.push((
            variants::ORDERS_DIRECT,
            [("OrdersBackendConcurrency".to_string(), cap.to_string())].into(),
        ));
    }
    for cap in sweep_values(ctx.opts.mode, &[10, 50, 100, 200]) {
        for batch in [1, 10] {
            settings.push((
                variants::ORDERS_QUEUE,
                [
                    ("OrdersQueueMaxConcurrency".to_string(), cap.to_string()),
                    ("OrdersQueueBatchSize".to_string(), batch.to_string()),
                ]
                .into(),
            ));
        }
    }
    phase(&format!(
        "orders sweep: {} settings, load {}",
        settings.len(),
        shape.describe()
    ));
    let (mut records, mut not_run) = (Vec::new(), Vec::new());
    for (variant, overrides) in settings {
        if !variant_selected(&ctx.opts, &variant) {
            continue;
        }
        let run = run_one(ctx, RecordKind::Sweep, &spec, &shape, &variant, &overrides).await;
        match record_or_skip(&spec.name, &variant, &setting_name(&overrides), run) {
            Ok(record) => records.push(record),
            Err(skipped) => not_run.push(skipped),
        }
    }
    (records, not_run)
}

pub(super) fn sweep_values(mode: Mode, all: &[u64]) -> Vec<u64> {
    match mode {
        Mode::Full => all.to_vec(),
        _ => vec![all[0], all[2]],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quick_sweep_tries_a_low_and_the_default_cap() {
        assert_eq!(
            sweep_values(Mode::Quick, &[10, 50, 100, 200]),
            vec![10, 100]
        );
        assert_eq!(sweep_values(Mode::Full, &[10, 50]).len(), 2);
    }
}
