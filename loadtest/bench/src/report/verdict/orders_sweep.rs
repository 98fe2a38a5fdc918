//! What the orders sweep's settings change in the orders verdict: the
//! direct path's reserved concurrency, the queue's consumer cap and batch.

use super::findings::{dollars, duration, parameter, percent, usd_per_million_ok};
use super::names::{peak_users, DIRECT, QUEUE};
use crate::results::RunRecord;
use crate::sla::Sla;

/// What the sweep's settings change, or that the run had no sweep.
pub fn flips(sweep: &[&RunRecord]) -> String {
    let of = |variant: &str| -> Vec<&RunRecord> {
        sweep
            .iter()
            .copied()
            .filter(|r| r.variant == variant)
            .collect()
    };
    let (mut direct, queue) = (of(DIRECT.0), of(QUEUE.0));
    if direct.is_empty() && queue.is_empty() {
        return "The run has no orders sweep (`--no-sweep`): whether another reserved concurrency \
                or consumer cap changes these answers was not measured."
            .into();
    }
    let held = Sla::default().max_error_rate;
    let reserved = |r: &RunRecord| -> u64 {
        parameter(r, "OrdersBackendConcurrency")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    direct.sort_by_key(|r| reserved(r));
    let cheapest_queue = queue
        .iter()
        .filter(|r| r.summary.error_rate < held)
        .filter_map(|r| Some((*r, usd_per_million_ok(r)?)))
        .min_by(|a, b| a.1.total_cmp(&b.1));
    let load = sweep.first().map_or(0, |r| peak_users(r));
    let mut text = format!("In the sweep's overload (up to {load} users)");
    match direct.iter().find(|r| r.summary.error_rate < held) {
        Some(r) => {
            text.push_str(&format!(
                " direct Invoke fails less than 1 % from OrdersBackendConcurrency={} on ({} failed, p95 {}, {} per M ok)",
                reserved(r),
                percent(r.summary.error_rate),
                r.summary.p95_ms.map_or_else(|| "-".into(), duration),
                usd_per_million_ok(r).map_or_else(|| "-".into(), dollars)
            ));
            if let Some((q, usd)) = cheapest_queue {
                let beats = usd_per_million_ok(r).is_some_and(|d| d < usd)
                    && r.summary.p95_ms < q.summary.p95_ms;
                text.push_str(&format!(
                    " against the cheapest queue setting's p95 {} and {} ({}){}",
                    q.summary.p95_ms.map_or_else(|| "-".into(), duration),
                    dollars(usd),
                    q.setting,
                    if beats {
                        ": with a reserved concurrency that covers the load, direct Invoke wins on every measure"
                    } else {
                        ""
                    }
                ));
            }
            text.push('.');
        }
        None if !direct.is_empty() => {
            let tried: Vec<String> = direct.iter().map(|r| reserved(r).to_string()).collect();
            let least = direct
                .iter()
                .min_by(|a, b| a.summary.error_rate.total_cmp(&b.summary.error_rate))
                .expect("not empty");
            text.push_str(&format!(
                " no reserved concurrency tried ({}) held: the fewest failures were {} at {}.",
                tried.join(", "),
                percent(least.summary.error_rate),
                reserved(least)
            ));
        }
        None => text.push_str(" direct Invoke was not swept."),
    }
    text.push_str(&queue_range(&queue));
    text
}

/// The queue's p95 across its settings: what the consumer cap and batch do.
fn queue_range(queue: &[&RunRecord]) -> String {
    let timed: Vec<(&RunRecord, f64)> = queue
        .iter()
        .filter_map(|r| Some((*r, r.summary.p95_ms?)))
        .collect();
    let fastest = timed.iter().min_by(|a, b| a.1.total_cmp(&b.1));
    let slowest = timed.iter().max_by(|a, b| a.1.total_cmp(&b.1));
    let (Some(fastest), Some(slowest)) = (fastest, slowest) else {
        return " The queue was not swept.".into();
    };
    let worst = queue
        .iter()
        .map(|r| r.summary.error_rate)
        .fold(0.0, f64::max);
    format!(
        " The queue's consumer cap and batch size set its latency under that overload: p95 from {} ({}) to {} ({}), at most {} failed.",
        duration(fastest.1),
        fastest.0.setting,
        duration(slowest.1),
        slowest.0.setting,
        percent(worst)
    )
}
