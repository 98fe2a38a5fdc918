use super::*;
use crate::break_even::Crossing;
use crate::testdata;

fn pricing(results: &Results) -> MonthPricing {
    MonthPricing::new(results, PriceTable::aws_default()).unwrap()
}

fn bills_of<'a>(bills: &'a MonthlyBills, scenario: &str, architecture: &str) -> &'a [MonthlyBill] {
    let scenario = bills.scenarios.iter().find(|s| s.scenario == scenario);
    let runs = &scenario.unwrap().architectures;
    &runs
        .iter()
        .find(|a| a.architecture == architecture)
        .unwrap()
        .bills
}

#[test]
fn the_rebuilt_usage_prices_every_run_as_it_was_priced() {
    let results = testdata::results_with_rest();
    let pricing = pricing(&results);
    for r in &results.records {
        let usage = usage_per_success(r).unwrap();
        pricing.check_reproduces(r, &usage).unwrap();
    }
}

#[test]
fn a_month_scales_the_usage_per_successful_request_not_per_request() {
    // GIVEN orders-highload / orders-direct: 250 requests, 200 successes
    let results = testdata::results();
    let bills = monthly_bills(&results, &pricing(&results), &[10.0]).unwrap();
    let bill = &bills_of(&bills, "orders-highload", "orders-direct")[0];
    // THEN a month at 10 ok/s is 25,920,000 successes, each carrying 1.25
    // API requests: 32.4M x $1.00 per million
    assert_eq!(bill.requests_per_month, 25_920_000.0);
    assert!((bill.line_usd("API Gateway") - 32.4).abs() < 1e-9);
    // AND the lines add up to the total, the free tier comes off it
    let sum: f64 = bill.lines.iter().map(|l| l.usd).sum();
    assert!((sum - bill.total_usd).abs() < 1e-9);
    assert!(bill.free_tier_usd < 0.0);
    assert!((bill.total_usd + bill.free_tier_usd - bill.total_with_free_tier_usd).abs() < 1e-9);
}

#[test]
fn rest_runs_are_billed_at_the_rest_price_and_compared_apart() {
    let results = testdata::results_with_rest();
    let bills = monthly_bills(&results, &pricing(&results), &[1.0]).unwrap();
    let http = &bills_of(&bills, "orders-baseline", "orders-direct")[0];
    let rest = &bills_of(&bills, "orders-baseline", "orders-direct (REST API)")[0];
    // 2,592,000 requests at $3.50 and at $1.00 per million
    assert!((rest.line_usd("API Gateway") - 2.592 * 3.5).abs() < 1e-9);
    assert!((http.line_usd("API Gateway") - 2.592).abs() < 1e-9);
    let baseline = bills
        .scenarios
        .iter()
        .find(|s| s.scenario == "orders-baseline");
    // Four architectures, six pairs.
    assert_eq!(baseline.unwrap().break_even.len(), 6);
}

#[test]
fn the_cheaper_architecture_is_named_with_its_margin() {
    let results = testdata::results();
    let bills = monthly_bills(&results, &pricing(&results), &STANDARD_RATES).unwrap();
    let conduit = bills
        .scenarios
        .iter()
        .find(|s| s.scenario == "conduit-mixed");
    let pairs = &conduit.unwrap().break_even;
    assert_eq!(pairs.len(), 3);
    let Crossing::Never {
        cheaper,
        percent_at,
        ..
    } = &pairs[0].crossing
    else {
        panic!("{:?}", pairs[0]);
    };
    assert_eq!(cheaper, "conduit-monolith");
    let rates: Vec<f64> = percent_at.iter().map(|m| m.requests_per_second).collect();
    assert_eq!(rates, STANDARD_RATES);
    assert!(percent_at.iter().all(|m| m.percent > 0.0));
}

#[test]
fn bad_rates_other_price_tables_and_unpriced_runs_are_refused() {
    let results = testdata::results();
    let pricing = pricing(&results);
    for rate in [0.0, -1.0, f64::NAN] {
        let err = monthly_bills(&results, &pricing, &[10.0, rate]).unwrap_err();
        assert!(matches!(err, MonthlyError::Rate(_)), "{err}");
    }
    let mut other = results.clone();
    other.price_table_version = "1999-01-01.1".into();
    let err = MonthPricing::new(&other, PriceTable::aws_default())
        .err()
        .unwrap();
    assert!(err.to_string().contains("1999-01-01.1"), "{err}");
    let mut unpriced = results.clone();
    unpriced.records.iter_mut().for_each(|r| r.cost = None);
    let err = monthly_bills(&unpriced, &pricing, &[1.0]).unwrap_err();
    assert!(matches!(err, MonthlyError::NothingToPrice), "{err}");
}

#[test]
fn a_record_whose_metering_disagrees_with_its_bill_is_refused() {
    let mut results = testdata::results();
    let cost = results.records[0].cost.as_mut().unwrap();
    cost.total_usd *= 1.01;
    let err = monthly_bills(&results, &pricing(&results), &[1.0]).unwrap_err();
    assert!(matches!(err, MonthlyError::NotReproduced { .. }), "{err}");
    assert!(
        err.to_string().contains("orders-baseline / orders-direct"),
        "{err}"
    );
}
