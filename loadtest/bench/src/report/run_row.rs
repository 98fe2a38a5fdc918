//! A run's row of the run tables, its figures computed once for both the
//! HTML report and the Markdown summary.

use super::{cpu_cells, ms, title};
use crate::results::{RecordKind, RunRecord};

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
            load_generator_cores: r.cpu.load_generator_cores,
            load_generator_saturated: r.cpu.load_generator_saturated,
        }
    }

    /// The cells from "ok req/s" to "$ per M ok", as both reports show them.
    pub fn figure_cells(&self) -> Vec<String> {
        let mut cells = vec![
            format!("{:.1}", self.successful_rps),
            format!("{:.1}", self.failed_rps),
            format!("{:.1} %", self.error_percent),
            ms(self.p50_ms),
            ms(self.p95_ms),
            ms(self.p99_ms),
            format!("{:.0}", self.throttles),
            self.cold_starts
                .map_or_else(|| "-".into(), |c| format!("{c:.0}")),
        ];
        cells.extend(self.cpu.iter().cloned());
        cells.push(
            self.usd_per_million_ok
                .map_or_else(|| "-".into(), |v| format!("{v:.2}")),
        );
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
