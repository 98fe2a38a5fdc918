//! `tune.json`: every memory setting tried, its figures, and the picks.

use std::collections::BTreeMap;

use localcloud_metrics::CpuShareMetrics;
use serde::{Deserialize, Serialize};

use super::picks::{Candidate, Picks};
use crate::plan::Mode;
use crate::results::{Machine, RunRecord};
use crate::sla::Sla;
use crate::target::CpuShare;

/// 1: the first shape.
pub const TUNE_SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TuneDocument {
    pub schema_version: u32,
    pub started_at: String,
    pub finished_at: String,
    pub git_commit: String,
    pub machine: Machine,
    pub mode: Mode,
    /// How the original ramps were scaled, in words.
    pub scaling: String,
    pub scenario: String,
    pub variant: String,
    /// Logical ids of the functions whose memory was set (`--function`, or
    /// every function of the variant); the others kept the template's.
    pub functions_tuned: Vec<String>,
    /// The sizes tried, ascending.
    pub memory_mb: Vec<u32>,
    /// Asked of each local cloud (`--cpu-share`); what each applied is in
    /// its setting's `cpu_share`.
    pub cpu_share_asked: CpuShare,
    pub latency_profile: Option<String>,
    pub region: String,
    pub price_table_version: String,
    pub price_date: Option<String>,
    /// Judged against at each size: the bounds given (`--sla-p95-ms`,
    /// `--sla-p99-ms`), else the scenario's default (`chosen_sla`).
    pub sla: Sla,
    /// Why those bounds, in words (empty in a tune.json written before it).
    #[serde(default)]
    pub sla_reason: String,
    /// One per size that ran, ascending.
    pub settings: Vec<TuneSetting>,
    /// Sizes that could not be measured, and why.
    pub not_run: Vec<NotRun>,
    pub picks: Picks,
}

/// One memory size: one run of the scenario on a fresh local cloud.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TuneSetting {
    pub memory_mb: u32,
    pub requests: u64,
    pub successes: u64,
    pub error_rate: f64,
    pub p50_ms: Option<f64>,
    pub p95_ms: Option<f64>,
    pub p99_ms: Option<f64>,
    pub meets_sla: bool,
    /// Why it broke the SLA (empty when it met it).
    pub violations: Vec<String>,
    /// By function name, as metered.
    pub functions: BTreeMap<String, FunctionAtSetting>,
    /// The Lambda lines of the bill: duration (GB-seconds) and requests.
    pub lambda_duration_usd: f64,
    pub lambda_requests_usd: f64,
    /// The whole bill of the run (API Gateway, Lambda, SQS, DynamoDB, logs,
    /// data transfer).
    pub total_usd: f64,
    pub lambda_usd_per_million_ok: Option<f64>,
    pub usd_per_million_ok: Option<f64>,
    /// The CPU share the local cloud applied (what produced the durations).
    pub cpu_share: Option<CpuShareMetrics>,
    /// The functions' contention over their billed time.
    pub contention_share: Option<f64>,
    /// The whole run, as `bench run` records it.
    pub record: RunRecord,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FunctionAtSetting {
    /// As metered: the size set, or the template's for a function not tuned.
    pub memory_mb: f64,
    pub invocations: f64,
    /// `None` without invocations.
    pub billed_ms_per_invocation: Option<f64>,
    pub cpu_ms_per_invocation: Option<f64>,
    pub cpu_share_vcpus: f64,
    pub throttled_ms: f64,
    pub contention_ms: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NotRun {
    pub memory_mb: u32,
    pub reason: String,
}

impl TuneSetting {
    /// The figures of one run at `memory_mb`, judged against `sla`.
    pub fn of(memory_mb: u32, record: RunRecord, sla: &Sla) -> Self {
        let s = &record.summary;
        let violations = sla.violations(s);
        let functions = record
            .metering
            .iter()
            .flat_map(|m| &m.functions)
            .map(|(name, f)| {
                let per = |v: f64| (f.invocations > 0.0).then(|| v / f.invocations);
                let figures = FunctionAtSetting {
                    memory_mb: f.memory_mb,
                    invocations: f.invocations,
                    billed_ms_per_invocation: per(f.billed_ms),
                    cpu_ms_per_invocation: per(f.cpu_ms),
                    cpu_share_vcpus: f.cpu_share_vcpus,
                    throttled_ms: f.throttled_ms,
                    contention_ms: f.contention_ms,
                };
                (name.clone(), figures)
            })
            .collect();
        let line = |heading: &str| {
            record.cost.as_ref().map_or(0.0, |c| {
                c.by_line
                    .iter()
                    .filter(|l| l.heading == heading)
                    .map(|l| l.usd)
                    .sum()
            })
        };
        let (duration, requests) = (line("Lambda duration"), line("Lambda requests"));
        let per_million_ok = |usd: f64| (s.successes > 0).then(|| usd / s.successes as f64 * 1e6);
        Self {
            memory_mb,
            requests: s.requests,
            successes: s.successes,
            error_rate: s.error_rate,
            p50_ms: s.p50_ms,
            p95_ms: s.p95_ms,
            p99_ms: s.p99_ms,
            meets_sla: violations.is_empty(),
            violations,
            functions,
            lambda_duration_usd: duration,
            lambda_requests_usd: requests,
            total_usd: record.cost.as_ref().map_or(0.0, |c| c.total_usd),
            lambda_usd_per_million_ok: per_million_ok(duration + requests),
            usd_per_million_ok: record
                .cost
                .as_ref()
                .and_then(|c| c.usd_per_million_successful),
            cpu_share: record.metering.as_ref().and_then(|m| m.cpu_share.clone()),
            contention_share: record.metering.as_ref().and_then(|m| m.contention_share()),
            record,
        }
    }

    pub fn candidate(&self) -> Candidate {
        Candidate {
            memory_mb: self.memory_mb,
            p95_ms: self.p95_ms,
            usd_per_million_ok: self.usd_per_million_ok,
            meets_sla: self.meets_sla,
        }
    }
}

impl TuneDocument {
    pub fn to_json(&self) -> serde_json::Result<String> {
        serde_json::to_string_pretty(self)
    }

    pub fn from_json(text: &str) -> anyhow::Result<Self> {
        let value: serde_json::Value = serde_json::from_str(text)?;
        let version = value.get("schema_version").and_then(|v| v.as_u64());
        anyhow::ensure!(
            version == Some(u64::from(TUNE_SCHEMA_VERSION)),
            "tune.json schema version {version:?}; this bench reads version {TUNE_SCHEMA_VERSION}"
        );
        Ok(serde_json::from_value(value)?)
    }

    pub fn setting(&self, memory_mb: Option<u32>) -> Option<&TuneSetting> {
        let memory_mb = memory_mb?;
        self.settings.iter().find(|s| s.memory_mb == memory_mb)
    }
}
