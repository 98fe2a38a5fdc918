//! `bench cost`'s Markdown: per scenario and rate, every bill heading of
//! each architecture side by side, then where their bills cross.

use std::fmt::Write;
use std::path::Path;

use costmodel::managed::{Bound, Ec2Discount, Fleet};
use costmodel::{quantity, usd, PriceTable};

use crate::monthly::{
    monthly_bills_for, ArchitectureBills, Compute, MonthPricing, MonthlyBill, MonthlyBills,
    ScenarioBills,
};
use crate::results::Results;

/// `bench cost`: the monthly bills of a run's `results`, at each
/// of `rates`, on `compute`, as Markdown or JSON; `prices` is the table the
/// run was priced with when not the built-in one; `discount` comes off every
/// LMI month's instances.
pub fn bench_cost(
    results: &Results,
    rates: &[f64],
    compute: &Compute,
    prices: Option<&Path>,
    discount: Ec2Discount,
    json: bool,
) -> anyhow::Result<String> {
    let prices = match prices {
        Some(path) => PriceTable::from_path(path)?,
        None => PriceTable::aws_default(),
    };
    let pricing = MonthPricing::new(results, prices)?.with_ec2_discount(discount);
    let bills = monthly_bills_for(results, &pricing, rates, compute)?;
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
    let mut basis = run_basis(bills);
    if !bills.priced_with.is_empty() && bills.priced_with != bills.price_table_version {
        basis.push_str(&format!(
            " Priced with table {}, which prices every run as its own table did.",
            bills.priced_with
        ));
    }
    let fleets = bills
        .scenarios
        .iter()
        .flat_map(|s| &s.architectures)
        .flat_map(|a| &a.bills)
        .filter_map(|b| b.fleet.as_ref());
    if let Some(fleet) = fleets.into_iter().next() {
        basis.push_str(&format!(
            " On Lambda Managed Instances (LMI) there is no duration charge: {} instances ({}, the functions' architecture \
as measured) at {}, plus a 15 % management fee on their on-demand price, every hour of the month, busy or idle, \
and $0.20 per million requests without the on-demand free tier. \
The fleet is sized from the measured usage: at least 3 instances and 3 execution environments per function, \
{} vCPU and at most {} invocations at once per environment, 1 vCPU and 1 GiB of each instance kept for its \
operating system, CPU kept at the target utilisation (docs/cost-model.md, \"Lambda Managed Instances\").",
            fleet.instance_type,
            fleet.architecture,
            instance_price(bills.ec2_discount),
            fleet.vcpus_per_environment,
            fleet.max_concurrency,
        ));
    }
    basis
}

/// What the instances are billed at, in words.
fn instance_price(ec2_discount: f64) -> String {
    if ec2_discount > 0.0 {
        format!(
            "their on-demand price less {} % (Savings Plans or reserved instances)",
            quantity(ec2_discount * 100.0)
        )
    } else {
        "their on-demand price".into()
    }
}

fn run_basis(bills: &MonthlyBills) -> String {
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
    // Every heading any of them has, in bill order: an LMI bill has two
    // lines an on-demand one does not.
    let mut headings: Vec<&str> = Vec::new();
    for line in runs.iter().flat_map(|a| &a.bills[index].lines) {
        if !headings.contains(&line.heading.as_str()) {
            headings.push(&line.heading);
        }
    }
    for heading in headings {
        let cells: Vec<String> = runs
            .iter()
            .map(|a| usd(a.bills[index].line_usd(heading)))
            .collect();
        let _ = writeln!(md, "| {heading} | {} |", cells.join(" | "));
    }
    fleet_rows(md, runs, index);
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

/// On Lambda Managed Instances: the instances each month pays for, and what
/// set their number.
fn fleet_rows(md: &mut String, runs: &[ArchitectureBills], index: usize) {
    let fleets: Vec<Option<&Fleet>> = runs.iter().map(|a| a.bills[index].fleet.as_ref()).collect();
    if fleets.iter().all(Option::is_none) {
        return;
    }
    let cells: Vec<String> = fleets
        .iter()
        .map(|fleet| {
            fleet.map_or_else(
                || "-".into(),
                |f| {
                    let environments: u32 = f.functions.iter().map(|x| x.environments).sum();
                    let bound = match f.bound {
                        Bound::Minimum => "the minimum",
                        _ => "packing",
                    };
                    format!(
                        "{} x {} ({environments} environments; {bound})",
                        f.instances, f.instance_type
                    )
                },
            )
        })
        .collect();
    let _ = writeln!(md, "| LMI fleet | {} |", cells.join(" | "));
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
        let bills = crate::monthly::monthly_bills(&results, &pricing, &[10.0]).unwrap();
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
