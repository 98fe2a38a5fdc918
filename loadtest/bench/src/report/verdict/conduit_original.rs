//! How the Conduit verdict compares with the Go original, and why it
//! differs, as far as the run's own figures say.

use super::findings::{line_per_million_ok, times, usd_per_million_ok, Placed};
use super::names::MONOLITH;
use super::original;
use crate::results::RunRecord;

/// A bill line within this factor across the variants is one the split
/// leaves alone.
const UNCHANGED_LINE: f64 = 1.1;
/// A CPU ratio within this factor of the original's is "the same gap".
const SAME_GAP: f64 = 1.25;

/// `steady`: each variant's name and steady-mix record; `held`: users held
/// at the SLA, most first, if the run searched capacity.
pub fn against_original(steady: &[(&str, Option<&RunRecord>)], held: Option<&[Placed]>) -> String {
    let original_cpu = original::CONDUIT_MICRO_CPU_MS / original::CONDUIT_MONOLITH_CPU_MS;
    let original_users = original::CONDUIT_MONOLITH_USERS / original::CONDUIT_MICRO_USERS;
    let mut text = format!(
        "The original (Go and PostgreSQL, docs/experiments.md) found that the split costs {} the CPU per request \
         ({:.2} against {:.2} ms) and holds {} fewer users ({:.0} against {:.0})",
        times(Some(original_cpu)),
        original::CONDUIT_MICRO_CPU_MS,
        original::CONDUIT_MONOLITH_CPU_MS,
        times(Some(original_users)),
        original::CONDUIT_MICRO_USERS,
        original::CONDUIT_MONOLITH_USERS,
    );
    let monolith = steady
        .iter()
        .find(|(n, _)| *n == MONOLITH.1)
        .and_then(|(_, r)| *r);
    let micros: Vec<(&str, &RunRecord)> = steady
        .iter()
        .filter(|(n, _)| *n != MONOLITH.1)
        .filter_map(|(n, r)| Some((*n, (*r)?)))
        .collect();
    let Some(monolith) = monolith.filter(|_| !micros.is_empty()) else {
        text.push_str(
            "; this run has no steady mix of the monolith and a microservice variant to compare.",
        );
        return text;
    };
    text.push_str(&cpu_and_dollars(monolith, &micros, original_cpu));
    text.push_str(&unchanged_lines(monolith, &micros));
    text.push(' ');
    text.push_str(&capacity(held, original_users));
    text
}

/// `; here micro-invoke spends 1.30x ... : the same direction, a smaller gap.
/// The split adds ...`
fn cpu_and_dollars(
    monolith: &RunRecord,
    micros: &[(&str, &RunRecord)],
    original_cpu: f64,
) -> String {
    let cpu = |r: &RunRecord| r.cpu.functions_ms_per_request;
    let Some(base) = cpu(monolith).filter(|c| *c > 0.0) else {
        return "; this run metered no function CPU to compare.".into();
    };
    let ratio = |r: &RunRecord| cpu(r).map(|c| c / base);
    let usd_ratio = |r: &RunRecord| Some(usd_per_million_ok(r)? / usd_per_million_ok(monolith)?);
    let names: Vec<&str> = micros.iter().map(|(n, _)| *n).collect();
    let joined = |f: &dyn Fn(&RunRecord) -> String| {
        micros
            .iter()
            .map(|(_, r)| f(r))
            .collect::<Vec<_>>()
            .join(" and ")
    };
    let ratios: Vec<f64> = micros.iter().filter_map(|(_, r)| ratio(r)).collect();
    let largest = ratios.iter().copied().fold(0.0, f64::max);
    let direction = if ratios.iter().all(|r| *r > 1.0) {
        "the same direction"
    } else {
        "not the same direction: a split that spends no more"
    };
    let gap = if largest * SAME_GAP < original_cpu {
        ", a smaller gap"
    } else if largest > original_cpu * SAME_GAP {
        ", a larger gap"
    } else {
        ", a gap of the same size"
    };
    let added = original::CONDUIT_MICRO_CPU_MS - original::CONDUIT_MONOLITH_CPU_MS;
    format!(
        "; here {} spend {} the monolith's function CPU per request and cost {} its dollars: {direction}{gap}. \
         The split adds {} ms of CPU per request against the original's {added:+.2} ms, on a monolith that spends \
         {base:.2} ms (the original {:.2} ms)",
        names.join(" and "),
        joined(&|r| times(ratio(r))),
        joined(&|r| times(usd_ratio(r))),
        joined(&|r| cpu(r).map_or_else(|| "-".into(), |c| format!("{:+.2}", c - base))),
        original::CONDUIT_MONOLITH_CPU_MS,
    )
}

/// `; the bill's lines the split leaves alone (API Gateway, ...) are 88 % of
/// the monolith's.`
fn unchanged_lines(monolith: &RunRecord, micros: &[(&str, &RunRecord)]) -> String {
    let (Some(cost), Some(total)) = (monolith.cost.as_ref(), usd_per_million_ok(monolith)) else {
        return ".".into();
    };
    let unchanged: Vec<(&str, f64)> = cost
        .by_line
        .iter()
        .filter_map(|line| {
            let base = line_per_million_ok(monolith, &line.heading).filter(|v| *v > 0.0)?;
            let alike = micros.iter().all(|(_, r)| {
                line_per_million_ok(r, &line.heading)
                    .is_some_and(|v| v <= base * UNCHANGED_LINE && v * UNCHANGED_LINE >= base)
            });
            alike.then_some((line.heading.as_str(), base))
        })
        .collect();
    if unchanged.is_empty() || total <= 0.0 {
        return ".".into();
    }
    let share: f64 = unchanged.iter().map(|(_, v)| v).sum::<f64>() / total;
    let names: Vec<&str> = unchanged.iter().map(|(h, _)| *h).collect();
    format!(
        "; and the bill's lines the split leaves alone (within 10 % across the variants: {}) are {:.0} % of the \
         monolith's.",
        names.join(", "),
        share * 100.0
    )
}

fn capacity(held: Option<&[Placed]>, original_users: f64) -> String {
    let monolith = held.and_then(|h| h.iter().find(|p| p.name == MONOLITH.1));
    let Some((held, monolith)) = held.zip(monolith) else {
        return format!(
            "Users held were not measured in this run, so the original's {} is not compared.",
            times(Some(original_users))
        );
    };
    let ratios: Vec<String> = held
        .iter()
        .filter(|p| p.name != MONOLITH.1)
        .map(|p| {
            let ratio = (p.value > 0.0).then(|| monolith.value / p.value);
            format!("{} {}'s", times(ratio), p.name)
        })
        .collect();
    format!(
        "The monolith holds {} users, against the original's {}.",
        ratios.join(" and "),
        times(Some(original_users))
    )
}
