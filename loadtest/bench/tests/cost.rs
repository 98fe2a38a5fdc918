//! `bench cost` against a hand calculation from the price table
//! (`loadtest/prices/aws-prices.csv`, us-east-1, version 2026-12-03.1) on
//! `tests/fixtures/sample-results.json`, and its errors.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use bench::break_even::Crossing;
use bench::monthly::{MonthlyBill, MonthlyBills};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sample-results.json")
}

fn bench_cost(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bench"))
        .arg("cost")
        .args(args)
        .output()
        .unwrap()
}

fn bills_at(rates: &[&str]) -> MonthlyBills {
    let fixture = fixture();
    let mut args = vec!["--from", fixture.to_str().unwrap(), "--json"];
    for rate in rates {
        args.extend(["--rate", rate]);
    }
    let out = bench_cost(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn bill<'a>(
    bills: &'a MonthlyBills,
    scenario: &str,
    architecture: &str,
    rate: f64,
) -> &'a MonthlyBill {
    let scenario = bills
        .scenarios
        .iter()
        .find(|s| s.scenario == scenario)
        .unwrap();
    let run = scenario
        .architectures
        .iter()
        .find(|a| a.architecture == architecture)
        .unwrap();
    run.bills
        .iter()
        .find(|b| b.requests_per_second == rate)
        .unwrap()
}

/// `got` within 1 % of the hand calculation.
fn assert_near(what: &str, got: f64, expected: f64) {
    assert!(
        (got - expected).abs() <= 0.01 * expected.abs(),
        "{what}: bench cost says {got}, the hand calculation {expected}"
    );
}

// The fixture's orders-baseline / orders-direct run: 200 requests, all
// successful, on x86_64, log retention 14 days. Per successful request:
// 200 / 200 = 1 HTTP API request; 2 invocations (api, backend);
// (104,000 + 100,600) / 200 = 1,023 billed ms at 128 MB; 100 / 200 = 0.5
// read request units; 140,000 / 200 = 700 log bytes; 160,000 / 200 = 800
// bytes out. A 30-day month is 30 x 86,400 = 2,592,000 s.
const MONTH_S: f64 = 2_592_000.0;
const GB: f64 = 1_073_741_824.0;

#[test]
fn the_monthly_bill_at_10_req_per_s_is_the_hand_calculation() {
    let bills = bills_at(&["10"]);
    let direct = bill(&bills, "orders-baseline", "orders-direct", 10.0);
    // N = 10 x 2,592,000 = 25,920,000 successful requests a month
    let n = 10.0 * MONTH_S;
    assert_eq!(direct.requests_per_month, n);
    // API Gateway: 25.92M x $1.00 per million                       = $25.92
    let api = n * 1.00 / 1e6;
    // Lambda requests: 51.84M x $0.20 per million                   = $10.368
    let requests = 2.0 * n * 0.20 / 1e6;
    // Lambda duration: 25.92M x 1.023 s x 128/1024 GB = 3,314,520 GB-s
    //   x $0.0000166667                                              = $55.242
    let duration = n * 1.023 * 0.125 * 0.000_016_666_7;
    // DynamoDB reads: 12.96M RRU x $0.125 per million                = $1.62
    let reads = n * 0.5 * 0.125 / 1e6;
    // CloudWatch Logs: 25.92M x 700 B = 16.898 GB ingested x $0.50 = $8.449,
    //   stored 14 of 30 days: 7.886 GB-month x $0.03 = $0.2366    = $8.6855
    let log_gb = n * 700.0 / GB;
    let logs = log_gb * 0.50 + log_gb * 14.0 / 30.0 * 0.03;
    // Data transfer: 25.92M x 800 B = 19.312 GB x $0.09             = $1.7381
    let transfer_gb = n * 800.0 / GB;
    let transfer = transfer_gb * 0.09;
    for (heading, expected) in [
        ("API Gateway", api),
        ("Lambda requests", requests),
        ("Lambda duration", duration),
        ("DynamoDB reads", reads),
        ("CloudWatch Logs", logs),
        ("Data transfer", transfer),
    ] {
        assert_near(heading, direct.line_usd(heading), expected);
    }
    assert_eq!(direct.line_usd("SQS"), 0.0);
    assert_eq!(direct.line_usd("DynamoDB writes"), 0.0);
    // Total: $103.57
    let total = api + requests + duration + reads + logs + transfer;
    assert_near("total", direct.total_usd, total);
    assert_near("total", direct.total_usd, 103.57);
    // Free tier: 1M Lambda requests ($0.20), 400,000 GB-s ($6.6667), 5 GB
    // ingested ($2.50), 5 GB-month stored ($0.15), all 19.312 GB out (of
    // 100 GB: $1.7381) = $11.255 off: $92.32
    let free = 0.20 + 400_000.0 * 0.000_016_666_7 + 5.0 * 0.50 + 5.0 * 0.03 + transfer;
    assert_near("free tier", -direct.free_tier_usd, free);
    assert_near(
        "after the free tier",
        direct.total_with_free_tier_usd,
        total - free,
    );

    // orders-queue: 1,048 billed ms ((108,000 + 101,600) / 200) and
    // 6 SQS requests ((600 + 600) / 200) per successful request, the rest
    // as direct. Duration: 25.92M x 1.048 x 0.125 = 3,395,520 GB-s x
    // $0.0000166667 = $56.592; SQS: 155.52M x $0.40 per million = $62.208.
    let queue = bill(&bills, "orders-baseline", "orders-queue", 10.0);
    let queue_duration = n * 1.048 * 0.125 * 0.000_016_666_7;
    let sqs = 6.0 * n * 0.40 / 1e6;
    assert_near("SQS", queue.line_usd("SQS"), sqs);
    let queue_total = api + requests + queue_duration + sqs + reads + logs + transfer;
    assert_near("queue total", queue.total_usd, queue_total); // $167.13
                                                              // Both bills are per request: they never cross, direct is cheaper by
                                                              // (167.13 - 103.57) / 167.13 = 38.0 %.
    let scenario = bills
        .scenarios
        .iter()
        .find(|s| s.scenario == "orders-baseline")
        .unwrap();
    let Crossing::Never {
        cheaper,
        percent_at,
        ..
    } = &scenario.break_even[0].crossing
    else {
        panic!("{:?}", scenario.break_even);
    };
    assert_eq!(cheaper, "orders-direct");
    let percent = (queue_total - total) / queue_total * 100.0;
    assert_near("direct's margin", percent_at[0].percent, percent);
}

#[test]
fn at_1000_req_per_s_the_api_gateway_volume_tier_applies() {
    let bills = bills_at(&["1", "1000"]);
    let direct = bill(&bills, "orders-baseline", "orders-direct", 1000.0);
    // 2,592M requests: the first 300M at $1.00, the 2,292M beyond at $0.90
    // = $300 + $2,062.80 = $2,362.80
    assert_near(
        "API Gateway",
        direct.line_usd("API Gateway"),
        300.0 + 2_292.0 * 0.90,
    );
    // Lambda duration: 331,452,000 GB-s, under the 6B GB-s tier
    assert_near(
        "Lambda duration",
        direct.line_usd("Lambda duration"),
        331_452_000.0 * 0.000_016_666_7,
    );
    // Total: 2,362.80 + 1,036.80 + 5,524.21 + 162 + 868.55 + 173.81 = $10,128.17
    assert_near("total", direct.total_usd, 10_128.17);
}

#[test]
fn markdown_is_the_default_output() {
    let out = bench_cost(&["--from", fixture().to_str().unwrap(), "--rate", "10"]);
    assert!(out.status.success());
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(md.contains("| **total** | $103.57 | $167.13 |"), "{md}");
    assert!(md.contains("30-day month"), "{md}");
}

#[test]
fn a_missing_or_malformed_file_and_a_non_positive_rate_are_clear_errors() {
    let error = |args: &[&str]| {
        let out = bench_cost(args);
        assert!(!out.status.success(), "{args:?} succeeded");
        String::from_utf8(out.stderr).unwrap()
    };
    let stderr = error(&["--from", "/no/such/results.json", "--rate", "1"]);
    assert!(
        stderr.contains("cannot read /no/such/results.json"),
        "{stderr}"
    );
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("results.json");
    std::fs::write(&broken, "{\"schema_version\": 4}").unwrap();
    let stderr = error(&["--from", broken.to_str().unwrap(), "--rate", "1"]);
    assert!(stderr.contains("is not a bench results.json"), "{stderr}");
    let fixture = fixture();
    for rate in ["0", "-5"] {
        let stderr = error(&["--from", fixture.to_str().unwrap(), "--rate", rate]);
        assert!(
            stderr.contains("a rate must be a positive number"),
            "{stderr}"
        );
    }
}

/// `bench cost --compute both` on orders-baseline, where orders-direct on
/// LMI becomes the cheaper: the break-even's first rate.
fn lmi_crossover(extra: &[&str]) -> f64 {
    let fixture = fixture();
    let mut args = vec!["--from", fixture.to_str().unwrap(), "--json"];
    args.extend(["--rate", "10", "--compute", "both"]);
    args.extend(extra);
    let out = bench_cost(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bills: MonthlyBills = serde_json::from_slice(&out.stdout).unwrap();
    let scenario = bills
        .scenarios
        .iter()
        .find(|s| s.scenario == "orders-baseline")
        .unwrap();
    let lmi = "orders-direct on LMI (c7i.xlarge, modelled)";
    let pair = scenario
        .break_even
        .iter()
        .find(|p| p.a == "orders-direct" && p.b == lmi)
        .unwrap_or_else(|| panic!("{:?}", scenario.break_even));
    let Crossing::At {
        rates,
        cheaper_above,
        ..
    } = &pair.crossing
    else {
        panic!("{pair:?}");
    };
    assert_eq!(cheaper_above, lmi);
    rates[0]
}

#[test]
fn on_demand_and_lmi_cross_where_the_hand_calculation_says() {
    // On LMI the month pays no duration but the fleet: at these rates the
    // minimum, 3 instances (each function keeps 3 one-vCPU environments;
    // a c7i.xlarge, 4 vCPUs and 8 GiB less the OS's 1 vCPU and 1 GiB, holds
    // 3: 6 environments on 2 instances, and AWS keeps 3), of the architecture
    // measured (x86_64), the .xlarge a provider naming no type is billed.
    // Every other line is the same on both (API Gateway, DynamoDB, logs,
    // data transfer, Lambda's requests at $0.20 per million on each), so the
    // bills cross where
    //   instances x hours x price x (1 + 15 % fee)
    //     = requests x GB-s per request x duration price:
    //   3 x 720 x $0.1785 x 1.15 = $443.394 a month
    //     = R x 2,592,000 x (1.023 s x 0.125 GB) x $0.0000166667 = R x $5.52421
    //   R = 80.26 successful requests per second.
    let fleet = 3.0 * 720.0 * 0.1785;
    let duration_per_rate = MONTH_S * 1.023 * 0.125 * 0.000_016_666_7;
    assert_near(
        "crossover",
        lmi_crossover(&[]),
        fleet * 1.15 / duration_per_rate,
    );
    // AND with a 32 % Savings Plan on the instances, the fee still 15 % of
    // their on-demand price: 3 x 720 x $0.1785 x (0.68 + 0.15) = $320.01
    //   R = 320.01 / 5.52421 = 57.93 requests per second
    assert_near(
        "crossover with a Savings Plan",
        lmi_crossover(&["--ec2-discount", "0.32"]),
        fleet * (0.68 + 0.15) / duration_per_rate,
    );
}

#[test]
fn an_instance_of_another_architecture_or_a_discount_of_all_is_refused() {
    let refused = |extra: &[&str]| {
        let fixture = fixture();
        let mut args = vec!["--from", fixture.to_str().unwrap(), "--rate", "10"];
        args.extend(["--compute", "both"]);
        args.extend(extra);
        let out = bench_cost(&args);
        assert!(!out.status.success(), "{extra:?} succeeded");
        String::from_utf8(out.stderr).unwrap()
    };
    // the run was measured on x86_64: an arm64 fleet is not its LMI month
    let stderr = refused(&["--instance-type", "c7g.xlarge"]);
    assert!(
        stderr.contains("x86_64") && stderr.contains("c7g.xlarge"),
        "{stderr}"
    );
    let stderr = refused(&["--ec2-discount", "1"]);
    assert!(stderr.contains("EC2 discount"), "{stderr}");
}
