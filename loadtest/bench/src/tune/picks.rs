//! The three picks of a memory tuning, after AWS Lambda Power Tuning's
//! strategies (its `optimizer` step): `cost` (cheapest), `speed` (fastest) and
//! `balanced` (cost and duration each divided by their largest value, weighed
//! and summed, the lowest sum wins; default weight 0.5). Here the cost is the
//! whole bill per million successful requests and the duration the p95
//! latency of the architecture's requests, and the cheapest and balanced
//! picks are made among the settings that meet the SLA only.

use serde::{Deserialize, Serialize};

/// Power Tuning's default `balancedWeight`: 0 picks the fastest, 1 the cheapest.
pub const BALANCED_WEIGHT: f64 = 0.5;

/// What a pick needs to know of one memory setting.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    pub memory_mb: u32,
    pub p95_ms: Option<f64>,
    pub usd_per_million_ok: Option<f64>,
    pub meets_sla: bool,
}

/// The chosen memory sizes (MB); `None` when no setting qualifies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Picks {
    /// The lowest cost per million successful requests among the settings
    /// meeting the SLA (a tie: the faster).
    pub cheapest_meeting_sla: Option<u32>,
    /// The lowest p95 among every setting with successful requests (a tie:
    /// the cheaper), whether it meets the SLA or not.
    pub fastest: Option<u32>,
    /// Power Tuning's balanced rule among the settings meeting the SLA.
    pub balanced: Option<u32>,
    pub balanced_weight: f64,
    /// No setting met the SLA: no cheapest and no balanced pick.
    pub none_meets_sla: bool,
}

/// A setting that can be weighed: it has both figures.
fn priced(c: &Candidate) -> Option<(u32, f64, f64)> {
    Some((c.memory_mb, c.usd_per_million_ok?, c.p95_ms?))
}

pub fn pick(candidates: &[Candidate], weight: f64) -> Picks {
    let meeting: Vec<(u32, f64, f64)> = candidates
        .iter()
        .filter(|c| c.meets_sla)
        .filter_map(priced)
        .collect();
    let cheapest = meeting
        .iter()
        .min_by(|a, b| a.1.total_cmp(&b.1).then(a.2.total_cmp(&b.2)))
        .map(|c| c.0);
    let fastest = candidates
        .iter()
        .filter_map(|c| {
            Some((
                c.memory_mb,
                c.usd_per_million_ok.unwrap_or(f64::MAX),
                c.p95_ms?,
            ))
        })
        .min_by(|a, b| a.2.total_cmp(&b.2).then(a.1.total_cmp(&b.1)))
        .map(|c| c.0);
    Picks {
        cheapest_meeting_sla: cheapest,
        fastest,
        balanced: balanced(&meeting, weight),
        balanced_weight: weight,
        none_meets_sla: meeting.is_empty(),
    }
}

/// `weight * cost / max cost + (1 - weight) * p95 / max p95`, lowest wins
/// (the smaller memory on a tie: Power Tuning's stable sort keeps the first
/// of its ascending power values).
fn balanced(settings: &[(u32, f64, f64)], weight: f64) -> Option<u32> {
    let max_cost = settings.iter().map(|s| s.1).fold(0.0, f64::max);
    let max_p95 = settings.iter().map(|s| s.2).fold(0.0, f64::max);
    let ratio = |v: f64, max: f64| if max > 0.0 { v / max } else { 0.0 };
    let value =
        |s: &(u32, f64, f64)| weight * ratio(s.1, max_cost) + (1.0 - weight) * ratio(s.2, max_p95);
    let mut best: Option<(&(u32, f64, f64), f64)> = None;
    for s in settings {
        let v = value(s);
        if best.is_none_or(|(b, bv)| v < bv || (v == bv && s.0 < b.0)) {
            best = Some((s, v));
        }
    }
    best.map(|(s, _)| s.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(memory_mb: u32, usd: f64, p95: f64, meets_sla: bool) -> Candidate {
        Candidate {
            memory_mb,
            p95_ms: Some(p95),
            usd_per_million_ok: Some(usd),
            meets_sla,
        }
    }

    #[test]
    fn the_cheapest_pick_is_the_cheapest_setting_that_meets_the_sla() {
        // GIVEN 128 MB cheapest but too slow, 256 MB next cheapest and within
        let settings = [
            at(128, 1.0, 900.0, false),
            at(256, 1.5, 400.0, true),
            at(512, 2.0, 200.0, true),
            at(1024, 3.5, 120.0, true),
        ];
        // WHEN picked
        let picks = pick(&settings, BALANCED_WEIGHT);
        // THEN the cheapest is 256 MB, not the cheaper 128 MB that broke the SLA
        assert_eq!(picks.cheapest_meeting_sla, Some(256));
        assert!(!picks.none_meets_sla);
    }

    #[test]
    fn the_fastest_pick_is_the_lowest_p95_and_a_tie_goes_to_the_cheaper() {
        let settings = [
            at(512, 2.0, 200.0, true),
            at(1769, 5.0, 110.0, true),
            at(3008, 4.0, 110.0, true),
            at(1024, 3.0, 150.0, true),
        ];
        assert_eq!(pick(&settings, BALANCED_WEIGHT).fastest, Some(3008));
        // and a setting without successes (no p95) is never the fastest
        let mut failed = at(4096, 1.0, 0.0, false);
        failed.p95_ms = None;
        let picks = pick(&[failed, at(128, 1.0, 800.0, false)], BALANCED_WEIGHT);
        assert_eq!(picks.fastest, Some(128));
    }

    #[test]
    fn the_balanced_pick_follows_power_tunings_rule_among_the_settings_meeting_the_sla() {
        // GIVEN cost and p95 normalised by their largest values (4.0 $, 400 ms)
        // among the three meeting the SLA:
        //   256 MB: 0.5 * 1.0/4 + 0.5 * 400/400 = 0.625
        //   512 MB: 0.5 * 2.0/4 + 0.5 * 200/400 = 0.500
        //  1024 MB: 0.5 * 4.0/4 + 0.5 * 100/400 = 0.625
        // and 128 MB, far cheaper, outside the SLA
        let settings = [
            at(128, 0.1, 2000.0, false),
            at(256, 1.0, 400.0, true),
            at(512, 2.0, 200.0, true),
            at(1024, 4.0, 100.0, true),
        ];
        // THEN 512 MB is balanced
        assert_eq!(pick(&settings, 0.5).balanced, Some(512));
        // AND the weight moves it: 1 is the cheapest, 0 the fastest
        assert_eq!(pick(&settings, 1.0).balanced, Some(256));
        assert_eq!(pick(&settings, 0.0).balanced, Some(1024));
    }

    #[test]
    fn a_tie_in_the_balanced_value_goes_to_the_smaller_memory() {
        let settings = [at(1024, 4.0, 100.0, true), at(256, 1.0, 400.0, true)];
        // both 0.5 * 1 + 0.5 * 0.25 = 0.625
        assert_eq!(pick(&settings, 0.5).balanced, Some(256));
    }

    #[test]
    fn when_no_setting_meets_the_sla_there_is_no_cheapest_or_balanced_pick() {
        let settings = [at(128, 1.0, 900.0, false), at(1769, 6.0, 600.0, false)];
        let picks = pick(&settings, BALANCED_WEIGHT);
        assert!(picks.none_meets_sla);
        assert_eq!(picks.cheapest_meeting_sla, None);
        assert_eq!(picks.balanced, None);
        // the fastest is still said
        assert_eq!(picks.fastest, Some(1769));
    }
}
