use super::*;
use crate::testdata;

const README: &str = "# Title\n\nIntro.\n\n## What this is\n\nA suite.\n\n## Status\n\n| a | b |\n\n## Tests\n\nRun them.\n";

fn results() -> Results {
    let mut results = testdata::results();
    results.git_commit = "cf6296c4a4d44461405a15631afc624940dd5df7".into();
    results
}

#[test]
fn a_readme_without_results_gets_them_after_what_this_is() {
    // WHEN the block is written into a README that has none
    let block = block(&results());
    let written = rewrite(README, &block).unwrap();
    // THEN it is a section of its own between "What this is" and "Status"
    let at = |text: &str| {
        written
            .find(text)
            .unwrap_or_else(|| panic!("{text}: {written}"))
    };
    assert!(at("A suite.\n\n## Results\n\n<!-- results:begin -->") < at("## Status"));
    assert!(
        written.contains("<!-- results:end -->\n\n## Status\n"),
        "{written}"
    );
    // AND the rest is byte-identical
    let (begin, end) = (at(BEGIN), at(END) + END.len());
    assert_eq!(
        &written[..begin],
        "# Title\n\nIntro.\n\n## What this is\n\nA suite.\n\n## Results\n\n"
    );
    assert_eq!(
        &written[end..],
        format!("\n\n{}", &README[README.find("## Status").unwrap()..])
    );
}

#[test]
fn rewriting_is_idempotent_and_touches_only_the_block() {
    // GIVEN a README with a block of an older run
    let old = rewrite(README, &block(&testdata::results())).unwrap();
    // WHEN rewritten twice from a newer run
    let block = block(&results());
    let once = rewrite(&old, &block).unwrap();
    let twice = rewrite(&once, &block).unwrap();
    // THEN the second rewrite changes nothing
    assert_eq!(once, twice);
    // AND outside the markers the README is what it was, byte for byte
    let outside = |text: &str| {
        let (begin, end) = span(text, README_MARKERS).unwrap().unwrap();
        (text[..begin].to_string(), text[end..].to_string())
    };
    assert_eq!(outside(&old), outside(&once));
    assert_ne!(old, once, "the newer run's commit is in the block");
}

#[test]
fn the_block_names_its_run_and_reads_back() {
    let written = rewrite(README, &block(&results())).unwrap();
    let stamp = stamp(&written).unwrap();
    assert_eq!(stamp.commit, "cf6296c");
    assert_eq!(stamp.date, "2026-11-30");
    // AND it carries the verdicts and the key figures
    assert!(written.contains("**1. Direct call or queue"), "{written}");
    assert!(
        written.contains("| question | architecture | p95, healthy load [95 % interval] |"),
        "{written}"
    );
}

#[test]
fn broken_markers_are_refused_rather_than_duplicated() {
    let written = rewrite(README, &block(&results())).unwrap();
    let without_end = written.replace(END, "");
    let doubled = format!("{written}\n{BEGIN}\n{END}\n");
    let swapped = written
        .replace(BEGIN, "@@")
        .replace(END, BEGIN)
        .replace("@@", END);
    for broken in [without_end, doubled, swapped] {
        assert!(
            matches!(rewrite(&broken, "x"), Err(ReadmeError::Markers(_))),
            "{broken}"
        );
        assert!(matches!(stamp(&broken), Err(ReadmeError::Markers(_))));
    }
}

#[test]
fn a_hand_edit_that_drops_the_commit_or_date_fails_the_check() {
    let written = rewrite(README, &block(&results())).unwrap();
    let no_commit = written.replace("commit `cf6296c`", "commit cf6296c");
    assert!(matches!(stamp(&no_commit), Err(ReadmeError::NoCommit)));
    let no_date = written.replace("2026-11-30", "last week");
    assert!(matches!(stamp(&no_date), Err(ReadmeError::NoDate)));
    assert!(matches!(stamp(README), Err(ReadmeError::Markers(_))));
    let no_section = README.replace("## What this is", "## About");
    assert!(matches!(
        rewrite(&no_section, "x"),
        Err(ReadmeError::NoSection)
    ));
}

const PAGE: &str = "# Results on the local cloud\n\nIntro.\n\n## An older run\n\nFigures.\n";

#[test]
fn the_results_page_gets_the_whole_summary_before_its_older_runs() {
    // WHEN the page block is written into a page that has none, then again
    let block = page_block(&results());
    let once = rewrite_page(PAGE, &block).unwrap();
    let twice = rewrite_page(&once, &block).unwrap();
    // THEN it sits between the introduction and the older runs, once
    assert_eq!(once, twice);
    let at = |text: &str| once.find(text).unwrap_or_else(|| panic!("{text}: {once}"));
    assert!(at("Intro.\n\n<!-- run:begin -->") < at("## The latest full run"));
    assert!(at(PAGE_END) < at("## An older run"));
    // AND the summary's headings are one level down, under the page's
    assert!(once.contains("\n### Verdict\n"), "{once}");
    assert!(once.contains("\n### Bench results"), "{once}");
    assert!(!once.contains("\n## Verdict"), "{once}");
    // AND it names the same run as README's block
    let readme = rewrite(README, &super::block(&results())).unwrap();
    assert_eq!(
        stamp_of(&once, PAGE_MARKERS).unwrap(),
        stamp(&readme).unwrap()
    );
}

#[test]
fn every_verdict_line_of_the_readme_is_in_the_page() {
    let readme = rewrite(README, &block(&results())).unwrap();
    let page = rewrite_page(PAGE, &page_block(&results())).unwrap();
    let page_block = block_in(&page, PAGE_MARKERS).unwrap();
    let verdict_lines = verdict_lines(&readme).unwrap();
    assert!(verdict_lines.len() >= 4, "{readme}");
    for line in verdict_lines {
        assert!(page_block.contains(line), "{line}");
    }
}

#[test]
fn a_page_without_sections_or_with_broken_markers_is_refused() {
    assert!(matches!(
        rewrite_page("# Title\n\nNo sections.\n", "x"),
        Err(ReadmeError::NoPageSection)
    ));
    let page = rewrite_page(PAGE, &page_block(&results())).unwrap();
    let broken = page.replace(PAGE_END, "");
    assert!(matches!(
        rewrite_page(&broken, "x"),
        Err(ReadmeError::Markers(_))
    ));
}

#[test]
fn a_run_on_both_compute_types_puts_their_table_in_the_readme_and_the_page() {
    // GIVEN a run whose orders-direct baseline also ran on LMI
    let mut both = results();
    let on_demand = both.records[0].clone();
    both.records.push(testdata::on_lmi(&on_demand, 60.0));
    let row = format!(
        "| {} |",
        compute_table::compute_table(&both).expect("a pair").rows[0].join(" | ")
    );
    // WHEN README's block and the page's are written
    let readme = rewrite(README, &block(&both)).unwrap();
    let page = rewrite_page(PAGE, &page_block(&both)).unwrap();
    // THEN both give the compute question and the pair's row, the same
    for text in [&readme, &page] {
        assert!(text.contains(compute_table::COMPUTE_QUESTION), "{text}");
        assert!(text.contains(&row), "{row} not in {text}");
    }
    // AND a run on one compute type has no such table in README
    let one = rewrite(README, &block(&results())).unwrap();
    assert!(!one.contains(compute_table::COMPUTE_QUESTION), "{one}");
}

#[test]
fn the_iam_page_gets_the_run_s_tables_between_its_markers_only() {
    // GIVEN an IAM page with the markers and text around them
    let (begin, end) = IAM_MARKERS;
    let page = format!("# IAM\n\nBefore.\n\n{begin}\nold tables\n{end}\n\n## After\n");
    // WHEN a local run's block is written into it, then again
    let tables = iam_block(&results()).expect("a local run has IAM evidence");
    let once = rewrite_block(&page, IAM_MARKERS, &tables).unwrap();
    let twice = rewrite_block(&once, IAM_MARKERS, &tables).unwrap();
    // THEN the old tables are replaced, the text around them kept
    assert_eq!(once, twice);
    assert!(!once.contains("old tables"), "{once}");
    assert!(once.starts_with("# IAM\n\nBefore.\n\n") && once.ends_with("\n\n## After\n"));
    assert!(once.contains("#### OrdersQueueFunction"), "{once}");
    // AND it names the same run as README's block
    let readme = rewrite(README, &block(&results())).unwrap();
    assert_eq!(
        stamp_of(&once, IAM_MARKERS).unwrap(),
        stamp(&readme).unwrap()
    );
    // AND a page without the markers is refused, a remote run has no block
    assert!(matches!(
        rewrite_block("# IAM\n", IAM_MARKERS, &tables),
        Err(ReadmeError::Markers(_))
    ));
    let mut remote = results();
    remote.iam = None;
    assert!(iam_block(&remote).is_none());
}
