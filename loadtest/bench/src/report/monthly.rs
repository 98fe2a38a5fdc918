//! The report's monthly bills: per question, each scenario's architectures
//! priced for a 30-day month (from the usage the run measured) at rates from
//! 0.001 to 100,000 successful requests per second, on-demand and on Lambda
//! Managed Instances, and where their bills cross: a chart of them all, a
//! table at 1, 10, 100 and 1,000 requests/s, a sentence per pair compared.
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
    STANDARD_RATES,
};
use crate::monthly_render::basis;
use crate::results::Results;

/// The chart's rates a decade: enough that a line bent by a fleet's
/// instances still reads as one, and that its crossings fall on it.
const CHART_RATES_PER_DECADE: i32 = 10;

/// One question: its chart, its table (a row per scenario and architecture,
/// a column per standard rate) and where the bills cross.
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
    let mut sections: Vec<MonthlySection> = Vec::new();
    for scenario in &bills.scenarios {
        let question = question(&scenario.scenario).to_string();
        let section = match sections.iter_mut().find(|s| s.question == question) {
            Some(section) => section,
            None => {
                sections.push(MonthlySection {
                    title: format!("Monthly bill by request rate: {question}"),
                    question,
                    chart: BillChart::default(),
                    table: Table {
                        headers: headers(),
                        rows: Vec::new(),
                    },
                    break_even: Vec::new(),
                });
                sections.last_mut().expect("just pushed")
            }
        };
        section.chart.add(scenario);
        for run in &scenario.architectures {
            section.table.rows.push(row(&scenario.scenario, run));
        }
        for pair in &scenario.break_even {
            let sentence = at_table_rates(pair).sentence();
            section
                .break_even
                .push(format!("{}: {sentence}", scenario.scenario));
        }
    }
    let note = format!(
        "{} Totals without the free tier; `bench cost --from results.json --rate R [--compute both]` prints every line of the bill at any rate.",
        basis(&bills)
    );
    Some(MonthlyBillsView { sections, note })
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
    match scenario.split('-').next() {
        Some("orders") => "orders scenarios",
        Some("conduit") => "Conduit",
        _ => scenario,
    }
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
            "orders-baseline / orders-direct on LMI (c7g.large, modelled)"
        );
        assert_eq!(orders.table.rows.len(), 8);
        // per scenario: on-demand against on-demand, LMI against LMI, and
        // each architecture against itself on LMI
        assert_eq!(orders.break_even.len(), 8);
        assert!(orders.break_even[0].starts_with(
            "orders-baseline: orders-direct against orders-direct on LMI (c7g.large, modelled): the bills cross at"
        ), "{:?}", orders.break_even);
        assert!(orders.break_even.iter().any(
            |s| s.starts_with("orders-baseline: orders-direct against orders-queue: never crosses")
        ));
        assert!(view.note.contains("30-day month"), "{}", view.note);
    }

    #[test]
    fn the_chart_draws_the_bills_the_table_shows_and_the_sentences_the_table_rates() {
        // GIVEN the view of the sample run
        let view = monthly(&crate::testdata::results()).unwrap();
        for section in &view.sections {
            // THEN a line per row, named alike, through the row's dollars
            assert_eq!(section.chart.lines.len(), section.table.rows.len());
            for (line, row) in section.chart.lines.iter().zip(&section.table.rows) {
                assert_eq!(line.label, row[0]);
                let at = |rate: f64| line.points.iter().find(|p| p.0 == rate).map(|p| usd(p.1));
                let drawn: Vec<_> = STANDARD_RATES.map(|r| at(r).unwrap()).to_vec();
                assert_eq!(drawn, row[1..]);
                // AND over the range the crossings are searched in, 10 a decade
                assert_eq!(line.points.len(), 81);
                assert_eq!(line.points[0].0, LOWEST_RATE);
            }
            // AND each crossing of a sentence is a mark on the chart
            let crossing = section
                .break_even
                .iter()
                .filter(|s| s.contains("cross at"))
                .count();
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
