//! Every request the load generator made, as it finished: the raw data behind
//! successful throughput, failures and latency percentiles (of successes only).
//!
//! Goose keeps its own aggregates, but they mix failures into throughput and
//! do not give percentiles over time; one sample per request does both.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// Milliseconds since the recorder started, at completion.
    pub at_ms: u64,
    pub latency_ms: f64,
    pub ok: bool,
    /// HTTP status; 0 when no response arrived (connection error, timeout).
    pub status: u16,
}

/// Shared by every Goose user of one run.
pub struct Recorder {
    started: Instant,
    samples: Mutex<Vec<Sample>>,
    /// Requests begun, answered or not: the ledger's starting figure.
    sent: AtomicU64,
    failure_reasons: Mutex<BTreeMap<String, u64>>,
}

impl Default for Recorder {
    fn default() -> Self {
        Self::new()
    }
}

impl Recorder {
    pub fn new() -> Self {
        Self {
            started: Instant::now(),
            samples: Mutex::new(Vec::new()),
            sent: AtomicU64::new(0),
            failure_reasons: Mutex::new(BTreeMap::new()),
        }
    }

    /// Counts a request about to be sent.
    pub fn sending(&self) {
        self.sent.fetch_add(1, Ordering::Relaxed);
    }

    pub fn sent(&self) -> u64 {
        self.sent.load(Ordering::Relaxed)
    }

    pub fn record(&self, latency_ms: f64, status: u16, failure: Option<String>) {
        let sample = Sample {
            at_ms: self.started.elapsed().as_millis() as u64,
            latency_ms,
            ok: failure.is_none(),
            status,
        };
        lock(&self.samples).push(sample);
        if let Some(reason) = failure {
            *lock(&self.failure_reasons).entry(reason).or_default() += 1;
        }
    }

    pub fn samples(&self) -> Vec<Sample> {
        lock(&self.samples).clone()
    }

    pub fn failure_reasons(&self) -> BTreeMap<String, u64> {
        lock(&self.failure_reasons).clone()
    }

    /// (successes, failures) so far, for progress lines.
    pub fn counts(&self) -> (u64, u64) {
        let samples = lock(&self.samples);
        let ok = samples.iter().filter(|s| s.ok).count() as u64;
        (ok, samples.len() as u64 - ok)
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panicking user task must not hide every other sample.
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// What a run achieved, failures kept apart from successes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub requests: u64,
    pub successes: u64,
    pub failures: u64,
    /// Failures answered 429/503 or equivalent (capacity refusals).
    pub throttled: u64,
    pub duration_s: f64,
    pub successful_rps: f64,
    pub failed_rps: f64,
    pub error_rate: f64,
    /// Percentiles of successful requests only; `None` when there were none.
    pub p50_ms: Option<f64>,
    pub p95_ms: Option<f64>,
    pub p99_ms: Option<f64>,
    pub max_ms: Option<f64>,
    /// Percentiles are of successes completed after this second of the run
    /// (the hold after a Conduit ramp, where every user logs in once, which
    /// no steady state does): `None`, of the whole run.
    #[serde(default)]
    pub latency_from_s: Option<f64>,
}

pub fn summarize(samples: &[Sample], duration_s: f64) -> Summary {
    let mut ok: Vec<f64> = samples
        .iter()
        .filter(|s| s.ok)
        .map(|s| s.latency_ms)
        .collect();
    ok.sort_by(f64::total_cmp);
    let requests = samples.len() as u64;
    let successes = ok.len() as u64;
    let failures = requests - successes;
    let per_s = |n: u64| {
        if duration_s > 0.0 {
            n as f64 / duration_s
        } else {
            0.0
        }
    };
    Summary {
        requests,
        successes,
        failures,
        throttled: samples
            .iter()
            .filter(|s| !s.ok && matches!(s.status, 429 | 503))
            .count() as u64,
        duration_s,
        successful_rps: per_s(successes),
        failed_rps: per_s(failures),
        error_rate: if requests == 0 {
            0.0
        } else {
            failures as f64 / requests as f64
        },
        p50_ms: percentile(&ok, 50.0),
        p95_ms: percentile(&ok, 95.0),
        p99_ms: percentile(&ok, 99.0),
        max_ms: ok.last().copied(),
        latency_from_s: None,
    }
}

impl Summary {
    /// The same counts, with percentiles of the successes completed from
    /// `from_ms` on (`None`: unchanged).
    pub fn latencies_from(mut self, samples: &[Sample], from_ms: Option<u64>) -> Self {
        let Some(from_ms) = from_ms else {
            return self;
        };
        let mut ok: Vec<f64> = samples
            .iter()
            .filter(|s| s.ok && s.at_ms >= from_ms)
            .map(|s| s.latency_ms)
            .collect();
        ok.sort_by(f64::total_cmp);
        self.p50_ms = percentile(&ok, 50.0);
        self.p95_ms = percentile(&ok, 95.0);
        self.p99_ms = percentile(&ok, 99.0);
        self.max_ms = ok.last().copied();
        self.latency_from_s = Some(from_ms as f64 / 1000.0);
        self
    }
}

/// Nearest-rank percentile of sorted values.
pub fn percentile(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

/// One point per time bucket: what the charts draw.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Point {
    pub t_s: f64,
    pub successful_rps: f64,
    pub failed_rps: f64,
    pub p50_ms: Option<f64>,
    pub p95_ms: Option<f64>,
    pub p99_ms: Option<f64>,
}

pub fn time_series(samples: &[Sample], bucket_ms: u64) -> Vec<Point> {
    let bucket_ms = bucket_ms.max(1);
    let mut buckets: BTreeMap<u64, (Vec<f64>, u64)> = BTreeMap::new();
    for s in samples {
        let entry = buckets.entry(s.at_ms / bucket_ms).or_default();
        if s.ok {
            entry.0.push(s.latency_ms);
        } else {
            entry.1 += 1;
        }
    }
    let seconds = bucket_ms as f64 / 1000.0;
    buckets
        .into_iter()
        .map(|(index, (mut ok, failed))| {
            ok.sort_by(f64::total_cmp);
            Point {
                t_s: (index + 1) as f64 * seconds,
                successful_rps: ok.len() as f64 / seconds,
                failed_rps: failed as f64 / seconds,
                p50_ms: percentile(&ok, 50.0),
                p95_ms: percentile(&ok, 95.0),
                p99_ms: percentile(&ok, 99.0),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(at_ms: u64, latency_ms: f64, status: u16) -> Sample {
        Sample {
            at_ms,
            latency_ms,
            ok: status == 200,
            status,
        }
    }

    #[test]
    fn failures_are_not_counted_as_throughput() {
        // GIVEN 8 successes and 2 throttled failures over 2 seconds
        let mut samples: Vec<Sample> = (0..8).map(|i| sample(i * 100, 10.0, 200)).collect();
        samples.push(sample(900, 1.0, 503));
        samples.push(sample(950, 1.0, 429));
        // WHEN summarised
        let s = summarize(&samples, 2.0);
        // THEN only successes make throughput, failures and throttles are apart
        assert_eq!((s.successes, s.failures, s.throttled), (8, 2, 2));
        assert_eq!(s.successful_rps, 4.0);
        assert_eq!(s.failed_rps, 1.0);
        assert!((s.error_rate - 0.2).abs() < 1e-12);
    }

    #[test]
    fn percentiles_ignore_fast_failures() {
        // GIVEN slow successes and instant failures
        let mut samples: Vec<Sample> = (1..=100).map(|i| sample(i, i as f64, 200)).collect();
        samples.extend((0..100).map(|i| sample(i, 0.5, 503)));
        // WHEN summarised
        let s = summarize(&samples, 1.0);
        // THEN the percentiles are those of the successes
        assert_eq!(s.p50_ms, Some(50.0));
        assert_eq!(s.p95_ms, Some(95.0));
        assert_eq!(s.p99_ms, Some(99.0));
        assert_eq!(s.max_ms, Some(100.0));
    }

    #[test]
    fn percentiles_from_a_moment_leave_the_ramp_out_and_the_counts_whole() {
        // GIVEN slow logins in the first second and fast reads after
        let mut samples: Vec<Sample> = (0..10).map(|i| sample(i * 100, 300.0, 200)).collect();
        samples.extend((0..90).map(|i| sample(1000 + i * 10, 20.0, 200)));
        // WHEN summarised with the percentiles from 1 s on
        let s = summarize(&samples, 2.0).latencies_from(&samples, Some(1000));
        // THEN the p95 is the reads', the counts every request's
        assert_eq!(s.p95_ms, Some(20.0));
        assert_eq!((s.successes, s.latency_from_s), (100, Some(1.0)));
        // AND without the window the logins are the p95
        assert_eq!(summarize(&samples, 2.0).p95_ms, Some(300.0));
    }

    #[test]
    fn no_success_gives_no_percentile() {
        let s = summarize(&[sample(1, 3.0, 500)], 1.0);
        assert_eq!(s.p95_ms, None);
        assert_eq!(s.error_rate, 1.0);
    }

    #[test]
    fn time_series_buckets_by_completion_time() {
        // GIVEN two requests in the first second and one failure in the third
        let samples = [
            sample(100, 10.0, 200),
            sample(900, 30.0, 200),
            sample(2500, 1.0, 503),
        ];
        // WHEN bucketed per second
        let points = time_series(&samples, 1000);
        // THEN empty seconds are skipped and each bucket has its own rates
        assert_eq!(points.len(), 2);
        assert_eq!(points[0].successful_rps, 2.0);
        assert_eq!(points[0].p95_ms, Some(30.0));
        assert_eq!((points[1].t_s, points[1].failed_rps), (3.0, 1.0));
    }

    #[test]
    fn recorder_counts_successes_and_reasons() {
        let recorder = Recorder::new();
        recorder.record(5.0, 200, None);
        recorder.record(1.0, 503, Some("status 503".into()));
        recorder.record(1.0, 503, Some("status 503".into()));
        assert_eq!(recorder.counts(), (1, 2));
        assert_eq!(recorder.failure_reasons()["status 503"], 2);
    }
}
