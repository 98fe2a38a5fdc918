//! `results.json`: one record per scenario x variant (and per sweep setting,
//! per capacity step), with every figure and every setting that produced it.

use std::collections::BTreeMap;

use costmodel::bill::BillLine;
use serde::{Deserialize, Serialize};

use crate::apis::ApiKind;
use crate::compute::ComputeType;
use crate::cpu::CpuAccount;
use crate::metering::RunMetering;
use crate::pass::Pass;
use crate::plan::{LoadShape, Mode};
use crate::recorder::{Point, Summary};
use crate::sla::CapacityStep;

/// 2: every record, capacity result and skipped run says its front door
/// (`api`); a version 1 file reads as all HTTP APIs, which it was.
/// 3: a record's CPU says Argon2id's part (`cpu.argon2_ms`, per request, and
/// the functions' CPU per request without it) and each function its named
/// threads' CPU (`metering.functions.*.thread_cpu_ms`); a version 2 file
/// reads with the split unknown (`None`, no threads).
/// 4: the CPU share: the mode asked (`cpu_share`, `bench run --cpu-share`),
/// the one each record's local cloud applied (`metering.cpu_share`: mode and
/// fallback reason) and each function's share, throttled time, run-queue
/// wait, contention and modeled time (`metering.functions.*`); a version 3
/// file reads with the modes unknown (`None`) and those figures 0.
/// 5: every record, capacity result and skipped run says its compute
/// (`compute`: on-demand or managed, `bench run --compute`) and a function
/// on Lambda Managed Instances its part of the instances
/// (`metering.functions.*.managed`); a version 4 file reads as on-demand.
/// 6: every record has its 95 % intervals and their resamples (`spread`),
/// from which the verdicts decide "wins" or "tie (within noise)"; a version
/// 5 file reads without them (`None`): its verdicts rank on points alone.
/// 7: what IAM allowed and denied each function over the whole run, with
/// the least policy and the unused grants (`iam`, target local); a version 6
/// file reads without it (`None`), as a remote run does.
pub const SCHEMA_VERSION: u32 = 7;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Results {
    pub schema_version: u32,
    pub started_at: String,
    pub finished_at: String,
    pub mode: Mode,
    /// How the original ramps were scaled, in words.
    pub scaling: String,
    pub target: String,
    pub git_commit: String,
    pub machine: Machine,
    pub region: String,
    pub price_table_version: String,
    /// `--price-date`: prices in effect on that day (`None`: the newest).
    #[serde(default)]
    pub price_date: Option<String>,
    /// Retention of the log groups, over which log storage is priced.
    #[serde(default)]
    pub log_retention_days: Option<f64>,
    /// The local cloud's latency profile (`--latency-profile`), if any: with
    /// it, billed durations approximate AWS; without, they are local-only.
    #[serde(default)]
    pub latency_profile: Option<String>,
    /// The CPU share asked of each local cloud (`--cpu-share`); `None` on a
    /// remote target (AWS's own) and in files before schema 4. What each
    /// local cloud applied is in its record's `metering.cpu_share`.
    #[serde(default)]
    pub cpu_share: Option<crate::target::CpuShare>,
    pub records: Vec<RunRecord>,
    /// Most users held per Conduit variant.
    pub capacity: Vec<CapacityResult>,
    /// Scenario x variant pairs not run, and why.
    pub skipped: Vec<Skipped>,
    /// Every local cloud's `GET /_localcloud/iam`, merged (`crate::iam`);
    /// `None` on a remote target and in files before schema 7.
    #[serde(default)]
    pub iam: Option<crate::iam::IamEvidence>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    pub cores: usize,
    /// The host's RAM (functions' memory sizes are `settings.memory_mb`);
    /// files before the rename call it `memory_mb`.
    #[serde(alias = "memory_mb")]
    pub ram_mb: u64,
    pub cpu_model: String,
    pub os: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RecordKind {
    /// A documented scenario at the template's settings.
    Scenario,
    /// The orders sweep: one concurrency / batch setting.
    Sweep,
    /// One step of the Conduit capacity search.
    Capacity,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    pub kind: RecordKind,
    pub scenario: String,
    pub variant: String,
    /// The front door the load went through (`--api`): HTTP API or REST API.
    #[serde(default)]
    pub api: ApiKind,
    /// Where the functions ran (`--compute`).
    #[serde(default)]
    pub compute: ComputeType,
    /// A short name for the setting (sweep: `max-concurrency=10,batch=1`).
    pub setting: String,
    pub started_at: String,
    pub settings: Settings,
    pub load: LoadSettings,
    pub summary: Summary,
    /// The 95 % intervals of the summary's figures and of the cost per
    /// successful request (`stats`); `None` in files before schema 6.
    #[serde(default)]
    pub spread: Option<crate::stats::Spread>,
    pub failure_reasons: BTreeMap<String, u64>,
    pub series: Vec<Point>,
    /// `None` where the target has no metering endpoint (localstack, aws).
    pub metering: Option<RunMetering>,
    pub cpu: CpuAccount,
    pub cost: Option<CostFigures>,
    /// Goose's own report, beside ours.
    pub goose_report: Option<String>,
    /// Every request and request message accounted for (local target).
    #[serde(default)]
    pub ledger: Option<crate::ledger::Ledger>,
}

/// Every knob of the system under test for this run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// Template parameters in effect (defaults merged with overrides).
    pub parameters: BTreeMap<String, String>,
    /// Memory size (MB) of each of the variant's functions, as metered.
    pub memory_mb: BTreeMap<String, f64>,
    pub account_concurrency_limit: u32,
    pub base_url: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadSettings {
    pub shape: LoadShape,
    pub original_shape: LoadShape,
    /// Orders per request (orders scenarios).
    pub size: Option<u32>,
    pub think_time_s: Option<(u64, u64)>,
    pub closed_loop: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CostFigures {
    /// The Lambda architecture these figures are priced at: the measuring
    /// host's, where the billed durations come from.
    #[serde(default = "x86_64")]
    pub architecture: String,
    pub total_usd: f64,
    /// Every request the clients made (failures too) divides this one.
    pub usd_per_million_requests: f64,
    /// The bill divided by successful requests only: what a useful answer costs.
    pub usd_per_million_successful: Option<f64>,
    pub by_service: BTreeMap<String, f64>,
    /// The run's dollars per bill heading (`costmodel::bill::BILL_HEADINGS`).
    #[serde(default)]
    pub by_line: Vec<BillLine>,
    pub dominant: Option<String>,
    /// The same usage on the other architecture, durations unchanged.
    #[serde(default)]
    pub other_architecture: Option<ArchitectureEstimate>,
}

impl CostFigures {
    /// The bill's Lambda duration line in dollars (0 without one: Lambda
    /// Managed Instances bill instances instead).
    pub fn duration_usd(&self) -> f64 {
        self.by_line
            .iter()
            .find(|l| l.heading == "Lambda duration")
            .map_or(0.0, |l| l.usd)
    }

    /// The Lambda duration line's share of the bill.
    pub fn duration_share(&self) -> f64 {
        if self.total_usd > 0.0 {
            self.duration_usd() / self.total_usd
        } else {
            0.0
        }
    }
}

/// A price at another architecture than measured: an estimate, since the
/// same code runs at another speed there.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArchitectureEstimate {
    pub architecture: String,
    pub total_usd: f64,
    pub usd_per_million_successful: Option<f64>,
}

fn x86_64() -> String {
    "x86_64".into()
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CapacityResult {
    pub variant: String,
    #[serde(default)]
    pub api: ApiKind,
    #[serde(default)]
    pub compute: ComputeType,
    pub users_held: Option<u64>,
    pub steps: Vec<CapacityStep>,
    pub step_seconds: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Skipped {
    pub scenario: String,
    pub variant: String,
    #[serde(default)]
    pub api: ApiKind,
    #[serde(default)]
    pub compute: ComputeType,
    pub reason: String,
}

impl RunRecord {
    /// The pass it ran in: its door and compute.
    pub fn pass(&self) -> Pass {
        Pass {
            api: self.api,
            compute: self.compute,
        }
    }
}

impl CapacityResult {
    /// True when no step broke the SLA: users held is then the search's top
    /// step, a floor of the capacity rather than the capacity.
    pub fn never_broke(&self) -> bool {
        !self.steps.is_empty() && self.steps.iter().all(|s| s.held)
    }

    pub fn pass(&self) -> Pass {
        Pass {
            api: self.api,
            compute: self.compute,
        }
    }
}

impl Skipped {
    pub fn pass(&self) -> Pass {
        Pass {
            api: self.api,
            compute: self.compute,
        }
    }
}

impl Results {
    pub fn to_json(&self) -> serde_json::Result<String> {
        serde_json::to_string_pretty(self)
    }

    pub fn from_json(text: &str) -> serde_json::Result<Self> {
        serde_json::from_str(text)
    }

    /// The runs whose ledger does not balance: requests or messages lost.
    pub fn unaccounted(&self) -> Vec<String> {
        self.records
            .iter()
            .filter_map(|r| {
                let ledger = r.ledger.as_ref().filter(|l| l.lost() > 0)?;
                Some(format!(
                    "{} / {}: {}",
                    r.scenario,
                    r.pass().label(&r.variant),
                    ledger.describe()
                ))
            })
            .collect()
    }

    /// The runs in which IAM denied a call, with the calls: each is a
    /// scenario that failed for want of a permission.
    pub fn iam_denials(&self) -> Vec<String> {
        self.iam
            .iter()
            .flat_map(|e| &e.denied_in)
            .flat_map(|r| r.denials.iter().map(move |d| format!("{}: {d}", r.run)))
            .collect()
    }

    /// Variants in first-seen order.
    pub fn variants(&self) -> Vec<String> {
        let mut seen = Vec::new();
        for r in &self.records {
            if !seen.contains(&r.variant) {
                seen.push(r.variant.clone());
            }
        }
        seen
    }
}

/// What this machine is, for the report.
pub fn machine() -> Machine {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    Machine {
        cores: std::thread::available_parallelism().map_or(0, |n| n.get()),
        ram_mb: parse_meminfo_total_mb(&meminfo).unwrap_or(0),
        cpu_model: parse_cpu_model(&cpuinfo).unwrap_or_else(|| "unknown".into()),
        os: std::env::consts::OS.to_string(),
    }
}

fn parse_cpu_model(cpuinfo: &str) -> Option<String> {
    cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string())
}

fn parse_meminfo_total_mb(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

/// `git rev-parse HEAD`, or "unknown" outside a checkout.
pub fn git_commit() -> String {
    std::process::Command::new("git")
        .args(["rev-parse", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into())
}

#[cfg(test)]
#[path = "results_tests.rs"]
mod tests;
