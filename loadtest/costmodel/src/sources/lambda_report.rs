//! Lambda `REPORT` log lines into [`FunctionUsage`].
//!
//! Accepts the lines as AWS prints them in every form we have met: the text format
//! (fields separated by tabs, or by spaces after a copy and paste; optional `Init
//! Duration`, `Restore Duration`/`Billed Restore Duration` (SnapStart), `Status` and
//! `Error Type`, `XRAY ...` trailers; any prefix such as a timestamp or a log stream
//! name) and the JSON format's `platform.report` records.

use serde_json::Value;

use crate::error::{CostError, Result};
use crate::usage::FunctionUsage;

/// One invocation's figures.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub request_id: String,
    pub duration_ms: f64,
    pub billed_ms: f64,
    pub memory_mb: f64,
    pub max_memory_used_mb: Option<f64>,
    pub init_ms: Option<f64>,
    pub billed_restore_ms: Option<f64>,
    /// `timeout`, `error`... when AWS prints one (absent on success in the text format).
    pub status: Option<String>,
}

impl Report {
    /// The part of the billed duration spent in INIT. AWS includes INIT in `Billed
    /// Duration` where it bills it (custom runtimes always; managed ones since August
    /// 2025); an older line whose billed time does not cover INIT did not bill it.
    pub fn init_billed_ms(&self) -> f64 {
        match self.init_ms {
            Some(init) if self.billed_ms + 1.0 >= self.duration_ms + init => init,
            _ => 0.0,
        }
    }
}

/// Usage of one function from its log, plus the bytes the log itself weighs.
#[derive(Debug, Clone, PartialEq)]
pub struct LogSummary {
    pub usage: FunctionUsage,
    pub reports: usize,
    /// Bytes of all lines read (START, END, REPORT, application lines): an estimate of
    /// what CloudWatch Logs ingests for them.
    pub log_bytes: f64,
}

const TEXT_MARKER: &str = "REPORT RequestId:";

/// Longest first, so `Billed Duration:` is not read as `Duration:`.
const LABELS: [&str; 13] = [
    "Billed Restore Duration:",
    "Restore Duration:",
    "Max Memory Used:",
    "Billed Duration:",
    "Init Duration:",
    "XRAY TraceId:",
    "Memory Size:",
    "Error Type:",
    "RequestId:",
    "Duration:",
    "SegmentId:",
    "Sampled:",
    "Status:",
];

/// `Ok(None)` for lines that are not REPORT lines; an error for a REPORT line that
/// lacks a figure the bill needs.
pub fn parse_report_line(line: &str) -> std::result::Result<Option<Report>, String> {
    if let Some(start) = line.find(TEXT_MARKER) {
        return parse_text(&line[start + "REPORT ".len()..]).map(Some);
    }
    if line.contains("\"platform.report\"") {
        if let Some(start) = line.find('{') {
            return parse_json(&line[start..]).map(Some);
        }
    }
    Ok(None)
}

/// Sums every REPORT line of one function's log. The log must hold at least one, and
/// all with the same memory size (a changed configuration is a different usage).
pub fn summarise_log(name: &str, architecture: &str, log: &str) -> Result<LogSummary> {
    let mut usage = FunctionUsage {
        name: name.to_string(),
        architecture: architecture.to_string(),
        ..FunctionUsage::default()
    };
    let mut reports = 0;
    let mut log_bytes = 0.0;
    for (index, line) in log.lines().enumerate() {
        log_bytes += line.len() as f64 + 1.0;
        let report = parse_report_line(line).map_err(|message| CostError::ReportLine {
            line: index + 1,
            message,
        })?;
        let Some(report) = report else { continue };
        if reports > 0 && report.memory_mb != usage.memory_mb {
            return Err(CostError::ReportLine {
                line: index + 1,
                message: format!(
                    "memory size {} MB differs from {} MB on earlier lines; split the log per configuration",
                    report.memory_mb, usage.memory_mb
                ),
            });
        }
        usage.memory_mb = report.memory_mb;
        usage.invocations += 1.0;
        let restore = report.billed_restore_ms.unwrap_or(0.0);
        usage.billed_ms_total += report.billed_ms + restore;
        usage.init_ms_total += report.init_billed_ms() + restore;
        reports += 1;
    }
    if reports == 0 {
        return Err(CostError::ReportLine {
            line: 0,
            message: format!("no REPORT line in the log of `{name}`"),
        });
    }
    Ok(LogSummary {
        usage,
        reports,
        log_bytes,
    })
}

fn parse_text(fields: &str) -> std::result::Result<Report, String> {
    let values = split_labels(fields);
    let get = |label: &str| values.iter().find(|(l, _)| *l == label).map(|(_, v)| *v);
    let number = |label: &str| get(label).map(|v| leading_number(label, v)).transpose();
    let required = |label: &str| number(label)?.ok_or_else(|| format!("no `{label}` field"));
    Ok(Report {
        request_id: get("RequestId:")
            .and_then(|v| v.split_whitespace().next())
            .ok_or("no request id")?
            .to_string(),
        duration_ms: required("Duration:")?,
        billed_ms: required("Billed Duration:")?,
        memory_mb: required("Memory Size:")?,
        max_memory_used_mb: number("Max Memory Used:")?,
        init_ms: number("Init Duration:")?,
        billed_restore_ms: number("Billed Restore Duration:")?,
        status: get("Status:").map(|v| v.trim().to_string()),
    })
}

/// Splits `Label: value Label: value` on the known labels, wherever they start a word.
fn split_labels(text: &str) -> Vec<(&'static str, &str)> {
    let mut found: Vec<(usize, &'static str)> = Vec::new();
    let mut position = 0;
    while position < text.len() {
        let at_word_start = position == 0
            || text[..position]
                .chars()
                .next_back()
                .is_some_and(char::is_whitespace);
        let label = LABELS
            .iter()
            .find(|label| at_word_start && text[position..].starts_with(*label));
        match label {
            Some(label) => {
                found.push((position, label));
                position += label.len();
            }
            None => {
                position += text[position..].chars().next().map_or(1, char::len_utf8);
            }
        }
    }
    found
        .iter()
        .enumerate()
        .map(|(i, (start, label))| {
            let end = found.get(i + 1).map_or(text.len(), |(next, _)| *next);
            (*label, text[start + label.len()..end].trim())
        })
        .collect()
}

fn leading_number(label: &str, value: &str) -> std::result::Result<f64, String> {
    let first = value.split_whitespace().next().unwrap_or("");
    match first.parse::<f64>() {
        Ok(number) if number.is_finite() && number >= 0.0 => Ok(number),
        _ => Err(format!("`{label}` has no number: `{value}`")),
    }
}

fn parse_json(text: &str) -> std::result::Result<Report, String> {
    let value: Value = serde_json::from_str(text.trim())
        .map_err(|e| format!("platform.report is not valid JSON: {e}"))?;
    let record = &value["record"];
    let metrics = &record["metrics"];
    let number = |key: &str| metrics[key].as_f64().filter(|n| n.is_finite() && *n >= 0.0);
    let required = |key: &str| number(key).ok_or_else(|| format!("no `metrics.{key}`"));
    Ok(Report {
        request_id: record["requestId"]
            .as_str()
            .ok_or("no `record.requestId`")?
            .to_string(),
        duration_ms: required("durationMs")?,
        billed_ms: required("billedDurationMs")?,
        memory_mb: required("memorySizeMB")?,
        max_memory_used_mb: number("maxMemoryUsedMB"),
        init_ms: number("initDurationMs"),
        billed_restore_ms: number("billedRestoreDurationMs"),
        status: record["status"].as_str().map(str::to_string),
    })
}

#[cfg(test)]
#[path = "lambda_report_tests.rs"]
mod tests;
