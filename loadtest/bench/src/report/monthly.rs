//! The report's monthly bills: per question, each scenario's architectures
//! priced for a 30-day month (from the usage the run measured) at rates from
//! 0.001 to 100,000 successful requests per second, on-demand and on Lambda
//! Managed Instances, and where their bills cross: a chart of the scenario
//! the question's cost answer reads (its architectures only, not every
//! scenario's), a table of every scenario at 1, 10, 100 and 1,000
//! requests/s, a sentence per pair compared.
//! LMI's are the runs measured on it (`bench run --compute both`) where the
//! run has some, else a fleet modelled from the usage measured on-demand
//! (`costmodel::managed`). Computed once here: the chart and the table read
//! the same bills; `html` and `markdown` only render them.

use costmodel::{quantity, usd, PriceTable};

use super::answers::Table;
use super::monthly_chart::BillChart;
use crate::break_even::{BreakEven, Crossing, HIGHEST_RATE, LOWEST_RATE};
use crate::compute::ComputeType;
use crate::monthly::{
    monthly_bills_for, ArchitectureBills, Compute, MonthPricing, MonthlyBills, MonthlyError,
    ScenarioBills, STANDARD_RATES,
};
use crate::monthly_render::basis;
use crate::results::Results;

/// The chart's rates a decade: enough that a line bent by a fleet's
/// instances still reads as one, and that its crossings fall on it.
const CHART_RATES_PER_DECADE: i32 = 10;

/// Per experiment (a scenario's first word): the question as the answers
/// name it, and the scenario its verdict's cost answer reads at healthy
/// load (`verdict::orders`'s baseline, `verdict::conduit`'s steady mix),
/// the one its chart draws.
const QUESTIONS: [(&str, &str, &str); 2] = [
    ("orders", "orders scenarios", "orders-baseline"),
    ("conduit", "Conduit", "conduit-mixed"),
];

/// One question: its chart (one scenario's architectures), its table (a row
/// per scenario and architecture, a column per standard rate) and where the
/// bills of every scenario cross.
pub struct MonthlySection {
    pub title: String,
    /// The experiment: "orders scenarios", "Conduit".
    pub question: String,
    pub chart: BillChart,
    pub table: Table,
    /// One sentence per pair of architectures of a scenario.
    pub break_even: Vec<String>,
}

/// The sections and what they stand on (or why they are missing).
pub struct MonthlyBillsView {
    pub sections: Vec<MonthlySection>,
    pub note: String,
}

/// `None` when no run has a bill (a remote target without metering).
pub fn monthly(results: &Results) -> Option<MonthlyBillsView> {
    let bills = match month_of(results) {
        Ok(bills) => bills,
        Err(MonthlyError::NothingToPrice) => return None,
        Err(error) => {
            return Some(MonthlyBillsView {
                sections: Vec::new(),
                note: format!("No monthly bills: {error}."),
            })
        }
    };
    let mut questions: Vec<(&str, Vec<&ScenarioBills>)> = Vec::new();
    for scenario in &bills.scenarios {
        let question = question(&scenario.scenario);
        match questions.iter_mut().find(|(q, _)| *q == question) {
            Some((_, scenarios)) => scenarios.push(scenario),
            None => questions.push((question, vec![scenario])),
        }
    }
    let sections = questions
        .into_iter()
        .map(|(question, scenarios)| section(question, &scenarios))
        .collect();
    let note = format!(
        "{} Totals without the free tier; `bench cost --from results.json --rate R [--compute both]` prints every line of the bill at any rate.",
        basis(&bills)
    );
    Some(MonthlyBillsView { sections, note })
}

/// A question's section: every scenario in the table and the sentences,
/// one drawn (see [`drawn`]).
fn section(question: &str, scenarios: &[&ScenarioBills]) -> MonthlySection {
    let mut table = Table {
        headers: headers(),
        rows: Vec::new(),
    };
    let mut break_even = Vec::new();
    for scenario in scenarios {
        let rows = scenario.architectures.iter();
        table
            .rows
            .extend(rows.map(|run| row(&scenario.scenario, run)));
        break_even.extend(scenario.break_even.iter().map(|pair| {
            let sentence = at_table_rates(pair).sentence();
            format!("{}: {sentence}", scenario.scenario)
        }));
    }
    let (drawn, subtitle) = drawn(question, scenarios);
    MonthlySection {
        title: format!("Monthly bill by request rate: {question}"),
        question: question.to_string(),
        chart: BillChart::of(drawn, subtitle),
        table,
        break_even,
    }
}

/// The scenario a question's chart draws: the one its cost answer reads
/// (see [`QUESTIONS`]), else the question's first scenario; and the chart's
/// subtitle, saying which. `scenarios` is never empty (a question is found
/// from one).
fn drawn<'a>(question: &str, scenarios: &[&'a ScenarioBills]) -> (&'a ScenarioBills, String) {
    let first = scenarios[0];
    let rest = "every scenario's bills are in the table below";
    let answered = QUESTIONS
        .iter()
        .find(|(_, q, _)| *q == question)
        .map(|(_, _, scenario)| *scenario);
    let Some(answered) = answered else {
        return (first, format!("at {}; {rest}", first.scenario));
    };
    match scenarios.iter().find(|s| s.scenario == answered) {
        Some(scenario) => (
            scenario,
            format!("at {answered}, the healthy load the cost answer reads; {rest}"),
        ),
        None => (
            first,
            format!(
                "at {}: this run has no {answered}, the healthy load the cost answer reads; {rest}",
                first.scenario
            ),
        ),
    }
}

/// Every scenario run's bills at the chart's rates, on-demand and on LMI.
fn month_of(results: &Results) -> Result<MonthlyBills, MonthlyError> {
    let pricing = MonthPricing::new(results, PriceTable::aws_default())?;
    let measured_on_lmi = results
        .records
        .iter()
        .any(|r| r.compute == ComputeType::Managed);
    let compute = if measured_on_lmi {
        Compute::OnDemand
    } else {
        Compute::Both(costmodel::managed::FleetSettings::default())
    };
    monthly_bills_for(results, &pricing, &chart_rates(), &compute)
}

/// Log-spaced rates over the range the crossings are searched in, the
/// table's among them exactly (its columns are found by equality).
fn chart_rates() -> Vec<f64> {
    let (low, high) = (
        LOWEST_RATE.log10().round() as i32,
        HIGHEST_RATE.log10().round() as i32,
    );
    let steps = (high - low) * CHART_RATES_PER_DECADE;
    (0..=steps)
        .map(|i| {
            let exponent = f64::from(low) + f64::from(i) / f64::from(CHART_RATES_PER_DECADE);
            let rate = 10f64.powf(exponent);
            let standard = STANDARD_RATES
                .into_iter()
                .find(|s| (s / rate - 1.0).abs() < 1e-9);
            standard.unwrap_or(rate)
        })
        .collect()
}

/// "scenario / architecture", then its bill at each of the table's rates.
fn row(scenario: &str, run: &ArchitectureBills) -> Vec<String> {
    let at = |rate: f64| {
        let bill = run.bills.iter().find(|b| b.requests_per_second == rate);
        bill.map_or_else(|| "-".into(), |b| usd(b.total_usd))
    };
    let name = format!("{scenario} / {}", run.architecture);
    std::iter::once(name)
        .chain(STANDARD_RATES.map(at))
        .collect()
}

/// The pair with its margins at the table's rates only: the chart's rates
/// are too many to read in a sentence.
fn at_table_rates(pair: &BreakEven) -> BreakEven {
    let mut pair = pair.clone();
    if let Crossing::Never { percent_at, .. } = &mut pair.crossing {
        percent_at.retain(|m| STANDARD_RATES.contains(&m.requests_per_second));
    }
    pair
}

/// The experiment a scenario belongs to, as the answers name it.
fn question(scenario: &str) -> &str {
    let experiment = scenario.split('-').next();
    QUESTIONS
        .iter()
        .find(|(prefix, _, _)| Some(*prefix) == experiment)
        .map_or(scenario, |(_, question, _)| question)
}

fn headers() -> Vec<String> {
    let rates = STANDARD_RATES
        .iter()
        .map(|r| format!("{} req/s", quantity(*r)));
    std::iter::once("run".to_string()).chain(rates).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The chart's line labels, in order.
    fn line_labels(section: &MonthlySection) -> Vec<&str> {
        section
            .chart
            .lines
            .iter()
            .map(|l| l.label.as_str())
            .collect()
    }

    #[test]
    fn a_section_per_question_a_column_per_rate_and_the_break_even() {
        let view = monthly(&crate::testdata::results()).unwrap();
        let titles: Vec<&str> = view.sections.iter().map(|s| s.title.as_str()).collect();
        assert_eq!(
            titles,
            [
                "Monthly bill by request rate: orders scenarios",
                "Monthly bill by request rate: Conduit"
            ]
        );
        let orders = &view.sections[0];
        assert_eq!(
            orders.table.headers,
            ["run", "1 req/s", "10 req/s", "100 req/s", "1,000 req/s"]
        );
        // orders-baseline / orders-direct at 10 req/s: $103.57 (see tests/cost.rs)
        assert_eq!(orders.table.rows[0][0], "orders-baseline / orders-direct");
        assert_eq!(orders.table.rows[0][2], "$103.57");
        // each architecture on-demand, then on LMI (modelled)
        assert_eq!(
            orders.table.rows[1][0],
            "orders-baseline / orders-direct on LMI (c7i.xlarge, modelled)"
        );
        assert_eq!(orders.table.rows.len(), 8);
        // per scenario: on-demand against on-demand, LMI against LMI, and
        // each architecture against itself on LMI
        assert_eq!(orders.break_even.len(), 8);
        assert!(orders.break_even[0].starts_with(
            "orders-baseline: orders-direct against orders-direct on LMI (c7i.xlarge, modelled): the bills cross at"
        ), "{:?}", orders.break_even);
        assert!(orders.break_even.iter().any(
            |s| s.starts_with("orders-baseline: orders-direct against orders-queue: never crosses")
        ));
        assert!(view.note.contains("30-day month"), "{}", view.note);
    }

    #[test]
    fn the_chart_draws_the_bills_the_table_shows_at_the_answered_scenario() {
        // GIVEN the view of the sample run
        let view = monthly(&crate::testdata::results()).unwrap();
        let drawn = ["orders-baseline", "conduit-mixed"];
        for (section, scenario) in view.sections.iter().zip(drawn) {
            // THEN a line per row of the scenario the cost answer reads,
            // named by its architecture, through the row's dollars
            let prefix = format!("{scenario} / ");
            let rows: Vec<_> = section
                .table
                .rows
                .iter()
                .filter(|row| row[0].starts_with(&prefix))
                .collect();
            assert!(!rows.is_empty(), "{scenario}");
            assert_eq!(section.chart.lines.len(), rows.len());
            for (line, row) in section.chart.lines.iter().zip(rows) {
                let architecture = &row[0][prefix.len()..];
                let variant = architecture.split(' ').next().unwrap();
                let compute = &architecture[variant.len()..];
                assert!(
                    line.label.ends_with(compute) && !line.label.contains(variant),
                    "{} for {architecture}",
                    line.label
                );
                let at = |rate: f64| line.points.iter().find(|p| p.0 == rate).map(|p| usd(p.1));
                let drawn: Vec<_> = STANDARD_RATES.map(|r| at(r).unwrap()).to_vec();
                assert_eq!(drawn, row[1..]);
                // AND over the range the crossings are searched in, 10 a decade
                assert_eq!(line.points.len(), 81);
                assert_eq!(line.points[0].0, LOWEST_RATE);
            }
            // AND each crossing of a sentence of that scenario is a mark
            let crossing = section
                .break_even
                .iter()
                .filter(|s| {
                    s.starts_with(&format!("{scenario}: ")) && s.contains("the bills cross")
                })
                .count();
            assert!(crossing > 0, "{:?}", section.break_even);
            assert!(
                section.chart.crossings.len() >= crossing,
                "{:?}",
                section.break_even
            );
            // AND the margins of bills that never cross are at the table's rates
            for sentence in section.break_even.iter().filter(|s| s.contains("never")) {
                assert!(
                    sentence.matches('%').count() <= STANDARD_RATES.len(),
                    "{sentence}"
                );
            }
        }
    }

    /// The sample run with the orders-highload runs first.
    fn highload_first() -> Results {
        let mut results = crate::testdata::results();
        results
            .records
            .sort_by_key(|r| r.scenario != "orders-highload");
        assert_eq!(results.records[0].scenario, "orders-highload");
        results
    }

    #[test]
    fn a_section_with_two_scenarios_draws_only_the_answered_ones_lines() {
        // GIVEN orders-highload run before orders-baseline
        let view = monthly(&highload_first()).unwrap();
        let orders = &view.sections[0];
        // THEN the table has both scenarios' rows, highload's first
        assert_eq!(orders.table.rows.len(), 8);
        assert_eq!(orders.table.rows[0][0], "orders-highload / orders-direct");
        // AND the chart only baseline's four lines, named by architecture
        let labels = line_labels(orders);
        assert_eq!(
            labels,
            [
                "direct Invoke",
                "direct Invoke on LMI (c7i.xlarge, modelled)",
                "SQS request/reply",
                "SQS request/reply on LMI (c7i.xlarge, modelled)",
            ]
        );
        // through baseline's dollars, not highload's
        let row = |run: &str| orders.table.rows.iter().find(|r| r[0] == run).unwrap();
        let at_10 = usd(orders.chart.lines[0]
            .points
            .iter()
            .find(|p| p.0 == 10.0)
            .unwrap()
            .1);
        assert_eq!(at_10, row("orders-baseline / orders-direct")[2]);
        assert_ne!(at_10, row("orders-highload / orders-direct")[2]);
        // AND its subtitle says which scenario and why
        assert_eq!(
            orders.chart.subtitle,
            "at orders-baseline, the healthy load the cost answer reads; every scenario's bills are in the table below"
        );
        // AND the list of crossings keeps both scenarios
        assert!(orders
            .break_even
            .iter()
            .any(|s| s.starts_with("orders-highload: ")));
        assert!(orders
            .break_even
            .iter()
            .any(|s| s.starts_with("orders-baseline: ")));
    }

    #[test]
    fn the_crossings_of_the_scenario_not_drawn_are_not_marked() {
        // GIVEN orders-highload run first, its bills crossing somewhere
        let results = highload_first();
        let bills = month_of(&results).unwrap();
        let crossings = |scenario: &str| -> usize {
            let priced = bills.scenarios.iter().find(|s| s.scenario == scenario);
            let pairs = priced.unwrap().break_even.iter();
            pairs
                .map(|pair| match &pair.crossing {
                    Crossing::At { rates, .. } => rates.len(),
                    _ => 0,
                })
                .sum()
        };
        assert!(crossings("orders-highload") > 0);
        // WHEN viewed
        let view = monthly(&results).unwrap();
        let orders = &view.sections[0];
        // THEN the chart marks baseline's crossings only, every one between
        // two lines drawn
        assert!(crossings("orders-baseline") > 0);
        assert_eq!(orders.chart.crossings.len(), crossings("orders-baseline"));
        for mark in &orders.chart.crossings {
            assert!(
                orders.chart.lines.iter().any(|l| l.label == mark.a),
                "{mark:?}"
            );
            assert!(
                orders.chart.lines.iter().any(|l| l.label == mark.b),
                "{mark:?}"
            );
        }
        // AND the drawn chart names no highload line, dot or label
        let svg = orders.chart.svg("t");
        assert!(!svg.contains("highload"), "{svg}");
        assert_eq!(svg.matches("<circle").count(), orders.chart.crossings.len());
    }

    #[test]
    fn without_the_answered_scenario_the_chart_draws_the_first_and_says_so() {
        // GIVEN a run without orders-baseline
        let mut results = crate::testdata::results();
        results.records.retain(|r| r.scenario != "orders-baseline");
        // WHEN viewed
        let view = monthly(&results).unwrap();
        let orders = &view.sections[0];
        // THEN the orders chart draws orders-highload, and says so
        assert_eq!(
            orders.chart.subtitle,
            "at orders-highload: this run has no orders-baseline, the healthy load the cost answer reads; every scenario's bills are in the table below"
        );
        let labels = line_labels(orders);
        assert_eq!(labels.len(), 4);
        assert_eq!(labels[0], "direct Invoke");
        assert_eq!(orders.table.rows.len(), 4);
        let at_10 = usd(orders.chart.lines[0]
            .points
            .iter()
            .find(|p| p.0 == 10.0)
            .unwrap()
            .1);
        assert_eq!(orders.table.rows[0][0], "orders-highload / orders-direct");
        assert_eq!(at_10, orders.table.rows[0][2]);
        // AND Conduit still draws its answered scenario
        assert!(view.sections[1]
            .chart
            .subtitle
            .starts_with("at conduit-mixed, "));
    }

    #[test]
    fn results_without_bills_have_no_section_and_a_foreign_price_table_says_why() {
        let mut unpriced = crate::testdata::results();
        unpriced.records.iter_mut().for_each(|r| r.metering = None);
        assert!(monthly(&unpriced).is_none());
        // runs priced with another table, at other prices
        let mut foreign = crate::testdata::results();
        foreign.price_table_version = "1999-01-01.1".into();
        for r in &mut foreign.records {
            if let Some(cost) = r.cost.as_mut() {
                cost.total_usd *= 1.5;
            }
        }
        let view = monthly(&foreign).unwrap();
        assert!(view.sections.is_empty());
        assert!(view.note.contains("1999-01-01.1"), "{}", view.note);
    }
}
