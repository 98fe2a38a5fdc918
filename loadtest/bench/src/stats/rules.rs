//! When a verdict may name a winner. One place, read like a table:
//!
//! | figure | compared by | "A wins" only when |
//! |---|---|---|
//! | latency percentile, $ per M ok | ratio B / A of the two records' resamples | its 95 % interval lies wholly above 1 |
//! | successful requests per second | ratio A / B of the resamples | its 95 % interval lies wholly above 1 |
//! | failed share | difference B - A (Newcombe's hybrid score interval over each one's interval) | its 95 % interval lies wholly above 0 |
//! | users held in a capacity search | the steps: A held at least the step B broke at | A's last held step >= B's first broken step; two floors (neither broke) never |
//!
//! Anything else is "tie (within noise)". Two records' resamples are drawn
//! independently (each record has its own seed), so pairing them by index
//! draws from the two figures' joint distribution.

use super::{percentile_interval, Replicates};

/// Whether less or more of a figure is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Better {
    Lower,
    Higher,
}

/// How far a candidate is from the best one: a ratio ("times worse", 1 is
/// no difference) or a difference in shares (0 is no difference).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gap {
    pub point: f64,
    pub lo: f64,
    pub hi: f64,
    /// The value meaning "no difference": 1 for a ratio, 0 for a difference.
    pub none: f64,
}

impl Gap {
    /// The interval excludes no difference, on the side the point is on.
    pub fn beyond_noise(&self) -> bool {
        self.lo > self.none || self.hi < self.none
    }

    /// How many times the measurement (more blocks of time, or runs) would
    /// have to grow for the interval to shrink off "no difference", if the
    /// gap held: widths shrink with the square root of the count. `None`
    /// when the point itself is no difference.
    pub fn growth_to_decide(&self) -> Option<f64> {
        let distance = (self.point - self.none).abs();
        if distance <= f64::EPSILON {
            return None;
        }
        let half_width = if self.point > self.none {
            self.point - self.lo
        } else {
            self.hi - self.point
        };
        Some((half_width / distance).powi(2).max(1.0))
    }

    /// `1.68x, 95 % interval 1.55-1.80x` or `+12.3 points, ...`.
    pub fn describe(&self) -> String {
        if self.none == 1.0 {
            format!(
                "{:.2}x, 95 % interval {:.2}-{:.2}x",
                self.point, self.lo, self.hi
            )
        } else {
            format!(
                "{:+.1} points, 95 % interval {:+.1} to {:+.1}",
                self.point * 100.0,
                self.lo * 100.0,
                self.hi * 100.0
            )
        }
    }
}

/// How many times worse `other` is than `best`, with its interval from the
/// two records' resamples. Points are the records' own figures; each
/// record's resamples enter relative to their median, so the interval is
/// the resampled ratios' spread around the measured ratio.
pub fn ratio_gap(
    better: Better,
    best: (f64, &Replicates),
    other: (f64, &Replicates),
) -> Option<Gap> {
    let ratio = |b: f64, o: f64| match better {
        Better::Lower => (b > 0.0).then(|| o / b),
        Better::Higher => (o > 0.0).then(|| b / o),
    };
    let point = ratio(best.0, other.0)?;
    let centre = ratio(median(&best.1.values)?, median(&other.1.values)?)?;
    let ratios: Option<Vec<f32>> = best
        .1
        .values
        .iter()
        .zip(&other.1.values)
        .map(|(b, o)| {
            let resampled = ratio(f64::from(*b), f64::from(*o))?;
            Some((point * resampled / centre) as f32)
        })
        .collect();
    let (lo, hi) = percentile_interval(&ratios?)?;
    Some(Gap {
        point,
        lo,
        hi,
        none: 1.0,
    })
}

/// How much larger `other`'s failed share is than `best`'s: Newcombe's
/// hybrid score interval for a difference of proportions, built from each
/// one's own interval (Wilson's, widened by the block bootstrap's), whose
/// widths are taken around the record's own share.
pub fn share_gap(best: (f64, &Replicates), other: (f64, &Replicates)) -> Gap {
    let bounds = |(p, r): (f64, &Replicates)| {
        let mid = median(&r.values).unwrap_or(p);
        (p, (p - (mid - r.lo)).max(0.0), (p + (r.hi - mid)).min(1.0))
    };
    let (pb, lb, ub) = bounds(best);
    let (po, lo_, uo) = bounds(other);
    let point = po - pb;
    Gap {
        point,
        lo: point - ((po - lo_).powi(2) + (ub - pb).powi(2)).sqrt(),
        hi: point + ((uo - po).powi(2) + (pb - lb).powi(2)).sqrt(),
        none: 0.0,
    }
}

fn median(values: &[f32]) -> Option<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f32::total_cmp);
    sorted.get(sorted.len() / 2).map(|v| f64::from(*v))
}

/// What a step search measured of one candidate: the most users it held at
/// the SLA (0 if none) and the step it first broke at (`None`: its top
/// step held, so `held` is a floor).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepBounds {
    pub held: u64,
    pub broke_at: Option<u64>,
}

/// `a` surely holds more users than `b`: `b` broke at a step `a` held.
/// Equal floors, equal bounds, or a floor below the other's break are ties.
pub fn holds_more(a: StepBounds, b: StepBounds) -> bool {
    b.broke_at.is_some_and(|broke| a.held >= broke)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Resamples spread evenly around `centre` by ±`spread`, in an order
    /// set by `stride` (two strides pair values as independent draws would).
    fn spread_by(centre: f64, spread: f64, stride: usize) -> Replicates {
        let values: Vec<f32> = (0..1000)
            .map(|i| (centre + spread * ((i * stride % 1000) as f64 / 500.0 - 1.0)) as f32)
            .collect();
        Replicates::of(values).unwrap()
    }

    fn around(centre: f64, spread: f64) -> Replicates {
        spread_by(centre, spread, 617)
    }

    fn around_other(centre: f64, spread: f64) -> Replicates {
        spread_by(centre, spread, 379)
    }

    fn share(p: f64, lo: f64, hi: f64) -> Replicates {
        Replicates {
            lo,
            hi,
            values: vec![p as f32; 1000],
        }
    }

    fn floor(held: u64) -> StepBounds {
        StepBounds {
            held,
            broke_at: None,
        }
    }

    fn broke(held: u64, at: u64) -> StepBounds {
        StepBounds {
            held,
            broke_at: Some(at),
        }
    }

    #[test]
    fn the_rules_as_a_table() {
        // (case, beyond noise?)
        let latency = |best: f64, other: f64, spread: f64| {
            ratio_gap(
                Better::Lower,
                (best, &around(best, spread)),
                (other, &around_other(other, spread)),
            )
            .unwrap()
            .beyond_noise()
        };
        let throughput = |best: f64, other: f64, spread: f64| {
            ratio_gap(
                Better::Higher,
                (best, &around(best, spread)),
                (other, &around_other(other, spread)),
            )
            .unwrap()
            .beyond_noise()
        };
        let failures = |b: (f64, f64, f64), o: (f64, f64, f64)| {
            share_gap((b.0, &share(b.0, b.1, b.2)), (o.0, &share(o.0, o.1, o.2))).beyond_noise()
        };
        let table: [(&str, bool, bool); 12] = [
            ("p95 38 vs 63 ms, each ±3", latency(38.0, 63.0, 3.0), true),
            ("p95 84 vs 87 ms, each ±8", latency(84.0, 87.0, 8.0), false),
            ("the same figure twice", latency(50.0, 50.0, 1.0), false),
            ("543 vs 579 ms, each ±5", latency(543.0, 579.0, 5.0), true),
            (
                "ok/s 150 vs 124, each ±4",
                throughput(150.0, 124.0, 4.0),
                true,
            ),
            (
                "ok/s 100 vs 98, each ±5",
                throughput(100.0, 98.0, 5.0),
                false,
            ),
            (
                "0 % vs 82 % failed",
                failures((0.0, 0.0, 0.001), (0.82, 0.81, 0.83)),
                true,
            ),
            (
                "0 of 40 vs 1 of 40 failed",
                failures((0.0, 0.0, 0.088), (0.025, 0.004, 0.129)),
                false,
            ),
            (
                "floors 200 and 200",
                holds_more(floor(200), floor(200)),
                false,
            ),
            (
                "floor 200 vs broke at 200",
                holds_more(floor(200), broke(100, 200)),
                true,
            ),
            (
                "held 1100 both, both broke at 1300",
                holds_more(broke(1100, 1300), broke(1100, 1300)),
                false,
            ),
            (
                "floor 100 vs broke at 200",
                holds_more(floor(100), broke(100, 200)),
                false,
            ),
        ];
        for (case, got, want) in table {
            assert_eq!(got, want, "{case}");
        }
    }

    #[test]
    fn a_tie_says_how_much_more_measuring_would_decide_it() {
        // GIVEN a 4 % gap whose interval is ±8 %
        let gap = Gap {
            point: 1.04,
            lo: 0.96,
            hi: 1.12,
            none: 1.0,
        };
        // THEN about four times the measurement would halve the width to decide
        assert!(!gap.beyond_noise());
        assert!((gap.growth_to_decide().unwrap() - 4.0).abs() < 1e-9);
        // AND no amount decides two equal figures
        let equal = Gap { point: 1.0, ..gap };
        assert_eq!(equal.growth_to_decide(), None);
    }

    #[test]
    fn ratios_pair_the_resamples_and_keep_the_point_figures() {
        let gap = ratio_gap(
            Better::Lower,
            (40.0, &around(40.0, 2.0)),
            (60.0, &around_other(60.0, 2.0)),
        )
        .unwrap();
        assert_eq!(gap.point, 1.5);
        assert!(gap.lo > 1.3 && gap.hi < 1.7, "{gap:?}");
        assert_eq!(
            gap.describe(),
            format!("1.50x, 95 % interval {:.2}-{:.2}x", gap.lo, gap.hi)
        );
    }
}
