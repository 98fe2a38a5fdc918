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

/// The default table under another version, with HTTP APIs at `http_price`
/// dollars per million.
fn table(version: &str, http_price: &str) -> PriceTable {
    let default = costmodel::DEFAULT_PRICES_CSV;
    let ours = PriceTable::aws_default().version().to_string();
    let text = default
        .replace(
            &format!("# version: {ours}"),
            &format!("# version: {version}"),
        )
        .replace(
            "apigateway,http_requests,price,request,1000000,1.00,",
            &format!("apigateway,http_requests,price,request,1000000,{http_price},"),
        );
    PriceTable::parse(&text).unwrap()
}

#[test]
fn another_table_is_used_only_if_it_prices_the_runs_as_they_were_priced() {
    // GIVEN runs priced with the built-in table
    let results = testdata::results();
    // WHEN a newer table with the same prices (it only adds lines) prices them
    let newer = MonthPricing::new(&results, table("2099-01-01.1", "1.00")).unwrap();
    let bills = monthly_bills(&results, &newer, &[10.0]).unwrap();
    // THEN the bills are those of the run's table, and name both tables
    let ours = monthly_bills(&results, &pricing(&results), &[10.0]).unwrap();
    assert_eq!(bills.scenarios, ours.scenarios);
    assert_eq!(bills.priced_with, "2099-01-01.1");
    assert_eq!(bills.price_table_version, results.price_table_version);
    // AND a table with another price is refused, naming both versions
    let other = MonthPricing::new(&results, table("1999-01-01.1", "1.10")).unwrap();
    let err = monthly_bills(&results, &other, &[10.0]).unwrap_err();
    assert!(matches!(err, MonthlyError::PriceTable { .. }), "{err}");
    let message = err.to_string();
    assert!(message.contains("1999-01-01.1"), "{message}");
    assert!(message.contains(&results.price_table_version), "{message}");
}

fn both() -> Compute {
    Compute::Both(FleetSettings::default())
}

#[test]
fn on_lmi_each_architecture_pays_its_fleet_instead_of_its_duration() {
    // GIVEN the runs billed on both compute types at 10 and 1,000 ok/s
    let results = testdata::results();
    let bills = monthly_bills_for(&results, &pricing(&results), &[10.0, 1000.0], &both()).unwrap();
    let on_demand = bills_of(&bills, "orders-baseline", "orders-direct");
    let managed = bills_of(
        &bills,
        "orders-baseline",
        "orders-direct on LMI (c7i.xlarge, modelled)",
    );
    // THEN the LMI bill has no duration line, and instance and fee lines
    // whose ratio is the 15 % management fee
    for bill in managed {
        assert_eq!(bill.line_usd("Lambda duration"), 0.0);
        let (instances, fee) = (
            bill.line_usd("EC2 instances"),
            bill.line_usd("LMI management fee"),
        );
        assert!(instances > 0.0);
        assert!((fee / instances - 0.15).abs() < 1e-9, "{fee} / {instances}");
        // AND everything else is the on-demand month's, less Lambda's free tier
        let fleet = bill.fleet.as_ref().unwrap();
        assert!(fleet.instances >= 3);
        assert!(
            (instances - f64::from(fleet.instances) * HOURS_PER_MONTH * 0.1785).abs() < 1e-6,
            "{instances}"
        );
    }
    for (od, lmi) in on_demand.iter().zip(managed) {
        for heading in ["API Gateway", "Lambda requests", "SQS", "DynamoDB reads"] {
            assert!(
                (od.line_usd(heading) - lmi.line_usd(heading)).abs() < 1e-9,
                "{heading}"
            );
        }
        assert!(od.fleet.is_none());
    }
    // AND the minimum fleet makes LMI the dearer at 10 ok/s
    assert!(managed[0].total_usd > on_demand[0].total_usd);
}

#[test]
fn both_compute_types_are_compared_with_each_other_too() {
    let results = testdata::results();
    let bills = monthly_bills_for(&results, &pricing(&results), &[10.0], &both()).unwrap();
    let baseline = bills
        .scenarios
        .iter()
        .find(|s| s.scenario == "orders-baseline")
        .unwrap();
    // two architectures on two compute types: four; compared on-demand with
    // on-demand, LMI with LMI, and each with itself: four pairs
    assert_eq!(baseline.architectures.len(), 4);
    assert_eq!(baseline.break_even.len(), 4);
    let pair = baseline
        .break_even
        .iter()
        .find(|p| p.a == "orders-direct" && p.b == "orders-direct on LMI (c7i.xlarge, modelled)")
        .unwrap();
    // a fixed fleet against a bill proportional to the rate: they cross
    // once, on-demand the cheaper below
    let Crossing::At {
        rates,
        cheaper_below,
        cheaper_above,
    } = &pair.crossing
    else {
        panic!("{pair:?}");
    };
    assert_eq!(cheaper_below, "orders-direct");
    assert_eq!(cheaper_above, "orders-direct on LMI (c7i.xlarge, modelled)");
    assert!(rates[0] > 1.0 && rates[0] < 100_000.0, "{rates:?}");
    // AND managed alone bills only LMI
    let managed = monthly_bills_for(
        &results,
        &pricing(&results),
        &[10.0],
        &Compute::Managed(FleetSettings::default()),
    )
    .unwrap();
    let names: Vec<&str> = managed.scenarios[0]
        .architectures
        .iter()
        .map(|a| a.architecture.as_str())
        .collect();
    assert!(
        names
            .iter()
            .all(|n| n.ends_with("on LMI (c7i.xlarge, modelled)")),
        "{names:?}"
    );
}

#[test]
fn the_lmi_crossover_is_where_the_minimum_fleet_costs_what_the_duration_does() {
    // GIVEN orders-baseline / orders-direct, measured on-demand on x86_64:
    // per successful request an api invocation billed 520 ms and a backend
    // one billed 503 ms, both at 128 MB, and no failure
    let results = testdata::results();
    let bills = monthly_bills_for(&results, &pricing(&results), &STANDARD_RATES, &both()).unwrap();
    let lmi = "orders-direct on LMI (c7i.xlarge, modelled)";
    let baseline = &bills.scenarios[0];
    assert_eq!(baseline.scenario, "orders-baseline");
    let pair = baseline
        .break_even
        .iter()
        .find(|p| p.a == "orders-direct" && p.b == lmi)
        .unwrap();
    let Crossing::At { rates, .. } = &pair.crossing else {
        panic!("{pair:?}");
    };
    // By hand. Every line but Lambda's duration and LMI's instances is the
    // same on both (API Gateway, DynamoDB, logs, and Lambda's requests at
    // $0.20 per million: requests x $0.20 / 1e6 on each side), so the bills
    // cross where
    //   instances x hours x price x (1 + 15 % fee)
    //     = requests x GB-s per request x duration price.
    // LMI: the minimum fleet, 3 instances (2 functions x 3 one-vCPU
    // environments, 3 a c7i.xlarge beside its OS's 1 vCPU, 2 instances, so
    // the 3 AWS keeps), 720 h at $0.1785 (x86_64, as measured), plus 15 %:
    //   3 x 720 x 0.1785 x 1.15 = $443.394 a month, whatever the rate.
    // On-demand at R requests/s: R x 2,592,000 requests a month, each
    // (0.520 + 0.503) s x 0.125 GB = 0.127875 GB-s at $0.0000166667:
    //   R x 2,592,000 x 0.127875 x 0.0000166667 = R x $5.52421
    // (26.5M GB-s a month at 80 req/s: the first tier, below 6 billion).
    //   R = 443.394 / 5.52421 = 80.26 requests/s.
    let by_hand: f64 = 3.0 * 720.0 * 0.1785 * 1.15 / (2_592_000.0 * 0.127875 * 0.0000166667);
    assert!((by_hand - 80.26).abs() < 0.01, "{by_hand}");
    assert_eq!(rates.len(), 1, "{rates:?}");
    assert!(
        (rates[0] - by_hand).abs() / by_hand < 0.01,
        "crossover {} against {by_hand} by hand",
        rates[0]
    );
    // AND at that rate the fleet is the minimum the hand calculation assumed
    let pricing = pricing(&results);
    let on_lmi = monthly_bills_for(&results, &pricing, &[by_hand], &both()).unwrap();
    let fleet = bills_of(&on_lmi, "orders-baseline", lmi)[0]
        .fleet
        .clone()
        .unwrap();
    assert_eq!(
        (fleet.instance_type.as_str(), fleet.architecture.as_str()),
        ("c7i.xlarge", "x86_64")
    );
    assert_eq!((fleet.instances, fleet.environments_per_instance), (3, 3));
}

#[test]
fn an_ec2_discount_comes_off_the_instances_and_not_off_the_fee() {
    // GIVEN the LMI months at 10 req/s, list price and 32 % off (a Savings Plan)
    let results = testdata::results();
    let lmi = "orders-direct on LMI (c7i.xlarge, modelled)";
    let month = |discount: f64| {
        let discount = Ec2Discount::new(discount).unwrap();
        let pricing = pricing(&results).with_ec2_discount(discount);
        let bills = monthly_bills_for(&results, &pricing, &[10.0], &both()).unwrap();
        assert_eq!(bills.ec2_discount, discount.share());
        bills_of(&bills, "orders-baseline", lmi)[0].clone()
    };
    let (list, saved) = (month(0.0), month(0.32));
    // THEN the instances are 32 % cheaper: 3 x 720 h x $0.1785 = $385.56,
    // less $123.3792
    assert!((list.line_usd("EC2 instances") - 385.56).abs() < 1e-6);
    assert!((saved.line_usd("EC2 instances") - 385.56 * 0.68).abs() < 1e-6);
    // AND the fee is still 15 % of the on-demand price: $57.834
    for bill in [&list, &saved] {
        assert!((bill.line_usd("LMI management fee") - 57.834).abs() < 1e-6);
    }
    assert!((list.total_usd - saved.total_usd - 385.56 * 0.32).abs() < 1e-6);
}
