//! `tune.html` (self-contained: inline CSS and SVG, no script) and `tune.md`:
//! the picks in sentences first, then the charts and every setting.

use std::collections::BTreeSet;
use std::fmt::Write;

use super::document::{TuneDocument, TuneSetting};
use crate::report::cpu_share::{asked_note, mode_text};
use crate::report::ms;
use crate::report::svg::{escape, line_chart, Series, COLORS};
use crate::sla::Sla;

/// The SLA in words: `p95 < 500 ms, p99 < 1000 ms, errors < 1 %`.
pub fn sla_text(sla: &Sla) -> String {
    format!(
        "p95 < {:.0} ms, p99 < {:.0} ms, errors < {} %",
        sla.p95_ms,
        sla.p99_ms,
        sla.max_error_rate * 100.0
    )
}

/// Which SLA a tuning used and why, first in its reports: `SLA p95 < 750
/// ms, p99 < 1000 ms, errors < 1 %: the orders back end waits 500 ms by
/// design (OrdersDelayMs), ...`.
pub fn sla_sentence(sla: &Sla, reason: &str) -> String {
    if reason.is_empty() {
        return format!("SLA {}.", sla_text(sla));
    }
    format!("SLA {}: {reason}.", sla_text(sla))
}

fn usd(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |v| format!("${v:.2}"))
}

fn at(s: &TuneSetting) -> String {
    format!(
        "{} MB: p95 {} ms, {} per million successful requests ({} of it Lambda)",
        s.memory_mb,
        ms(s.p95_ms),
        usd(s.usd_per_million_ok),
        usd(s.lambda_usd_per_million_ok)
    )
}

/// The three picks as sentences, in the order the reports give them.
pub fn pick_sentences(doc: &TuneDocument) -> Vec<String> {
    let sla = sla_text(&doc.sla);
    let picks = &doc.picks;
    let mut lines = Vec::new();
    if picks.none_meets_sla {
        lines.push(format!(
            "No setting met the SLA ({sla}): there is no cheapest or balanced pick. Look at the errors and the p99 below, or at a lighter load."
        ));
    }
    if let Some(s) = doc.setting(picks.cheapest_meeting_sla) {
        lines.push(format!("Cheapest meeting the SLA ({sla}): {}.", at(s)));
    }
    if let Some(s) = doc.setting(picks.fastest) {
        let sla_note = if s.meets_sla {
            ""
        } else {
            " (it does not meet the SLA)"
        };
        lines.push(format!("Fastest (lowest p95): {}{sla_note}.", at(s)));
    }
    if let Some(s) = doc.setting(picks.balanced) {
        lines.push(format!(
            "Balanced (AWS Lambda Power Tuning's rule: cost and p95 each divided by their largest value among the settings meeting the SLA, weighed {} and {}, the lowest sum): {}.",
            picks.balanced_weight,
            1.0 - picks.balanced_weight,
            at(s)
        ));
    }
    lines
}

/// Functions that ran at some setting, in name order: one line each.
fn functions_that_ran(doc: &TuneDocument) -> BTreeSet<&str> {
    doc.settings
        .iter()
        .flat_map(|s| &s.functions)
        .filter(|(_, f)| f.invocations > 0.0)
        .map(|(name, _)| name.as_str())
        .collect()
}

/// Billed duration per invocation against memory size: one line per
/// function, its points in memory order.
pub fn billed_duration_chart(doc: &TuneDocument) -> String {
    let names: Vec<&str> = functions_that_ran(doc).into_iter().collect();
    let labels = legend_labels(&names);
    let series: Vec<Series> = names
        .iter()
        .zip(&labels)
        .enumerate()
        .map(|(i, (name, label))| Series {
            label,
            color: COLORS[i % COLORS.len()],
            points: memory_points(doc, |s| s.functions.get(*name)?.billed_ms_per_invocation),
        })
        .collect();
    line_chart(
        "Billed duration per invocation, by function",
        "memory size (MB)",
        "billed ms per invocation",
        &series,
    )
}

/// Function names short enough for the chart's legend: without the bench's
/// stack prefix and the `Function` suffix, and, when one is still long,
/// without the prefix they share (`ConduitMicroQueueArticles` -> `Articles`).
fn legend_labels(names: &[&str]) -> Vec<String> {
    let short: Vec<&str> = names
        .iter()
        .map(|n| {
            let n = n.strip_prefix("bench-").unwrap_or(n);
            n.strip_suffix("Function").unwrap_or(n)
        })
        .collect();
    let shared = match short.as_slice() {
        [first, rest @ ..] if !rest.is_empty() => rest.iter().fold(first.len(), |len, n| {
            first
                .bytes()
                .zip(n.bytes())
                .take(len)
                .take_while(|(a, b)| a == b)
                .count()
        }),
        _ => 0,
    };
    let long = short.iter().any(|n| n.len() > 18);
    short
        .iter()
        .map(|n| match n.get(shared..) {
            Some(rest) if long && !rest.is_empty() => rest.to_string(),
            _ => n.to_string(),
        })
        .collect()
}

/// Cost per million successful requests (the whole bill and its Lambda
/// lines) against memory size.
pub fn cost_chart(doc: &TuneDocument) -> String {
    line_chart(
        "Cost per million successful requests",
        "memory size (MB)",
        "USD per million ok",
        &[
            Series {
                label: "whole bill",
                color: COLORS[0],
                points: memory_points(doc, |s| s.usd_per_million_ok),
            },
            Series {
                label: "Lambda",
                color: COLORS[3],
                points: memory_points(doc, |s| s.lambda_usd_per_million_ok),
            },
        ],
    )
}

/// p50, p95 and p99 latency against memory size.
pub fn latency_chart(doc: &TuneDocument) -> String {
    line_chart(
        "Latency of successful requests",
        "memory size (MB)",
        "ms",
        &[
            Series {
                label: "p95",
                color: COLORS[3],
                points: memory_points(doc, |s| s.p95_ms),
            },
            Series {
                label: "p50",
                color: COLORS[0],
                points: memory_points(doc, |s| s.p50_ms),
            },
            Series {
                label: "p99",
                color: COLORS[1],
                points: memory_points(doc, |s| s.p99_ms),
            },
        ],
    )
}

fn memory_points(
    doc: &TuneDocument,
    value: impl Fn(&TuneSetting) -> Option<f64>,
) -> Vec<(f64, f64)> {
    let mut settings: Vec<&TuneSetting> = doc.settings.iter().collect();
    settings.sort_by_key(|s| s.memory_mb);
    settings
        .into_iter()
        .filter_map(|s| Some((f64::from(s.memory_mb), value(s)?)))
        .collect()
}

/// The table's header and one row of cells per setting.
fn table(doc: &TuneDocument) -> (Vec<String>, Vec<Vec<String>>) {
    let names: Vec<&str> = functions_that_ran(doc).into_iter().collect();
    let mut headers: Vec<String> = [
        "memory MB",
        "ok",
        "errors",
        "p50 ms",
        "p95 ms",
        "p99 ms",
        "SLA",
        "Lambda $ per M ok",
        "$ per M ok",
    ]
    .map(String::from)
    .to_vec();
    headers.extend(names.iter().map(|n| format!("{n} billed ms/inv")));
    headers.extend(["CPU share".to_string(), "contention".to_string()]);
    let rows = doc
        .settings
        .iter()
        .map(|s| {
            let mut row = vec![
                s.memory_mb.to_string(),
                s.successes.to_string(),
                format!("{:.2} %", s.error_rate * 100.0),
                ms(s.p50_ms),
                ms(s.p95_ms),
                ms(s.p99_ms),
                if s.meets_sla {
                    "met".into()
                } else {
                    format!("broken: {}", s.violations.join(", "))
                },
                usd(s.lambda_usd_per_million_ok),
                usd(s.usd_per_million_ok),
            ];
            row.extend(names.iter().map(|n| {
                let billed = s.functions.get(*n).and_then(|f| f.billed_ms_per_invocation);
                billed.map_or_else(|| "-".into(), |v| format!("{v:.1}"))
            }));
            row.push(
                s.cpu_share
                    .as_ref()
                    .map_or_else(|| "-".into(), |c| c.mode.as_str().to_string()),
            );
            row.push(
                s.contention_share
                    .map_or_else(|| "-".into(), |c| format!("{:.1} %", c * 100.0)),
            );
            row
        })
        .collect();
    (headers, rows)
}

/// What the durations came from, and a warning per setting whose contention
/// was over 5 % of its billed time.
fn cpu_lines(doc: &TuneDocument) -> Vec<(String, bool)> {
    let asked = doc.cpu_share_asked;
    let mut modes: Vec<String> = doc
        .settings
        .iter()
        .filter_map(|s| {
            let applied = s.cpu_share.as_ref()?;
            Some(mode_text(applied) + &asked_note(Some(asked), &s.record))
        })
        .collect();
    modes.dedup();
    let mut lines: Vec<(String, bool)> = modes.into_iter().map(|m| (m, false)).collect();
    for s in &doc.settings {
        if let Some(warning) = crate::report::cpu_share::note(&s.record).and_then(|n| n.warning) {
            lines.push((format!("{} MB: {warning}", s.memory_mb), true));
        }
    }
    lines
}

fn heading(doc: &TuneDocument) -> String {
    format!("Memory tuning: {} on {}", doc.scenario, doc.variant)
}

fn context(doc: &TuneDocument) -> String {
    let sizes: Vec<String> = doc.memory_mb.iter().map(u32::to_string).collect();
    format!(
        "Memory sizes {} MB, set on {} (the other functions keep the template's). One run per size on a fresh local cloud, `--cpu-share {}`; {}. Commit {}, {} cores, {}. Prices: {} ({}). Latency profile: {}.",
        sizes.join(", "),
        doc.functions_tuned.join(", "),
        doc.cpu_share_asked.as_str(),
        doc.scaling,
        doc.git_commit.get(..10).unwrap_or(&doc.git_commit),
        doc.machine.cores,
        doc.machine.cpu_model,
        doc.price_table_version,
        doc.region,
        doc.latency_profile.as_deref().unwrap_or("none (local latencies only)")
    )
}

pub fn markdown(doc: &TuneDocument) -> String {
    let mut md = format!("## {}\n\n", heading(doc));
    let _ = writeln!(md, "{}\n", sla_sentence(&doc.sla, &doc.sla_reason));
    for line in pick_sentences(doc) {
        let _ = writeln!(md, "- {line}");
    }
    let _ = writeln!(md, "\n{}\n", context(doc));
    for (line, warn) in cpu_lines(doc) {
        if warn {
            let _ = writeln!(md, "- **{line}**");
        } else {
            let _ = writeln!(md, "- {line}");
        }
    }
    let (headers, rows) = table(doc);
    let _ = writeln!(md, "\n| {} |", headers.join(" | "));
    let _ = writeln!(md, "|{}", "---|".repeat(headers.len()));
    for row in rows {
        let _ = writeln!(md, "| {} |", row.join(" | "));
    }
    for n in &doc.not_run {
        let _ = writeln!(md, "\n- not run: {} MB: {}", n.memory_mb, n.reason);
    }
    md
}

const CSS: &str = "body{font-family:system-ui,sans-serif;margin:24px;color:#222;max-width:1400px}\
table{border-collapse:collapse;font-size:13px;margin:8px 0}td,th{border:1px solid #ccc;padding:3px 7px;text-align:right}\
th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}.charts{display:flex;flex-wrap:wrap;gap:12px}\
.warn{color:#b00;font-weight:bold}.picks li{margin:4px 0}.note{color:#555;font-size:13px;max-width:1000px}";

/// Markdown's `code` spans of an escaped text as HTML `<code>` elements (the
/// context line is written once, for both renderers, in Markdown).
fn code_spans(escaped: &str) -> String {
    let mut html = String::with_capacity(escaped.len());
    for (i, part) in escaped.split('`').enumerate() {
        if i % 2 == 1 {
            let _ = write!(html, "<code>{part}</code>");
        } else {
            html.push_str(part);
        }
    }
    html
}

pub fn html(doc: &TuneDocument) -> String {
    let mut body = format!(
        "<h1>{}</h1><p>{}</p><ul class=\"picks\">",
        escape(&heading(doc)),
        escape(&sla_sentence(&doc.sla, &doc.sla_reason))
    );
    for line in pick_sentences(doc) {
        let _ = write!(body, "<li>{}</li>", escape(&line));
    }
    let _ = write!(
        body,
        "</ul><p class=\"note\">{}</p>",
        code_spans(&escape(&context(doc)))
    );
    for (line, warn) in cpu_lines(doc) {
        let class = if warn { "warn" } else { "note" };
        let _ = write!(body, "<p class=\"{class}\">{}</p>", escape(&line));
    }
    let _ = write!(
        body,
        "<div class=\"charts\">{}{}{}</div>",
        cost_chart(doc),
        latency_chart(doc),
        billed_duration_chart(doc)
    );
    let (headers, rows) = table(doc);
    body.push_str("<h2>Every setting</h2><table><tr>");
    for h in headers {
        let _ = write!(body, "<th>{}</th>", escape(&h));
    }
    body.push_str("</tr>");
    for row in rows {
        body.push_str("<tr>");
        for cell in row {
            let _ = write!(body, "<td>{}</td>", escape(&cell));
        }
        body.push_str("</tr>");
    }
    body.push_str("</table>");
    if !doc.not_run.is_empty() {
        body.push_str("<h2>Not run</h2><ul>");
        for n in &doc.not_run {
            let _ = write!(body, "<li>{} MB: {}</li>", n.memory_mb, escape(&n.reason));
        }
        body.push_str("</ul>");
    }
    format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{CSS}</style></head><body>{body}</body></html>\n",
        escape(&heading(doc))
    )
}

#[cfg(test)]
#[path = "render_tests.rs"]
mod tests;
