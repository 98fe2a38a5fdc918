//! The Conduit verdict: monolith against microservices by Invoke and by
//! queue, from the steady mix and the capacity search a run has.

use super::conduit_original::against_original;
use super::findings::{
    dollars, duration, largest_extra_line, percent, rank, rank_spread, tie_words, to_decide,
    usd_per_million_ok, versus, with_interval, Aspect, Better, Call, Candidate, Finding,
    KeyFigures, Placed, QuestionVerdict,
};
use super::names::{peak_users, MICRO_INVOKE, MICRO_QUEUE, MONOLITH};
use crate::pass::Pass;
use crate::plan::Mode;
use crate::report::answers::{find, CONDUIT_QUESTION};
use crate::results::{CapacityResult, Results, RunRecord};
use crate::sla::users_broken;
use crate::stats::rules::{holds_more, StepBounds};
use crate::stats::{Replicates, Spread};

const STEADY: &str = "conduit-mixed";
const VARIANTS: [(&str, &str); 3] = [MONOLITH, MICRO_INVOKE, MICRO_QUEUE];

/// Each variant's steady record and capacity search, either possibly absent.
struct Runs<'a> {
    steady: Vec<(&'static str, Option<&'a RunRecord>)>,
    capacity: Vec<(&'static str, Option<&'a CapacityResult>)>,
    mode: Mode,
}

impl<'a> Runs<'a> {
    /// Each variant's figure with its resamples, for [`rank_spread`].
    fn candidates(
        &self,
        figure: impl Fn(&RunRecord) -> Option<f64>,
        spread: impl Fn(&'a Spread) -> Option<&'a Replicates>,
    ) -> Vec<Candidate<'a>> {
        self.steady
            .iter()
            .map(|(name, r)| {
                let resamples = r.and_then(|r| r.spread.as_ref()).and_then(&spread);
                (name.to_string(), r.and_then(&figure), resamples)
            })
            .collect()
    }

    /// The resamples of `name`'s steady figure.
    fn spread_of(
        &self,
        name: &str,
        spread: impl Fn(&'a Spread) -> Option<&'a Replicates>,
    ) -> Option<&'a Replicates> {
        self.steady(name)?.spread.as_ref().and_then(spread)
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
        mode: results.mode,
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
    let latency = rank_spread(
        &runs.candidates(|r| r.summary.p95_ms, |s| s.p95_ms.as_ref()),
        Better::Lower,
    );
    let held = users_held(&runs);
    let cost = rank_spread(
        &runs.candidates(usd_per_million_ok, |s| s.usd_per_million_ok.as_ref()),
        Better::Lower,
    );
    let winner = |ranked: &Option<Vec<Placed>>| Call::of(ranked.as_deref());
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

/// The variants searched, most users held first (none held counts as 0);
/// one holds more than the best beyond noise only where the steps say so
/// (`stats::rules::holds_more`): equal floors are a tie.
fn users_held(runs: &Runs) -> Option<Vec<Placed>> {
    let searched = runs.searched();
    let bounds = |name: &str| {
        let c = searched.iter().find(|(n, _)| *n == name)?.1;
        Some(StepBounds {
            held: c.users_held.unwrap_or(0),
            broke_at: users_broken(&c.steps),
        })
    };
    let held: Vec<(String, Option<f64>)> = searched
        .iter()
        .map(|(name, c)| (name.to_string(), Some(c.users_held.unwrap_or(0) as f64)))
        .collect();
    let mut ranked = rank(&held, Better::Higher)?;
    let best = bounds(&ranked[0].name)?;
    for placed in &mut ranked[1..] {
        placed.beyond_noise = bounds(&placed.name).is_some_and(|b| holds_more(best, b));
    }
    Some(ranked)
}

/// `micro-invoke 64 ms (1.65x as slow, 95 % interval 1.55-1.75x), ...`.
fn others(ranked: &[Placed], figure: impl Fn(f64) -> String, how: &str) -> String {
    ranked[1..]
        .iter()
        .map(|p| format!("{} {} ({})", p.name, figure(p.value), versus(p, how)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn latency_text(runs: &Runs, ranked: Option<&[Placed]>) -> String {
    let Some(ranked) = ranked else {
        return format!("{}: no latency verdict.", runs.not_measured());
    };
    let best = &ranked[0];
    let p95 = with_interval(
        duration(best.value),
        runs.spread_of(&best.name, |s| s.p95_ms.as_ref()),
        duration,
    );
    let hold = runs
        .steady(&best.name)
        .and_then(|r| r.summary.latency_from_s)
        .map_or_else(String::new, |s| format!(", after its {s:.0}-s ramp"));
    match Call::of(Some(ranked)) {
        Call::Winner(_) => format!(
            "At {} ({STEADY}{hold}) the {} wins: p95 {p95}; {}.",
            runs.load(),
            best.name,
            others(ranked, duration, "as slow")
        ),
        tie => format!(
            "At {} ({STEADY}{hold}) {}: the {} p95 {p95}; {}.{}",
            runs.load(),
            tie_words(&tie),
            best.name,
            others(ranked, duration, "as slow"),
            to_decide(ranked)
        ),
    }
}

fn overload_text(runs: &Runs, held: Option<&[Placed]>) -> String {
    const SLA: &str = "p95 < 500 ms, p99 < 1 s, errors < 1 %";
    let Some(held) = held else {
        let steady: Vec<String> = runs
            .steady
            .iter()
            .filter_map(|(name, r)| Some(format!("{name} {}", percent((*r)?.summary.error_rate))))
            .collect();
        let why = if runs.mode == Mode::Quick {
            "a quick run searches no capacity (its steps, up to 200 users, are held by every variant on two cores: \
             it could only say tie); `--full` searches, or give `--capacity-steps`"
        } else {
            "the run has no capacity search of the three (`--no-capacity`)"
        };
        return format!(
            "Not measured: {why}, so no users held at the SLA ({SLA}); at {} the failed shares were {}.",
            runs.load(),
            if steady.is_empty() { "not measured either".into() } else { steady.join(", ") }
        );
    };
    let users = |v: f64| format!("{v:.0}");
    let mut text = match Call::of(Some(held)) {
        Call::Winner(_) => format!(
            "In the capacity search the {} wins: it held {} users at the SLA ({SLA}); {}.",
            held[0].name,
            users(held[0].value),
            others(held, users, "fewer")
        ),
        tie => format!(
            "In the capacity search {}: the {} held {} users at the SLA ({SLA}); {}. No one of them broke the SLA \
             at a step another held, so the steps do not part them.",
            tie_words(&tie),
            held[0].name,
            users(held[0].value),
            others(held, users, "fewer")
        ),
    };
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
                versus(p, "as costly")
            )
        })
        .collect();
    let usd = with_interval(
        dollars(ranked[0].value),
        runs.spread_of(&ranked[0].name, |s| s.usd_per_million_ok.as_ref()),
        dollars,
    );
    match Call::of(Some(ranked)) {
        Call::Winner(_) => format!(
            "The {} is the cheapest: {usd} per million ok requests; {}.",
            ranked[0].name,
            rest.join(", ")
        ),
        tie => format!(
            "Cost: {}: the {} {usd} per million ok requests; {}.{}",
            tie_words(&tie),
            ranked[0].name,
            rest.join(", "),
            to_decide(ranked)
        ),
    }
}

/// The variants in order, the best and those within noise of it as one
/// group (`monolith = micro-queue`).
fn order(ranked: Option<&[Placed]>) -> Option<Vec<String>> {
    let ranked = ranked?;
    let (tied, apart): (Vec<&Placed>, Vec<&Placed>) =
        ranked[1..].iter().partition(|p| !p.beyond_noise);
    let first = std::iter::once(ranked[0].name.as_str())
        .chain(tied.iter().map(|p| p.name.as_str()))
        .collect::<Vec<_>>()
        .join(" = ");
    Some(
        std::iter::once(first)
            .chain(apart.iter().map(|p| p.name.clone()))
            .collect(),
    )
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
            p95_interval: steady
                .and_then(|r| r.spread.as_ref()?.p95_ms.as_ref())
                .map(|s| (s.lo, s.hi)),
            overload: capacity.map_or_else(
                || "users held not measured".into(),
                |c| {
                    let floor = if c.never_broke() { "at least " } else { "" };
                    format!("held {floor}{} users", c.users_held.unwrap_or(0))
                },
            ),
            usd_per_million_ok: steady.and_then(usd_per_million_ok),
            usd_interval: steady
                .and_then(|r| r.spread.as_ref()?.usd_per_million_ok.as_ref())
                .map(|s| (s.lo, s.hi)),
        })
        .collect()
}

#[cfg(test)]
#[path = "conduit_tests.rs"]
mod tests;
