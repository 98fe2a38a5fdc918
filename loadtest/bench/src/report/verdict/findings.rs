//! What a verdict is made of: one finding per aspect, each a sentence, and
//! the few figures the README's table shows; with the comparisons the
//! sentences are built from.

use crate::results::RunRecord;

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
    /// Failed share under overload, or users held at the SLA, in words.
    pub overload: String,
    /// $ per million successful requests at the healthy load.
    pub usd_per_million_ok: Option<f64>,
}

/// One experiment's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct QuestionVerdict {
    pub question: &'static str,
    /// Who wins on latency, under overload and on cost (`None`: not measured
    /// or a tie), for the headline.
    pub winners: Vec<(Aspect, Option<String>)>,
    pub findings: Vec<Finding>,
    pub figures: Vec<KeyFigures>,
}

/// An architecture's figure, placed against the best one's.
#[derive(Debug, Clone, PartialEq)]
pub struct Placed {
    pub name: String,
    pub value: f64,
    /// How many times worse than the best (1.0 for the best itself);
    /// `None` when the best is 0 and no ratio means anything.
    pub times_worse: Option<f64>,
}

/// Whether less or more of a figure is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Better {
    Lower,
    Higher,
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
