//! The Markdown summary printed at the end of a run.

use std::fmt::Write;

use super::{ms, title};
use crate::results::{RecordKind, Results, RunRecord};

pub fn summary(results: &Results) -> String {
    let mut md = String::new();
    let m = &results.machine;
    let _ = writeln!(
        md,
        "## Bench results ({:?}, target {})\n",
        results.mode, results.target
    );
    let _ = writeln!(
        md,
        "Commit `{}`, {} cores, {} MB, {}. {}. Prices: {} ({}). Latency profile: {}.\n",
        short(&results.git_commit),
        m.cores,
        m.memory_mb,
        m.cpu_model,
        results.scaling,
        results.price_table_version,
        results.region,
        results
            .latency_profile
            .as_deref()
            .unwrap_or("none (local latencies only)")
    );
    for (kind, heading) in [
        (RecordKind::Scenario, "Scenarios"),
        (
            RecordKind::Sweep,
            "Orders sweep (concurrency / batch settings)",
        ),
        (RecordKind::Capacity, "Conduit capacity steps"),
    ] {
        let rows: Vec<&RunRecord> = results.records.iter().filter(|r| r.kind == kind).collect();
        if rows.is_empty() {
            continue;
        }
        let _ = writeln!(md, "### {heading}\n");
        md.push_str("| run | ok req/s | failed req/s | errors | p50 ms | p95 ms | p99 ms | throttles | cold starts | fn CPU ms/req | local cloud CPU ms/req | $ per M ok | load gen |\n");
        md.push_str("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for r in rows {
            md.push_str(&row(r));
        }
        md.push('\n');
    }
    if !results.capacity.is_empty() {
        md.push_str("### Most users held (p95 < 500 ms, p99 < 1 s, errors < 1 %)\n\n| variant | users held | steps (users: held?) |\n|---|---|---|\n");
        for c in &results.capacity {
            let steps: Vec<String> = c
                .steps
                .iter()
                .map(|s| format!("{}: {}", s.users, if s.held { "yes" } else { "no" }))
                .collect();
            let held = c
                .users_held
                .map_or_else(|| "none".into(), |u| u.to_string());
            let _ = writeln!(md, "| {} | {held} | {} |", c.variant, steps.join(", "));
        }
        md.push('\n');
    }
    for s in &results.skipped {
        let _ = writeln!(md, "- skipped {} / {}: {}", s.scenario, s.variant, s.reason);
    }
    md
}

fn row(r: &RunRecord) -> String {
    let s = &r.summary;
    let throttles = r.metering.as_ref().map_or(s.throttled as f64, |m| {
        m.throttles().max(s.throttled as f64)
    });
    let cold = r
        .metering
        .as_ref()
        .map_or_else(|| "-".into(), |m| format!("{:.0}", m.cold_starts()));
    let per = |v: Option<f64>| v.map_or_else(|| "-".into(), |v| format!("{v:.2}"));
    let cost = r
        .cost
        .as_ref()
        .and_then(|c| c.usd_per_million_successful)
        .map_or_else(|| "-".into(), |v| format!("{v:.2}"));
    let generator = if r.cpu.load_generator_saturated {
        format!("SATURATED ({:.2} cores)", r.cpu.load_generator_cores)
    } else {
        format!("{:.2} cores", r.cpu.load_generator_cores)
    };
    format!(
        "| {} | {:.1} | {:.1} | {:.1} % | {} | {} | {} | {throttles:.0} | {cold} | {} | {} | {cost} | {generator} |\n",
        title(r), s.successful_rps, s.failed_rps, s.error_rate * 100.0, ms(s.p50_ms), ms(s.p95_ms), ms(s.p99_ms),
        per(r.cpu.functions_ms_per_request), per(r.cpu.localcloud_ms_per_request)
    )
}

fn short(commit: &str) -> &str {
    commit.get(..10).unwrap_or(commit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdata;

    #[test]
    fn summary_has_a_row_per_record_with_successes_apart() {
        let md = summary(&testdata::results());
        assert!(md.contains("| orders-baseline / orders-direct |"));
        assert!(md.contains("| orders-baseline / orders-queue |"));
        assert!(md.contains("ok req/s | failed req/s"));
        assert!(md.contains("| conduit-monolith | 50 |"));
        assert!(md.contains("skipped conduit-mixed / conduit-micro-queue: not deployed"));
    }

    #[test]
    fn saturated_load_generator_is_said() {
        let mut results = testdata::results();
        results.records[0].cpu.load_generator_saturated = true;
        assert!(summary(&results).contains("SATURATED"));
    }
}
