use super::rules::{ratio_gap, Better};
use super::*;

/// `seconds` of a steady run at `per_s` requests a second whose latencies
/// follow `latency(i)`, every `fail_every`-th one failed (0: none).
fn run(seconds: u64, per_s: u64, latency: impl Fn(u64) -> f64, fail_every: u64) -> Vec<Sample> {
    (0..seconds * per_s)
        .map(|i| {
            let failed = fail_every > 0 && i.is_multiple_of(fail_every);
            Sample {
                at_ms: i * 1000 / per_s,
                latency_ms: latency(i),
                ok: !failed,
                status: if failed { 503 } else { 200 },
            }
        })
        .collect()
}

/// A latency that wanders: a slow stretch every 7 s, noise within.
fn wandering(i: u64) -> f64 {
    let second = i / 50;
    let slow = if second % 7 < 2 { 30.0 } else { 0.0 };
    20.0 + slow + ((i * 7919) % 97) as f64 / 10.0
}

#[test]
fn the_same_functions_under_two_names_are_a_tie() {
    // GIVEN two runs of the same load on the same code, recorded under two
    // names (so resampled with two seeds), shifted in time by 3 s
    let a = run(60, 50, wandering, 0);
    let b = run(60, 50, |i| wandering(i + 150), 0);
    let sa = spread(&a, 60.0, None, "conduit-mixed/conduit-monolith").unwrap();
    let sb = spread(&b, 60.0, None, "conduit-mixed/conduit-micro-invoke").unwrap();
    // WHEN their p95s are compared
    let (pa, pb) = (sa.p95_ms.as_ref().unwrap(), sb.p95_ms.as_ref().unwrap());
    let (best, other) = if pa.lo <= pb.lo { (pa, pb) } else { (pb, pa) };
    let point = |r: &Replicates| percentile_interval(&r.values).map(|(l, h)| (l + h) / 2.0);
    let gap = ratio_gap(
        Better::Lower,
        (point(best).unwrap(), best),
        (point(other).unwrap(), other),
    )
    .unwrap();
    // THEN the ratio's interval holds 1: no winner
    assert!(!gap.beyond_noise(), "{gap:?}");
}

#[test]
fn a_real_gap_is_beyond_the_noise() {
    // GIVEN the same wandering load, one 40 % slower throughout
    let a = run(60, 50, wandering, 0);
    let b = run(60, 50, |i| wandering(i) * 1.4, 0);
    let sa = spread(&a, 60.0, None, "a").unwrap();
    let sb = spread(&b, 60.0, None, "b").unwrap();
    let (pa, pb) = (sa.p95_ms.unwrap(), sb.p95_ms.unwrap());
    // WHEN compared
    let gap = ratio_gap(Better::Lower, (50.0, &pa), (70.0, &pb)).unwrap();
    // THEN the slower one is slower beyond the noise
    assert!(gap.beyond_noise(), "{gap:?}");
}

#[test]
fn intervals_hold_the_point_figure_and_are_reproducible() {
    // GIVEN a run with 1 % failures
    let samples = run(40, 40, wandering, 100);
    let summary = crate::recorder::summarize(&samples, 40.0);
    // WHEN its spread is taken twice under one name
    let s = spread(&samples, 40.0, None, "x").unwrap();
    assert_eq!(Some(&s), spread(&samples, 40.0, None, "x").as_ref());
    // THEN every interval holds the run's own figure
    let p95 = s.p95_ms.as_ref().unwrap();
    assert!(p95.lo <= summary.p95_ms.unwrap() && summary.p95_ms.unwrap() <= p95.hi);
    assert!(
        s.error_rate.lo <= 0.01 && 0.01 <= s.error_rate.hi,
        "{:?}",
        (s.error_rate.lo, s.error_rate.hi)
    );
    assert!(
        s.successful_rps.lo <= summary.successful_rps
            && summary.successful_rps <= s.successful_rps.hi
    );
    // AND 20 blocks of 2 s, 1,000 resamples each
    assert_eq!(
        (s.block_ms, s.blocks, p95.values.len()),
        (2000, 20, RESAMPLES)
    );
}

#[test]
fn a_run_without_failures_still_has_a_failure_interval() {
    // GIVEN 400 requests, none failed
    let s = spread(&run(10, 40, |_| 5.0, 0), 10.0, None, "x").unwrap();
    // THEN the bootstrap's zero width is widened by Wilson's: up to ~0.95 %
    assert_eq!(s.error_rate.lo, 0.0);
    assert!((s.error_rate.hi - wilson(0, 400).1).abs() < 1e-12);
    assert!(
        (0.009..0.01).contains(&s.error_rate.hi),
        "{}",
        s.error_rate.hi
    );
}

#[test]
fn wilson_matches_its_textbook_values() {
    // 10 of 100: 5.52 % to 17.44 % (Newcombe 1998, method 3)
    let (lo, hi) = wilson(10, 100);
    assert!(
        (lo - 0.0552).abs() < 1e-4 && (hi - 0.1744).abs() < 1e-4,
        "{lo} {hi}"
    );
}

#[test]
fn cost_per_ok_request_follows_the_successful_share() {
    // GIVEN a run with 10 % failures at $4.00 per million ok
    let samples = run(40, 40, |_| 5.0, 10);
    let s = spread(&samples, 40.0, None, "x")
        .unwrap()
        .with_cost(Some(4.0), 0.1, 0.0);
    let cost = s.usd_per_million_ok.unwrap();
    // THEN its interval holds $4.00 and moves with the failed share
    assert!(cost.lo <= 4.0 && 4.0 <= cost.hi);
    // AND no success leaves no cost interval
    let none = spread(&run(5, 10, |_| 1.0, 1), 5.0, None, "y")
        .unwrap()
        .with_cost(None, 1.0, 0.0);
    assert_eq!(none.usd_per_million_ok, None);
}

#[test]
fn the_duration_line_of_the_cost_moves_with_the_resampled_latency() {
    // GIVEN a run without failures whose latency wanders, at $4.00 per
    // million ok requests
    let samples = run(60, 50, wandering, 0);
    let priced = |duration_share| {
        spread(&samples, 60.0, None, "z")
            .unwrap()
            .with_cost(Some(4.0), 0.0, duration_share)
            .usd_per_million_ok
            .unwrap()
    };
    // WHEN none of the bill is Lambda duration, THEN no failure moves it
    let fixed = priced(0.0);
    assert_eq!((fixed.lo, fixed.hi), (4.0, 4.0));
    // WHEN half of it is, THEN its interval holds $4.00 and has a width
    // that a whole bill of duration doubles
    let half = priced(0.5);
    let whole = priced(1.0);
    assert!(half.lo < 4.0 && 4.0 < half.hi, "{half:?}");
    let width = |r: &crate::stats::Replicates| r.hi - r.lo;
    assert!(
        (width(&whole) / width(&half) - 2.0).abs() < 0.01,
        "{} against {}",
        width(&whole),
        width(&half)
    );
}

#[test]
fn resamples_are_one_line_of_json_that_reads_back_exactly() {
    // GIVEN a record's spread
    let s = spread(&run(20, 20, wandering, 50), 20.0, None, "x").unwrap();
    // WHEN written and read back
    let json = serde_json::to_string_pretty(&s).unwrap();
    let back: Spread = serde_json::from_str(&json).unwrap();
    // THEN the resamples are read back exactly (the bounds to the last
    // digit JSON keeps), and the thousand values take one line each figure
    let p95 = (back.p95_ms.as_ref().unwrap(), s.p95_ms.as_ref().unwrap());
    assert!(p95.0.values == p95.1.values, "the p95 resamples changed");
    assert!(
        back.error_rate.values == s.error_rate.values,
        "the failed shares changed"
    );
    assert!((p95.0.lo - p95.1.lo).abs() < 1e-9 && (p95.0.hi - p95.1.hi).abs() < 1e-9);
    assert!(json.lines().count() < 60, "{} lines", json.lines().count());
    // AND a value that is not a number is refused with what it was
    let broken = json.replacen("\"values\": \"", "\"values\": \"x1 ", 1);
    let error = serde_json::from_str::<Spread>(&broken)
        .unwrap_err()
        .to_string();
    assert!(error.contains("resample \"x1\""), "{error}");
}

#[test]
fn resamples_written_as_an_array_still_read() {
    // GIVEN a figure as the first schema-6 files wrote it
    let json = r#"{"lo": 1.0, "hi": 3.0, "values": [1.0, 2.0, 3.0]}"#;
    // WHEN read
    let r: Replicates = serde_json::from_str(json).unwrap();
    // THEN its values are those
    assert_eq!(r.values, [1.0, 2.0, 3.0]);
}
