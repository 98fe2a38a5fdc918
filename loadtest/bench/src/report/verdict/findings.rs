//! What a verdict is made of: one finding per aspect, each a sentence, and
//! the few figures the README's table shows; with the comparisons the
//! sentences are built from.

use crate::results::RunRecord;
pub use crate::stats::rules::Better;
use crate::stats::rules::{ratio_gap, Gap};
use crate::stats::Replicates;

/// What a finding is about, in the order the verdict tells them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Aspect {
    Latency,
    Overload,
    Cost,
    Flips,
    Original,
}

impl Aspect {
    pub fn label(self) -> &'static str {
        match self {
            Aspect::Latency => "Latency",
            Aspect::Overload => "Under overload",
            Aspect::Cost => "Cost",
            Aspect::Flips => "When it flips",
            Aspect::Original => "Against the original",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub aspect: Aspect,
    pub text: String,
}

/// One architecture's key figures, as the README's table shows them.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyFigures {
    pub architecture: String,
    /// p95 of successful requests at the healthy load (baseline, steady mix).
    pub p95_ms: Option<f64>,
    /// Its 95 % interval (`None`: not measured, or a file before schema 6).
    pub p95_interval: Option<(f64, f64)>,
    /// Failed share under overload, or users held at the SLA, in words.
    pub overload: String,
    /// $ per million successful requests at the healthy load.
    pub usd_per_million_ok: Option<f64>,
    pub usd_interval: Option<(f64, f64)>,
}

/// One experiment's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct QuestionVerdict {
    pub question: &'static str,
    /// Who wins on latency, under overload and on cost, for the headline.
    pub winners: Vec<(Aspect, Call)>,
    pub findings: Vec<Finding>,
    pub figures: Vec<KeyFigures>,
}

/// What an aspect's verdict says (`stats::rules` decides).
#[derive(Debug, Clone, PartialEq)]
pub enum Call {
    /// Better than every other beyond the run's noise.
    Winner(String),
    /// The best and those within noise of it, best first.
    Tie(Vec<String>),
    NotMeasured,
}

impl Call {
    /// The winner's name, if there is one.
    pub fn winner(&self) -> Option<&str> {
        match self {
            Call::Winner(name) => Some(name),
            _ => None,
        }
    }

    /// From a ranking: the best wins when every other is beyond the noise.
    pub fn of(ranked: Option<&[Placed]>) -> Self {
        let Some(ranked) = ranked else {
            return Call::NotMeasured;
        };
        let tied: Vec<String> = ranked[1..]
            .iter()
            .filter(|p| !p.beyond_noise)
            .map(|p| p.name.clone())
            .collect();
        if tied.is_empty() {
            Call::Winner(ranked[0].name.clone())
        } else {
            Call::Tie(
                std::iter::once(ranked[0].name.clone())
                    .chain(tied)
                    .collect(),
            )
        }
    }
}

/// An architecture's figure, placed against the best one's.
#[derive(Debug, Clone, PartialEq)]
pub struct Placed {
    pub name: String,
    pub value: f64,
    /// How many times worse than the best (1.0 for the best itself);
    /// `None` when the best is 0 and no ratio means anything.
    pub times_worse: Option<f64>,
    /// The 95 % interval of `times_worse`, where both records have one.
    pub gap: Option<Gap>,
    /// Worse than the best beyond the run's noise (the best itself: false).
    /// Without an interval (files before schema 6): any difference counts.
    pub beyond_noise: bool,
}

/// A candidate for [`rank_spread`]: its name, figure and resamples.
pub type Candidate<'a> = (String, Option<f64>, Option<&'a Replicates>);

/// As [`rank`], each one placed against the best with the interval of the
/// ratio where both have resamples (`stats::rules::ratio_gap`).
pub fn rank_spread(candidates: &[Candidate], better: Better) -> Option<Vec<Placed>> {
    let points: Vec<(String, Option<f64>)> =
        candidates.iter().map(|(n, v, _)| (n.clone(), *v)).collect();
    let mut ranked = rank(&points, better)?;
    let spread_of = |name: &str| candidates.iter().find(|c| c.0 == name).and_then(|c| c.2);
    let best = (ranked[0].value, spread_of(&ranked[0].name));
    for placed in &mut ranked[1..] {
        let gap = best
            .1
            .zip(spread_of(&placed.name))
            .and_then(|(b, o)| ratio_gap(better, (best.0, b), (placed.value, o)));
        if let Some(gap) = gap {
            placed.beyond_noise = gap.beyond_noise();
            placed.gap = Some(gap);
        }
    }
    Some(ranked)
}

/// `1.68x as slow, 95 % interval 1.55-1.80x` or, within the noise,
/// `1.04x, 95 % interval 0.95-1.13x: within noise`.
pub fn versus(p: &Placed, how: &str) -> String {
    let point_only = |g: &Gap| format!("{:.2}", g.lo) == format!("{:.2}", g.hi);
    match (&p.gap, p.beyond_noise) {
        (Some(g), true) if point_only(g) => format!("{:.2}x {how}", g.point),
        (Some(g), true) => format!(
            "{:.2}x {how}, 95 % interval {:.2}-{:.2}x",
            g.point, g.lo, g.hi
        ),
        (Some(g), false) => format!(
            "{:.2}x, 95 % interval {:.2}-{:.2}x: within noise",
            g.point, g.lo, g.hi
        ),
        (None, _) => format!("{} {how}", times(p.times_worse)),
    }
}

/// For a tie: what would decide it, from the widest-apart tied figure.
pub fn to_decide(ranked: &[Placed]) -> String {
    let growth = ranked[1..]
        .iter()
        .filter(|p| !p.beyond_noise)
        .filter_map(|p| p.gap.as_ref()?.growth_to_decide())
        .fold(None, |most: Option<f64>, g| {
            Some(most.map_or(g, |m| m.max(g)))
        });
    match growth {
        // Past this, no run a user would make decides it: say they measure alike.
        Some(g) if g > 100.0 => " They measure alike: no run a hundred times as long would part them.".into(),
        Some(g) => format!(
            " To decide it, about {:.0}x the measurement if the gap holds (the interval narrows with the square              root of the time measured: a longer run, `--full`, or more users).",
            g.ceil().max(2.0)
        ),
        None => " They measured the same: no longer run would part them.".into(),
    }
}

/// `tie (within noise): monolith, micro-queue` for a sentence's start.
pub fn tie_words(call: &Call) -> String {
    match call {
        Call::Tie(names) => format!("tie (within noise) between {}", names.join(" and ")),
        Call::Winner(name) => format!("{name} wins"),
        Call::NotMeasured => "no verdict".into(),
    }
}

/// `38 ms (95 % interval 36 ms to 40 ms)`.
pub fn with_interval(
    value: String,
    spread: Option<&Replicates>,
    unit: impl Fn(f64) -> String,
) -> String {
    match spread {
        // A zero-width interval (no failure moved the cost) says nothing.
        Some(r) if unit(r.lo) == unit(r.hi) => value,
        Some(r) => format!("{value} (95 % interval {} to {})", unit(r.lo), unit(r.hi)),
        None => value,
    }
}

/// The candidates best first, or `None` when a figure is missing or fewer
/// than two were measured: no ranking is then honest.
pub fn rank(candidates: &[(String, Option<f64>)], better: Better) -> Option<Vec<Placed>> {
    if candidates.len() < 2 {
        return None;
    }
    let mut known: Vec<(String, f64)> = candidates
        .iter()
        .map(|(name, value)| Some((name.clone(), (*value)?)))
        .collect::<Option<_>>()?;
    known.sort_by(|a, b| match better {
        Better::Lower => a.1.total_cmp(&b.1),
        Better::Higher => b.1.total_cmp(&a.1),
    });
    let best = known[0].1;
    Some(
        known
            .into_iter()
            .map(|(name, value)| {
                let times_worse = match better {
                    Better::Lower if best > 0.0 => Some(value / best),
                    Better::Higher if value > 0.0 => Some(best / value),
                    _ => None,
                };
                Placed {
                    name,
                    value,
                    times_worse,
                    gap: None,
                    beyond_noise: value != best,
                }
            })
            .collect(),
    )
}

/// `1.51x`, or `-` without a ratio.
pub fn times(ratio: Option<f64>) -> String {
    ratio.map_or_else(|| "-".into(), |r| format!("{r:.2}x"))
}

/// `542 ms` below a second, `1.11 s` above.
pub fn duration(ms: f64) -> String {
    if ms < 1000.0 {
        format!("{ms:.0} ms")
    } else {
        format!("{:.2} s", ms / 1000.0)
    }
}

pub fn dollars(usd: f64) -> String {
    format!("${usd:.2}")
}

pub fn percent(rate: f64) -> String {
    format!("{:.1} %", rate * 100.0)
}

/// The record's $ per million successful requests.
pub fn usd_per_million_ok(r: &RunRecord) -> Option<f64> {
    r.cost.as_ref()?.usd_per_million_successful
}

/// One bill heading's dollars per million successful requests.
pub fn line_per_million_ok(r: &RunRecord, heading: &str) -> Option<f64> {
    let cost = r.cost.as_ref()?;
    let successes = r.summary.successes as f64;
    let usd: f64 = cost
        .by_line
        .iter()
        .filter(|l| l.heading == heading)
        .map(|l| l.usd)
        .sum();
    (successes > 0.0).then(|| usd / successes * 1e6)
}

/// The bill heading where `costlier` pays most over `cheaper`, per million
/// successful requests: what makes the difference.
pub fn largest_extra_line(cheaper: &RunRecord, costlier: &RunRecord) -> Option<(String, f64)> {
    let headings = costlier.cost.as_ref()?.by_line.iter().map(|l| &l.heading);
    headings
        .filter_map(|h| {
            let extra = line_per_million_ok(costlier, h)? - line_per_million_ok(cheaper, h)?;
            (extra > 0.0).then(|| (h.clone(), extra))
        })
        .max_by(|a, b| a.1.total_cmp(&b.1))
}

/// A template parameter of the run, e.g. `OrdersBackendConcurrency`.
pub fn parameter<'a>(r: &'a RunRecord, name: &str) -> Option<&'a str> {
    r.settings.parameters.get(name).map(String::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(figures: &[(&str, Option<f64>)]) -> Vec<(String, Option<f64>)> {
        figures.iter().map(|(n, v)| (n.to_string(), *v)).collect()
    }

    #[test]
    fn lower_is_better_puts_the_least_first_with_each_ones_ratio_to_it() {
        let ranked = rank(
            &named(&[("queue", Some(6.0)), ("direct", Some(4.0))]),
            Better::Lower,
        )
        .unwrap();
        assert_eq!(ranked[0].name, "direct");
        assert_eq!(ranked[1].times_worse, Some(1.5));
    }

    #[test]
    fn higher_is_better_says_how_many_times_fewer() {
        let ranked = rank(
            &named(&[("invoke", Some(740.0)), ("monolith", Some(1600.0))]),
            Better::Higher,
        )
        .unwrap();
        assert_eq!(ranked[0].name, "monolith");
        assert!((ranked[1].times_worse.unwrap() - 2.162).abs() < 0.001);
    }

    #[test]
    fn a_missing_figure_or_a_single_candidate_ranks_nothing() {
        let one_missing = named(&[("a", Some(1.0)), ("b", None)]);
        assert_eq!(rank(&one_missing, Better::Lower), None);
        assert_eq!(rank(&named(&[("a", Some(1.0))]), Better::Lower), None);
        // AND a best of zero has no ratio rather than an infinite one
        let zero = rank(&named(&[("a", Some(0.0)), ("b", Some(3.0))]), Better::Lower);
        assert_eq!(zero.unwrap()[1].times_worse, None);
    }

    #[test]
    fn durations_switch_to_seconds_at_one_second() {
        assert_eq!(duration(542.08), "542 ms");
        assert_eq!(duration(1106.85), "1.11 s");
    }
}
