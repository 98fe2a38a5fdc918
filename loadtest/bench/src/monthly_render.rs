//! `bench cost`'s Markdown: per scenario and rate, every bill heading of
//! each architecture side by side, then where their bills cross.

use std::fmt::Write;
use std::path::Path;

use anyhow::Context;
use costmodel::{quantity, usd, PriceTable};

use crate::monthly::{monthly_bills, MonthPricing, MonthlyBill, MonthlyBills, ScenarioBills};
use crate::results::Results;

/// `bench cost`: the monthly bills of the results.json at `from`, at each
/// of `rates`, as Markdown or JSON; `prices` is the table the run was priced
/// with when not the built-in one.
pub fn bench_cost(
    from: &Path,
    rates: &[f64],
    prices: Option<&Path>,
    json: bool,
) -> anyhow::Result<String> {
    let text =
        std::fs::read_to_string(from).with_context(|| format!("cannot read {}", from.display()))?;
    let results = Results::from_json(&text)
        .with_context(|| format!("{} is not a bench results.json", from.display()))?;
    let prices = match prices {
        Some(path) => PriceTable::from_path(path)?,
        None => PriceTable::aws_default(),
    };
    let bills = monthly_bills(&results, &MonthPricing::new(&results, prices)?, rates)?;
    Ok(if json {
        serde_json::to_string_pretty(&bills)? + "\n"
    } else {
        markdown(&bills)
    })
}

/// One figure of a bill, for the rows under the headings.
type Figure = fn(&MonthlyBill) -> f64;

/// What the figures are, then a table per scenario and rate.
pub fn markdown(bills: &MonthlyBills) -> String {
    let mut md = format!(
        "## Monthly bill from the measured usage\n\n{}\n\n",
        basis(bills)
    );
    for scenario in &bills.scenarios {
        for (index, rate) in bills.rates.iter().enumerate() {
            scenario_table(&mut md, scenario, index, *rate);
        }
        if !scenario.break_even.is_empty() {
            let _ = writeln!(md, "Break-even ({}):\n", scenario.scenario);
            for pair in &scenario.break_even {
                let _ = writeln!(md, "- {}", pair.sentence());
            }
            md.push('\n');
        }
    }
    md
}

/// The run, the prices and the month the bills stand on, in words.
pub fn basis(bills: &MonthlyBills) -> String {
    let retention = bills.log_retention_days.map_or_else(
        || "kept forever, storage not priced".into(),
        |d| format!("{d} days"),
    );
    format!(
        "Usage measured by the run of {} at commit `{}`, per successful request (the failed ones' usage included), \
scaled to a {}-day month ({} h) of steady traffic at the rate given, in successful requests per second. \
Prices {} ({}, {}), Lambda on {} as measured, volume tiers on the month's totals, log retention {retention}. \
The always-free tier is shown apart: it is the account's, once, whatever else the account runs. \
Break-even rates compare the bills without it.",
        bills.started_at,
        short(&bills.git_commit),
        quantity(bills.hours_per_month / 24.0),
        quantity(bills.hours_per_month),
        bills.price_table_version,
        bills.price_date.as_deref().unwrap_or("newest lines"),
        bills.region,
        bills.lambda_architecture,
    )
}

fn scenario_table(md: &mut String, scenario: &ScenarioBills, index: usize, rate: f64) {
    let runs = &scenario.architectures;
    let Some(first) = runs.first().map(|a| &a.bills[index]) else {
        return;
    };
    let _ = writeln!(
        md,
        "### {} at {} req/s ({} successful requests a month)\n",
        scenario.scenario,
        quantity(rate),
        quantity(first.requests_per_month)
    );
    let names: Vec<&str> = runs.iter().map(|a| a.architecture.as_str()).collect();
    let _ = writeln!(md, "| line | {} |", names.join(" | "));
    let _ = writeln!(md, "|---|{}", "--:|".repeat(runs.len()));
    for (line, heading) in first.lines.iter().enumerate() {
        let cells: Vec<String> = runs
            .iter()
            .map(|a| a.bills[index].lines.get(line).map_or(0.0, |l| l.usd))
            .map(usd)
            .collect();
        let _ = writeln!(md, "| {} | {} |", heading.heading, cells.join(" | "));
    }
    let totals: [(&str, Figure); 3] = [
        ("**total**", |b| b.total_usd),
        ("free tier (the account's)", |b| b.free_tier_usd),
        ("total after the free tier", |b| b.total_with_free_tier_usd),
    ];
    for (label, value) in totals {
        let cells: Vec<String> = runs.iter().map(|a| usd(value(&a.bills[index]))).collect();
        let _ = writeln!(md, "| {label} | {} |", cells.join(" | "));
    }
    md.push('\n');
}

/// The first 12 characters of a commit.
fn short(commit: &str) -> &str {
    commit.get(..12).unwrap_or(commit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_heading_of_every_architecture_and_the_break_even_are_printed() {
        let results = crate::testdata::results();
        let pricing = MonthPricing::new(&results, costmodel::PriceTable::aws_default()).unwrap();
        let bills = monthly_bills(&results, &pricing, &[10.0]).unwrap();
        let md = markdown(&bills);
        assert!(md.contains("30-day month (720 h)"), "{md}");
        assert!(
            md.contains("### orders-baseline at 10 req/s (25,920,000 successful requests a month)")
        );
        assert!(
            md.contains("| line | orders-direct | orders-queue |"),
            "{md}"
        );
        for heading in costmodel::bill::BILL_HEADINGS {
            assert!(md.contains(&format!("| {heading} | $")), "{heading}: {md}");
        }
        assert!(md.contains("| **total** | $103.57 | $167.13 |"), "{md}");
        assert!(md.contains(
            "- orders-direct against orders-queue: never crosses (from 0.001 req/s to 100,000 req/s): orders-direct is cheaper at every rate"
        ), "{md}");
    }
}
