//! The report's first screen: the experiments' questions with their measured
//! answers side by side, and the bill by heading per variant. Tables are data
//! here; `markdown` and `html` only render them.

use costmodel::bill::BILL_HEADINGS;

use super::run_row::{bracketed, Intervals};
use super::verdict::findings::line_per_million_ok;
use super::{ms, per_request, title};
use crate::apis::ApiKind;
use crate::pass::Pass;
use crate::results::{RecordKind, Results, RunRecord};

/// A table of text cells; the first column names the row.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub headers: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// One experiment's question and the table that answers it.
pub struct Answer {
    pub question: &'static str,
    pub table: Table,
}

pub const ORDERS_QUESTION: &str = "Direct call or queue for a slow read-only query (orders)?";
pub const CONDUIT_QUESTION: &str =
    "One Lambda or many (Conduit: monolith, microservices by Invoke, by queue)?";

const ORDERS_COLUMNS: [(&str, &str); 4] = [
    ("orders-baseline", "orders-direct"),
    ("orders-baseline", "orders-queue"),
    ("orders-highload", "orders-direct"),
    ("orders-highload", "orders-queue"),
];

const CONDUIT_VARIANTS: [&str; 3] = [
    "conduit-monolith",
    "conduit-micro-invoke",
    "conduit-micro-queue",
];

/// The answers the run can give (an experiment none of whose runs is in the
/// results is left out). The experiments are answered through the run's
/// first front door; the doors are compared when both were run.
pub fn answers(results: &Results) -> Vec<Answer> {
    let mut answers = Vec::new();
    let pass = first_pass(results);
    let orders: Vec<Option<&RunRecord>> = ORDERS_COLUMNS
        .iter()
        .map(|(scenario, variant)| find(results, pass, scenario, variant))
        .collect();
    if orders.iter().any(Option::is_some) {
        answers.push(Answer {
            question: ORDERS_QUESTION,
            table: orders_table(results, &orders),
        });
    }
    let conduit: Vec<Option<&RunRecord>> = CONDUIT_VARIANTS
        .iter()
        .map(|variant| find(results, pass, "conduit-mixed", variant))
        .collect();
    if conduit.iter().any(Option::is_some) {
        answers.push(Answer {
            question: CONDUIT_QUESTION,
            table: conduit_table(results, pass, &conduit),
        });
    }
    if let Some(table) = doors_table(results) {
        answers.push(Answer {
            question: "HTTP API or REST API in front (the same functions behind)?",
            table,
        });
    }
    answers
}

/// The pass of the run's first record (`--compute`'s first type through
/// `--api`'s first kind).
pub fn first_pass(results: &Results) -> Pass {
    results
        .records
        .first()
        .map_or(ApiKind::Http.into(), RunRecord::pass)
}

/// The scenario record of `variant` in `scenario` of `pass`.
pub fn find<'a>(
    results: &'a Results,
    pass: Pass,
    scenario: &str,
    variant: &str,
) -> Option<&'a RunRecord> {
    results.records.iter().find(|r| {
        r.kind == RecordKind::Scenario
            && r.pass() == pass
            && r.scenario == scenario
            && r.variant == variant
    })
}

/// Every scenario run through both doors: latency and dollars per million
/// successful requests behind the HTTP API and behind the REST API, and the
/// difference, with the part of it that is API Gateway's own price.
pub fn doors_table(results: &Results) -> Option<Table> {
    let pairs: Vec<(&RunRecord, &RunRecord)> = results
        .records
        .iter()
        .filter(|r| r.kind == RecordKind::Scenario && r.api == ApiKind::Http)
        .filter_map(|http| {
            let rest = results.records.iter().find(|r| {
                r.kind == http.kind
                    && r.api == ApiKind::Rest
                    && r.compute == http.compute
                    && (&r.scenario, &r.variant, &r.setting)
                        == (&http.scenario, &http.variant, &http.setting)
            })?;
            Some((http, rest))
        })
        .collect();
    if pairs.is_empty() {
        return None;
    }
    let headers = [
        "run",
        "p50 ms HTTP",
        "p50 ms REST",
        "p95 ms HTTP",
        "p95 ms REST",
        "p95 REST - HTTP",
        "$ per M ok HTTP",
        "$ per M ok REST",
        "$ REST - HTTP",
        "of which API Gateway",
    ];
    let rows = pairs
        .iter()
        .map(|(http, rest)| {
            let ok = |r: &RunRecord| r.cost.as_ref().and_then(|c| c.usd_per_million_successful);
            let gateway = |r: &RunRecord| line_per_million_ok(r, "API Gateway");
            vec![
                format!("{} / {}", http.scenario, http.variant),
                ms(http.summary.p50_ms),
                ms(rest.summary.p50_ms),
                ms(http.summary.p95_ms),
                ms(rest.summary.p95_ms),
                ms_difference(http.summary.p95_ms, rest.summary.p95_ms),
                dollars(ok(http)),
                dollars(ok(rest)),
                usd_difference(ok(http), ok(rest)),
                usd_difference(gateway(http), gateway(rest)),
            ]
        })
        .collect();
    Some(Table {
        headers: headers.map(String::from).to_vec(),
        rows,
    })
}

/// `+22 ms (+4.3 %)`; `+0 ms`, never `-0 ms`, for less than half a millisecond.
fn ms_difference(http: Option<f64>, rest: Option<f64>) -> String {
    let (Some(h), Some(r)) = (http, rest) else {
        return "-".into();
    };
    // Adding 0.0 turns a rounded -0.0 into 0.0.
    let ms = (r - h).round() + 0.0;
    if h > 0.0 {
        format!("{ms:+.0} ms ({:+.1} %)", ms / h * 100.0)
    } else {
        format!("{ms:+.0} ms")
    }
}

/// `+2.50 (1.63x)`.
fn usd_difference(http: Option<f64>, rest: Option<f64>) -> String {
    match (http, rest) {
        (Some(h), Some(r)) if h > 0.0 => format!("{:+.2} ({:.2}x)", r - h, r / h),
        (Some(h), Some(r)) => format!("{:+.2}", r - h),
        _ => "-".into(),
    }
}

fn orders_table(results: &Results, runs: &[Option<&RunRecord>]) -> Table {
    let mut headers = vec![String::new()];
    headers.extend(ORDERS_COLUMNS.iter().map(|(s, v)| {
        format!(
            "{} {}",
            s.trim_start_matches("orders-"),
            v.trim_start_matches("orders-")
        )
    }));
    let mut rows = vec![
        row("ok requests/s", runs, |r| {
            bracketed(
                format!("{:.1}", r.summary.successful_rps),
                intervals(r).successful_rps,
                |v| format!("{v:.1}"),
            )
        }),
        row("failed requests", runs, |r| {
            let share = bracketed(
                format!("{:.1} %", r.summary.error_rate * 100.0),
                intervals(r)
                    .error_rate
                    .map(|(lo, hi)| (lo * 100.0, hi * 100.0)),
                |v| format!("{v:.1}"),
            );
            format!("{} ({share})", r.summary.failures)
        }),
        p95_row(runs),
    ];
    rows.extend(cost_rows(results, runs));
    Table { headers, rows }
}

fn conduit_table(results: &Results, pass: Pass, runs: &[Option<&RunRecord>]) -> Table {
    let mut headers = vec![String::new()];
    headers.extend(
        CONDUIT_VARIANTS
            .iter()
            .map(|v| v.trim_start_matches("conduit-").to_string()),
    );
    let held = |variant: &str| {
        results
            .capacity
            .iter()
            .find(|c| c.variant == variant && c.pass() == pass)
            .map(|c| {
                let floor = if c.never_broke() { "≥ " } else { "" };
                c.users_held
                    .map_or_else(|| "none".into(), |u| format!("{floor}{u}"))
            })
            .unwrap_or_else(|| "-".into())
    };
    let mut rows = vec![
        row("function CPU ms per request", runs, |r| {
            per_request(r.cpu.functions_ms_per_request)
        }),
        // Each login costs what it costs: a short run's figure above depends
        // on how many it had, the one below does not.
        row("of which Argon2id (password hashing)", runs, |r| {
            per_request(r.cpu.argon2_ms_per_request)
        }),
        row("function CPU ms per request excl. Argon2id", runs, |r| {
            per_request(r.cpu.functions_ms_per_request_excluding_argon2)
        }),
        p95_row(runs),
    ];
    let mut users = vec!["users held (p95 < 500 ms, p99 < 1 s, errors < 1 %)".to_string()];
    users.extend(CONDUIT_VARIANTS.iter().map(|v| held(v)));
    rows.push(users);
    rows.extend(cost_rows(results, runs));
    Table { headers, rows }
}

/// $ per million successful requests at the measured architecture and at the
/// other one (an estimate).
fn cost_rows(results: &Results, runs: &[Option<&RunRecord>]) -> Vec<Vec<String>> {
    let (measured, other) = architectures(results);
    vec![
        row(
            &format!("$ per M ok ({measured}, as measured)"),
            runs,
            |r| {
                bracketed(
                    dollars(r.cost.as_ref().and_then(|c| c.usd_per_million_successful)),
                    intervals(r).usd_per_million_ok,
                    |v| format!("{v:.2}"),
                )
            },
        ),
        row(&format!("$ per M ok ({other}, estimate)"), runs, |r| {
            dollars(
                r.cost
                    .as_ref()
                    .and_then(|c| c.other_architecture.as_ref())
                    .and_then(|o| o.usd_per_million_successful),
            )
        }),
    ]
}

/// p95 of successful requests with its 95 % interval.
fn p95_row(runs: &[Option<&RunRecord>]) -> Vec<String> {
    row("p95 ms (successful) [95 % interval]", runs, |r| {
        bracketed(ms(r.summary.p95_ms), intervals(r).p95_ms, |v| {
            format!("{v:.0}")
        })
    })
}

/// A record's 95 % intervals (none in files before schema 6).
fn intervals(r: &RunRecord) -> Intervals {
    r.spread.as_ref().map(Intervals::of).unwrap_or_default()
}

fn row(
    name: &str,
    runs: &[Option<&RunRecord>],
    cell: impl Fn(&RunRecord) -> String,
) -> Vec<String> {
    let mut out = vec![name.to_string()];
    out.extend(
        runs.iter()
            .map(|r| r.map_or_else(|| "not run".into(), &cell)),
    );
    out
}

pub(super) fn dollars(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |v| format!("{v:.2}"))
}

/// The measured architecture and the estimated one, as the records say.
pub fn architectures(results: &Results) -> (String, String) {
    results
        .records
        .iter()
        .filter_map(|r| r.cost.as_ref())
        .find_map(|c| {
            let other = c.other_architecture.as_ref()?;
            Some((c.architecture.clone(), other.architecture.clone()))
        })
        .unwrap_or_else(|| ("x86_64".into(), "arm64".into()))
}

/// What the dollars assume, in one paragraph.
pub fn assumptions(results: &Results) -> String {
    let (measured, other) = architectures(results);
    let retention = results.log_retention_days.map_or_else(
        || "not priced (no retention)".into(),
        |d| format!("{d:.0} days kept"),
    );
    format!(
        "Prices: table {} ({}{}). Lambda durations were measured on {measured} (this machine) and are priced at {measured} rates; \
         the {other} figures are an estimate: the same durations at {other} rates (the template deploys arm64; code runs at another speed there). \
         API Gateway requests are priced at their API's kind: HTTP API, or REST API (about 3.5 times the HTTP API price). \
         The bill covers API Gateway, Lambda requests and duration, SQS, DynamoDB, CloudWatch Logs (ingestion, 26 bytes per event included; storage {retention}) \
         and data transfer out (response bytes with headers). Dollars are divided by successful requests.",
        results.price_table_version,
        results.region,
        results
            .price_date
            .as_deref()
            .map_or_else(String::new, |d| format!(", prices of {d}")),
    )
}

/// Each scenario run's $ per million successful requests by bill heading.
pub fn cost_by_line(results: &Results) -> Vec<(String, Vec<(String, f64)>)> {
    results
        .records
        .iter()
        .filter(|r| r.kind == RecordKind::Scenario)
        .filter_map(|r| {
            let cost = r.cost.as_ref()?;
            let successes = r.summary.successes as f64;
            (successes > 0.0 && !cost.by_line.is_empty()).then(|| {
                let lines = cost
                    .by_line
                    .iter()
                    .map(|l| (l.heading.clone(), l.usd / successes * 1e6))
                    .collect();
                (title(r), lines)
            })
        })
        .collect()
}

/// The same as a table: a row per run, a column per heading.
pub fn cost_by_line_table(results: &Results) -> Option<Table> {
    let runs = cost_by_line(results);
    if runs.is_empty() {
        return None;
    }
    let mut headers = vec!["run".to_string()];
    headers.extend(BILL_HEADINGS.iter().map(|h| h.to_string()));
    headers.push("total".into());
    let rows = runs
        .iter()
        .map(|(name, lines)| {
            let mut row = vec![name.clone()];
            row.extend(BILL_HEADINGS.iter().map(|h| {
                let usd: f64 = lines.iter().filter(|(l, _)| l == h).map(|(_, v)| v).sum();
                format!("{usd:.3}")
            }));
            row.push(format!("{:.2}", lines.iter().map(|(_, v)| v).sum::<f64>()));
            row
        })
        .collect();
    Some(Table { headers, rows })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdata;

    #[test]
    fn orders_answer_puts_direct_and_queue_side_by_side_at_both_loads() {
        // GIVEN results of every orders and Conduit variant
        let results = testdata::results();
        // WHEN the answers are drawn
        let answers = answers(&results);
        // THEN the orders question comes first, one column per scenario x path
        assert_eq!(answers.len(), 2);
        let orders = &answers[0].table;
        assert_eq!(
            orders.headers[1..],
            [
                "baseline direct",
                "baseline queue",
                "highload direct",
                "highload queue"
            ]
        );
        let failed = orders
            .rows
            .iter()
            .find(|r| r[0] == "failed requests")
            .unwrap();
        // (the failed share with its 95 % interval)
        assert!(failed[3].starts_with("50 (20.0 % ["), "{failed:?}");
        let cost = orders
            .rows
            .iter()
            .find(|r| r[0].contains("x86_64, as measured"))
            .unwrap();
        // (a figure, then its 95 % interval in brackets)
        let figure = |c: &String| c.split(' ').next().unwrap_or("").parse::<f64>().is_ok();
        assert!(
            cost[1..].iter().all(|c| figure(c) && c.contains(" [")),
            "{cost:?}"
        );
        assert!(orders.rows.iter().any(|r| r[0].contains("arm64, estimate")));
    }

    fn users_held_row(table: &Table) -> &[String] {
        table
            .rows
            .iter()
            .find(|r| r[0].starts_with("users held"))
            .expect("a users held row")
    }

    #[test]
    fn conduit_answer_has_cpu_latency_users_held_and_dollars() {
        let results = testdata::results();
        let conduit = &answers(&results)[1].table;
        assert_eq!(
            conduit.headers[1..],
            ["monolith", "micro-invoke", "micro-queue"]
        );
        let held = users_held_row(conduit);
        assert_eq!(held[1..], ["400", "300", "200"]);
        assert!(conduit
            .rows
            .iter()
            .any(|r| r[0] == "function CPU ms per request"));
    }

    #[test]
    fn users_held_at_the_searchs_top_step_are_shown_as_a_floor() {
        // GIVEN a monolith that held every step of its search
        let mut results = testdata::results();
        results.capacity[0]
            .steps
            .iter_mut()
            .for_each(|s| s.held = true);
        results.capacity[0].users_held = Some(800);
        // WHEN answered
        let conduit = &answers(&results)[1].table;
        // THEN its users held read as at least the top step
        let held = users_held_row(conduit);
        assert_eq!(held[1..], ["≥ 800", "300", "200"]);
    }

    #[test]
    fn conduit_answer_splits_argon2_out_of_the_functions_cpu() {
        // GIVEN Conduit runs whose functions spent 0.3 of their 0.8 ms of CPU
        // per invocation on Argon2id
        let results = testdata::results();
        let conduit = &answers(&results)[1].table;
        let cells = |name: &str| {
            let row = conduit.rows.iter().find(|r| r[0] == name);
            row.unwrap_or_else(|| panic!("no row {name}: {conduit:?}"))[1..].to_vec()
        };
        let number = |cell: &String| cell.parse::<f64>().unwrap();
        // THEN the whole, Argon2id's part and the rest are rows of their own,
        // and the parts add up to the whole in every variant
        let whole = cells("function CPU ms per request");
        let argon2 = cells("of which Argon2id (password hashing)");
        let rest = cells("function CPU ms per request excl. Argon2id");
        for i in 0..3 {
            assert!(number(&argon2[i]) > 0.0, "{argon2:?}");
            let sum = number(&argon2[i]) + number(&rest[i]);
            assert!(
                (sum - number(&whole[i])).abs() <= 0.011,
                "{whole:?} {argon2:?} {rest:?}"
            );
        }
    }

    #[test]
    fn http_and_rest_runs_of_a_variant_are_compared_side_by_side() {
        // GIVEN the baseline orders runs through HTTP APIs and REST APIs
        let results = testdata::results_with_rest();
        // WHEN the answers are drawn
        let answers = answers(&results);
        // THEN a third answer compares the doors, a row per variant run through both
        assert_eq!(answers.len(), 3);
        assert!(answers[2].question.starts_with("HTTP API or REST API"));
        let doors = &answers[2].table;
        let names: Vec<&str> = doors.rows.iter().map(|r| r[0].as_str()).collect();
        assert_eq!(
            names,
            [
                "orders-baseline / orders-direct",
                "orders-baseline / orders-queue"
            ]
        );
        let direct = &doors.rows[0];
        let at = |header: &str| {
            let i = doors.headers.iter().position(|h| h == header).unwrap();
            direct[i].as_str()
        };
        // AND REST's 20 ms more, and its API Gateway price: 3.50 per million
        // requests instead of 1.00 (every request succeeded)
        assert_eq!(at("p95 REST - HTTP"), "+20 ms (+3.9 %)");
        assert_eq!(at("of which API Gateway"), "+2.50 (3.50x)");
        assert!(at("$ REST - HTTP").starts_with("+2.50 ("), "{direct:?}");
        // AND the experiments are still answered through the HTTP APIs
        let p95 = answers[0]
            .table
            .rows
            .iter()
            .find(|r| r[0].starts_with("p95"));
        let cell = &p95.unwrap()[1];
        assert!(
            cell.starts_with(&format!("{} [", ms(results.records[0].summary.p95_ms))),
            "{cell}"
        );
    }

    #[test]
    fn differences_are_signed_and_a_rounded_zero_is_plus_zero() {
        assert_eq!(ms_difference(Some(530.4), Some(530.0)), "+0 ms (+0.0 %)");
        assert_eq!(ms_difference(Some(500.0), Some(480.0)), "-20 ms (-4.0 %)");
        assert_eq!(ms_difference(None, Some(480.0)), "-");
        assert_eq!(usd_difference(Some(1.0), Some(3.5)), "+2.50 (3.50x)");
    }

    #[test]
    fn a_run_missing_from_the_results_says_so() {
        let mut results = testdata::results();
        results.records.retain(|r| r.variant != "orders-queue");
        let orders = &answers(&results)[0].table;
        assert_eq!(orders.rows[0][2], "not run");
    }

    #[test]
    fn cost_by_line_has_every_heading_and_adds_up_to_the_price_per_million() {
        let results = testdata::results();
        let table = cost_by_line_table(&results).unwrap();
        assert_eq!(table.headers.len(), 1 + BILL_HEADINGS.len() + 1);
        for (run, r) in table.rows.iter().zip(results.records.iter()) {
            let total: f64 = run.last().unwrap().parse().unwrap();
            let expected = r.cost.as_ref().unwrap().usd_per_million_successful.unwrap();
            assert!((total - expected).abs() < 0.01, "{run:?} vs {expected}");
        }
    }
}
