//! A run's row of the run tables, its figures computed once for both the
//! HTML report and the Markdown summary.

use super::{cpu_cells, ms, title};
use crate::results::{RecordKind, RunRecord};
use crate::stats::{Replicates, Spread};

/// The 95 % intervals of a row's figures, as (low, high).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Intervals {
    pub successful_rps: Option<(f64, f64)>,
    pub error_rate: Option<(f64, f64)>,
    pub p50_ms: Option<(f64, f64)>,
    pub p95_ms: Option<(f64, f64)>,
    pub p99_ms: Option<(f64, f64)>,
    pub usd_per_million_ok: Option<(f64, f64)>,
}

impl Intervals {
    pub fn of(s: &Spread) -> Self {
        let pair = |r: Option<&Replicates>| r.map(|r| (r.lo, r.hi));
        Self {
            successful_rps: pair(Some(&s.successful_rps)),
            error_rate: pair(Some(&s.error_rate)),
            p50_ms: pair(s.p50_ms.as_ref()),
            p95_ms: pair(s.p95_ms.as_ref()),
            p99_ms: pair(s.p99_ms.as_ref()),
            usd_per_million_ok: pair(s.usd_per_million_ok.as_ref()),
        }
    }
}

/// `543 [538-549]`: a cell and its interval, in the cell's own format.
pub(super) fn bracketed(
    cell: String,
    interval: Option<(f64, f64)>,
    fmt: impl Fn(f64) -> String,
) -> String {
    match interval {
        Some((lo, hi)) if cell != "-" => format!("{cell} [{}-{}]", fmt(lo), fmt(hi)),
        _ => cell,
    }
}

/// The figures of one run's row, each as the reports show it.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRow {
    pub title: String,
    pub kind: RecordKind,
    pub successful_rps: f64,
    pub failed_rps: f64,
    pub error_percent: f64,
    pub p50_ms: Option<f64>,
    pub p95_ms: Option<f64>,
    pub p99_ms: Option<f64>,
    /// Throttles the local cloud metered, or the clients saw if more.
    pub throttles: f64,
    /// `None` where nothing was metered (a remote target).
    pub cold_starts: Option<f64>,
    /// The cells under [`super::CPU_HEADERS`].
    pub cpu: [String; 3],
    pub usd_per_million_ok: Option<f64>,
    /// The 95 % intervals (`None` in files before schema 6).
    pub spread: Option<Intervals>,
    pub load_generator_cores: f64,
    pub load_generator_saturated: bool,
}

impl RunRow {
    pub fn of(r: &RunRecord) -> Self {
        let s = &r.summary;
        let clients_throttled = s.throttled as f64;
        Self {
            title: title(r),
            kind: r.kind,
            successful_rps: s.successful_rps,
            failed_rps: s.failed_rps,
            error_percent: s.error_rate * 100.0,
            p50_ms: s.p50_ms,
            p95_ms: s.p95_ms,
            p99_ms: s.p99_ms,
            throttles: r
                .metering
                .as_ref()
                .map_or(clients_throttled, |m| m.throttles().max(clients_throttled)),
            cold_starts: r.metering.as_ref().map(|m| m.cold_starts()),
            cpu: cpu_cells(r),
            usd_per_million_ok: r.cost.as_ref().and_then(|c| c.usd_per_million_successful),
            spread: r.spread.as_ref().map(Intervals::of),
            load_generator_cores: r.cpu.load_generator_cores,
            load_generator_saturated: r.cpu.load_generator_saturated,
        }
    }

    /// The cells from "ok req/s" to "$ per M ok", as both reports show them,
    /// each compared figure with its 95 % interval in brackets.
    pub fn figure_cells(&self) -> Vec<String> {
        let i = self.spread.unwrap_or_default();
        let whole = |v: f64| format!("{v:.0}");
        let one_digit = |v: f64| format!("{v:.1}");
        let mut cells = vec![
            bracketed(
                format!("{:.1}", self.successful_rps),
                i.successful_rps,
                one_digit,
            ),
            format!("{:.1}", self.failed_rps),
            bracketed(
                format!("{:.1} %", self.error_percent),
                i.error_rate.map(|(lo, hi)| (lo * 100.0, hi * 100.0)),
                one_digit,
            ),
            bracketed(ms(self.p50_ms), i.p50_ms, whole),
            bracketed(ms(self.p95_ms), i.p95_ms, whole),
            bracketed(ms(self.p99_ms), i.p99_ms, whole),
            format!("{:.0}", self.throttles),
            self.cold_starts
                .map_or_else(|| "-".into(), |c| format!("{c:.0}")),
        ];
        cells.extend(self.cpu.iter().cloned());
        cells.push(bracketed(
            self.usd_per_million_ok
                .map_or_else(|| "-".into(), |v| format!("{v:.2}")),
            i.usd_per_million_ok,
            |v| format!("{v:.2}"),
        ));
        cells
    }

    /// The load generator's cores, `saturated` marking one that was.
    pub fn load_generator(&self, saturated: &str) -> String {
        if self.load_generator_saturated {
            format!("{saturated} ({:.2} cores)", self.load_generator_cores)
        } else {
            format!("{:.2} cores", self.load_generator_cores)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::orders_scenarios;
    use crate::testdata;

    #[test]
    fn a_row_counts_the_more_throttles_of_meter_and_clients_and_no_cold_starts_unmetered() {
        // GIVEN a run whose clients saw 7 throttles, with and without metering
        let mut record = testdata::record(&orders_scenarios()[0], "orders-direct", 20.0, 0);
        record.summary.throttled = 7;
        let metered = RunRow::of(&record);
        record.metering = None;
        let remote = RunRow::of(&record);
        // THEN the larger count is shown, and unmetered cold starts are a dash
        assert!(metered.throttles >= 7.0);
        assert_eq!(remote.throttles, 7.0);
        assert_eq!(remote.cold_starts, None);
        assert_eq!(remote.figure_cells()[7], "-");
        // AND both reports show the same figures
        assert_eq!(metered.figure_cells().len(), 8 + 3 + 1);
    }
}
