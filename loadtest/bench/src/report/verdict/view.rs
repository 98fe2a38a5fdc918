//! The verdict as the reports show it: a box per question at the top of
//! report.html, the first lines of summary.md and README's "Results".

use std::fmt::Write;

use super::findings::{Call, QuestionVerdict};
use super::Verdict;
use crate::report::svg::escape;

/// The boxes' style, added to the report's.
pub const CSS: &str = ".verdict{background:#f7f9fc;border:1px solid #c9d6ea;border-radius:6px;padding:10px 16px;margin:0 0 16px}\
.verdict h2{margin:4px 0}.verdict .stamp{color:#444;font-size:13px;margin:4px 0 10px}\
.verdict .boxes{display:flex;gap:14px;flex-wrap:wrap}\
.verdict .box{flex:1 1 560px;background:#fff;border:1px solid #d5dde8;border-left:5px solid #2a6fb0;border-radius:4px;padding:6px 12px}\
.verdict h3{margin:6px 0;font-size:16px}.verdict .wins{margin:4px 0 6px;font-size:14px}\
.verdict ul{margin:4px 0;padding-left:18px;font-size:13px;line-height:1.35}.verdict li{margin:3px 0}";

/// `Full run of 2026-12-03 at commit `cf6296c` on AMD EPYC, 2 cores`: the
/// date and commit the README's check reads back.
fn stamp_line(v: &Verdict) -> String {
    let s = &v.stamp;
    format!(
        "{} run of {} at commit `{}` on {} ({}).",
        capitalised(&s.mode),
        s.date,
        s.commit,
        s.machine,
        s.settings()
    )
}

fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// `Latency: **monolith** · Under overload: tie (within noise) · ...`,
/// each winner wrapped by `strong`.
fn winners(q: &QuestionVerdict, strong: impl Fn(&str) -> String) -> String {
    q.winners
        .iter()
        .map(|(aspect, call)| {
            let who = match call {
                Call::Winner(name) => strong(name),
                Call::Tie(_) => "tie (within noise)".into(),
                Call::NotMeasured => "no winner measured".into(),
            };
            format!("{}: {who}", aspect.label())
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

/// The verdict in Markdown, without a heading; empty without a question.
pub fn markdown(v: &Verdict) -> String {
    if v.questions.is_empty() {
        return String::new();
    }
    let mut md = format!("{}\n\n", stamp_line(v));
    for (i, q) in v.questions.iter().enumerate() {
        let _ = writeln!(
            md,
            "**{}. {}** {}\n",
            i + 1,
            q.question,
            winners(q, |w| format!("**{w}**"))
        );
        for f in &q.findings {
            let _ = writeln!(md, "- *{}*: {}", f.aspect.label(), f.text);
        }
        md.push('\n');
    }
    md
}

/// The key figures of every question, one row per architecture.
pub fn figures_markdown(v: &Verdict) -> String {
    let mut md = String::from(
        "| question | architecture | p95, healthy load [95 % interval] | under overload | $ per M ok, healthy load [95 % interval] |\n|---|---|---|---|---|\n",
    );
    for (i, q) in v.questions.iter().enumerate() {
        for f in &q.figures {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} |",
                i + 1,
                f.architecture,
                f.p95_ms.map_or_else(
                    || "-".into(),
                    |p| between(format!("{p:.0} ms"), f.p95_interval, |v| format!("{v:.0}"))
                ),
                f.overload,
                f.usd_per_million_ok.map_or_else(
                    || "-".into(),
                    |u| between(format!("{u:.2}"), f.usd_interval, |v| format!("{v:.2}"))
                )
            );
        }
    }
    md
}

/// What the brackets and the ties mean, under every table of key figures.
pub const INTERVALS_NOTE: &str = "\nEvery interval, in words or [low-high], is a 95 % interval from a bootstrap over 2-5 s blocks of the run's own \
requests. An answer names a winner only where the 95 % interval of the ratio (or difference) between the two \
excludes no difference, and says \"tie (within noise)\" otherwise; equal capacity floors are a tie \
(docs/bench.md, \"Intervals and ties\").\n";

/// `38 ms [36-40]`: a figure and its 95 % interval.
fn between(figure: String, interval: Option<(f64, f64)>, fmt: impl Fn(f64) -> String) -> String {
    interval.map_or(figure.clone(), |(lo, hi)| {
        format!("{figure} [{}-{}]", fmt(lo), fmt(hi))
    })
}

/// The verdict as the report's first section; empty without a question.
pub fn html(v: &Verdict) -> String {
    if v.questions.is_empty() {
        return String::new();
    }
    let mut html = format!(
        "<section class=\"verdict\"><h2>Verdict</h2><p class=\"stamp\">{}</p><div class=\"boxes\">",
        code_spans(&stamp_line(v))
    );
    for (i, q) in v.questions.iter().enumerate() {
        let _ = write!(
            html,
            "<div class=\"box\"><h3>{}. {}</h3><p class=\"wins\">{}</p><ul>",
            i + 1,
            escape(q.question),
            winners(q, |w| format!("<b>{}</b>", escape(w)))
        );
        for f in &q.findings {
            let _ = write!(
                html,
                "<li><b>{}.</b> {}</li>",
                f.aspect.label(),
                code_spans(&f.text)
            );
        }
        html.push_str("</ul></div>");
    }
    let _ = write!(
        html,
        "</div><p class=\"stamp\">{}</p></section>",
        code_spans(INTERVALS_NOTE.trim())
    );
    html
}

/// Escaped, with `code` spans as `<code>`.
fn code_spans(text: &str) -> String {
    escape(text)
        .split('`')
        .enumerate()
        .map(|(i, part)| {
            if i % 2 == 1 {
                format!("<code>{part}</code>")
            } else {
                part.to_string()
            }
        })
        .collect()
}

#[cfg(test)]
#[path = "view_tests.rs"]
mod tests;
