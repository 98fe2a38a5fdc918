//! How sure a run is of its figures: a 95 % interval on every figure a
//! verdict compares, and the rules that turn two intervals into "A wins" or
//! "tie (within noise)" (docs/bench.md, "Intervals and ties").
//!
//! Requests in a load test are not independent (a slow second slows every
//! request in it), so the intervals come from a bootstrap over blocks of
//! time, not over single requests; each record keeps its resampled figures
//! (`Replicates::values`) so that two records' ratio has an interval too.

mod bootstrap;
pub mod rules;

use serde::{Deserialize, Serialize};

use crate::recorder::Sample;
pub use bootstrap::{block_ms_for, resample, RESAMPLES};

/// The coverage of every interval here.
pub const CONFIDENCE: f64 = 0.95;

/// One figure's bootstrap: its 95 % interval and the resampled values the
/// interval was read from (what ratios between records are computed from).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Replicates {
    pub lo: f64,
    pub hi: f64,
    /// One value per resample, in resample order (f32: 7 digits is more
    /// than any figure here is sure of). Written as one string of numbers
    /// separated by spaces: a JSON array would put each of the thousand on
    /// its own line of a pretty-printed `results.json`.
    #[serde(with = "values_text")]
    pub values: Vec<f32>,
}

/// `Replicates::values` as `"543.2 551 549.75 ..."`.
mod values_text {
    use serde::{de::Error, Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(values: &[f32], s: S) -> Result<S::Ok, S::Error> {
        let text: Vec<String> = values.iter().map(f32::to_string).collect();
        s.serialize_str(&text.join(" "))
    }

    /// The text, or the array the first files of schema 6 wrote.
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Written {
        Text(String),
        Array(Vec<f32>),
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f32>, D::Error> {
        match Written::deserialize(d)? {
            Written::Array(values) => Ok(values),
            Written::Text(text) => text
                .split_whitespace()
                .map(|v| {
                    v.parse::<f32>()
                        .map_err(|e| D::Error::custom(format!("resample {v:?}: {e}")))
                })
                .collect(),
        }
    }
}

impl Replicates {
    /// The percentile interval of `values` (`None` without values).
    pub fn of(values: Vec<f32>) -> Option<Self> {
        let (lo, hi) = percentile_interval(&values)?;
        Some(Self { lo, hi, values })
    }

    /// The same resamples, each scaled by what `f` makes of it.
    pub fn map(&self, f: impl Fn(f64) -> Option<f64>) -> Option<Self> {
        let values: Option<Vec<f32>> = self
            .values
            .iter()
            .map(|v| f(f64::from(*v)).map(|x| x as f32))
            .collect();
        Self::of(values?)
    }
}

/// A run's intervals (`results.json`, per record).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    /// Width of the time blocks resampled.
    pub block_ms: u64,
    /// Blocks the run's samples fell in.
    pub blocks: usize,
    /// Latency percentiles of successful requests (`None`: no success).
    pub p50_ms: Option<Replicates>,
    pub p95_ms: Option<Replicates>,
    pub p99_ms: Option<Replicates>,
    pub successful_rps: Replicates,
    /// Failed share of the requests: the wider of the bootstrap's and
    /// Wilson's score interval (the bootstrap's is 0 wide when no block
    /// failed; Wilson's still says how few failures the count rules out).
    pub error_rate: Replicates,
    /// $ per million successful requests: the bill per request (as priced)
    /// over each resample's successful share, its Lambda duration part
    /// scaled by the resample's mean latency over the run's. The billed
    /// durations are not known per request; the mean latency stands for
    /// them (a request's billed time is part of its latency and moves with
    /// it), so the interval holds the failures' uncertainty and, so
    /// approximated, the durations'.
    #[serde(default)]
    pub usd_per_million_ok: Option<Replicates>,
    /// [`bootstrap::Resampled::mean_ok_ratio`], kept for [`Spread::with_cost`].
    #[serde(skip)]
    mean_ok_ratio: Vec<f32>,
}

/// The spread of a run's samples over `wall_s` seconds, its percentiles of
/// the successes completed from `latency_from_ms` on (as the run's summary,
/// `recorder::Summary::latencies_from`); `seed_key` names the record so that
/// each record's resamples are reproducible and independent of another's.
pub fn spread(
    samples: &[Sample],
    wall_s: f64,
    latency_from_ms: Option<u64>,
    seed_key: &str,
) -> Option<Spread> {
    if samples.is_empty() {
        return None;
    }
    let block_ms = block_ms_for(wall_s);
    let r = resample(
        samples,
        block_ms,
        latency_from_ms.unwrap_or(0),
        seed(seed_key),
    );
    let requests = samples.len() as u64;
    let failures = samples.iter().filter(|s| !s.ok).count() as u64;
    let mut error_rate = Replicates::of(r.error_rate)?;
    let (wlo, whi) = wilson(failures, requests);
    error_rate.lo = error_rate.lo.min(wlo);
    error_rate.hi = error_rate.hi.max(whi);
    Some(Spread {
        block_ms,
        blocks: r.blocks,
        p50_ms: Replicates::of(r.p50),
        p95_ms: Replicates::of(r.p95),
        p99_ms: Replicates::of(r.p99),
        successful_rps: Replicates::of(r.ok_per_s)?,
        error_rate,
        usd_per_million_ok: None,
        mean_ok_ratio: r.mean_ok_ratio,
    })
}

impl Spread {
    /// Adds the interval of $ per million ok requests, given the run's
    /// point figure, its error rate and the share of its bill that is
    /// Lambda duration: each resample's figure is the point one with its
    /// duration share scaled by the resample's mean latency over the run's,
    /// over how its successful share differs from the run's.
    pub fn with_cost(
        mut self,
        usd_per_million_ok: Option<f64>,
        error_rate: f64,
        duration_share: f64,
    ) -> Self {
        let ok_share = 1.0 - error_rate;
        let duration_share = duration_share.clamp(0.0, 1.0);
        self.usd_per_million_ok = usd_per_million_ok.and_then(|usd| {
            let values: Option<Vec<f32>> = self
                .error_rate
                .values
                .iter()
                .enumerate()
                .map(|(i, rate)| {
                    let resampled_ok = 1.0 - f64::from(*rate);
                    let latency = self.mean_ok_ratio.get(i).map_or(1.0, |r| f64::from(*r));
                    let bill = usd * (1.0 - duration_share + duration_share * latency);
                    (resampled_ok > 0.0).then(|| (bill * ok_share / resampled_ok) as f32)
                })
                .collect();
            Replicates::of(values?)
        });
        self
    }
}

/// FNV-1a of the key: a seed that is the same for the same record in every
/// run (reports are reproducible) and differs between records.
pub fn seed(key: &str) -> u64 {
    key.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The 2.5th and 97.5th percentiles (nearest rank).
pub fn percentile_interval(values: &[f32]) -> Option<(f64, f64)> {
    if values.is_empty() || values.iter().any(|v| v.is_nan()) {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f32::total_cmp);
    let tail = (1.0 - CONFIDENCE) / 2.0;
    let at = |p: f64| {
        let rank = (p * sorted.len() as f64).ceil() as usize;
        f64::from(sorted[rank.clamp(1, sorted.len()) - 1])
    };
    Some((at(tail), at(1.0 - tail)))
}

/// Wilson's score interval of `hits` in `n` at 95 %.
pub fn wilson(hits: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    const Z: f64 = 1.959_964;
    let n = n as f64;
    let p = hits as f64 / n;
    let z2 = Z * Z;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

#[cfg(test)]
mod tests;
