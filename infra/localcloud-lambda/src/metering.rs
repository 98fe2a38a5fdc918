//! One record per invocation, the REPORT line AWS would log for it, and
//! running totals per function for cost reports.

use std::collections::{BTreeMap, VecDeque};

use chrono::{DateTime, Utc};
use parking_lot::Mutex;
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Success,
    /// The function reported an error (`/invocation/{id}/error`).
    FunctionError,
    Timeout,
    /// The process exited during the invocation.
    Crash,
    /// The environment could not start (exit or `/init/error` during init).
    InitError,
    /// Refused for lack of concurrency; nothing ran and nothing is billed.
    Throttled,
}

impl Outcome {
    /// Counted in CloudWatch's `Errors` metric.
    pub fn is_error(self) -> bool {
        !matches!(self, Self::Success | Self::Throttled)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InvocationRecord {
    pub function: String,
    pub request_id: String,
    /// Who invoked, e.g. `apigw:ConduitApi`, `esm:OrdersQueue`, `api`.
    pub caller: String,
    /// `RequestResponse` or `Event`.
    pub invocation_type: String,
    pub start: DateTime<Utc>,
    /// Invoke phase only, from dispatch to response.
    pub duration_ms: f64,
    /// `ceil(duration + init)`: custom runtimes pay for their init phase.
    pub billed_ms: u64,
    pub memory_mb: u32,
    pub max_memory_used_mb: Option<u64>,
    /// Set on cold starts: spawn to the runtime's first poll.
    pub init_duration_ms: Option<f64>,
    pub outcome: Outcome,
    pub error_type: Option<String>,
    /// CPU time of the environment's process during the invoke phase, all
    /// threads (`None` where its CPU clock cannot be read).
    pub cpu_ms: Option<f64>,
    /// Part of `duration_ms` the CPU-share model added (0 unless modeled).
    pub modeled_cpu_ms: f64,
    /// Part of `duration_ms` that was this machine's contention: waits for
    /// cores busy with other work (the `contention` module); `None` where
    /// not measured (no answer, threads unreadable, Lambda Managed Instances).
    pub contention_ms: Option<f64>,
    /// Part of `duration_ms` that was this machine's other waits: for idle
    /// cores to wake up. With `contention_ms`, at most `duration_ms`.
    pub wake_up_ms: Option<f64>,
}

impl InvocationRecord {
    pub fn gb_seconds(&self) -> f64 {
        localcloud_metrics::gb_seconds(self.billed_ms as f64, f64::from(self.memory_mb))
    }

    /// The duration as AWS would bill it: this machine's waits (contention
    /// and wake-ups) taken out.
    pub fn duration_without_contention_ms(&self) -> f64 {
        let machine = self.contention_ms.unwrap_or(0.0) + self.wake_up_ms.unwrap_or(0.0);
        (self.duration_ms - machine).max(0.0)
    }

    /// `billed_ms` of [`Self::duration_without_contention_ms`], rounded up
    /// again as Lambda rounds each invocation.
    pub fn billed_without_contention_ms(&self) -> u64 {
        match self.outcome {
            Outcome::Throttled => 0,
            _ if self.contention_ms.is_none() => self.billed_ms,
            _ => billed_ms(self.duration_without_contention_ms(), self.init_duration_ms),
        }
    }

    /// The line Lambda logs at the end of every invocation.
    pub fn report_line(&self) -> String {
        let mut line = format!(
            "REPORT RequestId: {}\tDuration: {:.2} ms\tBilled Duration: {} ms\tMemory Size: {} MB\tMax Memory Used: {} MB\t",
            self.request_id,
            self.duration_ms,
            self.billed_ms,
            self.memory_mb,
            self.max_memory_used_mb.unwrap_or(0),
        );
        if let Some(init) = self.init_duration_ms {
            line.push_str(&format!("Init Duration: {init:.2} ms\t"));
        }
        match self.outcome {
            Outcome::Timeout => line.push_str("Status: timeout"),
            Outcome::Crash | Outcome::InitError => {
                line.push_str("Status: error");
                if let Some(error_type) = &self.error_type {
                    line.push_str(&format!("\tError Type: {error_type}"));
                }
            }
            _ => {}
        }
        line
    }
}

/// Billed milliseconds: the invoke phase plus a cold start's init, rounded up.
pub fn billed_ms(duration_ms: f64, init_ms: Option<f64>) -> u64 {
    (duration_ms + init_ms.unwrap_or(0.0)).ceil().max(1.0) as u64
}

pub use localcloud_metrics::{FunctionMetrics, LambdaMetrics};

/// Adds one invocation to a function's totals.
fn add(totals: &mut FunctionMetrics, record: &InvocationRecord) {
    totals
        .without_contention
        .get_or_insert_with(Default::default);
    if record.outcome == Outcome::Throttled {
        totals.throttles += 1;
        return;
    }
    totals.invocations += 1;
    totals.errors += u64::from(record.outcome.is_error());
    totals.timeouts += u64::from(record.outcome == Outcome::Timeout);
    totals.crashes += u64::from(record.outcome == Outcome::Crash);
    if let Some(init) = record.init_duration_ms {
        totals.cold_starts += 1;
        totals.init_ms += init;
    }
    totals.duration_ms += record.duration_ms;
    totals.billed_ms += record.billed_ms;
    totals.gb_seconds += record.gb_seconds();
    totals.modeled_cpu_ms += record.modeled_cpu_ms;
    let billed = record.billed_without_contention_ms();
    let without = totals
        .without_contention
        .get_or_insert_with(Default::default);
    without.contention_ms += record.contention_ms.unwrap_or(0.0);
    without.wake_up_ms += record.wake_up_ms.unwrap_or(0.0);
    without.measured_invocations += u64::from(record.contention_ms.is_some());
    without.duration_ms += record.duration_without_contention_ms();
    without.billed_ms += billed;
    without.gb_seconds +=
        localcloud_metrics::gb_seconds(billed as f64, f64::from(record.memory_mb));
}

/// The latest records (at most `max_records`, so long load tests do not
/// grow without bound), and totals over all of them kept as they arrive.
pub struct Meter {
    max_records: usize,
    inner: Mutex<MeterState>,
}

#[derive(Default)]
struct MeterState {
    records: VecDeque<InvocationRecord>,
    dropped: u64,
    totals: BTreeMap<String, FunctionMetrics>,
}

impl Meter {
    pub fn new(max_records: usize) -> Self {
        Self {
            max_records,
            inner: Mutex::default(),
        }
    }

    pub fn record(&self, record: InvocationRecord) {
        let mut state = self.inner.lock();
        add(
            state.totals.entry(record.function.clone()).or_default(),
            &record,
        );
        state.records.push_back(record);
        while state.records.len() > self.max_records {
            state.records.pop_front();
            state.dropped += 1;
        }
    }

    pub fn records(&self) -> Vec<InvocationRecord> {
        self.newest(None, None)
    }

    /// The newest `last` records (all without it) of `function` (of every
    /// function without it), oldest first; only those are copied, under
    /// the lock invocations record through.
    pub fn newest(&self, function: Option<&str>, last: Option<usize>) -> Vec<InvocationRecord> {
        let state = self.inner.lock();
        let mut kept: Vec<InvocationRecord> = state
            .records
            .iter()
            .rev()
            .filter(|r| function.is_none_or(|f| r.function == f))
            .take(last.unwrap_or(usize::MAX))
            .cloned()
            .collect();
        kept.reverse();
        kept
    }

    pub fn dropped(&self) -> u64 {
        self.inner.lock().dropped
    }

    pub fn totals(&self, function: &str) -> FunctionMetrics {
        self.inner
            .lock()
            .totals
            .get(function)
            .cloned()
            .unwrap_or_default()
    }

    pub fn reset(&self) {
        *self.inner.lock() = MeterState::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(outcome: Outcome, duration_ms: f64, init: Option<f64>) -> InvocationRecord {
        InvocationRecord {
            function: "orders".into(),
            request_id: "r-1".into(),
            caller: "api".into(),
            invocation_type: "RequestResponse".into(),
            start: Utc::now(),
            duration_ms,
            billed_ms: billed_ms(duration_ms, init),
            memory_mb: 128,
            max_memory_used_mb: Some(15),
            init_duration_ms: init,
            outcome,
            error_type: None,
            cpu_ms: None,
            modeled_cpu_ms: 0.0,
            contention_ms: None,
            wake_up_ms: None,
        }
    }

    #[test]
    fn billed_duration_rounds_up_and_includes_init() {
        assert_eq!(billed_ms(1.44, None), 2);
        assert_eq!(billed_ms(1.44, Some(12.92)), 15);
        assert_eq!(billed_ms(0.2, None), 1);
    }

    #[test]
    fn report_line_matches_aws_layout() {
        let warm = record(Outcome::Success, 1.44, None);
        assert_eq!(
            warm.report_line(),
            "REPORT RequestId: r-1\tDuration: 1.44 ms\tBilled Duration: 2 ms\tMemory Size: 128 MB\tMax Memory Used: 15 MB\t"
        );
        let cold = record(Outcome::Success, 1.44, Some(12.92));
        assert!(cold.report_line().ends_with("Init Duration: 12.92 ms\t"));
        let timeout = record(Outcome::Timeout, 3000.0, None);
        assert!(timeout.report_line().ends_with("Status: timeout"));
    }

    #[test]
    fn oldest_records_are_dropped_past_the_cap_but_totals_keep_counting() {
        let meter = Meter::new(2);
        for ms in [1.0, 2.0, 3.0] {
            meter.record(record(Outcome::Success, ms, None));
        }
        let kept: Vec<f64> = meter.records().iter().map(|r| r.duration_ms).collect();
        assert_eq!(kept, vec![2.0, 3.0]);
        assert_eq!(meter.dropped(), 1);
        assert_eq!(meter.totals("orders").invocations, 3);
    }

    #[test]
    fn the_newest_records_of_one_function_come_oldest_first() {
        let meter = Meter::new(10);
        for (function, ms) in [
            ("orders", 1.0),
            ("other", 2.0),
            ("orders", 3.0),
            ("orders", 4.0),
        ] {
            let mut r = record(Outcome::Success, ms, None);
            r.function = function.into();
            meter.record(r);
        }
        let durations = |records: Vec<InvocationRecord>| -> Vec<f64> {
            records.iter().map(|r| r.duration_ms).collect()
        };
        assert_eq!(durations(meter.newest(Some("orders"), Some(2))), [3.0, 4.0]);
        assert_eq!(
            durations(meter.newest(Some("orders"), None)),
            [1.0, 3.0, 4.0]
        );
        assert_eq!(durations(meter.newest(None, Some(3))), [2.0, 3.0, 4.0]);
        assert_eq!(
            durations(meter.newest(Some("none"), Some(3))),
            Vec::<f64>::new()
        );
    }

    #[test]
    fn totals_count_errors_cold_starts_and_gb_seconds() {
        let meter = Meter::new(100);
        meter.record(record(Outcome::Success, 1000.0, Some(10.0)));
        meter.record(record(Outcome::Timeout, 3000.0, None));
        meter.record(record(Outcome::Throttled, 0.0, None));
        let totals = meter.totals("orders");
        assert_eq!(totals.invocations, 2);
        assert_eq!(totals.errors, 1);
        assert_eq!(totals.timeouts, 1);
        assert_eq!(totals.throttles, 1);
        assert_eq!(totals.cold_starts, 1);
        assert_eq!(totals.billed_ms, 1010 + 3000);
        assert!((totals.gb_seconds - 4010.0 * 128.0 / 1024.0 / 1000.0).abs() < 1e-9);
        meter.reset();
        assert_eq!(meter.records().len(), 0);
    }

    #[test]
    fn machine_waits_are_taken_out_of_the_bill_beside_it_rerounded_per_invocation() {
        // GIVEN a cold invocation of 3.4 ms with 10 ms of init and 1.2 ms of
        // contention, a warm one of 2.2 ms with 0.3 ms of contention and
        // 0.95 ms of wake-ups, and one not measured
        let meter = Meter::new(100);
        let mut cold = record(Outcome::Success, 3.4, Some(10.0));
        cold.contention_ms = Some(1.2);
        cold.wake_up_ms = Some(0.0);
        let mut warm = record(Outcome::Success, 2.2, None);
        warm.contention_ms = Some(0.3);
        warm.wake_up_ms = Some(0.95);
        let unmeasured = record(Outcome::Timeout, 3000.0, None);
        for r in [cold, warm, unmeasured] {
            meter.record(r);
        }
        meter.record(record(Outcome::Throttled, 0.0, None));
        // WHEN the totals are read
        let totals = meter.totals("orders");
        let without = totals.without_contention.clone().expect("kept beside");
        // THEN the measured bill is unchanged: ceil(13.4) + ceil(2.2) + 3000
        assert_eq!(totals.billed_ms, 14 + 3 + 3000);
        // AND AWS's re-rounds each invocation without its waits:
        // ceil(12.2) + ceil(0.95) + 3000
        assert_eq!(without.billed_ms, 13 + 1 + 3000);
        assert!((without.contention_ms - 1.5).abs() < 1e-9);
        assert!((without.wake_up_ms - 0.95).abs() < 1e-9);
        assert_eq!(without.measured_invocations, 2);
        assert!((without.duration_ms - (2.2 + 0.95 + 3000.0)).abs() < 1e-9);
        let gb_s = |ms: f64| ms * 128.0 / 1024.0 / 1000.0;
        assert!((without.gb_seconds - gb_s(3014.0)).abs() < 1e-12);
        // AND the contract's figure is the measured one
        assert!((totals.contention_ms() - 1.5).abs() < 1e-9);
    }
}
