//! A small but complete `Results` for the report and schema tests: both
//! experiments, every variant, priced by the real cost model. Written out as
//! `tests/fixtures/sample-results.json` (the worked example of `docs/cost-model.md`).

use std::collections::BTreeMap;

use costmodel::{FunctionUsage, QueueUsage, TableUsage, Usage};

use crate::apis::ApiKind;
use crate::cpu::CpuAccount;
use crate::metering::{FunctionFigures, QueueFigures, RunMetering, TableFigures};
use crate::plan::{conduit_scenario, orders_scenarios, Mode, ScenarioSpec};
use crate::pricing::Pricing;
use crate::recorder::{summarize, time_series, Sample};
use crate::results::*;
use crate::sla::CapacityStep;

fn samples(ok_latency: f64, failures: usize) -> Vec<Sample> {
    let mut s: Vec<Sample> = (0..200)
        .map(|i| Sample {
            at_ms: i * 50,
            latency_ms: ok_latency + (i % 10) as f64,
            ok: true,
            status: 200,
        })
        .collect();
    // Failures spread over the run's 10 s, as refusals under a steady
    // overload are.
    let every_ms = 10_000 / (failures as u64).max(1);
    s.extend((0..failures as u64).map(|i| Sample {
        at_ms: i * every_ms,
        latency_ms: 2.0,
        ok: false,
        status: 503,
    }));
    s
}

/// What one variant's run metered, per public request.
struct PerRequest {
    /// Function name, billed ms per request.
    functions: &'static [(&'static str, f64)],
    /// Queue name, billed requests per public request.
    queues: &'static [(&'static str, f64)],
    read_units: f64,
    write_units: f64,
    response_bytes: f64,
    /// Argon2id CPU ms per request of each function (Conduit's logins).
    argon2_ms: Option<f64>,
}

fn per_request(variant: &str) -> PerRequest {
    let orders = |functions, queues| PerRequest {
        functions,
        queues,
        read_units: 0.5,
        write_units: 0.0,
        response_bytes: 650.0 + 150.0,
        argon2_ms: None,
    };
    let conduit = |functions, queues| PerRequest {
        functions,
        queues,
        read_units: 7.5,
        write_units: 0.05,
        response_bytes: 20_000.0,
        argon2_ms: Some(0.3),
    };
    match variant {
        "orders-direct" => orders(&[("api", 520.0), ("backend", 503.0)], &[]),
        "orders-queue" => orders(
            &[("api", 540.0), ("worker", 508.0)],
            &[("requests", 3.0), ("reply", 3.0)],
        ),
        "conduit-monolith" => conduit(&[("monolith", 7.0)], &[]),
        "conduit-micro-invoke" => conduit(&[("articles", 21.0), ("profiles", 4.0)], &[]),
        _ => conduit(
            &[("articles", 40.0), ("profiles", 9.0)],
            &[("requests", 3.0), ("reply", 3.0)],
        ),
    }
}

/// 350 bytes of START/END/REPORT (and 26 per event) per invocation.
const LOG_BYTES_PER_INVOCATION: f64 = 350.0;

fn metering_and_usage(variant: &str, api: ApiKind, requests: u64) -> (RunMetering, Usage) {
    let p = per_request(variant);
    let n = requests as f64;
    let name = |f: &str| format!("bench-{variant}-{f}");
    let mut metering = RunMetering {
        api_requests: n,
        data_transfer_out_bytes: n * p.response_bytes,
        localcloud_cpu_ms: n * 1.5,
        cpu_share: Some(localcloud_metrics::CpuShareMetrics {
            mode: localcloud_metrics::CpuShareMode::CgroupV1,
            fallback_reason: None,
        }),
        ..RunMetering::default()
    };
    let mut usage = Usage {
        label: variant.into(),
        public_requests: n,
        data_transfer_out_bytes: n * p.response_bytes,
        log_bytes: n * LOG_BYTES_PER_INVOCATION * p.functions.len() as f64,
        ..Usage::default()
    };
    match api {
        ApiKind::Rest => usage.api_gateway.rest_requests = n,
        _ => usage.api_gateway.http_requests = n,
    }
    for (f, ms) in p.functions {
        let figures = FunctionFigures {
            memory_mb: 128.0,
            invocations: n,
            billed_ms: n * ms,
            cold_starts: 3.0,
            cpu_ms: n * 0.8,
            thread_cpu_ms: p
                .argon2_ms
                .iter()
                .map(|ms| (conduit::passwords::THREAD_NAME.to_string(), n * ms))
                .chain([("tokio-runtime-w".to_string(), n * 0.2)])
                .collect(),
            log_bytes: n * LOG_BYTES_PER_INVOCATION,
            cpu_share_vcpus: 128.0 / 1769.0,
            // Held back by the quota for most of the CPU time's stretch, and
            // 1 % of the billed time waiting for a core beyond it.
            throttled_ms: n * ms * 0.5,
            run_queue_wait_ms: n * ms * 0.51,
            contention_ms: n * ms * 0.01,
            ..FunctionFigures::default()
        };
        metering.functions.insert(name(f), figures);
        usage.lambda.push(FunctionUsage {
            name: name(f),
            architecture: "arm64".into(),
            memory_mb: 128.0,
            invocations: n,
            billed_ms_total: n * ms,
            ..FunctionUsage::default()
        });
    }
    for (q, billed) in p.queues {
        let figures = QueueFigures {
            billed_requests: n * billed,
            messages_sent: n,
        };
        metering.queues.insert(name(q), figures);
        usage.sqs.push(QueueUsage {
            name: name(q),
            billed_requests: n * billed,
        });
    }
    let table = TableFigures {
        read_units: n * p.read_units,
        write_units: n * p.write_units,
    };
    usage.dynamodb.push(TableUsage {
        name: format!("bench-{variant}-table"),
        read_units: table.read_units,
        write_units: table.write_units,
    });
    metering
        .tables
        .insert(format!("bench-{variant}-table"), table);
    (metering, usage)
}

pub fn record(spec: &ScenarioSpec, variant: &str, ok_latency: f64, failures: usize) -> RunRecord {
    record_through(ApiKind::Http, spec, variant, ok_latency, failures)
}

/// A run whose load went through `api`, priced at that API's price.
pub fn record_through(
    api: ApiKind,
    spec: &ScenarioSpec,
    variant: &str,
    ok_latency: f64,
    failures: usize,
) -> RunRecord {
    let s = samples(ok_latency, failures);
    let summary = summarize(&s, 10.0);
    let (metering, usage) = metering_and_usage(variant, api, summary.requests);
    let cost = Pricing::load(None, None, Some(costmodel::DEFAULT_LOG_RETENTION_DAYS))
        .and_then(|p| p.price(&usage, summary.successes, "x86_64"))
        .expect("the test usage prices");
    RunRecord {
        kind: RecordKind::Scenario,
        scenario: spec.name.clone(),
        variant: variant.into(),
        api,
        compute: crate::compute::ComputeType::OnDemand,
        setting: "template defaults".into(),
        started_at: "2026-11-30T12:00:00Z".into(),
        settings: Settings {
            parameters: [("OrdersDelayMs".to_string(), "500".to_string())].into(),
            memory_mb: metering
                .functions
                .keys()
                .map(|f| (f.clone(), 128.0))
                .collect(),
            account_concurrency_limit: 1000,
            base_url: "http://127.0.0.1:1".into(),
        },
        load: LoadSettings {
            shape: spec.shape.scaled(Mode::Quick),
            original_shape: spec.shape.clone(),
            size: spec.size,
            think_time_s: spec.think_time_s,
            closed_loop: spec.think_time_s.is_none(),
        },
        failure_reasons: if failures > 0 {
            [(
                "GET /orders/{size}: status 503".to_string(),
                failures as u64,
            )]
            .into()
        } else {
            BTreeMap::new()
        },
        series: time_series(&s, 1000),
        spread: crate::stats::spread(&s, 10.0, None, &format!("{}/{variant}/{api:?}", spec.name))
            .map(|sp| {
                sp.with_cost(
                    cost.usd_per_million_successful,
                    summary.error_rate,
                    cost.duration_share(),
                )
            }),
        ledger: None,
        cpu: CpuAccount::new(
            metering.functions_cpu_ms(),
            Some(metering.argon2_cpu_ms()),
            metering.localcloud_cpu_ms,
            2000.0,
            10.0,
            summary.successes,
        ),
        summary,
        metering: Some(metering),
        cost: Some(cost),
        goose_report: Some(format!("goose/{}-{variant}.html", spec.name)),
    }
}

/// A search over the same steps for every variant (as `bench run` does),
/// holding up to `held` users and broken above.
fn capacity(variant: &str, held: u64) -> CapacityResult {
    let steps = [100, 200, 300, 400, 800]
        .iter()
        .map(|&users| CapacityStep {
            users,
            held: users <= held,
            violations: if users <= held {
                vec![]
            } else {
                vec!["p95 612 ms > 500 ms".into()]
            },
            summary: Default::default(),
        })
        .collect();
    CapacityResult {
        variant: variant.into(),
        api: ApiKind::Http,
        compute: crate::compute::ComputeType::OnDemand,
        users_held: Some(held),
        steps,
        step_seconds: 20,
    }
}

pub fn results() -> Results {
    let orders = orders_scenarios();
    let (baseline, highload) = (&orders[0], &orders[1]);
    let conduit = conduit_scenario(1000);
    Results {
        schema_version: SCHEMA_VERSION,
        started_at: "2026-11-30T12:00:00Z".into(),
        finished_at: "2026-11-30T12:03:00Z".into(),
        mode: Mode::Quick,
        scaling: Mode::Quick.describe(),
        target: "local".into(),
        git_commit: "abc123".into(),
        machine: Machine {
            cores: 2,
            ram_mb: 4096,
            cpu_model: "Test CPU".into(),
            os: "linux".into(),
        },
        region: "us-east-1".into(),
        price_table_version: costmodel::PriceTable::aws_default().version().into(),
        price_date: None,
        log_retention_days: Some(costmodel::DEFAULT_LOG_RETENTION_DAYS),
        latency_profile: None,
        cpu_share: Some(crate::target::CpuShare::Aws),
        records: vec![
            record(baseline, "orders-direct", 510.0, 0),
            record(baseline, "orders-queue", 900.0, 0),
            record(highload, "orders-direct", 520.0, 50),
            record(highload, "orders-queue", 1500.0, 0),
            record(&conduit, "conduit-monolith", 30.0, 0),
            record(&conduit, "conduit-micro-invoke", 45.0, 0),
            record(&conduit, "conduit-micro-queue", 90.0, 2),
        ],
        capacity: vec![
            capacity("conduit-monolith", 400),
            capacity("conduit-micro-invoke", 300),
            capacity("conduit-micro-queue", 200),
        ],
        skipped: vec![Skipped {
            scenario: "orders-largepayload".into(),
            variant: "orders-queue".into(),
            api: ApiKind::Http,
            compute: crate::compute::ComputeType::OnDemand,
            reason: "not selected (--scenario)".into(),
        }],
        iam: Some(crate::iam::IamEvidence::new(
            "orders-baseline / orders-queue template defaults",
            iam_document(5, 0),
        )),
    }
}

pub use crate::iam::iam_document;

/// [`results`] with the baseline orders runs also through REST APIs (`--api
/// both`): 20 ms slower, the same functions behind them.
pub fn results_with_rest() -> Results {
    let mut results = results();
    let baseline = &orders_scenarios()[0];
    for (variant, latency) in [("orders-direct", 530.0), ("orders-queue", 920.0)] {
        let rest = record_through(ApiKind::Rest, baseline, variant, latency, 0);
        results.records.push(rest);
    }
    results
}

/// `on_demand` as if run on Lambda Managed Instances (`--compute managed`):
/// 2,048 MB environments on c7i.large instances, each function billed
/// `instance_seconds` of them and no duration, and an idle function (a
/// sweeper: no invocation, its minimum environments paid for); priced by
/// the real cost model.
pub fn on_lmi(on_demand: &RunRecord, instance_seconds: f64) -> RunRecord {
    on_lmi_on(on_demand, instance_seconds, "c7i.large")
}

/// [`on_lmi`] on instances of `instance_type`.
pub fn on_lmi_on(on_demand: &RunRecord, instance_seconds: f64, instance_type: &str) -> RunRecord {
    let mut r = on_demand.clone();
    r.compute = crate::compute::ComputeType::Managed;
    let metering = r.metering.as_mut().expect("test records are metered");
    let idle = crate::metering::FunctionFigures {
        memory_mb: 2048.0,
        ..Default::default()
    };
    metering
        .functions
        .insert(format!("bench-{}-sweeper", r.variant), idle);
    for f in metering.functions.values_mut() {
        f.memory_mb = 2048.0;
        // One vCPU each: nothing held back by a quota.
        (f.throttled_ms, f.run_queue_wait_ms, f.contention_ms) = (0.0, 0.0, 0.0);
        f.managed = Some(costmodel::ManagedUsage {
            capacity_provider: "FunctionsCapacityProvider".into(),
            instance_type: instance_type.into(),
            instance_seconds,
            ..Default::default()
        });
    }
    let usage = crate::monthly::usage_per_success(&r).expect("a priced scenario run");
    let pricing = Pricing::load(None, None, Some(costmodel::DEFAULT_LOG_RETENTION_DAYS)).unwrap();
    r.cost = Some(
        pricing
            .price(&usage, r.summary.successes, "x86_64")
            .unwrap(),
    );
    r
}

/// `tests/fixtures/sample-results.json` is this data: regenerated with
/// `UPDATE_FIXTURES=1 cargo test --workspace --lib fixture_results`.
#[test]
fn fixture_results_json_is_the_test_data() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/sample-results.json"
    );
    let text = results().to_json().unwrap() + "\n";
    if std::env::var_os("UPDATE_FIXTURES").is_some() {
        std::fs::write(path, &text).unwrap();
    }
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        committed == text,
        "{path} is stale: rerun with UPDATE_FIXTURES=1"
    );
}
