use serde_json::json;

use super::*;
use crate::variants::{ORDERS_DIRECT, ORDERS_QUEUE};

/// A real document from the local cloud after 5 requests on each orders path.
const AFTER: &str = include_str!("../tests/fixtures/metrics-after.json");

fn after() -> Value {
    serde_json::from_str(AFTER).unwrap()
}

#[test]
fn delta_subtracts_counters_and_keeps_gauges() {
    // GIVEN a function that had 2 invocations and 128 MB before
    let before = json!({"lambda": {"functions": {"f": {"memory_mb": 128, "invocations": 2, "billed_ms": 100}}}});
    let after = json!({"lambda": {"functions": {"f": {"memory_mb": 128, "invocations": 5, "billed_ms": 350},
                                                 "g": {"memory_mb": 256, "invocations": 1}}}});
    // WHEN the delta is taken
    let d = delta(&before, &after).unwrap();
    // THEN counters are differences, gauges stay, new entries count from zero
    assert_eq!(
        d.pointer("/lambda/functions/f/invocations")
            .unwrap()
            .as_f64(),
        Some(3.0)
    );
    assert_eq!(
        d.pointer("/lambda/functions/f/billed_ms").unwrap().as_f64(),
        Some(250.0)
    );
    assert_eq!(
        d.pointer("/lambda/functions/f/memory_mb").unwrap().as_f64(),
        Some(128.0)
    );
    assert_eq!(
        d.pointer("/lambda/functions/g/memory_mb").unwrap().as_f64(),
        Some(256.0)
    );
    assert_eq!(
        d.pointer("/lambda/functions/g/invocations")
            .unwrap()
            .as_f64(),
        Some(1.0)
    );
}

#[test]
fn counter_going_down_is_an_error_not_a_negative_bill() {
    let before = json!({"sqs": {"billed_requests": 10}});
    let after = json!({"sqs": {"billed_requests": 3}});
    let err = delta(&before, &after).unwrap_err();
    assert!(err.to_string().contains("sqs.billed_requests"), "{err}");
}

#[test]
fn every_level_or_setting_the_contract_names_keeps_its_later_value() {
    // GIVEN every gauge of the metrics contract, lower after the run than before
    let gauges: Vec<&str> = localcloud_metrics::GAUGES.concat();
    assert!(gauges.contains(&"memory_mb") && gauges.contains(&"pollers"));
    for gauge in gauges {
        let before = json!({ "section": { gauge: 8 } });
        let after = json!({ "section": { gauge: 3 } });
        // WHEN the delta is taken, THEN it is the later value, not an error
        let d = delta(&before, &after).unwrap();
        assert_eq!(d["section"][gauge], 3, "{gauge}");
    }
    // AND a total that goes down still is one (the list is not everything)
    assert!(delta(&json!({"invocations": 8}), &json!({"invocations": 3})).is_err());
}

#[test]
fn delta_of_identical_documents_is_all_zero_counters() {
    let d = delta(&after(), &after()).unwrap();
    let m = figures(&restrict(&d, &ORDERS_DIRECT)).unwrap();
    assert_eq!(m.functions["cm-OrdersDirectFunction"].invocations, 0.0);
    assert_eq!(m.functions["cm-OrdersDirectFunction"].memory_mb, 128.0);
    assert!(m.tables.is_empty() && m.queues.is_empty());
}

#[test]
fn direct_variant_gets_only_its_functions_and_api() {
    // GIVEN the delta from an empty cloud to the recorded document
    let d = delta(&json!({}), &after()).unwrap();
    // WHEN restricted to orders-direct
    let m = figures(&restrict(&d, &ORDERS_DIRECT)).unwrap();
    // THEN it holds its two functions, no queue, the table and its API's requests
    let names: Vec<&str> = m.functions.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        ["cm-OrdersBackendFunction", "cm-OrdersDirectFunction"]
    );
    assert!(m.queues.is_empty());
    assert_eq!(m.tables["cm-orders"].write_units, 1000.0);
    assert_eq!(m.api_requests, 5.0);
    assert_eq!(m.functions_cpu_ms(), 30.0);
    assert_eq!(m.cold_starts(), 2.0);
    assert!((m.localcloud_cpu_ms - 50.0).abs() < 1e-6);
}

#[test]
fn queue_variant_gets_its_queues_and_a_priced_usage() {
    let d = delta(&json!({}), &after()).unwrap();
    let restricted = restrict(&d, &ORDERS_QUEUE);
    let m = figures(&restricted).unwrap();
    let queues: Vec<&str> = m.queues.keys().map(String::as_str).collect();
    assert_eq!(
        queues,
        [
            "cm-orders-reply-c311d8f88caa49dc8cc352ff3bd1ae0c",
            "cm-orders-requests",
            "cm-orders-requests-dlq"
        ]
    );
    // WHEN turned into the cost model's usage for 5 public requests
    let usage = usage(&restricted, "orders-queue", 5.0).unwrap();
    // THEN it validates and prices: SQS requests are part of the bill
    usage.validate().unwrap();
    assert_eq!(usage.api_gateway.http_requests, 5.0);
    assert_eq!(
        usage.sqs.iter().map(|q| q.billed_requests).sum::<f64>(),
        33.0
    );
    assert_eq!(usage.lambda.len(), 2);
}

/// A function's name, its CPU ms and its named threads' CPU ms.
type FunctionCpu<'a> = (&'a str, f64, &'a [(&'a str, f64)]);

/// A metrics document with these functions' total and named threads' CPU.
fn with_cpu(functions: &[FunctionCpu]) -> Value {
    let mut doc = MetricsDocument::new();
    for &(name, cpu_ms, threads) in functions {
        let function = localcloud_metrics::FunctionMetrics {
            memory_mb: 128,
            cpu_ms,
            thread_cpu_ms: threads.iter().map(|&(t, ms)| (t.to_string(), ms)).collect(),
            ..Default::default()
        };
        doc.lambda.functions.insert(name.into(), function);
    }
    serde_json::to_value(doc).unwrap()
}

#[test]
fn argon2_cpu_is_the_variants_argon2_threads_over_the_run() {
    use crate::variants::CONDUIT_MICRO_QUEUE;
    // GIVEN two readings: the users service hashed passwords, the articles
    // service has no such thread, a new environment's function appeared in
    // between, and another variant's function hashed too
    let before = with_cpu(&[
        (
            "s-ConduitMicroQueueUsersFunction",
            300.0,
            &[("argon2", 100.0), ("tokio-runtime-w", 5.0)],
        ),
        (
            "s-ConduitMicroQueueArticlesFunction",
            50.0,
            &[("tokio-runtime-w", 10.0)],
        ),
        ("s-ConduitMonolithFunction", 900.0, &[("argon2", 800.0)]),
    ]);
    let after = with_cpu(&[
        (
            "s-ConduitMicroQueueUsersFunction",
            420.0,
            &[("argon2", 160.0), ("tokio-runtime-w", 8.0)],
        ),
        (
            "s-ConduitMicroQueueArticlesFunction",
            90.0,
            &[("tokio-runtime-w", 30.0)],
        ),
        (
            "s-ConduitMicroQueueProfilesFunction",
            70.0,
            &[("argon2", 40.0)],
        ),
        ("s-ConduitMonolithFunction", 1900.0, &[("argon2", 1700.0)]),
    ]);
    // WHEN the run's figures are taken for micro-queue
    let d = delta(&before, &after).unwrap();
    let m = figures(&restrict(&d, &CONDUIT_MICRO_QUEUE)).unwrap();
    // THEN Argon2id's CPU is the run's growth of its own argon2 threads only
    assert_eq!(m.functions_cpu_ms(), 120.0 + 40.0 + 70.0);
    assert_eq!(m.argon2_cpu_ms(), 60.0 + 40.0);
    let articles = &m.functions["s-ConduitMicroQueueArticlesFunction"];
    assert_eq!(articles.thread_cpu_ms["tokio-runtime-w"], 20.0);
    // AND per request, the rest is beside the whole
    let cpu = crate::cpu::CpuAccount::new(
        m.functions_cpu_ms(),
        Some(m.argon2_cpu_ms()),
        0.0,
        0.0,
        1.0,
        10,
    );
    assert_eq!(cpu.functions_ms_per_request, Some(23.0));
    assert_eq!(cpu.argon2_ms_per_request, Some(10.0));
    assert_eq!(cpu.functions_ms_per_request_excluding_argon2, Some(13.0));
}

#[test]
fn a_runs_settings_survive_the_delta_and_its_cpu_share_counters_subtract() {
    // GIVEN two readings of a cgroup-throttled function at 128 MB: 1,000 ms
    // of run-queue wait of which 900 throttled before, 1,500 of which 1,200
    // after
    let reading = |wait: f64, throttled: f64| {
        let mut doc = MetricsDocument::new();
        let function = localcloud_metrics::FunctionMetrics {
            memory_mb: 128,
            cpu_share_vcpus: 128.0 / 1769.0,
            run_queue_wait_ms: wait,
            throttled_ms: throttled,
            modeled_cpu_ms: 0.0,
            ..Default::default()
        };
        doc.lambda
            .functions
            .insert("bench-OrdersBackendFunction".into(), function);
        serde_json::to_value(doc).unwrap()
    };
    // WHEN the run's figures are taken
    let d = delta(&reading(1000.0, 900.0), &reading(1500.0, 1200.0)).unwrap();
    let m = figures(&restrict(&d, &ORDERS_DIRECT)).unwrap();
    let f = &m.functions["bench-OrdersBackendFunction"];
    // THEN the share is the setting, not a difference of two equal values
    assert!((f.cpu_share_vcpus - 0.072357).abs() < 1e-6, "{f:?}");
    assert_eq!(f.memory_mb, 128.0);
    // AND the waits are the run's, the contention the wait beyond throttling
    assert_eq!(f.run_queue_wait_ms, 500.0);
    assert_eq!(f.throttled_ms, 300.0);
    assert_eq!(f.contention_ms, 200.0);
}

#[test]
fn the_recorded_documents_cpu_share_figures_are_read() {
    // GIVEN the recorded document of a cgroup v2 local cloud
    let d = delta(&json!({}), &after()).unwrap();
    // WHEN restricted to orders-direct
    let m = figures(&restrict(&d, &ORDERS_DIRECT)).unwrap();
    // THEN each function has its share, throttled time and contention
    let backend = &m.functions["cm-OrdersBackendFunction"];
    assert!((backend.cpu_share_vcpus - 128.0 / 1769.0).abs() < 1e-6);
    assert_eq!(backend.throttled_ms, 256.4);
    assert!((backend.contention_ms - 7.5).abs() < 1e-9, "{backend:?}");
    assert_eq!(backend.modeled_cpu_ms, 0.0);
}

/// A document with one 128 MB function of the orders-direct path: 100
/// invocations of 5 ms billed each, `contention_ms` of it this machine's;
/// `with_figures` whether the local cloud measured it per invocation.
fn contended(contention_ms: f64, billed_without: u64, with_figures: bool) -> Value {
    let billed = 500u64;
    let mut doc = MetricsDocument::new();
    let function = localcloud_metrics::FunctionMetrics {
        memory_mb: 128,
        invocations: 100,
        duration_ms: 450.0,
        billed_ms: billed,
        gb_seconds: localcloud_metrics::gb_seconds(billed as f64, 128.0),
        without_contention: with_figures.then(|| localcloud_metrics::lambda::WithoutContention {
            contention_ms,
            wake_up_ms: 0.0,
            measured_invocations: 100,
            duration_ms: 450.0 - contention_ms,
            billed_ms: billed_without,
            gb_seconds: localcloud_metrics::gb_seconds(billed_without as f64, 128.0),
        }),
        ..Default::default()
    };
    doc.lambda
        .functions
        .insert("bench-OrdersBackendFunction".into(), function);
    let mut api = localcloud_metrics::ApiMetrics::new(
        localcloud_metrics::ApiKind::Http,
        "OrdersDirectApi",
        "abc",
    );
    api.metered_requests = 100;
    doc.apis.insert("OrdersDirectApi".into(), api);
    serde_json::to_value(doc).unwrap()
}

#[test]
fn contention_measured_per_invocation_is_read_with_the_bill_as_aws_would_send_it() {
    // GIVEN a run whose 100 invocations waited 120 ms for a core, billed
    // 390 ms instead of 500 without it
    let d = delta(&json!({}), &contended(120.0, 390, true)).unwrap();
    // WHEN its figures are taken
    let m = figures(&restrict(&d, &ORDERS_DIRECT)).unwrap();
    let f = &m.functions["bench-OrdersBackendFunction"];
    // THEN the contention is the measured one, per invocation too
    assert!(f.contention_measured && m.contention_measured());
    assert_eq!(f.contention_ms, 120.0);
    assert_eq!(f.contention_ms_per_invocation(), Some(1.2));
    // AND durations and billed ms as AWS would bill them are beside the measured
    assert_eq!(f.duration_ms, 450.0);
    assert_eq!(f.duration_ms_without_contention, Some(330.0));
    assert_eq!(f.billed_ms_without_contention, Some(390.0));
    assert_eq!(m.billed_ms(), (500.0, 390.0));
}

#[test]
fn the_bill_without_contention_prices_what_the_report_takes_out() {
    // GIVEN the run above, from a fresh local cloud
    let d = restrict(&contended(120.0, 390, true), &ORDERS_DIRECT);
    let pricing = crate::pricing::Pricing::load(None, None, None).unwrap();
    // WHEN the cost model prices its usage as measured and as AWS would bill it
    let raw = usage(&d, "orders-direct", 100.0).unwrap();
    let as_aws = usage_without_contention(&d, "orders-direct", 100.0).unwrap();
    assert_eq!(as_aws.lambda[0].billed_ms_total, 390.0);
    let measured = pricing.price(&raw, 100, "x86_64").unwrap();
    let without = pricing.price(&as_aws, 100, "x86_64").unwrap();
    // THEN the bills differ by the duration line only, by 110/500 of it
    let duration = |c: &crate::results::CostFigures| {
        c.by_line
            .iter()
            .find(|l| l.heading == "Lambda duration")
            .unwrap()
            .usd
    };
    assert!((duration(&without) / duration(&measured) - 390.0 / 500.0).abs() < 1e-9);
    // AND the report's figure, taken from the measured bill, is that difference
    let m = figures(&d).unwrap();
    let taken_out = m.contention_usd(duration(&measured)).unwrap();
    assert!(taken_out > 0.0);
    assert!(
        (measured.total_usd - without.total_usd - taken_out).abs() < 1e-12,
        "{} - {} against {taken_out}",
        measured.total_usd,
        without.total_usd
    );
}

#[test]
fn a_document_without_per_invocation_contention_keeps_the_whole_run_figure() {
    // GIVEN a run of an older local cloud: no per-invocation figures
    let d = restrict(&contended(0.0, 0, false), &ORDERS_DIRECT);
    // WHEN its figures and its bill as AWS would send it are taken
    let m = figures(&d).unwrap();
    let as_aws = usage_without_contention(&d, "orders-direct", 100.0).unwrap();
    // THEN nothing is measured and the bill is the measured one
    assert!(!m.contention_measured());
    let f = &m.functions["bench-OrdersBackendFunction"];
    assert_eq!(f.billed_ms_without_contention, None);
    assert_eq!(f.billed_ms_as_aws(), 500.0);
    assert_eq!(as_aws.lambda[0].billed_ms_total, 500.0);
}
