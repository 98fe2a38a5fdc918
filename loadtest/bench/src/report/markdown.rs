//! The Markdown summary printed at the end of a run.

use std::fmt::Write;

use super::answers::{self, Table};
use super::run_row::RunRow;
use super::verdict;
use super::{title, CPU_HEADERS};
use crate::results::{RecordKind, Results, RunRecord};

pub fn summary(results: &Results) -> String {
    // A denial first (a scenario failed for want of a permission), then the
    // verdict: the first lines answer the questions.
    let mut md = super::iam::markdown_warning(results);
    md.push_str(&verdict_first(results));
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
        m.ram_mb,
        m.cpu_model,
        results.scaling,
        results.price_table_version,
        results.region,
        results
            .latency_profile
            .as_deref()
            .unwrap_or("none (local latencies only)")
    );
    md.push_str(&answers_first(results));
    md.push_str(&monthly_bills(results));
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
        let _ = writeln!(
            md,
            "| run | ok req/s | failed req/s | errors | p50 ms | p95 ms | p99 ms | throttles | cold starts | {} | $ per M ok | load gen |",
            CPU_HEADERS.join(" | ")
        );
        md.push_str("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for r in rows {
            md.push_str(&row(r));
        }
        md.push('\n');
    }
    md.push_str(&cost_section(results));
    md.push_str(&cpu_share_section(results));
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
            let variant = c.pass().label(&c.variant);
            let _ = writeln!(md, "| {variant} | {held} | {} |", steps.join(", "));
        }
        md.push('\n');
    }
    for s in &results.skipped {
        let variant = s.pass().label(&s.variant);
        let _ = writeln!(md, "- skipped {} / {variant}: {}", s.scenario, s.reason);
    }
    md.push_str(&ledger_section(results));
    md.push_str(&super::iam::markdown(results));
    md
}

fn verdict_first(results: &Results) -> String {
    let verdict = verdict::verdict(results);
    let md = verdict::view::markdown(&verdict);
    if md.is_empty() {
        return md;
    }
    format!(
        "## Verdict\n\n{md}{}\n",
        verdict::view::INTERVALS_NOTE.trim_start()
    )
}

/// Per run: which CPU share produced its durations and its contention, a
/// warning when taking it out moves the cost per successful request out of
/// its interval (`cpu_share::contention_warning`).
fn cpu_share_section(results: &Results) -> String {
    let mut md = String::new();
    if let Some(asked) = results.cpu_share {
        let _ = writeln!(
            md,
            "CPU share asked of the local cloud: `--cpu-share {}`.\n",
            asked.as_str()
        );
    }
    for r in &results.records {
        let Some(note) = super::cpu_share::note(r) else {
            continue;
        };
        let contention = note
            .contention
            .map(|c| format!("; {c}"))
            .unwrap_or_default();
        let asked = super::cpu_share::asked_note(results.cpu_share, r);
        let _ = writeln!(md, "- {}: {}{asked}{contention}", title(r), note.mode);
        if let Some(warning) = note.warning {
            let _ = writeln!(md, "- **{}: {warning}**", title(r));
        }
    }
    if !md.is_empty() {
        md.insert_str(0, "### CPU share and contention\n\n");
        md.push('\n');
    }
    md
}

/// Every request and request message accounted for, per run (issue 19).
fn ledger_section(results: &Results) -> String {
    let mut md = String::new();
    for r in &results.records {
        if let Some(ledger) = &r.ledger {
            let _ = writeln!(
                md,
                "- ledger {} / {} {}: {}",
                r.scenario,
                r.pass().label(&r.variant),
                r.setting,
                ledger.describe()
            );
        }
    }
    if !md.is_empty() {
        md.insert_str(0, "\n### Ledger\n\n");
    }
    md
}

/// The experiments' questions with their measured answers, what the dollars
/// assume, and each run's bill by line.
fn answers_first(results: &Results) -> String {
    let mut md = String::new();
    for (i, answer) in super::compute_table::all_answers(results)
        .iter()
        .enumerate()
    {
        let _ = writeln!(md, "### {}. {}\n", i + 1, answer.question);
        md.push_str(&table_md(&answer.table));
        md.push('\n');
    }
    if let Some(table) = answers::cost_by_line_table(results) {
        let (measured, _) = answers::architectures(results);
        let _ = writeln!(
            md,
            "### Cost per million successful requests by line ({measured}, as measured)\n"
        );
        md.push_str(&table_md(&table));
        md.push('\n');
    }
    if !md.is_empty() {
        let _ = writeln!(md, "{}\n", answers::assumptions(results));
    }
    md
}

/// The monthly bills per question (`report::monthly`): the tables, then
/// where the bills cross (the chart is report.html's: Markdown draws none).
fn monthly_bills(results: &Results) -> String {
    let Some(view) = super::monthly::monthly(results) else {
        return String::new();
    };
    let mut md = String::new();
    for section in &view.sections {
        let _ = writeln!(md, "### {}\n\n{}", section.title, table_md(&section.table));
    }
    if !view.sections.is_empty() {
        md.push_str(
            "report.html draws these bills against the request rate, with where they cross.\n\n",
        );
    }
    for section in view.sections.iter().filter(|s| !s.break_even.is_empty()) {
        let _ = writeln!(md, "Where the bills cross, {}:\n", section.question);
        for sentence in &section.break_even {
            let _ = writeln!(md, "- {sentence}");
        }
        md.push('\n');
    }
    let _ = writeln!(md, "{}\n", view.note);
    md
}

pub(crate) fn table_md(table: &Table) -> String {
    let line = |cells: &[String]| format!("| {} |\n", cells.join(" | "));
    let mut md = line(&table.headers);
    md.push_str(&format!("|{}\n", "---|".repeat(table.headers.len())));
    for row in &table.rows {
        md.push_str(&line(row));
    }
    md
}

/// Per scenario: each variant's dollars per million successful requests, its
/// ratio to the scenario's first variant (the monolith, the direct path), and
/// the cost line that dominates its bill.
fn cost_section(results: &Results) -> String {
    let mut scenarios: Vec<&str> = Vec::new();
    for r in results
        .records
        .iter()
        .filter(|r| r.kind == RecordKind::Scenario)
    {
        if !scenarios.contains(&r.scenario.as_str()) {
            scenarios.push(&r.scenario);
        }
    }
    let mut md = String::new();
    for scenario in scenarios {
        let priced: Vec<(&RunRecord, f64)> = results
            .records
            .iter()
            .filter(|r| r.kind == RecordKind::Scenario && r.scenario == scenario)
            .filter_map(|r| {
                let usd = r.cost.as_ref()?.usd_per_million_successful?;
                Some((r, usd))
            })
            .collect();
        let Some(&(base, base_usd)) = priced.first() else {
            continue;
        };
        if md.is_empty() {
            md.push_str(
                "### Cost per million successful requests

",
            );
            md.push_str("| scenario | variant | $ per M ok | ratio | dominant line |\n|---|---|---|---|---|\n");
        }
        for (r, usd) in &priced {
            let ratio = if base_usd > 0.0 {
                format!(
                    "{:.2}x {}",
                    usd / base_usd,
                    base.pass().label(&base.variant)
                )
            } else {
                "-".into()
            };
            let dominant = r
                .cost
                .as_ref()
                .and_then(|c| c.dominant.as_deref())
                .unwrap_or("-");
            let _ = writeln!(
                md,
                "| {scenario} | {} | {usd:.2} | {ratio} | {dominant} |",
                r.pass().label(&r.variant)
            );
        }
    }
    if !md.is_empty() {
        md.push('\n');
    }
    md
}

fn row(r: &RunRecord) -> String {
    let row = RunRow::of(r);
    format!(
        "| {} | {} | {} |\n",
        row.title,
        row.figure_cells().join(" | "),
        row.load_generator("SATURATED")
    )
}

fn short(commit: &str) -> &str {
    commit.get(..10).unwrap_or(commit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdata;

    /// Where `text` is in `md`; missing, the test fails showing `md`.
    fn position(md: &str, text: &str) -> usize {
        md.find(text)
            .unwrap_or_else(|| panic!("{text} missing: {md}"))
    }

    #[test]
    fn summary_has_a_row_per_record_with_successes_apart() {
        let md = summary(&testdata::results());
        assert!(md.contains("| orders-baseline / orders-direct |"));
        assert!(md.contains("| orders-baseline / orders-queue |"));
        assert!(md.contains("ok req/s | failed req/s"));
        assert!(md.contains("| conduit-monolith | 400 |"));
        assert!(md.contains("skipped orders-largepayload / orders-queue: not selected"));
    }

    #[test]
    fn costs_are_compared_to_the_scenarios_first_variant_with_the_dominant_line() {
        let mut results = testdata::results();
        for (variant, usd) in [("orders-direct", 1.2), ("orders-queue", 2.4)] {
            let cost = results
                .records
                .iter_mut()
                .find(|r| r.variant == variant)
                .and_then(|r| r.cost.as_mut())
                .expect("test data has both paths");
            cost.usd_per_million_successful = Some(usd);
            cost.dominant = Some("Lambda duration".into());
        }
        let md = summary(&results);
        assert!(
            md.contains("### Cost per million successful requests"),
            "{md}"
        );
        assert!(
            md.contains("| orders-baseline | orders-direct | 1.20 | 1.00x orders-direct | Lambda duration |"),
            "{md}"
        );
        assert!(
            md.contains(
                "| orders-baseline | orders-queue | 2.40 | 2.00x orders-direct | Lambda duration |"
            ),
            "{md}"
        );
    }

    #[test]
    fn the_answers_open_the_summary_with_the_architecture_assumption() {
        let md = summary(&testdata::results());
        let at = |text: &str| position(&md, text);
        assert!(at("### 1. Direct call or queue") < at("### Scenarios"));
        assert!(at("### 2. One Lambda or many") < at("### Scenarios"));
        assert!(md.contains(
            "|  | baseline direct | baseline queue | highload direct | highload queue |"
        ));
        assert!(md.contains("by line (x86_64, as measured)"));
        assert!(md.contains("the arm64 figures are an estimate"));
    }

    #[test]
    fn runs_through_both_doors_are_told_apart_and_compared() {
        // GIVEN the baseline orders runs through HTTP and REST APIs
        let md = summary(&testdata::results_with_rest());
        // THEN the comparison is the third answer, before the scenario rows
        let third = position(&md, "### 3. HTTP API or REST API in front");
        assert!(third < position(&md, "### Scenarios"));
        assert!(md.contains("| run | p50 ms HTTP | p50 ms REST |"), "{md}");
        // AND each REST run is a row of its own, named by its door
        assert!(md.contains("| orders-baseline / orders-direct (REST API) |"));
        assert!(md.contains("| orders-baseline | orders-queue (REST API) |"));
    }

    #[test]
    fn run_rows_show_the_functions_cpu_with_and_without_argon2() {
        // GIVEN a Conduit run whose functions spent 0.8 ms per request, 0.3 on
        // Argon2id, and an older run with no split
        let mut results = testdata::results();
        results.records[0]
            .cpu
            .functions_ms_per_request_excluding_argon2 = None;
        // WHEN summarised
        let md = summary(&results);
        // THEN the rest is beside the whole, and an unknown split is a dash
        assert!(
            md.contains("| fn CPU ms/req | fn CPU ms/req excl. Argon2id |"),
            "{md}"
        );
        // (a run's row in the scenario table ends with its load generator)
        let run_row = |run: &str| {
            let row = md
                .lines()
                .find(|l| l.starts_with(run) && l.ends_with(" cores |"));
            row.unwrap_or_else(|| panic!("no row {run}: {md}"))
        };
        let monolith = run_row("| conduit-mixed / conduit-monolith |");
        assert!(monolith.contains("| 0.80 | 0.50 |"), "{monolith}");
        let first = run_row("| orders-baseline / orders-direct |");
        assert!(first.contains(" | - | "), "{first}");
    }

    #[test]
    fn each_run_says_its_cpu_share_and_a_busy_machine_is_warned_of() {
        // GIVEN runs on cgroup v1, the first of which waited for a core 60 %
        // of its billed time
        let mut results = testdata::results();
        let metering = results.records[0].metering.as_mut().unwrap();
        for f in metering.functions.values_mut() {
            f.contention_ms = f.billed_ms * 0.6;
        }
        // WHEN summarised
        let md = summary(&results);
        // THEN every run says the mode and its contention
        assert!(md.contains("### CPU share and contention"), "{md}");
        assert!(md.contains("`--cpu-share aws`"), "{md}");
        assert!(
            md.contains("- orders-baseline / orders-queue: CPU share: cgroup-v1 (each environment at memory/1,769 vCPU); contention 1.0 % of the billed time"),
            "{md}"
        );
        // AND the busy run alone has a warning
        assert_eq!(md.matches("WARNING: contention").count(), 1, "{md}");
        assert!(
            md.contains("- **orders-baseline / orders-direct: WARNING: contention moves the cost per million successful requests from $"),
            "{md}"
        );
    }

    #[test]
    fn saturated_load_generator_is_said() {
        let mut results = testdata::results();
        results.records[0].cpu.load_generator_saturated = true;
        assert!(summary(&results).contains("SATURATED"));
    }

    #[test]
    fn the_monthly_tables_come_first_then_where_the_bills_cross() {
        // GIVEN the sample run (orders and Conduit)
        let md = summary(&testdata::results());
        // THEN both tables, the pointer to the chart, then the crossings
        let conduit_table = position(&md, "### Monthly bill by request rate: Conduit");
        let chart = position(&md, "report.html draws these bills");
        let orders = position(&md, "Where the bills cross, orders scenarios:");
        assert!(conduit_table < chart && chart < orders);
        assert!(orders < position(&md, "Where the bills cross, Conduit:"));
    }
}
