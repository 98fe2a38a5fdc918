//! The self-contained HTML report: inline CSS and SVG, no script, no CDN.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::answers::{self, Table};
use super::cpu_share::{self, CpuNote};
use super::run_row::RunRow;
use super::stacked::stacked_bar_chart;
use super::svg::{escape, line_chart, Series, COLORS};
use super::verdict;
use super::{title, CPU_HEADERS};
use crate::results::{Results, RunRecord};

pub fn render(results: &Results) -> String {
    // A denial first (a scenario failed for want of a permission), then the
    // verdict: the first screen answers the questions.
    let mut body = super::iam::html_warning(results);
    body.push_str(&verdict::view::html(&verdict::verdict(results)));
    let m = &results.machine;
    let _ = write!(
        body,
        "<h1>Serverless bench: {:?} run on {}</h1><p>Commit <code>{}</code> &middot; {} cores, {} MB, {} &middot; {} to {} &middot; {}</p>",
        results.mode,
        escape(&results.target),
        escape(&results.git_commit),
        m.cores,
        m.ram_mb,
        escape(&m.cpu_model),
        escape(&results.started_at),
        escape(&results.finished_at),
        escape(&results.scaling)
    );
    answers_first(&mut body, results);
    monthly_bills(&mut body, results);
    cost_chart(&mut body, results);
    body.push_str("<p>Throughput counts successful requests only; failures are shown apart. Latency percentiles are of successful requests. Cost is priced by the cost model from the local cloud's metering and divided by successful requests.</p>");
    cpu_share(&mut body, results);
    body.push_str("<h2>Summary</h2>");
    body.push_str(&markdown_table_as_html(results));
    capacity(&mut body, results);
    body.push_str(&super::ledger::html(results));
    body.push_str(&super::iam::html(results));
    for r in &results.records {
        record_section(&mut body, r);
    }
    if !results.skipped.is_empty() {
        body.push_str("<h2>Not run</h2><ul>");
        for s in &results.skipped {
            let _ = write!(
                body,
                "<li>{} / {}: {}</li>",
                escape(&s.scenario),
                escape(&s.pass().label(&s.variant)),
                escape(&s.reason)
            );
        }
        body.push_str("</ul>");
    }
    format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Bench report</title><style>{CSS}{}</style></head><body>{body}</body></html>\n",
        verdict::view::CSS
    )
}

const CSS: &str = "body{font-family:system-ui,sans-serif;margin:24px;color:#222;max-width:1400px}\
table{border-collapse:collapse;font-size:13px;margin:8px 0}td,th{border:1px solid #ccc;padding:3px 7px;text-align:right}\
th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}section{border-top:2px solid #eee;margin-top:18px}\
.charts{display:flex;flex-wrap:wrap;gap:12px}.warn{color:#b00;font-weight:bold}code{background:#f5f5f5}\
.note{color:#555;font-size:13px;max-width:1000px}";

/// The experiments' questions and their measured answers, before anything else.
fn answers_first(body: &mut String, results: &Results) {
    let answers = super::compute_table::all_answers(results);
    if answers.is_empty() {
        return;
    }
    body.push_str("<h2>Answers</h2>");
    for (i, answer) in answers.iter().enumerate() {
        let _ = write!(body, "<h3>{}. {}</h3>", i + 1, escape(answer.question));
        body.push_str(&table_html(&answer.table));
    }
    let _ = write!(
        body,
        "<p class=\"note\">{}</p>",
        escape(&answers::assumptions(results))
    );
}

/// The monthly bills per question (`report::monthly`): the chart, where the
/// bills cross folded away under it, the table at the standard rates.
fn monthly_bills(body: &mut String, results: &Results) {
    let Some(view) = super::monthly::monthly(results) else {
        return;
    };
    for section in &view.sections {
        let _ = write!(body, "<h3>{}</h3>", escape(&section.title));
        body.push_str(&section.chart.svg(super::monthly_chart::TITLE));
        let items: String = section
            .break_even
            .iter()
            .map(|s| format!("<li>{}</li>", escape(s)))
            .collect();
        let _ = write!(
            body,
            "<details class=\"note\"><summary>Where the bills cross: {} comparisons, {} crossings marked</summary><ul>{items}</ul></details>",
            section.break_even.len(),
            section.chart.crossings.len()
        );
        body.push_str(&table_html(&section.table));
    }
    let _ = write!(body, "<p class=\"note\">{}</p>", escape(&view.note));
}

fn table_html(table: &Table) -> String {
    let mut html = String::from("<table><tr>");
    for h in &table.headers {
        let _ = write!(html, "<th>{}</th>", escape(h));
    }
    html.push_str("</tr>");
    for row in &table.rows {
        html.push_str("<tr>");
        for cell in row {
            let _ = write!(html, "<td>{}</td>", escape(cell));
        }
        html.push_str("</tr>");
    }
    html.push_str("</table>");
    html
}

/// Where the money goes: each run's bill per heading, stacked.
fn cost_chart(body: &mut String, results: &Results) {
    let bars = answers::cost_by_line(results);
    if bars.is_empty() {
        return;
    }
    body.push_str("<h2>Cost per million successful requests, by line</h2>");
    let (measured, _) = answers::architectures(results);
    body.push_str(&stacked_bar_chart(
        &format!("USD per million successful requests ({measured}, as measured), by bill line"),
        "$",
        &bars,
    ));
}

/// Per run: which CPU share produced its durations and its contention; a
/// run whose contention moves its cost per successful request out of its
/// interval is warned of (`cpu_share::contention_warning`).
fn cpu_share(body: &mut String, results: &Results) {
    let notes: Vec<(&RunRecord, CpuNote)> = results
        .records
        .iter()
        .filter_map(|r| Some((r, cpu_share::note(r)?)))
        .collect();
    if notes.is_empty() {
        return;
    }
    body.push_str("<h2>CPU share and contention</h2>");
    if let Some(asked) = results.cpu_share {
        let _ = write!(
            body,
            "<p>Asked of the local cloud: <code>--cpu-share {}</code>.</p>",
            asked.as_str()
        );
    }
    body.push_str("<ul>");
    for (r, note) in notes {
        let asked = cpu_share::asked_note(results.cpu_share, r);
        let _ = write!(
            body,
            "<li>{}: {}{}",
            escape(&title(r)),
            escape(&note.mode),
            escape(&asked)
        );
        if let Some(c) = &note.contention {
            let _ = write!(body, "; {}", escape(c));
        }
        if let Some(w) = &note.warning {
            let _ = write!(body, "<br><span class=\"warn\">{}</span>", escape(w));
        }
        body.push_str("</li>");
    }
    body.push_str("</ul>");
}

fn markdown_table_as_html(results: &Results) -> String {
    let cpu_headers: String = CPU_HEADERS
        .iter()
        .map(|h| format!("<th>{h}</th>"))
        .collect();
    let mut html = format!("<table><tr><th>run</th><th>kind</th><th>ok req/s</th><th>failed req/s</th><th>errors</th><th>p50 ms</th><th>p95 ms</th><th>p99 ms</th><th>throttles</th><th>cold starts</th>{cpu_headers}<th>$ per M ok</th><th>load generator</th></tr>");
    for row in results.records.iter().map(RunRow::of) {
        let generator = if row.load_generator_saturated {
            format!(
                "<span class=\"warn\">{}</span>",
                row.load_generator("saturated")
            )
        } else {
            row.load_generator("saturated")
        };
        let _ = write!(
            html,
            "<tr><td>{}</td><td>{:?}</td><td>{}</td><td>{generator}</td></tr>",
            escape(&row.title),
            row.kind,
            row.figure_cells().join("</td><td>")
        );
    }
    html.push_str("</table>");
    html
}

fn capacity(body: &mut String, results: &Results) {
    if results.capacity.is_empty() {
        return;
    }
    body.push_str("<h2>Conduit capacity (p95 &lt; 500 ms, p99 &lt; 1 s, errors &lt; 1 %)</h2><table><tr><th>variant</th><th>users held</th><th>steps</th></tr>");
    for c in &results.capacity {
        let steps: Vec<String> = c
            .steps
            .iter()
            .map(|s| {
                format!(
                    "{} users: {}",
                    s.users,
                    if s.held {
                        "held".to_string()
                    } else {
                        s.violations.join(", ")
                    }
                )
            })
            .collect();
        let held = c
            .users_held
            .map_or_else(|| "none".into(), |u| u.to_string());
        let _ = write!(
            body,
            "<tr><td>{}</td><td>{held}</td><td>{}</td></tr>",
            escape(&c.pass().label(&c.variant)),
            escape(&steps.join("; "))
        );
    }
    body.push_str("</table>");
}

fn record_section(body: &mut String, r: &RunRecord) {
    let _ = write!(body, "<section><h3>{}</h3>", escape(&title(r)));
    let params: Vec<String> = r
        .settings
        .parameters
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    let memory: Vec<String> = r
        .settings
        .memory_mb
        .iter()
        .map(|(k, v)| format!("{k}: {v:.0} MB"))
        .collect();
    let _ = write!(
        body,
        "<p>Load: Goose plan <code>{}</code> (original <code>{}</code>){}{}, through the {} at <code>{}</code>. Settings: {}; memory: {}; account concurrency {}.</p>",
        escape(&r.load.shape.describe()),
        escape(&r.load.original_shape.describe()),
        r.load.size.map_or_else(String::new, |s| format!(", size {s}")),
        r.load.think_time_s.map_or_else(|| ", closed loop, no think time".into(), |(a, b)| format!(", think time {a}-{b} s")),
        r.pass().describe(),
        escape(&r.settings.base_url),
        escape(&params.join(", ")),
        escape(&memory.join(", ")),
        r.settings.account_concurrency_limit
    );
    if let Some(note) = cpu_share::note(r) {
        let contention = note
            .contention
            .map(|c| format!("; {c}"))
            .unwrap_or_default();
        let _ = write!(body, "<p>{}{}</p>", escape(&note.mode), escape(&contention));
        if let Some(w) = note.warning {
            let _ = write!(body, "<p class=\"warn\">{}</p>", escape(&w));
        }
    }
    if !r.failure_reasons.is_empty() {
        let reasons: Vec<String> = r
            .failure_reasons
            .iter()
            .map(|(k, v)| format!("{} x {v}", escape(k)))
            .collect();
        let _ = write!(body, "<p>Failures: {}</p>", reasons.join("; "));
    }
    let t = |f: fn(&crate::recorder::Point) -> Option<f64>| -> Vec<(f64, f64)> {
        r.series
            .iter()
            .filter_map(|p| Some((p.t_s, f(p)?)))
            .collect()
    };
    let latency = line_chart(
        &format!("Latency of successful requests: {}", title(r)),
        "seconds",
        "ms",
        &[
            Series {
                label: "p50",
                color: COLORS[0],
                points: t(|p| p.p50_ms),
            },
            Series {
                label: "p95",
                color: COLORS[3],
                points: t(|p| p.p95_ms),
            },
            Series {
                label: "p99",
                color: COLORS[1],
                points: t(|p| p.p99_ms),
            },
        ],
    );
    let throughput = line_chart(
        &format!("Throughput: {}", title(r)),
        "seconds",
        "requests/s",
        &[
            Series {
                label: "successful",
                color: COLORS[2],
                points: t(|p| Some(p.successful_rps)),
            },
            Series {
                label: "failed",
                color: COLORS[1],
                points: t(|p| Some(p.failed_rps)),
            },
        ],
    );
    let _ = write!(body, "<div class=\"charts\">{latency}{throughput}</div>");
    if let Some(m) = &r.metering {
        body.push_str("<table><tr><th>function</th><th>memory MB</th><th>invocations</th><th>billed ms</th><th>cold starts</th><th>throttles</th><th>errors</th><th>CPU ms</th><th>of which Argon2id</th><th>peak concurrency</th></tr>");
        for (name, f) in &m.functions {
            // A dash: no Argon2id thread (no password hashed) or not metered.
            let argon2 = f
                .argon2_cpu_ms()
                .map_or_else(|| "-".into(), |ms| format!("{ms:.0}"));
            let _ = write!(
                body,
                "<tr><td>{}</td><td>{:.0}</td><td>{:.0}</td><td>{:.0}</td><td>{:.0}</td><td>{:.0}</td><td>{:.0}</td><td>{:.0}</td><td>{argon2}</td><td>{:.0}</td></tr>",
                escape(name), f.memory_mb, f.invocations, f.billed_ms, f.cold_starts, f.throttles, f.errors, f.cpu_ms, f.peak_concurrent_executions
            );
        }
        for (group, (count, billed)) in queue_groups(m) {
            let queues = if count > 1 {
                format!(" ({count} queues)")
            } else {
                String::new()
            };
            let _ = write!(body, "<tr><td>queue {}{queues}</td><td colspan=\"9\">{billed:.0} billed SQS requests</td></tr>", escape(&group));
        }
        for (name, t) in &m.tables {
            let _ = write!(body, "<tr><td>table {}</td><td colspan=\"9\">{:.1} read units, {:.1} write units</td></tr>", escape(name), t.read_units, t.write_units);
        }
        body.push_str("</table>");
    }
    if let Some(goose) = &r.goose_report {
        let _ = write!(
            body,
            "<p>Goose's own report: <a href=\"{0}\">{0}</a></p>",
            escape(goose)
        );
    }
    body.push_str("</section>");
}

/// Reply queues, one per execution environment, shown as one line:
/// `bench-orders-reply-<32 hex>` -> `bench-orders-reply-*`.
fn queue_groups(m: &crate::metering::RunMetering) -> BTreeMap<String, (usize, f64)> {
    let mut groups: BTreeMap<String, (usize, f64)> = BTreeMap::new();
    for (name, q) in &m.queues {
        let group = match name.rsplit_once('-') {
            Some((prefix, id)) if id.len() >= 16 && id.chars().all(|c| c.is_ascii_hexdigit()) => {
                format!("{prefix}-*")
            }
            _ => name.clone(),
        };
        let entry = groups.entry(group).or_default();
        entry.0 += 1;
        entry.1 += q.billed_requests;
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdata;

    #[test]
    fn report_has_every_variant_and_an_svg_per_chart() {
        // GIVEN results with two records
        let results = testdata::results();
        // WHEN rendered
        let html = render(&results);
        // THEN each variant is there, with 2 charts per record plus the cost
        // chart and a monthly bill chart per question (orders, Conduit)
        for variant in results.variants() {
            assert!(html.contains(&variant), "{variant} missing");
        }
        assert_eq!(
            html.matches("<svg").count(),
            2 * results.records.len() + 1 + 2
        );
        assert!(html.contains("Cost per million successful requests, by line"));
        assert!(html.contains("orders-largepayload / orders-queue: not selected"));
    }

    #[test]
    fn run_tables_show_argon2_apart() {
        // GIVEN Conduit runs whose functions spent 0.8 ms per request, 0.3 on
        // Argon2id
        let html = render(&testdata::results());
        // THEN the runs table has the figure without it beside the whole
        assert!(html.contains("<th>fn CPU ms/req</th><th>fn CPU ms/req excl. Argon2id</th>"));
        assert!(html.contains("<td>0.80</td><td>0.50</td>"), "{html}");
        // AND each function's table its Argon2id CPU, a dash without the thread
        assert!(html.contains("<th>CPU ms</th><th>of which Argon2id</th>"));
        assert!(html.contains("<td>160</td><td>60</td>"), "{html}");
        assert!(html.contains("<td>160</td><td>-</td>"), "{html}");
    }

    #[test]
    fn answers_come_before_the_cost_chart_and_the_run_details() {
        let html = render(&testdata::results());
        let at = |text: &str| html.find(text).unwrap_or_else(|| panic!("{text} missing"));
        assert!(at("<h2>Answers</h2>") < at("by line</h2>"));
        assert!(at("by line</h2>") < at("<h2>Summary</h2>"));
        assert!(html.contains("1. Direct call or queue"));
        assert!(html.contains("2. One Lambda or many"));
        assert!(html.contains("measured on x86_64"));
    }

    #[test]
    fn rest_runs_say_their_door_and_are_compared_with_http() {
        let html = render(&testdata::results_with_rest());
        assert!(html.contains("<h3>3. HTTP API or REST API in front"));
        assert!(html.contains("<h3>orders-baseline / orders-direct (REST API)</h3>"));
        assert!(html.contains("through the REST API at <code>"));
        assert!(html.contains("through the HTTP API at <code>"));
    }

    #[test]
    fn each_run_says_its_cpu_share_and_a_busy_one_is_warned_of_in_red() {
        // GIVEN runs on cgroup v1, the orders-queue baseline with 60 %
        // contention
        let mut results = testdata::results();
        let metering = results.records[1].metering.as_mut().unwrap();
        for f in metering.functions.values_mut() {
            f.contention_ms = f.billed_ms * 0.6;
        }
        // WHEN rendered
        let html = render(&results);
        // THEN the mode is said once in the list and once per run section
        let mode = "CPU share: cgroup-v1 (each environment at memory/1,769 vCPU)";
        assert_eq!(html.matches(mode).count(), 2 * results.records.len());
        assert!(html.contains("<h2>CPU share and contention</h2>"));
        // AND the busy run has its warning in both places, marked
        let warning = "<span class=\"warn\">WARNING: contention moves the cost";
        assert_eq!(html.matches(warning).count(), 1, "{html}");
        assert_eq!(
            html.matches("<p class=\"warn\">WARNING: contention moves the cost")
                .count(),
            1
        );
        assert_eq!(html.matches("WARNING: contention").count(), 2);
    }

    #[test]
    fn reply_queues_are_one_line_per_prefix() {
        let mut m = crate::metering::RunMetering::default();
        for (name, billed) in [
            ("bench-orders-reply-0547b391e343427fb546ec5dbd016e7f", 10.0),
            ("bench-orders-reply-05b127530f654f7c81bbd7c03a2cf943", 5.0),
            ("bench-orders-requests", 7.0),
        ] {
            let q = crate::metering::QueueFigures {
                billed_requests: billed,
                ..Default::default()
            };
            m.queues.insert(name.to_string(), q);
        }
        let groups = queue_groups(&m);
        assert_eq!(groups["bench-orders-reply-*"], (2, 15.0));
        assert_eq!(groups["bench-orders-requests"], (1, 7.0));
    }

    #[test]
    fn a_denial_opens_the_report() {
        let mut results = testdata::results();
        let evidence = results.iam.as_mut().unwrap();
        evidence.add(
            "orders-faults / orders-queue",
            &testdata::iam_document(1, 3),
        );
        let html = render(&results);
        assert!(html.contains("<body><p class=\"warn\">IAM denied calls in 1 run(s)"));
    }

    #[test]
    fn report_needs_nothing_from_the_network() {
        let html = render(&testdata::results());
        assert!(!html.contains("<script"));
        assert!(!html.contains("src=\"http") && !html.contains("url(http"));
        assert!(!html.contains("<link"));
    }

    #[test]
    fn the_monthly_bill_is_a_chart_per_question_with_the_crossings_folded_under_it() {
        // GIVEN the sample run (orders and Conduit)
        let html = render(&testdata::results());
        // THEN each question's heading is followed by its chart, the list of
        // crossings folded away, then the table
        let headings: Vec<usize> = html
            .match_indices("<h3>Monthly bill by request rate")
            .map(|(i, _)| i)
            .collect();
        assert_eq!(headings.len(), 2);
        for start in headings {
            let after = |text: &str| start + html[start..].find(text).unwrap();
            assert!(after("<svg") < after("<details"));
            assert!(after("<details") < after("<summary>Where the bills cross"));
            assert!(after("</details>") < after("<table>"));
        }
    }
}
