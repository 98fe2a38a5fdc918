use super::*;
use crate::report::verdict::verdict;
use crate::testdata;

#[test]
fn markdown_opens_with_the_stamp_and_gives_each_question_its_winners() {
    let v = verdict(&testdata::results());
    let md = markdown(&v);
    assert!(
        md.starts_with("Quick run of 2026-11-30 at commit `abc123` on Test CPU, 2 cores (target local, through the HTTP API, CPU share aws, no latency profile, prices "),
        "{md}"
    );
    assert!(md.contains("**1. Direct call or queue"), "{md}");
    assert!(md.contains("Latency: **direct Invoke** · Under overload: **SQS request/reply** · Cost: **direct Invoke**"), "{md}");
    assert!(md.contains("**2. One Lambda or many"), "{md}");
    assert!(md.contains("- *When it flips*: "), "{md}");
}

#[test]
fn the_figures_table_has_a_row_per_architecture() {
    let md = figures_markdown(&verdict(&testdata::results()));
    assert_eq!(md.lines().count(), 2 + 2 + 3, "{md}");
    assert!(md.contains("| 2 | monolith | "), "{md}");
    assert!(md.contains(" | held 400 users | "), "{md}");
}

#[test]
fn html_is_a_box_per_question_with_code_spans_and_nothing_unescaped() {
    let mut results = testdata::results();
    results.mode = crate::plan::Mode::Full;
    results.capacity.clear();
    let html = html(&verdict(&results));
    assert!(html.starts_with("<section class=\"verdict\"><h2>Verdict</h2>"));
    assert_eq!(html.matches("<div class=\"box\">").count(), 2);
    assert!(html.contains("<code>--no-capacity</code>"), "{html}");
    assert!(html.contains("p95 &lt; 500 ms"), "{html}");
    assert!(!html.contains('`'), "{html}");
}

#[test]
fn a_run_of_neither_experiment_renders_no_verdict() {
    let mut results = testdata::results();
    results.records.clear();
    results.capacity.clear();
    let v = verdict(&results);
    assert_eq!(markdown(&v), "");
    assert_eq!(html(&v), "");
}

#[test]
fn the_verdict_is_the_first_thing_in_the_report_and_the_summary() {
    let results = testdata::results();
    let html = crate::report::html::render(&results);
    let body = html.split("<body>").nth(1).unwrap();
    assert!(body.starts_with("<section class=\"verdict\">"), "{body}");
    assert!(body.find("<h2>Verdict</h2>") < body.find("<h1>"));
    assert!(
        html.contains(".verdict .box{"),
        "the verdict's style is in the page"
    );
    let md = crate::report::markdown::summary(&results);
    assert!(
        md.starts_with("## Verdict\n\nQuick run of 2026-11-30"),
        "{md}"
    );
    assert!(md.find("## Verdict") < md.find("## Bench results"));
}
