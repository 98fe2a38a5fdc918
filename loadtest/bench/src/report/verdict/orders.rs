//! The orders verdict: direct Invoke against SQS request/reply, from the
//! baseline, highload, largepayload and sweep records a run has.

use super::findings::{
    dollars, duration, largest_extra_line, parameter, percent, rank_spread, tie_words, times,
    to_decide, usd_per_million_ok, versus, with_interval, Aspect, Better, Call, Candidate, Finding,
    KeyFigures, QuestionVerdict,
};
use super::names::{peak_users, DIRECT, QUEUE};
use super::{orders_sweep, original};
use crate::pass::Pass;
use crate::report::answers::{find, ORDERS_QUESTION};
use crate::results::{RecordKind, Results, RunRecord};
use crate::sla::Sla;
use crate::stats::rules::share_gap;
use crate::stats::{Replicates, Spread};

const BASELINE: &str = "orders-baseline";
const HIGHLOAD: &str = "orders-highload";
const LARGEPAYLOAD: &str = "orders-largepayload";

/// One scenario's two records, either possibly not run.
struct Pair<'a> {
    scenario: &'static str,
    direct: Option<&'a RunRecord>,
    queue: Option<&'a RunRecord>,
}

impl<'a> Pair<'a> {
    fn of(results: &'a Results, pass: Pass, scenario: &'static str) -> Self {
        Self {
            scenario,
            direct: find(results, pass, scenario, DIRECT.0),
            queue: find(results, pass, scenario, QUEUE.0),
        }
    }

    fn both(&self) -> Option<(&'a RunRecord, &'a RunRecord)> {
        Some((self.direct?, self.queue?))
    }

    /// Each path's figure with its resamples, for [`rank_spread`].
    fn candidates(
        &self,
        figure: impl Fn(&RunRecord) -> Option<f64>,
        spread: impl Fn(&'a Spread) -> Option<&'a Replicates>,
    ) -> Vec<Candidate<'a>> {
        [(DIRECT.1, self.direct), (QUEUE.1, self.queue)]
            .into_iter()
            .map(|(name, r)| {
                let resamples = r.and_then(|r| r.spread.as_ref()).and_then(&spread);
                (name.to_string(), r.and_then(&figure), resamples)
            })
            .collect()
    }

    fn by_name(&self, name: &str) -> Option<&'a RunRecord> {
        if name == DIRECT.1 {
            self.direct
        } else {
            self.queue
        }
    }

    /// "The run did not measure orders-baseline for SQS request/reply".
    fn not_measured(&self) -> String {
        let missing: Vec<&str> = [(DIRECT.1, self.direct), (QUEUE.1, self.queue)]
            .iter()
            .filter(|(_, r)| r.is_none())
            .map(|(name, _)| *name)
            .collect();
        format!(
            "The run did not measure {} for {}",
            self.scenario,
            missing.join(" nor for ")
        )
    }
}

/// The verdict, or `None` when the run has no orders record at all.
pub fn verdict(results: &Results, pass: Pass) -> Option<QuestionVerdict> {
    let baseline = Pair::of(results, pass, BASELINE);
    let highload = Pair::of(results, pass, HIGHLOAD);
    let sweep: Vec<&RunRecord> = results
        .records
        .iter()
        .filter(|r| r.kind == RecordKind::Sweep && r.pass() == pass)
        .collect();
    let any = |p: &Pair| p.direct.is_some() || p.queue.is_some();
    if !any(&baseline) && !any(&highload) && sweep.is_empty() {
        return None;
    }
    let (latency_call, latency_text) = latency(&baseline);
    let (overload_call, overload_text) = overload(&highload);
    let (cost_call, cost_text) = cost(&baseline, &highload);
    let latency_winner = latency_call.winner().map(str::to_string);
    let overload_winner = overload_call.winner().map(str::to_string);
    let mut findings = vec![
        finding(Aspect::Latency, latency_text),
        finding(Aspect::Overload, overload_text),
        finding(Aspect::Cost, cost_text),
    ];
    let mut flips = Vec::new();
    flips.extend(cost_flip(&baseline, &highload));
    if latency_winner.is_some() && overload_winner.is_some() && latency_winner != overload_winner {
        flips.extend(concurrency_split(&baseline, &highload));
    }
    flips.push(orders_sweep::flips(&sweep));
    flips.extend(largepayload(&Pair::of(results, pass, LARGEPAYLOAD)));
    findings.push(finding(Aspect::Flips, flips.join(" ")));
    findings.push(finding(
        Aspect::Original,
        against_original(
            &baseline,
            &highload,
            latency_winner.as_deref(),
            overload_winner.as_deref(),
        ),
    ));
    Some(QuestionVerdict {
        question: ORDERS_QUESTION,
        winners: vec![
            (Aspect::Latency, latency_call),
            (Aspect::Overload, overload_call),
            (Aspect::Cost, cost_call),
        ],
        findings,
        figures: key_figures(&baseline, &highload),
    })
}

fn finding(aspect: Aspect, text: String) -> Finding {
    Finding { aspect, text }
}

fn latency(baseline: &Pair) -> (Call, String) {
    let candidates = baseline.candidates(|r| r.summary.p95_ms, |s| s.p95_ms.as_ref());
    let Some(ranked) = rank_spread(&candidates, Better::Lower) else {
        return (
            Call::NotMeasured,
            format!("{}: no latency verdict.", baseline.not_measured()),
        );
    };
    let (best, other) = (&ranked[0], &ranked[1]);
    let load = baseline.by_name(&best.name).map_or(0, peak_users);
    let p95 = |name: &str, value: f64| {
        let spread = baseline
            .by_name(name)
            .and_then(|r| r.spread.as_ref()?.p95_ms.as_ref());
        with_interval(duration(value), spread, duration)
    };
    let call = Call::of(Some(&ranked));
    let (lead, decide) = match &call {
        Call::Winner(name) => (format!("{name} wins: p95"), String::new()),
        tie => (
            format!("{}: p95 for {}", tie_words(tie), best.name),
            to_decide(&ranked),
        ),
    };
    let text = format!(
        "At {BASELINE} (up to {load} users) {lead} {} against {} for {} ({}).{decide}",
        p95(&best.name, best.value),
        p95(&other.name, other.value),
        other.name,
        versus(other, "as slow"),
    );
    (call, text)
}

fn overload(highload: &Pair) -> (Call, String) {
    let Some((direct, queue)) = highload.both() else {
        return (
            Call::NotMeasured,
            format!("{}: no verdict under overload.", highload.not_measured()),
        );
    };
    let load = format!("{HIGHLOAD} (up to {} users)", peak_users(direct));
    let held = Sla::default().max_error_rate;
    let (d, q) = (&direct.summary, &queue.summary);
    if d.error_rate < held && q.error_rate < held {
        let text = format!(
            "At {load} neither failed 1 % of its requests ({} {}, {} {}): no winner on failures.",
            DIRECT.1,
            percent(d.error_rate),
            QUEUE.1,
            percent(q.error_rate)
        );
        return (Call::Tie(vec![DIRECT.1.into(), QUEUE.1.into()]), text);
    }
    let (winner, loser) = if q.error_rate <= d.error_rate {
        ((QUEUE.1, queue), (DIRECT.1, direct))
    } else {
        ((DIRECT.1, direct), (QUEUE.1, queue))
    };
    let (w, l) = (&winner.1.summary, &loser.1.summary);
    let gap = winner
        .1
        .spread
        .as_ref()
        .zip(loser.1.spread.as_ref())
        .map(|(ws, ls)| {
            share_gap(
                (w.error_rate, &ws.error_rate),
                (l.error_rate, &ls.error_rate),
            )
        });
    let call = if gap.is_none_or(|g| g.beyond_noise()) {
        Call::Winner(winner.0.to_string())
    } else {
        Call::Tie(vec![winner.0.to_string(), loser.0.to_string()])
    };
    let mut text = format!(
        "At {load} {}: {} of its requests failed against {} for {}{}, at p95 {} against {}",
        tie_words(&call),
        percent(w.error_rate),
        percent(l.error_rate),
        loser.0,
        gap.map_or_else(String::new, |g| format!(" (difference {})", g.describe())),
        w.p95_ms.map_or_else(|| "-".into(), duration),
        l.p95_ms.map_or_else(|| "-".into(), duration),
    );
    if l.successful_rps > w.successful_rps {
        text.push_str(&format!(
            "; {} still answered more ({:.1} ok/s against {:.1})",
            loser.0, l.successful_rps, w.successful_rps
        ));
    }
    text.push('.');
    (call, text)
}

/// The cheaper path per successful request at one load, in words.
fn cheaper(pair: &Pair) -> Option<(Call, String)> {
    let candidates = pair.candidates(usd_per_million_ok, |s| s.usd_per_million_ok.as_ref());
    let ranked = rank_spread(&candidates, Better::Lower)?;
    let (best, other) = (&ranked[0], &ranked[1]);
    let extra = pair
        .by_name(&best.name)
        .zip(pair.by_name(&other.name))
        .and_then(|(b, o)| largest_extra_line(b, o))
        .map_or_else(String::new, |(line, usd)| {
            format!(", its largest extra line {line} +{}", dollars(usd))
        });
    let call = Call::of(Some(&ranked));
    let usd = |name: &str, value: f64| {
        let spread = pair
            .by_name(name)
            .and_then(|r| r.spread.as_ref()?.usd_per_million_ok.as_ref());
        with_interval(dollars(value), spread, dollars)
    };
    let lead = match &call {
        Call::Winner(name) => format!("{name} is cheaper at {}", pair.scenario),
        tie => format!("at {} {}", pair.scenario, tie_words(tie)),
    };
    let text = format!(
        "{lead}: {} per million ok requests for {} against {} for {} ({}{extra})",
        usd(&best.name, best.value),
        best.name,
        usd(&other.name, other.value),
        other.name,
        versus(other, "as costly")
    );
    Some((call, text))
}

/// The cost answer is the healthy load's (the overloaded one's without it).
fn cost(baseline: &Pair, highload: &Pair) -> (Call, String) {
    match (cheaper(baseline), cheaper(highload)) {
        (Some((call, healthy)), Some((_, overloaded))) => {
            (call, format!("{}; {overloaded}.", capitalised(&healthy)))
        }
        (Some((call, healthy)), None) => (call, format!("{}.", capitalised(&healthy))),
        (None, Some((call, overloaded))) => (
            call,
            format!(
                "{}. {}: no cost verdict while healthy.",
                capitalised(&overloaded),
                baseline.not_measured()
            ),
        ),
        (None, None) => (
            Call::NotMeasured,
            format!("{}: no cost verdict.", baseline.not_measured()),
        ),
    }
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

/// Only decided answers can flip: a tie at either load says nothing here.
fn cost_flip(baseline: &Pair, highload: &Pair) -> Option<String> {
    let healthy = cheaper(baseline)?.0.winner()?.to_string();
    let overloaded = cheaper(highload)?.0.winner()?.to_string();
    if healthy == overloaded {
        return Some(format!(
            "{healthy} is the cheaper at both loads measured ({BASELINE}, {HIGHLOAD})."
        ));
    }
    let refused = highload.by_name(&healthy)?.summary.error_rate;
    Some(format!(
        "Cost flips with the load: {healthy} is the cheaper at {BASELINE}, {overloaded} at {HIGHLOAD}, \
         where {healthy}'s bill also covers the {} of requests it refused, divided over fewer successes.",
        percent(refused)
    ))
}

/// Latency and failures answered differently: where the load crosses the
/// direct path's reserved concurrency.
fn concurrency_split(baseline: &Pair, highload: &Pair) -> Option<String> {
    let (healthy, overloaded) = (baseline.direct?, highload.direct?);
    let reserved = parameter(overloaded, "OrdersBackendConcurrency").unwrap_or("not recorded");
    Some(format!(
        "The latency and failure answers part at the direct path's reserved concurrency \
         (OrdersBackendConcurrency={reserved} in this run): {BASELINE}'s {} users stay under it ({} failed), \
         {HIGHLOAD}'s {} go over it ({} refused).",
        peak_users(healthy),
        percent(healthy.summary.error_rate),
        peak_users(overloaded),
        percent(overloaded.summary.error_rate)
    ))
}

fn largepayload(pair: &Pair) -> Option<String> {
    let candidates = pair.candidates(|r| r.summary.p95_ms, |s| s.p95_ms.as_ref());
    let ranked = rank_spread(&candidates, Better::Lower)?;
    let size = pair.direct?.load.size.unwrap_or(0);
    let lead = match Call::of(Some(&ranked)) {
        Call::Winner(name) => format!("{name} is the faster"),
        tie => tie_words(&tie),
    };
    Some(format!(
        "At size {size} ({LARGEPAYLOAD}) {lead}: p95 {} against {} ({}).",
        duration(ranked[0].value),
        duration(ranked[1].value),
        versus(&ranked[1], "as slow")
    ))
}

/// Whether the run agrees with the .NET original and, where it does not,
/// what the run's own settings say about why.
fn against_original(
    baseline: &Pair,
    highload: &Pair,
    latency_winner: Option<&str>,
    overload_winner: Option<&str>,
) -> String {
    let direct_failed = highload.direct.map(|r| r.summary.error_rate);
    let mut text = if latency_winner == Some(DIRECT.1) && overload_winner == Some(QUEUE.1) {
        format!(
            "As in the original (.NET and RabbitMQ, docs/experiments.md), the direct call is the faster while healthy \
             and fails under overload ({} here, {} there) where the queue loses nothing.",
            direct_failed.map_or_else(|| "-".into(), percent),
            percent(original::ORDERS_HIGHLOAD_DIRECT_FAILED)
        )
    } else {
        format!(
            "The original (.NET and RabbitMQ, docs/experiments.md) found the direct call the faster while healthy \
             (p95 {} against {}) and failing {} under overload where messaging failed {}; \
             here the faster is {} and the one that fails less under overload {}.",
            duration(original::ORDERS_BASELINE_DIRECT_P95_MS),
            duration(original::ORDERS_BASELINE_MESSAGING_P95_MS),
            percent(original::ORDERS_HIGHLOAD_DIRECT_FAILED),
            percent(original::ORDERS_HIGHLOAD_MESSAGING_FAILED),
            latency_winner.unwrap_or("not measured"),
            overload_winner.unwrap_or("neither (or not measured)")
        )
    };
    if let Some(why) = queue_difference(baseline, highload) {
        text.push(' ');
        text.push_str(&why);
    }
    text
}

/// The queue's latency penalty and overload rate against the original's,
/// and the consumer cap that bounds its rate.
fn queue_difference(baseline: &Pair, highload: &Pair) -> Option<String> {
    let (direct, queue) = baseline.both()?;
    let penalty = queue.summary.p95_ms? / direct.summary.p95_ms?;
    let original_penalty =
        original::ORDERS_BASELINE_MESSAGING_P95_MS / original::ORDERS_BASELINE_DIRECT_P95_MS;
    let overloaded = highload.queue?;
    let mut text = format!(
        "The queue's price in latency is {} here against {} there, and under overload it answered {:.1} ok/s \
         at p95 {} against {} req/s at {}",
        times(Some(penalty)),
        times(Some(original_penalty)),
        overloaded.summary.successful_rps,
        overloaded.summary.p95_ms.map_or_else(|| "-".into(), duration),
        original::ORDERS_HIGHLOAD_MESSAGING_RPS,
        duration(original::ORDERS_HIGHLOAD_MESSAGING_P95_MS)
    );
    let number = |name| parameter(overloaded, name).and_then(|v| v.parse::<f64>().ok());
    let bound = (|| {
        let (cap, batch, delay_ms) = (
            number("OrdersQueueMaxConcurrency")?,
            number("OrdersQueueBatchSize")?,
            number("OrdersDelayMs")?,
        );
        (delay_ms > 0.0).then(|| {
            let per_s = |consumers: f64| consumers * batch * 1000.0 / delay_ms;
            format!(
                ": each consumer answers a batch of {batch} per {delay_ms} ms (OrdersDelayMs), so the consumer cap bounds \
                 the queue's rate, {cap} consumers (OrdersQueueMaxConcurrency) at most {:.0}/s here, the original's \
                 implicit ~{} consumers {:.0}/s",
                per_s(cap),
                original::ORDERS_CONSUMERS,
                per_s(original::ORDERS_CONSUMERS)
            )
        })
    })();
    text.push_str(&bound.unwrap_or_default());
    text.push('.');
    Some(text)
}

/// Each path's p95 and cost while healthy and its failures under overload.
fn key_figures(baseline: &Pair, highload: &Pair) -> Vec<KeyFigures> {
    [DIRECT, QUEUE]
        .iter()
        .map(|(_, name)| {
            let healthy = baseline.by_name(name);
            KeyFigures {
                architecture: name.to_string(),
                p95_ms: healthy.and_then(|r| r.summary.p95_ms),
                p95_interval: healthy
                    .and_then(|r| r.spread.as_ref()?.p95_ms.as_ref())
                    .map(|s| (s.lo, s.hi)),
                overload: highload.by_name(name).map_or_else(
                    || "not measured".into(),
                    |r| format!("{} failed", percent(r.summary.error_rate)),
                ),
                usd_per_million_ok: healthy.and_then(usd_per_million_ok),
                usd_interval: healthy
                    .and_then(|r| r.spread.as_ref()?.usd_per_million_ok.as_ref())
                    .map(|s| (s.lo, s.hi)),
            }
        })
        .collect()
}

#[cfg(test)]
#[path = "orders_tests.rs"]
mod tests;
