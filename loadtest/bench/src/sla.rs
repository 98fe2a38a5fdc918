//! The Conduit experiment's score: a load is "held" when p95 < 500 ms, p99 < 1 s
//! and errors < 1 % (experiments.md, section 2).

use serde::{Deserialize, Serialize};

use crate::recorder::Summary;

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Sla {
    pub p95_ms: f64,
    pub p99_ms: f64,
    pub max_error_rate: f64,
}

impl Default for Sla {
    fn default() -> Self {
        Self {
            p95_ms: 500.0,
            p99_ms: 1000.0,
            max_error_rate: 0.01,
        }
    }
}

impl Sla {
    /// Why the run broke the SLA, or an empty list when it held.
    pub fn violations(&self, summary: &Summary) -> Vec<String> {
        let mut broken = Vec::new();
        if summary.successes == 0 {
            broken.push("no successful request".to_string());
            return broken;
        }
        if let Some(p95) = summary.p95_ms.filter(|p| *p >= self.p95_ms) {
            broken.push(format!("p95 {p95:.0} ms >= {:.0} ms", self.p95_ms));
        }
        if let Some(p99) = summary.p99_ms.filter(|p| *p >= self.p99_ms) {
            broken.push(format!("p99 {p99:.0} ms >= {:.0} ms", self.p99_ms));
        }
        if summary.error_rate >= self.max_error_rate {
            broken.push(format!(
                "errors {:.2} % >= {:.2} %",
                summary.error_rate * 100.0,
                self.max_error_rate * 100.0
            ));
        }
        broken
    }

    pub fn holds(&self, summary: &Summary) -> bool {
        self.violations(summary).is_empty()
    }
}

/// One step of a capacity search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CapacityStep {
    pub users: u64,
    pub held: bool,
    pub violations: Vec<String>,
    pub summary: Summary,
}

/// The most users held: the largest step that held with every smaller step
/// holding too (a later lucky step after a failure does not count).
pub fn users_held(steps: &[CapacityStep]) -> Option<u64> {
    let mut sorted: Vec<&CapacityStep> = steps.iter().collect();
    sorted.sort_by_key(|s| s.users);
    sorted.iter().take_while(|s| s.held).last().map(|s| s.users)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recorder::{summarize, Sample};

    fn run(latencies: &[f64], failures: usize) -> Summary {
        let mut samples: Vec<Sample> = latencies
            .iter()
            .enumerate()
            .map(|(i, l)| Sample {
                at_ms: i as u64,
                latency_ms: *l,
                ok: true,
                status: 200,
            })
            .collect();
        samples.extend((0..failures).map(|i| Sample {
            at_ms: i as u64,
            latency_ms: 1.0,
            ok: false,
            status: 500,
        }));
        summarize(&samples, 10.0)
    }

    #[test]
    fn fast_clean_run_holds() {
        let summary = run(&vec![20.0; 1000], 0);
        assert!(Sla::default().holds(&summary));
    }

    #[test]
    fn slow_tail_breaks_p95() {
        // GIVEN 10 % of successes at 600 ms
        let mut latencies = vec![20.0; 900];
        latencies.extend(vec![600.0; 100]);
        // WHEN evaluated
        let broken = Sla::default().violations(&run(&latencies, 0));
        // THEN p95 is the reason, p99 (600 ms < 1 s) is not
        assert_eq!(broken.len(), 1);
        assert!(broken[0].starts_with("p95 600"), "{broken:?}");
    }

    #[test]
    fn one_percent_errors_breaks_it() {
        let broken = Sla::default().violations(&run(&vec![20.0; 990], 10));
        assert_eq!(broken, vec!["errors 1.00 % >= 1.00 %".to_string()]);
    }

    #[test]
    fn all_failed_is_not_held() {
        assert!(!Sla::default().holds(&run(&[], 5)));
    }

    #[test]
    fn users_held_stops_at_first_broken_step() {
        let step = |users, held| CapacityStep {
            users,
            held,
            violations: vec![],
            summary: Summary::default(),
        };
        let steps = [
            step(10, true),
            step(40, false),
            step(20, true),
            step(80, true),
        ];
        assert_eq!(users_held(&steps), Some(20));
        assert_eq!(users_held(&[step(10, false)]), None);
    }
}
