//! The Conduit verdict: monolith against microservices by Invoke and by
//! queue, from the steady mix and the capacity search a run has.

use super::conduit_original::against_original;
use super::findings::{
    dollars, duration, largest_extra_line, percent, rank, times, usd_per_million_ok, Aspect,
    Better, Finding, KeyFigures, Placed, QuestionVerdict,
};
use super::names::{peak_users, MICRO_INVOKE, MICRO_QUEUE, MONOLITH};
use crate::pass::Pass;
use crate::report::answers::{find, CONDUIT_QUESTION};
use crate::results::{CapacityResult, Results, RunRecord};

const STEADY: &str = "conduit-mixed";
const VARIANTS: [(&str, &str); 3] = [MONOLITH, MICRO_INVOKE, MICRO_QUEUE];

/// Each variant's steady record and capacity search, either possibly absent.
struct Runs<'a> {
    steady: Vec<(&'static str, Option<&'a RunRecord>)>,
    capacity: Vec<(&'static str, Option<&'a CapacityResult>)>,
}

impl<'a> Runs<'a> {
    fn figures(&self, figure: impl Fn(&RunRecord) -> Option<f64>) -> Vec<(String, Option<f64>)> {
        self.steady
            .iter()
            .map(|(name, r)| (name.to_string(), r.and_then(&figure)))
            .collect()
    }

    fn steady(&self, name: &str) -> Option<&'a RunRecord> {
        self.steady.iter().find(|(n, _)| *n == name)?.1
    }

    fn searched(&self) -> Vec<(&'static str, &'a CapacityResult)> {
        self.capacity
            .iter()
            .filter_map(|(name, c)| Some((*name, (*c)?)))
            .collect()
    }

    fn not_measured(&self) -> String {
        let missing: Vec<&str> = self
            .steady
            .iter()
            .filter(|(_, r)| r.is_none())
            .map(|(n, _)| *n)
            .collect();
        format!(
            "The run did not measure {STEADY} for {}",
            missing.join(" nor for ")
        )
    }

    /// `the steady 100 users`, as the records say.
    fn load(&self) -> String {
        let users = self.steady.iter().find_map(|(_, r)| r.map(peak_users));
        users.map_or_else(
            || "the steady mix".into(),
            |u| format!("the steady {u} users"),
        )
    }
}

/// The verdict, or `None` when the run has no Conduit record at all.
pub fn verdict(results: &Results, pass: Pass) -> Option<QuestionVerdict> {
    let runs = Runs {
        steady: VARIANTS
            .iter()
            .map(|(variant, name)| (*name, find(results, pass, STEADY, variant)))
            .collect(),
        capacity: VARIANTS
            .iter()
            .map(|(variant, name)| {
                let c = results
                    .capacity
                    .iter()
                    .find(|c| c.variant == *variant && c.pass() == pass);
                (*name, c)
            })
            .collect(),
    };
    if runs.steady.iter().all(|(_, r)| r.is_none()) && runs.searched().is_empty() {
        return None;
    }
    let latency = rank(&runs.figures(|r| r.summary.p95_ms), Better::Lower);
    let held = users_held(&runs);
    let cost = rank(&runs.figures(usd_per_million_ok), Better::Lower);
    let winner = |ranked: &Option<Vec<Placed>>| ranked.as_ref().map(|r| r[0].name.clone());
    let findings = vec![
        Finding {
            aspect: Aspect::Latency,
            text: latency_text(&runs, latency.as_deref()),
        },
        Finding {
            aspect: Aspect::Overload,
            text: overload_text(&runs, held.as_deref()),
        },
        Finding {
            aspect: Aspect::Cost,
            text: cost_text(&runs, cost.as_deref()),
        },
        Finding {
            aspect: Aspect::Flips,
            text: flips_text(&runs, latency.as_deref(), held.as_deref(), cost.as_deref()),
        },
        Finding {
            aspect: Aspect::Original,
            text: against_original(&runs.steady, held.as_deref()),
        },
    ];
    Some(QuestionVerdict {
        question: CONDUIT_QUESTION,
        winners: vec![
            (Aspect::Latency, winner(&latency)),
            (Aspect::Overload, winner(&held)),
            (Aspect::Cost, winner(&cost)),
        ],
        findings,
        figures: key_figures(&runs),
    })
}

/// The variants searched, most users held first (none held counts as 0).
fn users_held(runs: &Runs) -> Option<Vec<Placed>> {
    let held: Vec<(String, Option<f64>)> = runs
        .searched()
        .iter()
        .map(|(name, c)| (name.to_string(), Some(c.users_held.unwrap_or(0) as f64)))
        .collect();
    rank(&held, Better::Higher)
}

/// `micro-invoke 64 ms (1.65x), micro-queue 66 ms (1.69x)`.
fn others(ranked: &[Placed], figure: impl Fn(f64) -> String, how: &str) -> String {
    ranked[1..]
        .iter()
        .map(|p| {
            format!(
                "{} {} ({} {how})",
                p.name,
                figure(p.value),
                times(p.times_worse)
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn latency_text(runs: &Runs, ranked: Option<&[Placed]>) -> String {
    let Some(ranked) = ranked else {
        return format!("{}: no latency verdict.", runs.not_measured());
    };
    format!(
        "At {} ({STEADY}) the {} wins: p95 {}; {}.",
        runs.load(),
        ranked[0].name,
        duration(ranked[0].value),
        others(ranked, duration, "as slow")
    )
}

fn overload_text(runs: &Runs, held: Option<&[Placed]>) -> String {
    const SLA: &str = "p95 < 500 ms, p99 < 1 s, errors < 1 %";
    let Some(held) = held else {
        let steady: Vec<String> = runs
            .steady
            .iter()
            .filter_map(|(name, r)| Some(format!("{name} {}", percent((*r)?.summary.error_rate))))
            .collect();
        return format!(
            "Not measured: the run has no capacity search of the three (`--no-capacity`), so no users held at the SLA \
             ({SLA}); at {} the failed shares were {}.",
            runs.load(),
            if steady.is_empty() { "not measured either".into() } else { steady.join(", ") }
        );
    };
    let users = |v: f64| format!("{v:.0}");
    let mut text = format!(
        "In the capacity search the {} wins: it held {} users at the SLA ({SLA}); {}.",
        held[0].name,
        users(held[0].value),
        others(held, users, "fewer")
    );
    let floors: Vec<&str> = runs
        .capacity
        .iter()
        .filter(|(_, c)| c.is_some_and(CapacityResult::never_broke))
        .map(|(n, _)| *n)
        .collect();
    if !floors.is_empty() {
        text.push_str(&format!(
            " The search's top step broke no SLA for {}: those capacities are floors, and so are the ratios \
             against them (`--capacity-steps` higher to find the ceiling).",
            floors.join(", ")
        ));
    }
    let unsearched: Vec<&str> = runs
        .capacity
        .iter()
        .filter(|(_, c)| c.is_none())
        .map(|(n, _)| *n)
        .collect();
    if !unsearched.is_empty() {
        text.push_str(&format!(" Not searched: {}.", unsearched.join(", ")));
    }
    text
}

fn cost_text(runs: &Runs, ranked: Option<&[Placed]>) -> String {
    let Some(ranked) = ranked else {
        return format!("{}: no cost verdict.", runs.not_measured());
    };
    let best = runs.steady(&ranked[0].name);
    let rest: Vec<String> = ranked[1..]
        .iter()
        .map(|p| {
            let extra = best
                .zip(runs.steady(&p.name))
                .and_then(|(b, o)| largest_extra_line(b, o))
                .map_or_else(String::new, |(line, usd)| {
                    format!(", its largest extra line {line} +{}", dollars(usd))
                });
            format!(
                "{} {} ({}{extra})",
                p.name,
                dollars(p.value),
                times(p.times_worse)
            )
        })
        .collect();
    format!(
        "The {} is the cheapest: {} per million ok requests; {}.",
        ranked[0].name,
        dollars(ranked[0].value),
        rest.join(", ")
    )
}

fn order(ranked: Option<&[Placed]>) -> Option<Vec<&str>> {
    Some(ranked?.iter().map(|p| p.name.as_str()).collect())
}

fn flips_text(
    runs: &Runs,
    latency: Option<&[Placed]>,
    held: Option<&[Placed]>,
    cost: Option<&[Placed]>,
) -> String {
    let Some(steady_order) = order(latency) else {
        return format!("{}: nothing to compare.", runs.not_measured());
    };
    let mut text = Vec::new();
    if let Some(by_cost) = order(cost).filter(|o| *o != steady_order) {
        text.push(format!(
            "Latency and cost order the variants differently: {} by p95, {} by cost.",
            steady_order.join(" < "),
            by_cost.join(" < ")
        ));
    }
    match (order(held), held) {
        (Some(by_held), Some(_)) if by_held != steady_order => text.push(format!(
            "The order changes toward the limit: {} by p95 at {}, {} by users held.",
            steady_order.join(" < "),
            runs.load(),
            by_held.join(" > ")
        )),
        (Some(_), Some(held)) => {
            let top = runs
                .searched()
                .iter()
                .flat_map(|(_, c)| c.steps.iter().map(|s| s.users))
                .max()
                .unwrap_or(0);
            text.push(format!(
                "The order is the same at every load measured, {} and the capacity steps up to {top} users: {}.",
                runs.load(),
                by_held_words(held)
            ));
        }
        _ => text.push(format!(
            "The run measured Conduit at one load ({}) and has no capacity search: whether the order changes toward \
             each variant's limit was not measured.",
            runs.load()
        )),
    }
    text.join(" ")
}

fn by_held_words(held: &[Placed]) -> String {
    held.iter()
        .map(|p| format!("{} {:.0}", p.name, p.value))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Each variant's p95 and cost in the steady mix and its users held.
fn key_figures(runs: &Runs) -> Vec<KeyFigures> {
    runs.steady
        .iter()
        .zip(&runs.capacity)
        .map(|((name, steady), (_, capacity))| KeyFigures {
            architecture: name.to_string(),
            p95_ms: steady.and_then(|r| r.summary.p95_ms),
            overload: capacity.map_or_else(
                || "users held not measured".into(),
                |c| {
                    let floor = if c.never_broke() { "at least " } else { "" };
                    format!("held {floor}{} users", c.users_held.unwrap_or(0))
                },
            ),
            usd_per_million_ok: steady.and_then(usd_per_million_ok),
        })
        .collect()
}

#[cfg(test)]
#[path = "conduit_tests.rs"]
mod tests;
