//! What every run of a bench shares: the options it was started with, the
//! price table, and the pass running now (its front door and template).

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::template::template_defaults;
use crate::apis::Door;
use crate::plan::Mode;
use crate::pricing::{log_retention_days, Pricing};
use crate::target::CpuShare;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TargetKind {
    Local,
    Localstack,
    Aws,
}

pub struct RunOptions {
    pub mode: Mode,
    pub target: TargetKind,
    pub scenarios: Vec<String>,
    pub variants: Vec<String>,
    pub out: PathBuf,
    pub binaries_dir: PathBuf,
    /// One pass per front door (`--api`), each with its template and URLs.
    pub doors: Vec<Door>,
    pub sweep: bool,
    pub capacity: bool,
    /// The capacity search's first steps, ascending (`--capacity-steps`);
    /// default the mode's doubling steps.
    pub capacity_steps: Option<Vec<u64>>,
    /// How many users apart the search leaves held and broken
    /// (`--capacity-resolution`); default the mode's.
    pub capacity_resolution: Option<u64>,
    /// Passed to `localcloud serve --latency-profile` (target local).
    pub latency_profile: Option<PathBuf>,
    /// A price table replacing the built-in one (`--prices`).
    pub prices: Option<PathBuf>,
    /// Prices in effect on this day, YYYY-MM-DD (`--price-date`).
    pub price_date: Option<String>,
    /// Passed to `localcloud serve --cpu-share` (target local).
    pub cpu_share: CpuShare,
    /// Passed to `localcloud serve --memory-size` (`[FUNCTION=]MB`; `bench tune`).
    pub memory_sizes: Vec<String>,
}

/// What every run of a bench shares: its options, prices, and the pass
/// running now (its front door and its template's text).
pub(crate) struct Bench {
    pub(crate) opts: RunOptions,
    pub(crate) pricing: Pricing,
    pub(crate) http: reqwest::Client,
    /// The template's parameter defaults.
    pub(crate) defaults: BTreeMap<String, String>,
    pub(crate) door: Door,
    pub(crate) template_text: String,
    /// What IAM saw in the runs so far (target local).
    pub(crate) iam: std::sync::Mutex<Option<crate::iam::IamEvidence>>,
}

impl Bench {
    /// The pass running now, as its records will say it.
    pub(crate) fn pass(&self) -> crate::pass::Pass {
        crate::pass::Pass {
            api: self.door.api,
            compute: self.door.compute,
        }
    }

    /// The templates of `opts.doors` read (their texts, in order) and the
    /// price table loaded: everything that can fail before any load.
    pub(crate) fn new(opts: RunOptions) -> anyhow::Result<(Self, Vec<String>)> {
        let mut texts = Vec::new();
        for door in &opts.doors {
            let text = std::fs::read_to_string(&door.template).unwrap_or_default();
            if opts.target == TargetKind::Local && text.is_empty() {
                anyhow::bail!("cannot read the template {}", door.template.display());
            }
            texts.push(text);
        }
        anyhow::ensure!(!opts.doors.is_empty(), "no --api to run");
        // The doors' templates share their parameters (one is made from the other).
        let defaults = template_defaults(&texts[0]);
        let retention = log_retention_days(&defaults);
        let ctx = Bench {
            defaults,
            door: opts.doors[0].clone(),
            template_text: texts[0].clone(),
            pricing: Pricing::load(opts.prices.as_deref(), opts.price_date.clone(), retention)?,
            http: reqwest::Client::new(),
            iam: std::sync::Mutex::new(None),
            opts,
        };
        Ok((ctx, texts))
    }
}
