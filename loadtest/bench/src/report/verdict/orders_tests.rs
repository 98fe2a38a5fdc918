use super::*;
use crate::apis::ApiKind;
use crate::plan::orders_scenarios;
use crate::testdata;

fn text(v: &QuestionVerdict, aspect: Aspect) -> &str {
    let found = v.findings.iter().find(|f| f.aspect == aspect);
    &found
        .unwrap_or_else(|| panic!("no {aspect:?} in {v:?}"))
        .text
}

fn record<'a>(results: &'a mut Results, scenario: &str, variant: &str) -> &'a mut RunRecord {
    let found = results
        .records
        .iter_mut()
        .find(|r| r.scenario == scenario && r.variant == variant);
    found.expect("the test data has every orders run")
}

/// A sweep run of `variant` at `setting` under highload, `failures` of 200
/// successes refused.
fn swept(variant: &str, parameters: &[(&str, &str)], failures: usize) -> RunRecord {
    let latency = if variant == DIRECT.0 { 530.0 } else { 950.0 };
    let mut r = testdata::record(&orders_scenarios()[1], variant, latency, failures);
    r.kind = RecordKind::Sweep;
    r.scenario = "orders-sweep".into();
    r.setting = parameters
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",");
    for (k, v) in parameters {
        r.settings.parameters.insert(k.to_string(), v.to_string());
    }
    r
}

#[test]
fn the_direct_call_wins_latency_and_cost_and_the_queue_the_overload() {
    // GIVEN the test run: the queue slower at baseline, the direct path
    // refusing 50 of its 250 highload requests
    let results = testdata::results();
    // WHEN judged
    let v = verdict(&results, ApiKind::Http.into()).unwrap();
    // THEN each aspect names its winner
    let winner = |aspect| {
        v.winners
            .iter()
            .find(|(a, _)| *a == aspect)
            .unwrap()
            .1
            .clone()
    };
    assert_eq!(
        winner(Aspect::Latency),
        Call::Winner("direct Invoke".into())
    );
    assert_eq!(
        winner(Aspect::Overload),
        Call::Winner("SQS request/reply".into())
    );
    assert_eq!(winner(Aspect::Cost), Call::Winner("direct Invoke".into()));
    // AND says by how much, from the records' own figures
    let p95 = |variant| {
        find(&results, ApiKind::Http.into(), BASELINE, variant)
            .unwrap()
            .summary
            .p95_ms
            .unwrap()
    };
    let ratio = format!("{:.2}x as slow", p95("orders-queue") / p95("orders-direct"));
    assert!(text(&v, Aspect::Latency).contains(&ratio), "{v:?}");
    assert!(
        text(&v, Aspect::Overload)
            .contains("0.0 % of its requests failed against 20.0 % for direct Invoke"),
        "{v:?}"
    );
    assert!(
        text(&v, Aspect::Cost).contains("its largest extra line SQS"),
        "{v:?}"
    );
    // AND the README's figures: baseline p95 and cost, highload failures
    assert_eq!(v.figures[0].p95_ms, Some(p95("orders-direct")));
    assert_eq!(v.figures[0].overload, "20.0 % failed");
    assert_eq!(v.figures[1].overload, "0.0 % failed");
}

#[test]
fn cost_flips_when_the_refused_requests_make_the_direct_path_dearer() {
    // GIVEN a highload where each direct success costs twice a queue success
    let mut results = testdata::results();
    let queue_usd = usd_per_million_ok(record(&mut results, HIGHLOAD, "orders-queue")).unwrap();
    let direct = record(&mut results, HIGHLOAD, "orders-direct");
    direct.cost.as_mut().unwrap().usd_per_million_successful = Some(queue_usd * 2.0);
    // WHEN judged
    let v = verdict(&results, ApiKind::Http.into()).unwrap();
    // THEN the flip is said, with the share the direct path refused
    let flips = text(&v, Aspect::Flips);
    assert!(
        flips.contains("Cost flips with the load: direct Invoke is the cheaper at orders-baseline, SQS request/reply at orders-highload"),
        "{flips}"
    );
    assert!(
        flips.contains("the 20.0 % of requests it refused"),
        "{flips}"
    );
    assert!(text(&v, Aspect::Cost).contains("(2.00x"), "{v:?}");
}

#[test]
fn the_answers_part_at_the_direct_paths_reserved_concurrency() {
    let mut results = testdata::results();
    record(&mut results, HIGHLOAD, "orders-direct")
        .settings
        .parameters
        .insert("OrdersBackendConcurrency".into(), "100".into());
    let v = verdict(&results, ApiKind::Http.into()).unwrap();
    let flips = text(&v, Aspect::Flips);
    assert!(
        flips.contains("(OrdersBackendConcurrency=100 in this run)"),
        "{flips}"
    );
    assert!(
        flips.contains("orders-baseline's 50 users stay under it (0.0 % failed)"),
        "{flips}"
    );
    assert!(
        flips.contains("orders-highload's 200 go over it (20.0 % refused)"),
        "{flips}"
    );
}

#[test]
fn without_a_sweep_the_settings_that_might_flip_it_are_said_unmeasured() {
    let v = verdict(&testdata::results(), ApiKind::Http.into()).unwrap();
    assert!(
        text(&v, Aspect::Flips).contains("The run has no orders sweep (`--no-sweep`)"),
        "{v:?}"
    );
}

#[test]
fn a_reserved_concurrency_that_covers_the_load_makes_the_direct_path_win_the_sweep() {
    // GIVEN a sweep: direct at 10 refusing 90 %, at 200 refusing nothing;
    // the queue at two consumer caps, failing nothing but slower
    let mut results = testdata::results();
    results.records.extend([
        swept("orders-direct", &[("OrdersBackendConcurrency", "200")], 0),
        swept("orders-direct", &[("OrdersBackendConcurrency", "10")], 1800),
        swept("orders-queue", &[("OrdersQueueMaxConcurrency", "10")], 0),
        swept("orders-queue", &[("OrdersQueueMaxConcurrency", "100")], 0),
    ]);
    // WHEN judged
    let v = verdict(&results, ApiKind::Http.into()).unwrap();
    // THEN the lowest setting that held is named, and it wins on every measure
    let flips = text(&v, Aspect::Flips);
    assert!(
        flips.contains(
            "direct Invoke fails less than 1 % from OrdersBackendConcurrency=200 on (0.0 % failed"
        ),
        "{flips}"
    );
    assert!(
        flips.contains("direct Invoke wins on every measure"),
        "{flips}"
    );
    assert!(
        flips.contains("The queue's consumer cap and batch size set its latency"),
        "{flips}"
    );
    assert!(!flips.contains("no orders sweep"), "{flips}");
}

#[test]
fn a_sweep_where_no_reserved_concurrency_held_says_the_fewest_failures() {
    let mut results = testdata::results();
    results.records.extend([
        swept("orders-direct", &[("OrdersBackendConcurrency", "50")], 600),
        swept("orders-direct", &[("OrdersBackendConcurrency", "10")], 1800),
    ]);
    let v = verdict(&results, ApiKind::Http.into()).unwrap();
    let flips = text(&v, Aspect::Flips);
    assert!(
        flips.contains(
            "no reserved concurrency tried (10, 50) held: the fewest failures were 75.0 % at 50."
        ),
        "{flips}"
    );
    assert!(flips.contains("The queue was not swept."), "{flips}");
}

#[test]
fn a_missing_run_is_said_not_measured_and_wins_nothing() {
    // GIVEN a run without the queue's baseline
    let mut results = testdata::results();
    results
        .records
        .retain(|r| !(r.scenario == BASELINE && r.variant == "orders-queue"));
    // WHEN judged
    let v = verdict(&results, ApiKind::Http.into()).unwrap();
    // THEN no latency winner is guessed
    assert_eq!(v.winners[0], (Aspect::Latency, Call::NotMeasured));
    assert_eq!(
        text(&v, Aspect::Latency),
        "The run did not measure orders-baseline for SQS request/reply: no latency verdict."
    );
    // AND cost is judged at highload only, saying the baseline is missing
    assert!(
        text(&v, Aspect::Cost).contains("no cost verdict while healthy"),
        "{v:?}"
    );
    assert_eq!(v.figures[1].p95_ms, None);
}

#[test]
fn the_original_is_compared_with_the_consumer_cap_that_bounds_the_queue() {
    // GIVEN the template's consumer settings recorded with the highload run
    let mut results = testdata::results();
    let queue = record(&mut results, HIGHLOAD, "orders-queue");
    for (k, v) in [
        ("OrdersQueueMaxConcurrency", "100"),
        ("OrdersQueueBatchSize", "1"),
        ("OrdersDelayMs", "500"),
    ] {
        queue.settings.parameters.insert(k.into(), v.into());
    }
    // WHEN judged
    let v = verdict(&results, ApiKind::Http.into()).unwrap();
    // THEN it agrees with the original's shape and says why its queue is faster
    let original = text(&v, Aspect::Original);
    assert!(original.starts_with("As in the original"), "{original}");
    assert!(
        original.contains("(20.0 % here, 83.0 % there)"),
        "{original}"
    );
    assert!(original.contains("against 2.96x there"), "{original}");
    assert!(
        original.contains("100 consumers (OrdersQueueMaxConcurrency) at most 200/s here"),
        "{original}"
    );
    assert!(
        original.contains("implicit ~16 consumers 32/s"),
        "{original}"
    );
}

#[test]
fn a_run_without_orders_has_no_orders_verdict() {
    let mut results = testdata::results();
    results
        .records
        .retain(|r| !r.scenario.starts_with("orders-"));
    assert_eq!(verdict(&results, ApiKind::Http.into()), None);
}
