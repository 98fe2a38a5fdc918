//! Each expected figure is computed by hand in the test, from the us-east-1 prices:
//! Lambda $0.20 / 1M requests, $0.0000166667 (x86_64) or $0.0000133334 (arm64) per
//! GB-s; HTTP API $1.00 / 1M; REST $3.50 / 1M; SQS $0.40 / 1M; DynamoDB $0.125 / 1M RRU,
//! $0.625 / 1M WRU; CloudWatch Logs $0.50 / GB.

use super::*;
use crate::error::CostError;
use crate::usage::{ApiGatewayUsage, QueueUsage, TableUsage};

fn assert_close(actual: f64, expected: f64) {
    let tolerance = 1e-9 * expected.abs().max(1e-6);
    assert!(
        (actual - expected).abs() <= tolerance,
        "expected {expected}, got {actual}"
    );
}

fn function(arch: &str, invocations: f64, ms_each: f64) -> FunctionUsage {
    FunctionUsage {
        name: "api".into(),
        architecture: arch.into(),
        memory_mb: 128.0,
        invocations,
        billed_ms_total: invocations * ms_each,
        ..FunctionUsage::default()
    }
}

fn usage(public_requests: f64) -> Usage {
    Usage {
        label: "test".into(),
        public_requests,
        ..Usage::default()
    }
}

fn priced(usage: &Usage, options: &CostOptions) -> CostBreakdown {
    cost(usage, &PriceTable::aws_default(), "us-east-1", options).unwrap()
}

fn line<'a>(breakdown: &'a CostBreakdown, service: &str, item: &str) -> &'a CostLine {
    breakdown
        .lines
        .iter()
        .find(|l| l.service == service && l.item == item)
        .unwrap_or_else(|| panic!("no {service} {item} line in {:#?}", breakdown.lines))
}

#[test]
fn one_million_5_ms_invocations_at_128_mb_arm64() {
    // GIVEN 1M invocations billed 5 ms each at 128 MB on arm64
    let mut u = usage(1e6);
    u.lambda.push(function("arm64", 1e6, 5.0));
    // WHEN priced
    let b = priced(&u, &CostOptions::default());
    // THEN requests: 1M x $0.20/1M = $0.20
    assert_close(line(&b, "lambda", "requests").usd, 0.20);
    // AND duration: 1M x 0.005 s x 0.125 GB = 625 GB-s; 625 x 0.0000133334 = $0.008333375
    let duration = line(&b, "lambda", "duration");
    assert_close(duration.quantity, 625.0);
    assert_close(duration.usd, 0.008333375);
    // AND in total $0.208333375, so $0.208333375 per 1M requests
    assert_close(b.total_usd, 0.208333375);
    assert_close(b.usd_per_million_requests, 0.208333375);
    assert_close(b.usd_per_request, 0.208333375e-6);
    // AND the request fee, not the duration, dominates (96 %)
    let dominant = b.dominant.unwrap();
    assert_eq!(dominant.item, "requests");
    assert_close(dominant.share, 0.20 / 0.208333375);
}

#[test]
fn x86_64_duration_costs_a_quarter_more_than_arm64() {
    let mut u = usage(1e6);
    u.lambda.push(function("x86_64", 1e6, 5.0));
    let b = priced(&u, &CostOptions::default());
    // 625 GB-s x 0.0000166667 = $0.0104166875
    assert_close(line(&b, "lambda", "duration").usd, 0.0104166875);
}

#[test]
fn gb_seconds_scale_with_memory_size() {
    // GIVEN 1,000 invocations of 100 ms at 1,769 MB (one full vCPU)
    let mut u = usage(1000.0);
    let mut f = function("x86_64", 1000.0, 100.0);
    f.memory_mb = 1769.0;
    u.lambda.push(f);
    let b = priced(&u, &CostOptions::default());
    // 1000 x 0.1 s x 1769/1024 GB = 172.75390625 GB-s
    let duration = line(&b, "lambda", "duration");
    assert_close(duration.quantity, 172.753_906_25);
    // x 0.0000166667 = $0.002879237...
    assert_close(duration.usd, 172.753_906_25 * 0.0000166667);
}

#[test]
fn billed_init_gets_its_own_line_and_is_not_counted_twice() {
    // GIVEN one cold invocation: Duration 1.44 ms, Init 12.92 ms, Billed 15 ms (arm64, 128 MB)
    let mut u = usage(1.0);
    let mut f = function("arm64", 1.0, 15.0);
    f.init_ms_total = 12.92;
    u.lambda.push(f);
    let b = priced(&u, &CostOptions::default());
    // THEN INIT: 12.92 ms x 128/1024 GB / 1000 = 0.001615 GB-s
    assert_close(line(&b, "lambda", "duration (INIT)").quantity, 0.001615);
    // AND the rest of the 15 billed ms: 2.08 ms x 0.125 / 1000 = 0.00026 GB-s
    assert_close(line(&b, "lambda", "duration").quantity, 0.00026);
    // AND both add up to the billed 15 ms: 0.001875 GB-s x 0.0000133334 + $0.0000002
    assert_close(b.total_usd, 0.001875 * 0.0000133334 + 0.0000002);
}

#[test]
fn a_caller_waiting_on_a_500_ms_back_end_pays_for_the_wait() {
    // GIVEN 1,000 API invocations of 503 billed ms, 500 of them waiting (arm64, 128 MB)
    let mut u = usage(1000.0);
    let mut f = function("arm64", 1000.0, 503.0);
    f.waiting_ms_total = 1000.0 * 500.0;
    u.lambda.push(f);
    let b = priced(&u, &CostOptions::default());
    // THEN waiting: 1000 x 0.5 s x 0.125 GB = 62.5 GB-s, x 0.0000133334 = $0.00083333750
    let waiting = line(&b, "lambda", "duration (waiting)");
    assert_close(waiting.quantity, 62.5);
    assert_close(waiting.usd, 0.0008333375);
    // AND own work: 1000 x 0.003 s x 0.125 = 0.375 GB-s
    assert_close(line(&b, "lambda", "duration").quantity, 0.375);
    // AND waiting now dominates the bill: $0.00083 vs $0.0002 of requests
    assert_eq!(b.dominant.unwrap().item, "duration (waiting)");
}

#[test]
fn api_gateway_http_and_rest_requests() {
    let mut u = usage(1e6);
    u.api_gateway = ApiGatewayUsage {
        http_requests: 1e6,
        rest_requests: 2e6,
    };
    let b = priced(&u, &CostOptions::default());
    // 1M x $1.00/1M = $1.00; 2M x $3.50/1M = $7.00
    assert_close(line(&b, "apigateway", "http_requests").usd, 1.00);
    assert_close(line(&b, "apigateway", "rest_requests").usd, 7.00);
}

#[test]
fn sqs_requests_are_priced_per_queue() {
    let mut u = usage(1e6);
    u.sqs = vec![
        QueueUsage {
            name: "requests".into(),
            billed_requests: 3e6,
        },
        QueueUsage {
            name: "replies".into(),
            billed_requests: 0.5e6,
        },
    ];
    let b = priced(&u, &CostOptions::default());
    // 3M x $0.40/1M = $1.20; 0.5M x $0.40/1M = $0.20
    assert_eq!(b.lines.len(), 2);
    assert_close(b.lines[0].usd, 1.20);
    assert_eq!(b.lines[1].resource, "replies");
    assert_close(b.lines[1].usd, 0.20);
}

#[test]
fn dynamodb_read_and_write_units() {
    let mut u = usage(1e6);
    u.dynamodb = vec![TableUsage {
        name: "articles".into(),
        read_units: 2e6,
        write_units: 1e6,
    }];
    let b = priced(&u, &CostOptions::default());
    // 2M RRU x $0.125/1M = $0.25; 1M WRU x $0.625/1M = $0.625
    assert_close(line(&b, "dynamodb", "read_request_units").usd, 0.25);
    assert_close(line(&b, "dynamodb", "write_request_units").usd, 0.625);
}

#[test]
fn log_ingestion_per_gigabyte() {
    let mut u = usage(1e6);
    // 2 GiB of logs x $0.50 = $1.00
    u.log_bytes = 2.0 * 1024.0 * 1024.0 * 1024.0;
    let b = priced(&u, &CostOptions::default());
    let logs = line(&b, "logs", "ingestion");
    assert_close(logs.quantity, 2.0);
    assert_close(logs.usd, 1.00);
}

#[test]
fn monthly_figures_scale_the_run_and_subtract_the_free_tier_once() {
    // GIVEN a run of 1,000 requests, one 5 ms arm64 invocation each, at 10 req/s
    let mut u = usage(1000.0);
    u.lambda.push(function("arm64", 1000.0, 5.0));
    let options = CostOptions {
        requests_per_second: Some(10.0),
        ..CostOptions::default()
    };
    let m = priced(&u, &options).monthly.unwrap();
    // THEN a month is 10 x 730 h x 3600 s = 26,280,000 requests
    assert_close(m.requests_per_month, 26_280_000.0);
    // AND without free tier: requests 26.28M x $0.20/1M = $5.256;
    // duration 26.28M x 0.005 s x 0.125 GB = 16,425 GB-s x 0.0000133334 = $0.219001095
    assert_close(m.usd_without_free_tier, 5.256 + 0.219_001_095);
    // AND the free tier removes 1M requests ($0.20) and all 16,425 GB-s (< 400,000)
    assert_eq!(m.free_tier.len(), 2);
    assert_close(m.free_tier[0].usd, -0.20);
    assert_close(m.free_tier[1].quantity, -16_425.0);
    assert_close(m.usd_with_free_tier, 5.256 - 0.20);
}

#[test]
fn free_tier_never_exceeds_the_usage() {
    // GIVEN 1,000 requests a month only (tiny rate), plus SQS and logs
    let mut u = usage(1000.0);
    u.lambda.push(function("arm64", 1000.0, 5.0));
    u.sqs.push(QueueUsage {
        name: "q".into(),
        billed_requests: 3000.0,
    });
    u.log_bytes = 1e6;
    let rate = 1000.0 / (730.0 * 3600.0);
    let options = CostOptions {
        requests_per_second: Some(rate),
        ..CostOptions::default()
    };
    let m = priced(&u, &options).monthly.unwrap();
    // THEN everything is inside the always-free allowances: the month costs $0
    assert!(m.usd_without_free_tier > 0.0);
    assert_close(m.usd_with_free_tier + 1.0, 1.0);
    // AND each credit equals its usage, not the allowance
    let sqs_credit = m.free_tier.iter().find(|l| l.service == "sqs").unwrap();
    assert_close(sqs_credit.quantity, -3000.0);
}

#[test]
fn shared_gb_second_allowance_goes_to_x86_64_first() {
    // GIVEN a run that is exactly one month at 1 req/s (730 h x 3600 s = 2,628,000
    // requests) using 300,000 GB-s on x86_64 and 300,000 GB-s on arm64
    let mut u = usage(2_628_000.0);
    let mut x86 = function("x86_64", 1.0, 0.0);
    x86.name = "x86".into();
    x86.billed_ms_total = 300_000.0 * 1000.0 * 8.0; // 300,000 GB-s at 128 MB
    let mut arm = x86.clone();
    arm.name = "arm".into();
    arm.architecture = "arm64".into();
    u.lambda = vec![arm, x86];
    let options = CostOptions {
        requests_per_second: Some(1.0),
        ..CostOptions::default()
    };
    let m = priced(&u, &options).monthly.unwrap();
    let credit = |arch| {
        m.free_tier
            .iter()
            .find(|l| l.item == "free tier: duration" && l.resource == arch)
            .unwrap()
            .quantity
    };
    // THEN 300,000 GB-s of x86_64 are free, and the remaining 100,000 go to arm64
    assert_close(credit("x86_64"), -300_000.0);
    assert_close(credit("arm64"), -100_000.0);
}

#[test]
fn unknown_region_fails_loudly() {
    let mut u = usage(1.0);
    u.lambda.push(function("arm64", 1.0, 5.0));
    let error = cost(
        &u,
        &PriceTable::aws_default(),
        "ap-south-2",
        &CostOptions::default(),
    )
    .unwrap_err();
    assert!(
        matches!(error, CostError::UnknownRegion { .. }),
        "{error:?}"
    );
}

#[test]
fn unknown_architecture_fails_loudly_even_with_zero_usage() {
    let mut u = usage(1.0);
    u.lambda.push(function("riscv64", 0.0, 0.0));
    let error = cost(
        &u,
        &PriceTable::aws_default(),
        "us-east-1",
        &CostOptions::default(),
    )
    .unwrap_err();
    assert!(
        matches!(error, CostError::UnknownArchitecture { ref architecture, .. } if architecture == "riscv64"),
        "{error:?}"
    );
}

#[test]
fn prices_of_another_date_are_used_when_asked() {
    // GIVEN DynamoDB's on-demand price as it stood before the November 2024 cut
    let mut u = usage(1.0);
    u.dynamodb.push(TableUsage {
        name: "t".into(),
        read_units: 1.0,
        write_units: 0.0,
    });
    let options = CostOptions {
        price_date: Some("2024-10-31".into()),
        ..CostOptions::default()
    };
    // THEN the table (which holds only the new price) has no price for that date
    let error = cost(&u, &PriceTable::aws_default(), "us-east-1", &options).unwrap_err();
    assert!(matches!(error, CostError::MissingItem { .. }), "{error:?}");
}

#[test]
fn ratio_compares_per_request_and_monthly_cost() {
    // GIVEN A = 2 invocations per request and B = 1, both 5 ms arm64
    let mut a = usage(1e6);
    a.label = "micro".into();
    a.lambda.push(function("arm64", 2e6, 5.0));
    let mut b = usage(1e6);
    b.label = "mono".into();
    b.lambda.push(function("arm64", 1e6, 5.0));
    let options = CostOptions {
        requests_per_second: Some(100.0),
        ..CostOptions::default()
    };
    let r = ratio(&priced(&a, &options), &priced(&b, &options));
    // THEN A costs exactly twice B per request
    assert_eq!(
        (r.numerator.as_str(), r.denominator.as_str()),
        ("micro", "mono")
    );
    assert_close(r.per_request.unwrap(), 2.0);
    // AND a little more than twice per month: the free tier is a fixed amount
    assert!(r.monthly_with_free_tier.unwrap() > 2.0);
}

#[test]
fn http_api_requests_beyond_300_million_a_month_cost_90_cents_per_million() {
    // GIVEN 250 req/s through an HTTP API: 250 x 730 x 3600 = 657M requests a month
    let mut u = usage(1e6);
    u.api_gateway.http_requests = 1e6;
    let options = CostOptions {
        requests_per_second: Some(250.0),
        ..CostOptions::default()
    };
    let m = priced(&u, &options).monthly.unwrap();
    // THEN 357M requests are in the second tier, $0.10 per 1M cheaper: -$35.70
    assert_eq!(m.volume_discounts.len(), 1);
    assert_close(m.volume_discounts[0].quantity, 357e6);
    assert_close(m.volume_discounts[0].usd, -35.70);
    // AND the month costs 300 x $1.00 + 357 x $0.90 = $621.30 (no free tier for API Gateway)
    assert_close(m.usd_without_free_tier, 621.30);
    assert_close(m.usd_with_free_tier, 621.30);
    assert_close(m.usd_per_million_requests_with_free_tier, 621.30 / 657.0);
}

#[test]
fn lambda_gb_seconds_across_three_tiers_on_x86_64() {
    // GIVEN a month (1 req/s, one run = one month) of 20B GB-s on x86_64
    let mut u = usage(2_628_000.0);
    let mut f = function("x86_64", 1.0, 0.0);
    f.billed_ms_total = 20e9 * 1000.0 * 8.0; // GB-s x 1000 ms / 0.125 GB
    u.lambda.push(f);
    let options = CostOptions {
        requests_per_second: Some(1.0),
        ..CostOptions::default()
    };
    let m = priced(&u, &options).monthly.unwrap();
    // THEN 6B at $0.0000166667, 9B at $0.000015 and 5B at $0.0000133334
    let tiers: Vec<f64> = m.volume_discounts.iter().map(|d| d.quantity).collect();
    assert_eq!(tiers, vec![9e9, 5e9]);
    let expected_duration = 6e9 * 0.0000166667 + 9e9 * 0.000015 + 5e9 * 0.0000133334;
    // (the single invocation adds $0.0000002)
    assert_close(m.usd_without_free_tier, expected_duration + 0.0000002);
}

#[test]
fn no_volume_discount_below_the_first_threshold() {
    let mut u = usage(1e6);
    u.api_gateway.http_requests = 1e6;
    u.lambda.push(function("arm64", 1e6, 5.0));
    let options = CostOptions {
        requests_per_second: Some(100.0),
        ..CostOptions::default()
    };
    // 262.8M requests < 300M: first tier only
    assert!(priced(&u, &options)
        .monthly
        .unwrap()
        .volume_discounts
        .is_empty());
}

#[test]
fn breakdown_survives_a_json_round_trip() {
    let mut u = usage(1e6);
    u.lambda.push(function("arm64", 1e6, 5.0));
    let options = CostOptions {
        requests_per_second: Some(10.0),
        ..CostOptions::default()
    };
    let b = priced(&u, &options);
    let json = serde_json::to_string(&b).unwrap();
    let back: CostBreakdown = serde_json::from_str(&json).unwrap();
    // (serde_json's default float parsing may differ in the last bit)
    assert_eq!(back.lines.len(), b.lines.len());
    assert_eq!(back.lines[1].item, "duration");
    assert_close(back.total_usd, b.total_usd);
    let month = back.monthly.unwrap();
    assert_eq!(month.free_tier.len(), 2);
    assert_close(month.usd_with_free_tier, 5.056);
}

#[test]
fn a_function_on_managed_instances_pays_requests_and_its_instances_not_duration() {
    // GIVEN 1,000 invocations billed 500 ms each, on LMI, where the function
    // held its part of c7i.large instances for 1,800 instance-seconds
    let mut u = usage(1000.0);
    let mut f = function("x86_64", 1000.0, 500.0);
    f.memory_mb = 2048.0;
    f.managed = Some(crate::usage::ManagedUsage {
        capacity_provider: "fleet".into(),
        instance_type: "c7i.large".into(),
        instance_seconds: 1800.0,
        ..Default::default()
    });
    u.lambda.push(f);
    // WHEN priced
    let b = priced(&u, &CostOptions::default());
    // THEN requests: 1,000 x $0.20/1M
    assert_close(line(&b, "lambda", "requests").usd, 0.0002);
    // AND no duration line, whatever the billed time
    assert!(
        !b.lines.iter().any(|l| l.price_item == "duration"),
        "{:#?}",
        b.lines
    );
    // AND half an hour of c7i.large at $0.08925, plus the 15 % fee on it
    let instances = line(&b, "ec2", "instances (c7i.large)");
    assert_close(instances.quantity, 0.5);
    assert_close(instances.usd, 0.5 * 0.08925);
    assert_eq!(instances.resource, "api");
    let fee = b
        .lines
        .iter()
        .find(|l| l.price_item == crate::managed::FEE_ITEM)
        .expect("a management fee line");
    assert_close(fee.usd, 0.5 * 0.08925 * 0.15);
    assert_close(b.total_usd, 0.0002 + 0.5 * 0.08925 * 1.15);
}

#[test]
fn an_unknown_instance_type_is_an_error_not_a_free_instance() {
    let mut u = usage(1.0);
    let mut f = function("x86_64", 1.0, 1.0);
    f.managed = Some(crate::usage::ManagedUsage {
        capacity_provider: "fleet".into(),
        instance_type: "z9.huge".into(),
        instance_seconds: 10.0,
        ..Default::default()
    });
    u.lambda.push(f);
    let err = cost(
        &u,
        &PriceTable::aws_default(),
        "us-east-1",
        &CostOptions::default(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("z9.huge"), "{err}");
}
