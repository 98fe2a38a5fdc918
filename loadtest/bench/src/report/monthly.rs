//! The report's monthly bills: per question, each scenario's architectures at
//! 1, 10, 100 and 1,000 successful requests per second (a 30-day month, from
//! the usage the run measured), on-demand and on Lambda Managed Instances,
//! and where their bills cross: the rate at which LMI becomes the cheaper.
//! LMI's are the runs measured on it (`bench run --compute both`) where the
//! run has some, else a fleet modelled from the usage measured on-demand
//! (`costmodel::managed`). Computed once here; `html` and `markdown` only
//! render the tables and sentences.

use costmodel::{quantity, usd, PriceTable};

use super::answers::Table;
use crate::compute::ComputeType;
use crate::monthly::{monthly_bills_for, Compute, MonthPricing, MonthlyError, STANDARD_RATES};
use crate::monthly_render::basis;
use crate::results::Results;

/// One question's table: a row per scenario and architecture, a column per rate.
pub struct MonthlySection {
    pub title: String,
    pub table: Table,
    /// One sentence per pair of architectures of a scenario.
    pub break_even: Vec<String>,
}

/// The tables and what they stand on (or why they are missing).
pub struct MonthlyBillsView {
    pub sections: Vec<MonthlySection>,
    pub note: String,
}

/// `None` when no run has a bill (a remote target without metering).
pub fn monthly(results: &Results) -> Option<MonthlyBillsView> {
    let bills = MonthPricing::new(results, PriceTable::aws_default()).and_then(|pricing| {
        let measured_on_lmi = results
            .records
            .iter()
            .any(|r| r.compute == ComputeType::Managed);
        let compute = if measured_on_lmi {
            Compute::OnDemand
        } else {
            Compute::Both(costmodel::managed::FleetSettings::default())
        };
        monthly_bills_for(results, &pricing, &STANDARD_RATES, &compute)
    });
    let bills = match bills {
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
        let title = format!(
            "Monthly bill at {} requests/s: {}",
            rates_in_words(),
            question(&scenario.scenario)
        );
        let section = match sections.iter_mut().find(|s| s.title == title) {
            Some(section) => section,
            None => {
                sections.push(MonthlySection {
                    title,
                    table: Table {
                        headers: headers(),
                        rows: Vec::new(),
                    },
                    break_even: Vec::new(),
                });
                sections.last_mut().expect("just pushed")
            }
        };
        for run in &scenario.architectures {
            let mut row = vec![format!("{} / {}", scenario.scenario, run.architecture)];
            row.extend(run.bills.iter().map(|b| usd(b.total_usd)));
            section.table.rows.push(row);
        }
        for pair in &scenario.break_even {
            let sentence = format!("{}: {}", scenario.scenario, pair.sentence());
            section.break_even.push(sentence);
        }
    }
    let note = format!(
        "{} Totals without the free tier; `bench cost --from results.json --rate R [--compute both]` prints every line of the bill at any rate.",
        basis(&bills)
    );
    Some(MonthlyBillsView { sections, note })
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

/// "1, 10, 100 and 1,000".
fn rates_in_words() -> String {
    let rates: Vec<String> = STANDARD_RATES.iter().map(|r| quantity(*r)).collect();
    let (last, rest) = rates.split_last().expect("four rates");
    format!("{} and {last}", rest.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_per_question_a_column_per_rate_and_the_break_even() {
        let view = monthly(&crate::testdata::results()).unwrap();
        let titles: Vec<&str> = view.sections.iter().map(|s| s.title.as_str()).collect();
        assert_eq!(
            titles,
            [
                "Monthly bill at 1, 10, 100 and 1,000 requests/s: orders scenarios",
                "Monthly bill at 1, 10, 100 and 1,000 requests/s: Conduit"
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
