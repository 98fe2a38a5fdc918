use super::*;
use crate::prices::PriceTable;
use crate::{cost, CostOptions};

fn metering() -> Metering {
    let prices = PriceTable::aws_default();
    Metering::from_prices(&prices.region("us-east-1", None).unwrap()).unwrap()
}

fn api_function(duration_ms: f64) -> FunctionSpec {
    FunctionSpec {
        name: "api".into(),
        architecture: "arm64".into(),
        memory_mb: 128.0,
        trigger: Trigger::PerRequest(1.0),
        duration_ms,
        waiting_ms: 0.0,
        cold_start_ratio: 0.0,
        init_ms: 0.0,
        log_bytes_per_invocation: 0.0,
    }
}

fn scenario(rate: f64, functions: Vec<FunctionSpec>) -> Scenario {
    Scenario {
        label: "what-if".into(),
        requests_per_second: rate,
        api: Some(ApiSpec {
            kind: ApiKind::Http,
            request_bytes: 200,
        }),
        functions,
        queues: vec![],
        tables: vec![],
    }
}

fn esm_queue(messages_per_request: f64, bytes: u64, batch_size: f64) -> QueueSpec {
    QueueSpec {
        name: "jobs".into(),
        messages_per_request,
        message_bytes: bytes,
        consumer: Consumer::EventSourceMapping {
            batch_size,
            pollers: 5.0,
        },
    }
}

fn worker() -> FunctionSpec {
    FunctionSpec {
        name: "worker".into(),
        trigger: Trigger::QueueBatches("jobs".into()),
        ..api_function(20.0)
    }
}

#[test]
fn one_function_behind_an_http_api_for_an_hour() {
    // GIVEN 100 req/s, one 4.2 ms invocation each
    let usage = scenario(100.0, vec![api_function(4.2)])
        .usage(&metering())
        .unwrap();
    // THEN an hour is 360,000 requests, each one HTTP API request and one invocation
    assert_eq!(usage.public_requests, 360_000.0);
    assert_eq!(usage.api_gateway.http_requests, 360_000.0);
    let f = &usage.lambda[0];
    assert_eq!(f.invocations, 360_000.0);
    // AND each invocation bills ceil(4.2) = 5 ms
    assert_eq!(f.billed_ms_total, 360_000.0 * 5.0);
}

#[test]
fn cold_starts_bill_their_init_inside_the_rounded_duration() {
    // GIVEN 1 % cold starts of 13 ms INIT on a 1.4 ms function
    let mut f = api_function(1.4);
    f.cold_start_ratio = 0.01;
    f.init_ms = 13.0;
    let usage = scenario(1.0, vec![f]).usage(&metering()).unwrap();
    let f = &usage.lambda[0];
    // THEN per invocation 0.99 x ceil(1.4) + 0.01 x ceil(14.4) = 1.98 + 0.15 = 2.13 ms
    assert!((f.billed_ms_total / 3600.0 - 2.13).abs() < 1e-9);
    // AND 0.01 x 13 = 0.13 ms of it is INIT
    assert!((f.init_ms_total / 3600.0 - 0.13).abs() < 1e-9);
}

#[test]
fn large_requests_count_several_http_api_requests() {
    let mut s = scenario(1.0, vec![api_function(5.0)]);
    // 600 KB = 2 x 512 KB increments
    s.api = Some(ApiSpec {
        kind: ApiKind::Http,
        request_bytes: 600 * 1024,
    });
    let usage = s.usage(&metering()).unwrap();
    assert_eq!(usage.api_gateway.http_requests, 2.0 * 3600.0);
}

#[test]
fn esm_batches_amortise_invocations_and_receives() {
    // GIVEN 10 req/s each sending one 1 KB message, consumed in batches of 10
    let mut s = scenario(10.0, vec![api_function(5.0), worker()]);
    s.queues.push(esm_queue(1.0, 1024, 10.0));
    let usage = s.usage(&metering()).unwrap();
    // THEN an hour: 36,000 messages, 3,600 batches
    // sends 36,000 + receives 3,600 (above the idle floor of 5 x 3600/20 = 900) + deletes 3,600
    assert_eq!(usage.sqs[0].billed_requests, 36_000.0 + 3_600.0 + 3_600.0);
    // AND the worker runs once per batch
    assert_eq!(usage.lambda[1].invocations, 3_600.0);
}

#[test]
fn idle_pollers_keep_billing_receives_when_traffic_is_thin() {
    // GIVEN 0.1 req/s, batch of 1: 360 messages an hour
    let mut s = scenario(0.1, vec![api_function(5.0), worker()]);
    s.queues.push(esm_queue(1.0, 1024, 1.0));
    let usage = s.usage(&metering()).unwrap();
    // THEN receives are the pollers' floor, 5 x 3600 / 20 = 900, not 360
    // sends 360 + receives 900 + deletes 360 = 1,620
    assert!((usage.sqs[0].billed_requests - 1_620.0).abs() < 1e-9);
}

#[test]
fn large_messages_are_billed_per_64_kb_on_send_and_receive() {
    // GIVEN 1 req/s of 100 KB messages in batches of 10
    let mut s = scenario(1.0, vec![api_function(5.0), worker()]);
    s.queues.push(esm_queue(1.0, 100 * 1024, 10.0));
    let usage = s.usage(&metering()).unwrap();
    // THEN each send is ceil(100/64) = 2 requests: 3,600 x 2 = 7,200
    // each receive of 10 x 100 KB = 1,000 KB is ceil(1000/64) = 16 requests: 360 x 16 = 5,760
    // (above the idle floor of 900) and 360 deletes
    assert_eq!(usage.sqs[0].billed_requests, 7_200.0 + 5_760.0 + 360.0);
}

#[test]
fn a_reply_queue_polled_by_the_caller() {
    let mut s = scenario(1.0, vec![api_function(5.0)]);
    s.queues.push(QueueSpec {
        name: "replies".into(),
        messages_per_request: 1.0,
        message_bytes: 650,
        consumer: Consumer::Client {
            receives_per_message: 1.5,
            deletes_per_message: 1.0,
        },
    });
    let usage = s.usage(&metering()).unwrap();
    // 3,600 sends + 5,400 receives + 3,600 deletes
    assert_eq!(usage.sqs[0].billed_requests, 12_600.0);
}

#[test]
fn dynamodb_reads_and_writes_per_request() {
    let mut s = scenario(1.0, vec![api_function(5.0)]);
    s.tables.push(TableSpec {
        name: "articles".into(),
        reads: vec![
            // a 20 KB Query, eventually consistent: 5 x 0.5 = 2.5 RRU
            ReadSpec {
                per_request: 1.0,
                bytes: 20 * 1024,
                consistency: ReadConsistency::Eventual,
            },
        ],
        writes: vec![
            // one write in ten of a 1.5 KB item: 0.1 x 2 WRU = 0.2 WRU
            WriteSpec {
                per_request: 0.1,
                item_bytes: 1536,
                kind: WriteKind::Standard,
            },
        ],
    });
    let usage = s.usage(&metering()).unwrap();
    assert!((usage.dynamodb[0].read_units - 2.5 * 3600.0).abs() < 1e-6);
    assert!((usage.dynamodb[0].write_units - 0.2 * 3600.0).abs() < 1e-6);
}

#[test]
fn trigger_by_an_undefined_queue_is_an_error() {
    let error = scenario(1.0, vec![worker()])
        .usage(&metering())
        .unwrap_err();
    assert!(error.to_string().contains("`jobs`"), "{error}");
}

#[test]
fn waiting_longer_than_the_duration_is_an_error() {
    let mut f = api_function(5.0);
    f.waiting_ms = 6.0;
    assert!(scenario(1.0, vec![f]).usage(&metering()).is_err());
    assert!(scenario(0.0, vec![api_function(5.0)])
        .usage(&metering())
        .is_err());
}

#[test]
fn what_if_priced_end_to_end_matches_the_hand_computation() {
    // GIVEN 100 req/s through an HTTP API to one 5 ms, 128 MB arm64 function
    let usage = scenario(100.0, vec![api_function(5.0)])
        .usage(&metering())
        .unwrap();
    let options = CostOptions {
        requests_per_second: Some(100.0),
        ..CostOptions::default()
    };
    let b = cost(&usage, &PriceTable::aws_default(), "us-east-1", &options).unwrap();
    // THEN per 1M requests: HTTP API $1.00 + Lambda requests $0.20
    // + 1M x 0.005 s x 0.125 GB = 625 GB-s x 0.0000133334 = $0.008333375
    let expected = 1.00 + 0.20 + 0.008_333_375;
    assert!((b.usd_per_million_requests - expected).abs() < 1e-9);
    // AND a month is 100 x 730 x 3600 = 262.8M requests = 262.8 x $1.208333375
    let month = b.monthly.unwrap();
    assert!((month.usd_without_free_tier - 262.8 * expected).abs() < 1e-6);
    // AND the free tier removes 1M Lambda requests ($0.20) and all the month's
    // 262.8M x 0.000625 GB-s = 164,250 GB-s (under the 400,000 allowance)
    let free = 0.20 + 164_250.0 * 0.0000133334;
    assert!((month.usd_with_free_tier - (262.8 * expected - free)).abs() < 1e-6);
    // AND API Gateway dominates: $1.00 of $1.208 per 1M requests
    assert_eq!(b.dominant.unwrap().service, "apigateway");
}
