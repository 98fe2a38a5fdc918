//! The ledger of every local run as HTML tables: requests sent against their
//! outcomes, and each request queue's messages against where they ended.
//! A run that lost anything is marked; `bench run` fails on it too.

use std::fmt::Write;

use super::svg::escape;
use super::title;
use crate::results::Results;

/// The "Ledger" section, or nothing when no run kept one (remote targets).
pub fn html(results: &Results) -> String {
    let runs: Vec<_> = results
        .records
        .iter()
        .filter_map(|r| r.ledger.as_ref().map(|l| (title(r), l)))
        .collect();
    if runs.is_empty() {
        return String::new();
    }
    let mut html = String::from(
        "<h2>Ledger</h2><p class=\"note\">Every request sent is answered ok, answered with an error, or timed out; every request message is processed (deleted), in the dead-letter queue, or still queued at the end. Redelivered: receives beyond each message's first (SQS is at-least-once). Lost must be 0.</p>\
         <table><tr><th>run</th><th>sent</th><th>ok</th><th>failed</th><th>timed out</th><th>lost</th></tr>",
    );
    for (run, ledger) in &runs {
        let r = &ledger.requests;
        let _ = write!(
            html,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>{}</tr>",
            escape(run),
            r.sent,
            r.ok,
            r.failed,
            r.timed_out,
            lost_cell(r.lost())
        );
    }
    html.push_str("</table>");
    let queues = runs
        .iter()
        .flat_map(|(run, l)| l.messages.iter().map(move |m| (run, m)));
    let mut rows = String::new();
    for (run, m) in queues {
        let _ = write!(
            rows,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>{}</tr>",
            escape(run),
            escape(&m.queue),
            m.sent,
            m.processed,
            m.dead_lettered,
            m.still_queued,
            m.redeliveries,
            lost_cell(m.lost())
        );
    }
    if !rows.is_empty() {
        html.push_str("<table><tr><th>run</th><th>request queue</th><th>messages sent</th><th>processed</th><th>DLQ</th><th>still queued</th><th>redelivered</th><th>lost</th></tr>");
        html.push_str(&rows);
        html.push_str("</table>");
    }
    html
}

fn lost_cell(lost: u64) -> String {
    if lost == 0 {
        "<td>0</td>".into()
    } else {
        format!("<td class=\"warn\">{lost}</td>")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ledger::{Ledger, MessageLedger, RequestLedger};
    use crate::testdata;

    #[test]
    fn each_request_queue_has_a_row_and_a_loss_is_marked() {
        // GIVEN a run that kept a ledger with two request queues, one short of a message
        let mut results = testdata::results();
        let queue = |name: &str, processed| MessageLedger {
            queue: name.into(),
            sent: 4,
            processed,
            ..Default::default()
        };
        results.records[0].ledger = Some(Ledger {
            requests: RequestLedger {
                sent: 3,
                ok: 2,
                failed: 1,
                timed_out: 0,
            },
            messages: vec![
                queue("bench-conduit-users-requests", 4),
                queue("bench-conduit-articles-requests", 3),
            ],
        });
        // WHEN rendered
        let html = html(&results);
        // THEN the requests and both queues are there, the loss marked
        assert!(html.contains("<h2>Ledger</h2>"), "{html}");
        assert!(html.contains("<td>bench-conduit-users-requests</td><td>4</td><td>4</td>"));
        assert!(html.contains("<td>bench-conduit-articles-requests</td><td>4</td><td>3</td>"));
        assert_eq!(html.matches("class=\"warn\">1<").count(), 1, "{html}");
        // AND results without ledgers have no section
        assert!(super::html(&testdata::results()).is_empty());
    }
}
