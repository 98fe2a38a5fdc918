use super::super::chosen_sla::{choose, SlaAsked};
use super::super::document::*;
use super::super::picks::{pick, BALANCED_WEIGHT};
use super::*;
use crate::plan::{orders_scenarios, Mode};
use crate::testdata;
use crate::variants::Experiment;

/// orders-direct at these sizes (given out of memory order), judged by the
/// default SLA of orders-baseline: at size `m`, latency and billed duration
/// shrink as 128 / m grows, cost grows with it.
fn document(sizes: &[u32]) -> TuneDocument {
    document_asked(sizes, SlaAsked::default())
}

/// The same, with these bounds given on the command line.
fn document_asked(sizes: &[u32], asked: SlaAsked) -> TuneDocument {
    let baseline = &orders_scenarios()[0];
    let chosen = choose(Experiment::Orders, 500.0, asked);
    let sla = chosen.sla;
    let settings: Vec<TuneSetting> = sizes
        .iter()
        .map(|&mb| {
            let speedup = f64::from(mb) / 128.0;
            let mut record = testdata::record(baseline, "orders-direct", 600.0 / speedup, 0);
            let metering = record.metering.as_mut().unwrap();
            for f in metering.functions.values_mut() {
                f.memory_mb = f64::from(mb);
                f.billed_ms /= speedup;
            }
            let cost = record.cost.as_mut().unwrap();
            cost.usd_per_million_successful = Some(1.0 + speedup.ln());
            TuneSetting::of(mb, record, &sla)
        })
        .collect();
    let candidates: Vec<_> = settings.iter().map(TuneSetting::candidate).collect();
    let mut memory_mb = sizes.to_vec();
    memory_mb.sort();
    TuneDocument {
        schema_version: TUNE_SCHEMA_VERSION,
        started_at: "2026-12-02T21:00:00Z".into(),
        finished_at: "2026-12-02T21:05:00Z".into(),
        git_commit: "abc123".into(),
        machine: Default::default(),
        mode: Mode::Quick,
        scaling: Mode::Quick.describe(),
        scenario: "orders-baseline".into(),
        variant: "orders-direct".into(),
        functions_tuned: vec![
            "OrdersDirectFunction".into(),
            "OrdersBackendFunction".into(),
        ],
        memory_mb,
        cpu_share_asked: crate::target::CpuShare::Aws,
        latency_profile: None,
        region: "us-east-1".into(),
        price_table_version: "test".into(),
        price_date: None,
        sla,
        sla_reason: chosen.reason,
        picks: pick(&candidates, BALANCED_WEIGHT),
        settings,
        not_run: Vec::new(),
    }
}

/// The `points` of every polyline of an SVG, as (x, y) pairs.
fn polylines(svg: &str) -> Vec<Vec<(f64, f64)>> {
    svg.split("<polyline")
        .skip(1)
        .map(|rest| {
            let points = rest.split("points=\"").nth(1).unwrap();
            let points = &points[..points.find('"').unwrap()];
            points
                .split(' ')
                .map(|p| {
                    let (x, y) = p.split_once(',').unwrap();
                    (x.parse().unwrap(), y.parse().unwrap())
                })
                .collect()
        })
        .collect()
}

#[test]
fn the_billed_duration_chart_has_one_line_per_function_in_memory_order() {
    // GIVEN a tuning of orders-direct's two functions at three sizes, out of order
    let doc = document(&[1769, 128, 512]);
    // WHEN its billed duration chart is drawn
    let svg = billed_duration_chart(&doc);
    // THEN each function is one line with a legend entry
    let lines = polylines(&svg);
    assert_eq!(lines.len(), 2, "{svg}");
    assert!(svg.contains(">api</text>"), "{svg}");
    assert!(svg.contains(">backend</text>"), "{svg}");
    for line in &lines {
        // AND its three points go left to right in memory order
        assert_eq!(line.len(), 3, "{svg}");
        assert!(line.windows(2).all(|w| w[0].0 < w[1].0), "{line:?}");
        // AND the billed duration falls as memory grows (y grows downwards)
        assert!(line.windows(2).all(|w| w[0].1 < w[1].1), "{line:?}");
    }
    // AND the axes are labelled
    assert!(svg.contains(">memory size (MB)</text>"));
    assert!(svg.contains(">billed ms per invocation</text>"));
}

#[test]
fn the_picks_come_first_in_sentences_and_the_page_needs_no_network() {
    let doc = document(&[128, 512, 1769]);
    let html = html(&doc);
    // the picks are sentences before the charts and the table
    let at = |text: &str| html.find(text).unwrap_or_else(|| panic!("{text} missing"));
    assert!(
        at("Cheapest meeting the SLA (p95 &lt; 750 ms, p99 &lt; 1000 ms, errors &lt; 1 %): ")
            < at("<svg")
    );
    assert!(at("Fastest (lowest p95): 1769 MB") < at("<svg"));
    assert!(at("Balanced (AWS Lambda Power Tuning") < at("<h2>Every setting</h2>"));
    // three charts: cost, latency, billed duration per function
    assert_eq!(html.matches("<svg").count(), 3);
    assert!(html.contains("Cost per million successful requests"));
    // and nothing from the network
    assert!(!html.contains("<script") && !html.contains("<link"));
    assert!(!html.contains("src=\"http"));
    // the context's code spans are HTML, not Markdown's backticks
    assert!(html.contains("<code>--cpu-share aws</code>"), "{html}");
    assert!(!html.contains('`'), "{html}");
}

#[test]
fn a_tuning_where_no_setting_meets_the_sla_says_so_first() {
    // GIVEN sizes whose p95 are all over the SLA's 750 ms
    let mut doc = document(&[128, 256]);
    for s in &mut doc.settings {
        s.meets_sla = false;
        s.violations = vec!["p95 800 ms >= 750 ms".into()];
    }
    let candidates: Vec<_> = doc.settings.iter().map(TuneSetting::candidate).collect();
    doc.picks = pick(&candidates, BALANCED_WEIGHT);
    // WHEN summarised
    let md = markdown(&doc);
    // THEN the first line says none met it, and there is no cheapest or balanced
    let first = md.lines().find(|l| l.starts_with("- ")).unwrap();
    assert!(
        first.starts_with("- No setting met the SLA (p95 < 750 ms"),
        "{md}"
    );
    assert!(!md.contains("Cheapest meeting"), "{md}");
    assert!(!md.contains("Balanced ("), "{md}");
    assert!(md.contains("Fastest (lowest p95): 256 MB"), "{md}");
    assert!(md.contains("(it does not meet the SLA)"), "{md}");
    assert!(md.contains("| 128 | 200 | 0.00 % |"), "{md}");
}

#[test]
fn tune_json_round_trips_and_another_version_is_refused() {
    let doc = document(&[128, 1769]);
    let text = doc.to_json().unwrap();
    let back = TuneDocument::from_json(&text).unwrap();
    assert_eq!(back.settings.len(), 2);
    assert_eq!(back.picks, doc.picks);
    let mut value: serde_json::Value = serde_json::from_str(&text).unwrap();
    value["schema_version"] = 99.into();
    let err = TuneDocument::from_json(&value.to_string()).unwrap_err();
    assert!(err.to_string().contains("99"), "{err}");
}

#[test]
fn the_reports_state_the_default_sla_and_why_before_the_picks() {
    // GIVEN the default tuning: orders-baseline, no bound given
    let doc = document(&[128, 1769]);
    let said = "SLA p95 < 750 ms, p99 < 1000 ms, errors < 1 %: the orders back end waits \
500 ms by design (OrdersDelayMs), + 250 ms for p95 and + 500 ms for p99.";
    // WHEN both reports are written
    let md = markdown(&doc);
    let html = html(&doc);
    // THEN tune.md says which SLA and why, right under the heading, before the picks
    let lines: Vec<&str> = md.lines().collect();
    assert_eq!(lines[2], said, "{md}");
    assert!(lines[4].starts_with("- Cheapest meeting the SLA"), "{md}");
    // AND so does tune.html
    let at = |text: &str| html.find(text).unwrap_or_else(|| panic!("{text} missing"));
    assert!(at(&escape(said)) < at("<ul class=\"picks\">"), "{html}");
    // AND the default SLA answers: the p95 at 128 MB (about 600 ms) meets it
    assert!(
        doc.settings[0].meets_sla,
        "{:?}",
        doc.settings[0].violations
    );
    assert!(!doc.picks.none_meets_sla);
}

#[test]
fn the_reports_say_an_explicit_sla_was_given() {
    // GIVEN both bounds given on the command line
    let asked = SlaAsked {
        p95_ms: Some(500.0),
        p99_ms: Some(900.0),
    };
    let doc = document_asked(&[128, 1769], asked);
    // THEN those are the SLA the report states, as given
    let md = markdown(&doc);
    assert!(
        md.contains("\nSLA p95 < 500 ms, p99 < 900 ms, errors < 1 %: as given (--sla-p95-ms, --sla-p99-ms).\n"),
        "{md}"
    );
    // AND the sizes are judged by them: 128 MB's p95 (about 600 ms) breaks it
    let broken = &doc.settings[0].violations;
    assert!(!doc.settings[0].meets_sla);
    assert!(broken[0].starts_with("p95 6"), "{broken:?}");
    assert!(broken[0].ends_with(" ms >= 500 ms"), "{broken:?}");
}

#[test]
fn a_tune_json_without_the_sla_reason_still_reads_and_states_its_sla() {
    // GIVEN a tune.json written before the SLA's reason was kept
    let mut value: serde_json::Value =
        serde_json::from_str(&document(&[128]).to_json().unwrap()).unwrap();
    value.as_object_mut().unwrap().remove("sla_reason");
    // WHEN read and rendered
    let doc = TuneDocument::from_json(&value.to_string()).unwrap();
    // THEN the report states its SLA, with no reason to give
    assert_eq!(doc.sla_reason, "");
    assert!(
        markdown(&doc).contains("\nSLA p95 < 750 ms, p99 < 1000 ms, errors < 1 %.\n"),
        "{}",
        markdown(&doc)
    );
}

#[test]
fn a_settings_lambda_cost_is_its_duration_and_requests_lines() {
    let doc = document(&[128]);
    let s = &doc.settings[0];
    assert!(s.lambda_duration_usd > 0.0 && s.lambda_requests_usd > 0.0);
    let per_ok = (s.lambda_duration_usd + s.lambda_requests_usd) / s.successes as f64 * 1e6;
    assert!((s.lambda_usd_per_million_ok.unwrap() - per_ok).abs() < 1e-9);
    let backend = &s.functions["bench-orders-direct-backend"];
    assert_eq!(backend.billed_ms_per_invocation, Some(503.0));
}

#[test]
fn legend_labels_drop_the_stack_the_suffix_and_a_long_shared_prefix() {
    let labels = legend_labels(&["bench-OrdersBackendFunction", "bench-OrdersDirectFunction"]);
    assert_eq!(labels, ["OrdersBackend", "OrdersDirect"]);
    let labels = legend_labels(&[
        "bench-ConduitMicroQueueArticlesFunction",
        "bench-ConduitMicroQueueUsersFunction",
    ]);
    assert_eq!(labels, ["Articles", "Users"]);
    assert_eq!(
        legend_labels(&["bench-ConduitMonolithFunction"]),
        ["ConduitMonolith"]
    );
}
