use super::*;
use crate::apis::ApiKind;
use crate::testdata;

fn text(v: &QuestionVerdict, aspect: Aspect) -> &str {
    let found = v.findings.iter().find(|f| f.aspect == aspect);
    &found
        .unwrap_or_else(|| panic!("no {aspect:?} in {v:?}"))
        .text
}

#[test]
fn the_monolith_wins_every_aspect_of_the_test_run() {
    // GIVEN Conduit runs at 30, 45 and 90 ms, holding 400, 300 and 200 users
    let results = testdata::results();
    // WHEN judged
    let v = verdict(&results, ApiKind::Http.into()).unwrap();
    // THEN the monolith wins latency, overload and cost
    for (aspect, winner) in &v.winners {
        assert_eq!(winner, &Call::Winner("monolith".into()), "{aspect:?}");
    }
    assert!(
        text(&v, Aspect::Overload).contains("it held 400 users at the SLA"),
        "{v:?}"
    );
    assert!(text(&v, Aspect::Overload)
        .contains("micro-invoke 300 (1.33x fewer), micro-queue 200 (2.00x fewer)"));
    // AND the same order at every load is said with the search's top step
    assert!(
        text(&v, Aspect::Flips).contains("The order is the same at every load measured"),
        "{v:?}"
    );
    assert_eq!(v.figures[0].overload, "held 400 users");
}

#[test]
fn a_quick_run_says_why_it_searched_no_capacity() {
    // GIVEN a quick run, which searches no capacity unless asked
    let mut results = testdata::results();
    results.capacity.clear();
    // WHEN judged
    let v = verdict(&results, ApiKind::Http.into()).unwrap();
    // THEN overload is not measured, saying how to measure it
    assert_eq!(v.winners[1], (Aspect::Overload, Call::NotMeasured));
    let overload = text(&v, Aspect::Overload);
    assert!(
        overload.starts_with("Not measured: a quick run searches no capacity"),
        "{overload}"
    );
    assert!(
        overload.contains("`--full` searches, or give `--capacity-steps`"),
        "{overload}"
    );
}

#[test]
fn a_capacity_search_whose_top_step_held_is_said_to_be_a_floor() {
    // GIVEN a run whose monolith held every step it was given
    let mut results = testdata::results();
    for step in &mut results.capacity[0].steps {
        step.held = true;
        step.violations.clear();
    }
    results.capacity[0].users_held = Some(800);
    // WHEN judged
    let v = verdict(&results, ApiKind::Http.into()).unwrap();
    // THEN its users held are a floor, in the finding and in the key figures
    assert!(
        text(&v, Aspect::Overload)
            .contains("broke no SLA for monolith: those capacities are floors"),
        "{v:?}"
    );
    assert_eq!(v.figures[0].overload, "held at least 800 users");
    // AND the variants that broke a step keep their plain figure
    assert_eq!(v.figures[1].overload, "held 300 users");
}

#[test]
fn without_a_capacity_search_users_held_are_said_not_measured() {
    // GIVEN a full run with --no-capacity
    let mut results = testdata::results();
    results.mode = crate::plan::Mode::Full;
    results.capacity.clear();
    // WHEN judged
    let v = verdict(&results, ApiKind::Http.into()).unwrap();
    // THEN overload has no winner, and the steady run's failures are given
    assert_eq!(v.winners[1], (Aspect::Overload, Call::NotMeasured));
    let overload = text(&v, Aspect::Overload);
    assert!(
        overload.starts_with("Not measured: the run has no capacity search"),
        "{overload}"
    );
    assert!(
        overload.contains("monolith 0.0 %, micro-invoke 0.0 %, micro-queue 1.0 %"),
        "{overload}"
    );
    assert!(
        text(&v, Aspect::Flips).contains("has no capacity search"),
        "{v:?}"
    );
    assert!(text(&v, Aspect::Original).contains("Users held were not measured in this run"));
    assert_eq!(v.figures[2].overload, "users held not measured");
}

#[test]
fn the_order_changing_toward_the_limit_is_said() {
    // GIVEN micro-queue slower than micro-invoke but holding more users
    let mut results = testdata::results();
    let queue = results
        .capacity
        .iter_mut()
        .find(|c| c.variant == "conduit-micro-queue")
        .unwrap();
    queue.users_held = Some(350);
    // WHEN judged
    let v = verdict(&results, ApiKind::Http.into()).unwrap();
    // THEN both orders are given
    let flips = text(&v, Aspect::Flips);
    assert!(
        flips.contains("monolith < micro-invoke < micro-queue by p95"),
        "{flips}"
    );
    assert!(
        flips.contains("monolith > micro-queue > micro-invoke by users held"),
        "{flips}"
    );
}

#[test]
fn the_original_is_compared_by_cpu_per_request_and_the_lines_the_split_leaves_alone() {
    let results = testdata::results();
    let v = verdict(&results, ApiKind::Http.into()).unwrap();
    let original = text(&v, Aspect::Original);
    // the original's 1.2 against 0.47 ms
    assert!(
        original.contains("costs 2.55x the CPU per request"),
        "{original}"
    );
    // ours, from the records: each micro's CPU per request over the monolith's
    let cpu = |variant| {
        find(&results, ApiKind::Http.into(), STEADY, variant)
            .unwrap()
            .cpu
            .functions_ms_per_request
            .unwrap()
    };
    let invoke = cpu("conduit-micro-invoke") / cpu("conduit-monolith");
    assert!(
        original.contains(&format!("spend {invoke:.2}x and")),
        "{original}"
    );
    assert!(
        original.contains("against the original's +0.73 ms"),
        "{original}"
    );
    // API Gateway is priced the same per request for all three
    assert!(
        original.contains("leaves alone (within 10 % across the variants: API Gateway"),
        "{original}"
    );
    assert!(
        original.contains("The monolith holds 1.33x micro-invoke's and 2.00x micro-queue's users"),
        "{original}"
    );
}

#[test]
fn a_run_without_conduit_has_no_conduit_verdict() {
    let mut results = testdata::results();
    results
        .records
        .retain(|r| !r.scenario.starts_with("conduit-"));
    results.capacity.clear();
    assert_eq!(verdict(&results, ApiKind::Http.into()), None);
}
