use super::*;
use crate::monthly::{monthly_bills_for, Compute, MonthPricing};
use crate::testdata;

/// The sample run with its orders-direct baseline also run on LMI.
fn with_lmi_twin(instance_seconds: f64) -> Results {
    let mut results = testdata::results();
    let on_demand = results.records[0].clone();
    assert_eq!(
        (on_demand.scenario.as_str(), on_demand.variant.as_str()),
        ("orders-baseline", "orders-direct")
    );
    results
        .records
        .push(testdata::on_lmi(&on_demand, instance_seconds));
    results
}

fn month(results: &Results, name: &str, rate: f64) -> f64 {
    let pricing = MonthPricing::new(results, PriceTable::aws_default()).unwrap();
    let bills = monthly_bills_for(results, &pricing, &[rate], &Compute::OnDemand).unwrap();
    bills
        .scenarios
        .iter()
        .flat_map(|s| &s.architectures)
        .find(|a| a.architecture == name)
        .map(|a| a.bills[0].total_usd)
        .unwrap_or_else(|| panic!("no bill for {name}"))
}

#[test]
fn a_run_on_both_compute_types_is_compared_with_where_lmi_becomes_cheaper() {
    // GIVEN orders-direct measured on-demand and on LMI
    let results = with_lmi_twin(60.0);
    // WHEN the compute table is made
    let table = compute_table(&results).expect("a scenario ran on both");
    // THEN it has the one pair, its latencies and its own bills per M ok
    assert_eq!(table.rows.len(), 1, "{table:?}");
    let row = &table.rows[0];
    assert_eq!(row[0], "orders-baseline / orders-direct");
    let lmi = &results.records[results.records.len() - 1];
    let ok = lmi.cost.as_ref().unwrap().usd_per_million_successful;
    assert_eq!(row[8], dollars(ok));
    assert_ne!(row[7], row[8], "each run is billed its own way");
    // AND the LMI month, priced on the .xlarge of the run's architecture
    // (3 one-vCPU environments each beside the OS, at most 8 invocations of
    // half a second in each), never gets cheaper: the fleet grows faster
    // with the rate than the duration it replaces
    assert_eq!(row[9], "never on c7i.xlarge");
    let (on_demand, on_lmi) = ("orders-direct", "orders-direct on LMI");
    for rate in [1.0, 80.0, 1000.0, 50_000.0] {
        assert!(
            month(&results, on_lmi, rate) > month(&results, on_demand, rate),
            "{rate}"
        );
    }
}

#[test]
fn each_scenario_row_names_its_own_scenarios_crossing() {
    // GIVEN orders-direct on both compute types in two scenarios, whose
    // demands differ (the highload's month is not the baseline's)
    let mut results = with_lmi_twin(60.0);
    let highload = results
        .records
        .iter()
        .find(|r| r.scenario == "orders-highload" && r.variant == "orders-direct")
        .unwrap()
        .clone();
    results.records.push(testdata::on_lmi(&highload, 600.0));
    // WHEN the compute table is made
    let table = compute_table(&results).unwrap();
    // THEN each row's crossing is the one of its own scenario's months
    let pricing = MonthPricing::new(&results, PriceTable::aws_default()).unwrap();
    let bills = monthly_bills_for(&results, &pricing, &[1.0], &Compute::OnDemand).unwrap();
    let pair = |scenario: &str| {
        bills
            .scenarios
            .iter()
            .find(|s| s.scenario == scenario)
            .and_then(|s| {
                s.break_even.iter().find(|b| {
                    let pair = [b.a.as_str(), b.b.as_str()];
                    pair.contains(&"orders-direct") && pair.contains(&"orders-direct on LMI")
                })
            })
            .unwrap_or_else(|| panic!("no LMI break-even in {scenario}"))
            .clone()
    };
    // the month priced on the .xlarge a provider naming no type is billed
    let own = |scenario: &str| {
        format!(
            "{} on c7i.xlarge",
            lmi_cheaper(&pair(scenario), "orders-direct on LMI")
        )
    };
    let cell = |scenario: &str| {
        let row = table
            .rows
            .iter()
            .find(|r| r[0] == format!("{scenario} / orders-direct"))
            .unwrap();
        row[9].clone()
    };
    assert_eq!(cell("orders-baseline"), own("orders-baseline"));
    assert_eq!(cell("orders-highload"), own("orders-highload"));
    // (both "never" on the new bill: their margins tell the months apart)
    assert_ne!(
        pair("orders-baseline"),
        pair("orders-highload"),
        "{table:?}"
    );
}

#[test]
fn a_run_on_one_compute_type_has_no_compute_table() {
    assert_eq!(compute_table(&testdata::results()), None);
    // AND the experiments' tables stay those of the first pass
    let results = with_lmi_twin(60.0);
    let all = all_answers(&results);
    assert_eq!(all.last().unwrap().question, COMPUTE_QUESTION);
    assert_eq!(
        all.len(),
        crate::report::answers::answers(&results).len() + 1
    );
}

#[test]
fn an_lmi_run_is_billed_its_instances_and_its_month_the_fleet_it_needs() {
    // GIVEN orders-direct on LMI, billed 60 instance-seconds per function
    let results = with_lmi_twin(60.0);
    let lmi = &results.records[results.records.len() - 1];
    // THEN the run's bill has instances and the fee, no duration
    let cost = lmi.cost.as_ref().unwrap();
    let line = |heading: &str| {
        let found = cost.by_line.iter().find(|l| l.heading == heading);
        found.map_or(0.0, |l| l.usd)
    };
    assert_eq!(line("Lambda duration"), 0.0, "{:?}", cost.by_line);
    assert!(line("EC2 instances") > 0.0, "{:?}", cost.by_line);
    assert!(line("LMI management fee") > 0.0, "{:?}", cost.by_line);
    // Three functions' 60 s (the idle sweeper's too) of a c7i.large at
    // $0.08925 an hour.
    let instances = 3.0 * 60.0 / 3600.0 * 0.08925;
    assert!(
        (cost.by_service["ec2"] - instances).abs() < 1e-9,
        "{:?}",
        cost.by_service
    );
    // AND its month is the fleet its measured demand needs: at 1 req/s the
    // three instances AWS keeps, every hour of a 720-hour month. The run's
    // provider named no type (the local cloud placed it on its c7i.large):
    // the month is priced on the c7i.xlarge AWS's calculator starts from,
    // three one-vCPU environments on each beside the OS, for the three
    // functions' nine
    let pricing = MonthPricing::new(&results, PriceTable::aws_default()).unwrap();
    let bills = monthly_bills_for(&results, &pricing, &[1.0], &Compute::OnDemand).unwrap();
    let bill = bills
        .scenarios
        .iter()
        .flat_map(|s| &s.architectures)
        .find(|a| a.architecture == "orders-direct on LMI")
        .map(|a| &a.bills[0])
        .unwrap();
    let fleet = bill.fleet.as_ref().expect("an LMI bill has its fleet");
    assert_eq!(
        (fleet.instance_type.as_str(), fleet.instances),
        ("c7i.xlarge", 3)
    );
    assert_eq!(fleet.environments_per_instance, 3);
    let ec2 = 3.0 * 720.0 * 0.1785;
    assert!(bill.total_usd > ec2 * 1.15, "{}", bill.total_usd);
}

/// [`with_lmi_twin`], its LMI functions having recorded their environments'
/// concurrency (a local cloud of metrics version 8 or later, which places a
/// provider naming no type on the c7i.xlarge).
fn with_recorded_concurrency(max_concurrency: u32) -> Results {
    let mut results = testdata::results();
    let mut lmi = testdata::on_lmi_on(&results.records[0], 60.0, "c7i.xlarge");
    for f in lmi.metering.as_mut().unwrap().functions.values_mut() {
        let managed = f.managed.as_mut().unwrap();
        managed.max_concurrency = Some(max_concurrency);
        managed.memory_gib_per_vcpu = Some(2.0);
    }
    results.records.push(lmi);
    results
}

fn lmi_fleet(results: &Results, rate: f64) -> costmodel::managed::Fleet {
    let pricing = MonthPricing::new(results, PriceTable::aws_default()).unwrap();
    let bills = monthly_bills_for(results, &pricing, &[rate], &Compute::OnDemand).unwrap();
    bills
        .scenarios
        .iter()
        .flat_map(|s| &s.architectures)
        .find(|a| a.architecture == "orders-direct on LMI")
        .and_then(|a| a.bills[0].fleet.clone())
        .unwrap()
}

#[test]
fn a_recorded_concurrency_sizes_the_lmi_month_and_moves_its_crossover() {
    // GIVEN orders-direct on LMI, its functions recorded serving 64
    // invocations at once per environment (template-lmi.yaml's orders
    // functions), against the same run that recorded none (8 per vCPU)
    let (recorded, unrecorded) = (with_recorded_concurrency(64), with_lmi_twin(60.0));
    // WHEN their months are sized at 100 req/s: 52 and 50.3 invocations in
    // flight (520 and 503 ms each)
    let (at_64, at_8) = (lmi_fleet(&recorded, 100.0), lmi_fleet(&unrecorded, 100.0));
    // THEN at 64 each function keeps its minimum 3 environments, on the 3
    // instances AWS keeps; at 8, 7 each, 14 in all, three per c7i.xlarge
    let environments = |f: &costmodel::managed::Fleet| {
        f.functions
            .iter()
            .map(|f| (f.max_concurrency, f.environments))
            .collect::<Vec<_>>()
    };
    assert_eq!(environments(&at_64), [(64, 3), (64, 3)]);
    assert_eq!(environments(&at_8), [(8, 7), (8, 7)]);
    assert_eq!((at_64.instances, at_8.instances), (3, 5));
    // AND the LMI month, never the cheaper at 8, is the cheaper above the
    // rate where the minimum fleet costs what the on-demand duration does:
    //   3 instances x 720 h x $0.1785 x 1.15 = $443.394 a month
    //     = R x 2,592,000 x (0.520 + 0.503) s x 0.125 GB x $0.0000166667
    //   R = 443.394 / 5.52421 = 80.26 req/s
    // (every other line is the same run's, so the same on both sides)
    let row = |results: &Results| compute_table(results).unwrap().rows[0][9].clone();
    assert_eq!(row(&unrecorded), "never on c7i.xlarge");
    let by_hand = 3.0 * 720.0 * 0.1785 * 1.15 / (2_592_000.0 * 0.127875 * 0.0000166667);
    let cell = row(&recorded);
    let rate: f64 = cell
        .strip_prefix("above ")
        .and_then(|c| c.strip_suffix(" req/s on c7i.xlarge"))
        .unwrap_or_else(|| panic!("{cell}"))
        .replace(',', "")
        .parse()
        .unwrap();
    assert!(
        (rate - by_hand).abs() / by_hand < 0.01,
        "{cell} against {by_hand}"
    );
}
