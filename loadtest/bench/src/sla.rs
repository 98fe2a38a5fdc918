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

/// The fewest users that broke the SLA.
pub fn users_broken(steps: &[CapacityStep]) -> Option<u64> {
    steps.iter().filter(|s| !s.held).map(|s| s.users).min()
}

/// The next step of a bisection between the most users held (`None`: not
/// even the first step held) and the fewest that broke; rounded to tens above
/// a hundred users; `None` when no whole number of users lies between them.
pub fn halfway(held: Option<u64>, broken: u64) -> Option<u64> {
    let low = held.unwrap_or(0);
    let mut middle = low + broken.saturating_sub(low) / 2;
    if middle > 100 {
        middle = (middle + 5) / 10 * 10;
    }
    (low < middle && middle < broken).then_some(middle)
}

/// The order of a capacity search: the first steps (doubling by default) until
/// one breaks, then halfway steps between the most users held and the fewest
/// that broke, until they are at most `resolution` users apart.
pub struct CapacitySearch {
    first_steps: std::vec::IntoIter<u64>,
    resolution: u64,
}

impl CapacitySearch {
    pub fn new(first_steps: Vec<u64>, resolution: u64) -> Self {
        Self {
            first_steps: first_steps.into_iter(),
            resolution,
        }
    }

    /// The users of the next step after `steps`, or `None` when the search is over.
    pub fn next_users(&mut self, steps: &[CapacityStep]) -> Option<u64> {
        let Some(broken) = users_broken(steps) else {
            return self.first_steps.next();
        };
        let held = users_held(steps);
        if broken - held.unwrap_or(0) <= self.resolution {
            return None;
        }
        halfway(held, broken)
    }
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
    fn halfway_bisects_between_held_and_broken() {
        assert_eq!(halfway(Some(800), 1600), Some(1200));
        assert_eq!(halfway(Some(1200), 1600), Some(1400));
        assert_eq!(halfway(Some(100), 200), Some(150));
        // rounded to tens above a hundred users
        assert_eq!(halfway(Some(800), 1234), Some(1020));
        // nothing held: halfway to zero
        assert_eq!(halfway(None, 100), Some(50));
        // no room left
        assert_eq!(halfway(Some(4), 5), None);
        assert_eq!(halfway(None, 1), None);
        assert_eq!(halfway(Some(200), 200), None);
    }

    #[test]
    fn refined_steps_count_in_users_held_and_broken() {
        // GIVEN doubling up to a break at 1600, then 1200 held and 1400 broke
        let steps = [
            step(400, true),
            step(800, true),
            step(1600, false),
            step(1200, true),
            step(1400, false),
        ];
        // THEN the score is 1200, and the interval left is 1200-1400
        assert_eq!(users_held(&steps), Some(1200));
        assert_eq!(users_broken(&steps), Some(1400));
        assert_eq!(halfway(users_held(&steps), 1400), Some(1300));
    }

    fn step(users: u64, held: bool) -> CapacityStep {
        CapacityStep {
            users,
            held,
            violations: vec![],
            summary: Summary::default(),
        }
    }

    /// Runs a search against a system that holds up to `limit` users.
    fn search(first_steps: Vec<u64>, resolution: u64, limit: u64) -> Vec<u64> {
        let mut search = CapacitySearch::new(first_steps, resolution);
        let mut steps = Vec::new();
        while let Some(users) = search.next_users(&steps) {
            steps.push(step(users, users <= limit));
        }
        steps.iter().map(|s| s.users).collect()
    }

    #[test]
    fn the_search_doubles_until_a_break_then_bisects_to_the_resolution() {
        let full = vec![100, 200, 400, 800, 1600, 3200];
        // 800-1600 narrowed to 100 users: 1200, then 1400 or 1000, then one more
        assert_eq!(
            search(full.clone(), 100, 1300),
            [100, 200, 400, 800, 1600, 1200, 1400, 1300]
        );
        assert_eq!(
            search(full.clone(), 100, 900),
            [100, 200, 400, 800, 1600, 1200, 1000, 900]
        );
        // a coarser resolution stops earlier
        assert_eq!(
            search(full.clone(), 200, 900),
            [100, 200, 400, 800, 1600, 1200, 1000]
        );
        // everything held: no break to refine
        assert_eq!(search(full.clone(), 100, 5000), full);
        // the first step broke: halfway down to zero, unless already within the resolution
        assert_eq!(search(vec![50, 100, 200], 20, 10), [50, 25, 12]);
        assert_eq!(search(vec![50, 100, 200], 50, 10), [50]);
        // a break already within the resolution: nothing to refine
        assert_eq!(search(vec![5], 5, 1), [5]);
    }

    #[test]
    fn a_search_can_start_from_a_known_range() {
        // GIVEN a previous run's range (held 800, broke 1600) as the first steps
        // WHEN the system holds 1000
        // THEN the search spends no step below 800 and ends 100 users apart
        assert_eq!(
            search(vec![800, 1600], 100, 1000),
            [800, 1600, 1200, 1000, 1100]
        );
        // and if 800 itself breaks now, it bisects below it
        assert_eq!(search(vec![800, 1600], 100, 300), [800, 400, 200, 300]);
    }

    #[test]
    fn users_held_stops_at_first_broken_step() {
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
