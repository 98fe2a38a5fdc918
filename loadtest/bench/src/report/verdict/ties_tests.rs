//! Two names for the same functions: every answer must be a tie.

use super::findings::{Aspect, Call};
use super::verdict;
use crate::recorder::{summarize, Sample};
use crate::results::{CapacityResult, Results, RunRecord};
use crate::testdata;

/// 60 s at 50 requests a second of a latency that wanders (a slow stretch
/// every 7 s), starting `phase` requests into the pattern, every 5th
/// request failed when `failing`.
fn wandering(base_ms: f64, phase: u64, failing: bool) -> Vec<Sample> {
    (0..3000u64)
        .map(|i| {
            let j = i + phase;
            let slow = if (j / 50) % 7 < 2 { base_ms } else { 0.0 };
            let failed = failing && j.is_multiple_of(5);
            Sample {
                at_ms: i * 20,
                latency_ms: base_ms + slow + ((j * 7919) % 97) as f64 * base_ms / 200.0,
                ok: !failed,
                status: if failed { 503 } else { 200 },
            }
        })
        .collect()
}

/// `like` measured again under the name `variant`: the same bill, its own
/// samples (`phase` later in the same pattern) and its own resamples.
fn renamed(like: &RunRecord, variant: &str, base_ms: f64, phase: u64, failing: bool) -> RunRecord {
    let mut r = like.clone();
    r.variant = variant.into();
    let samples = wandering(base_ms, phase, failing);
    r.summary = summarize(&samples, 60.0);
    let usd = r.cost.as_ref().and_then(|c| c.usd_per_million_successful);
    let duration_share = r.cost.as_ref().map_or(0.0, |c| c.duration_share());
    r.spread = crate::stats::spread(&samples, 60.0, None, &format!("{}/{variant}", r.scenario))
        .map(|s| s.with_cost(usd, r.summary.error_rate, duration_share));
    r
}

/// The test run with each experiment's first variant measured again under
/// the other variants' names.
fn one_code_many_names() -> Results {
    let mut results = testdata::results();
    let first = |scenario: &str, variant: &str| {
        results
            .records
            .iter()
            .find(|r| r.scenario == scenario && r.variant == variant)
            .cloned()
            .expect("the test run has it")
    };
    let baseline = first("orders-baseline", "orders-direct");
    let highload = first("orders-highload", "orders-direct");
    let steady = first("conduit-mixed", "conduit-monolith");
    results.records = vec![
        renamed(&baseline, "orders-direct", 510.0, 0, false),
        renamed(&baseline, "orders-queue", 510.0, 150, false),
        renamed(&highload, "orders-direct", 520.0, 0, true),
        renamed(&highload, "orders-queue", 520.0, 150, true),
        renamed(&steady, "conduit-monolith", 30.0, 0, false),
        renamed(&steady, "conduit-micro-invoke", 30.0, 150, false),
        renamed(&steady, "conduit-micro-queue", 30.0, 300, false),
    ];
    let held = results.capacity[0].clone();
    results.capacity = [
        "conduit-monolith",
        "conduit-micro-invoke",
        "conduit-micro-queue",
    ]
    .map(|variant| CapacityResult {
        variant: variant.into(),
        ..held.clone()
    })
    .to_vec();
    results
}

#[test]
fn the_same_functions_under_two_names_tie_on_every_answer() {
    // GIVEN one code measured three times (twice for orders), each under
    // another variant's name, with the noise of a real run
    let results = one_code_many_names();
    // WHEN judged
    let v = verdict(&results);
    // THEN both questions answer "tie" on latency, overload and cost
    assert_eq!(v.questions.len(), 2);
    for q in &v.questions {
        for (aspect, call) in &q.winners {
            assert!(
                matches!(call, Call::Tie(_)),
                "{}: {aspect:?} is {call:?}\n{:#?}",
                q.question,
                q.findings
            );
        }
        // AND the headline says so in words
        let latency = &q
            .findings
            .iter()
            .find(|f| f.aspect == Aspect::Latency)
            .unwrap()
            .text;
        assert!(latency.contains("tie (within noise)"), "{latency}");
    }
    let md = super::view::markdown(&v);
    assert_eq!(md.matches("Latency: tie (within noise)").count(), 2, "{md}");
}

#[test]
fn a_real_difference_under_the_same_noise_still_wins() {
    // GIVEN the same run, but micro-invoke and the queue 40 % slower
    let mut results = one_code_many_names();
    for r in &mut results.records {
        if r.variant == "conduit-micro-invoke"
            || (r.variant == "orders-queue" && r.scenario == "orders-baseline")
        {
            let base = if r.scenario == "conduit-mixed" {
                42.0
            } else {
                714.0
            };
            *r = renamed(r, &r.variant.clone(), base, 150, false);
        }
    }
    // WHEN judged
    let v = verdict(&results);
    // THEN the latency answers name the faster, beyond the noise
    let latency = |i: usize| v.questions[i].winners[0].1.clone();
    assert_eq!(latency(0), Call::Winner("direct Invoke".into()));
    // AND the monolith still ties with micro-queue (the same code), while
    // micro-invoke is slower than both beyond the noise
    let Call::Tie(mut tied) = latency(1) else {
        panic!("{:?}", latency(1));
    };
    tied.sort();
    assert_eq!(tied, ["micro-queue", "monolith"]);
}
