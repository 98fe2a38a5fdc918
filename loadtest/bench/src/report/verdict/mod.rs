//! The verdict: for each experiment, in sentences, which architecture wins
//! on latency, under overload and on cost, by how much, when that flips, and
//! how it compares with the original experiment; stamped with the run's
//! date, commit, machine and settings. Derived from `results.json` alone.

pub mod conduit;
pub mod conduit_original;
pub mod findings;
pub mod names;
pub mod orders;
pub mod orders_sweep;
pub mod original;
pub mod view;

use crate::pass::Pass;
use crate::report::answers::first_pass;
use crate::results::Results;
use findings::QuestionVerdict;

#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub stamp: Stamp,
    /// Orders, then Conduit; an experiment the run has no record of is left out.
    pub questions: Vec<QuestionVerdict>,
}

/// What produced the figures: when, from which code, on what, how.
#[derive(Debug, Clone, PartialEq)]
pub struct Stamp {
    /// The day the run started, `YYYY-MM-DD`.
    pub date: String,
    /// The first 7 hex digits of the commit the run measured.
    pub commit: String,
    /// `AMD EPYC, 2 cores`.
    pub machine: String,
    /// `full`, `quick` or `smoke`.
    pub mode: String,
    /// `local`, `localstack`, `aws`.
    pub target: String,
    /// The front door and compute of the verdict's records.
    pub pass: Pass,
    /// `--cpu-share` asked of the local cloud (`None` on a remote target).
    pub cpu_share: Option<String>,
    pub latency_profile: Option<String>,
    /// `2026-12-01.1 (us-east-1)`.
    pub prices: String,
}

impl Stamp {
    pub fn of(results: &Results, pass: Pass) -> Self {
        let m = &results.machine;
        Self {
            date: results.started_at.chars().take(10).collect(),
            commit: results.git_commit.chars().take(7).collect(),
            machine: format!("{}, {} cores", m.cpu_model, m.cores),
            mode: format!("{:?}", results.mode).to_lowercase(),
            target: results.target.clone(),
            pass,
            cpu_share: results.cpu_share.map(|c| c.as_str().to_string()),
            latency_profile: results.latency_profile.clone(),
            prices: format!("{} ({})", results.price_table_version, results.region),
        }
    }

    /// The settings after the date and commit, in words.
    pub fn settings(&self) -> String {
        let share = self
            .cpu_share
            .as_deref()
            .map_or_else(|| "CPU share not set".into(), |s| format!("CPU share {s}"));
        let profile = self.latency_profile.as_deref().map_or_else(
            || "no latency profile".into(),
            |p| format!("latency profile {p}"),
        );
        format!(
            "target {}, through the {}, {share}, {profile}, prices {}",
            self.target,
            self.pass.describe(),
            self.prices
        )
    }
}

/// The run's verdict, through its first front door (as the answers tables).
pub fn verdict(results: &Results) -> Verdict {
    let pass = first_pass(results);
    Verdict {
        stamp: Stamp::of(results, pass),
        questions: [
            orders::verdict(results, pass),
            conduit::verdict(results, pass),
        ]
        .into_iter()
        .flatten()
        .collect(),
    }
}

#[cfg(test)]
#[path = "ties_tests.rs"]
mod ties_tests;
