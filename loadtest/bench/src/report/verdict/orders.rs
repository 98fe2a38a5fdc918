//! The orders verdict: direct Invoke against SQS request/reply, from the
//! baseline, highload, largepayload and sweep records a run has.

use super::findings::{
    dollars, duration, largest_extra_line, parameter, percent, rank, times, usd_per_million_ok,
    Aspect, Better, Finding, KeyFigures, QuestionVerdict,
};
use super::names::{peak_users, DIRECT, QUEUE};
use super::{orders_sweep, original};
use crate::pass::Pass;
use crate::report::answers::{find, ORDERS_QUESTION};
use crate::results::{RecordKind, Results, RunRecord};
use crate::sla::Sla;

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

    /// Each path's figure, named as the verdict names it.
    fn figures(&self, figure: impl Fn(&RunRecord) -> Option<f64>) -> Vec<(String, Option<f64>)> {
        [(DIRECT.1, self.direct), (QUEUE.1, self.queue)]
            .into_iter()
            .map(|(name, r)| (name.to_string(), r.and_then(&figure)))
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
    let (latency_winner, latency_text) = latency(&baseline);
    let (overload_winner, overload_text) = overload(&highload);
    let (cost_winner, cost_text) = cost(&baseline, &highload);
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
            (Aspect::Latency, latency_winner),
            (Aspect::Overload, overload_winner),
            (Aspect::Cost, cost_winner),
        ],
        findings,
        figures: key_figures(&baseline, &highload),
    })
}

fn finding(aspect: Aspect, text: String) -> Finding {
    Finding { aspect, text }
}

fn latency(baseline: &Pair) -> (Option<String>, String) {
    let Some(ranked) = rank(&baseline.figures(|r| r.summary.p95_ms), Better::Lower) else {
        return (
            None,
            format!("{}: no latency verdict.", baseline.not_measured()),
        );
    };
    let (best, other) = (&ranked[0], &ranked[1]);
    let load = baseline.by_name(&best.name).map_or(0, peak_users);
    let text = format!(
        "At {BASELINE} (up to {load} users) {} wins: p95 {} against {} for {} ({} as slow).",
        best.name,
        duration(best.value),
        duration(other.value),
        other.name,
        times(other.times_worse)
    );
    (Some(best.name.clone()), text)
}

fn overload(highload: &Pair) -> (Option<String>, String) {
    let Some((direct, queue)) = highload.both() else {
        return (
            None,
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
        return (None, text);
    }
    let (winner, loser) = if q.error_rate <= d.error_rate {
        ((QUEUE.1, queue), (DIRECT.1, direct))
    } else {
        ((DIRECT.1, direct), (QUEUE.1, queue))
    };
    let (w, l) = (&winner.1.summary, &loser.1.summary);
    let mut text = format!(
        "At {load} {} wins: {} of its requests failed against {} for {}, at p95 {} against {}",
        winner.0,
        percent(w.error_rate),
        percent(l.error_rate),
        loser.0,
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
    (Some(winner.0.to_string()), text)
}

/// The cheaper path per successful request at one load, in words.
fn cheaper(pair: &Pair) -> Option<(String, String)> {
    let ranked = rank(&pair.figures(usd_per_million_ok), Better::Lower)?;
    let (best, other) = (&ranked[0], &ranked[1]);
    let extra = pair
        .by_name(&best.name)
        .zip(pair.by_name(&other.name))
        .and_then(|(b, o)| largest_extra_line(b, o))
        .map_or_else(String::new, |(line, usd)| {
            format!(", its largest extra line {line} +{}", dollars(usd))
        });
    let text = format!(
        "{} is cheaper at {}: {} per million ok requests against {} for {} ({}{extra})",
        best.name,
        pair.scenario,
        dollars(best.value),
        dollars(other.value),
        other.name,
        times(other.times_worse)
    );
    Some((best.name.clone(), text))
}

fn cost(baseline: &Pair, highload: &Pair) -> (Option<String>, String) {
    match (cheaper(baseline), cheaper(highload)) {
        (Some((winner, healthy)), Some((_, overloaded))) => {
            (Some(winner), format!("{healthy}; {overloaded}."))
        }
        (Some((winner, healthy)), None) => (Some(winner), format!("{healthy}.")),
        (None, Some((winner, overloaded))) => (
            Some(winner),
            format!(
                "{overloaded}. {}: no cost verdict while healthy.",
                baseline.not_measured()
            ),
        ),
        (None, None) => (
            None,
            format!("{}: no cost verdict.", baseline.not_measured()),
        ),
    }
}

fn cost_flip(baseline: &Pair, highload: &Pair) -> Option<String> {
    let (healthy, _) = cheaper(baseline)?;
    let (overloaded, _) = cheaper(highload)?;
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
    let ranked = rank(&pair.figures(|r| r.summary.p95_ms), Better::Lower)?;
    let size = pair.direct?.load.size.unwrap_or(0);
    Some(format!(
        "At size {size} ({LARGEPAYLOAD}) {} is the faster: p95 {} against {} ({}).",
        ranked[0].name,
        duration(ranked[0].value),
        duration(ranked[1].value),
        times(ranked[1].times_worse)
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
                overload: highload.by_name(name).map_or_else(
                    || "not measured".into(),
                    |r| format!("{} failed", percent(r.summary.error_rate)),
                ),
                usd_per_million_ok: healthy.and_then(usd_per_million_ok),
            }
        })
        .collect()
}

#[cfg(test)]
#[path = "orders_tests.rs"]
mod tests;
