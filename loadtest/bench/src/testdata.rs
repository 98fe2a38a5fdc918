//! A small but complete `Results` for the report and schema tests.

use std::collections::BTreeMap;

use crate::cpu::CpuAccount;
use crate::metering::{FunctionFigures, RunMetering};
use crate::plan::{orders_scenarios, Mode};
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
    s.extend((0..failures as u64).map(|i| Sample {
        at_ms: i * 40,
        latency_ms: 2.0,
        ok: false,
        status: 503,
    }));
    s
}

pub fn record(variant: &str, ok_latency: f64, failures: usize) -> RunRecord {
    let spec = &orders_scenarios()[0];
    let s = samples(ok_latency, failures);
    let mut functions = BTreeMap::new();
    functions.insert(
        format!("bench-{variant}-fn"),
        FunctionFigures {
            memory_mb: 128.0,
            invocations: 200.0,
            billed_ms: 100_000.0,
            cold_starts: 3.0,
            throttles: failures as f64,
            cpu_ms: 400.0,
            ..Default::default()
        },
    );
    RunRecord {
        kind: RecordKind::Scenario,
        scenario: spec.name.clone(),
        variant: variant.into(),
        setting: "template defaults".into(),
        started_at: "2026-11-30T12:00:00Z".into(),
        settings: Settings {
            parameters: [("OrdersDelayMs".to_string(), "500".to_string())].into(),
            memory_mb: [(format!("bench-{variant}-fn"), 128.0)].into(),
            account_concurrency_limit: 1000,
            base_url: "http://127.0.0.1:1".into(),
        },
        load: LoadSettings {
            shape: spec.shape.scaled(Mode::Quick),
            original_shape: spec.shape.clone(),
            size: spec.size,
            think_time_s: None,
            closed_loop: true,
        },
        summary: summarize(&s, 10.0),
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
        ledger: None,
        metering: Some(RunMetering {
            functions,
            api_requests: 200.0,
            localcloud_cpu_ms: 300.0,
            ..Default::default()
        }),
        cpu: CpuAccount::new(400.0, 300.0, 2000.0, 10.0, 200),
        cost: Some(CostFigures {
            total_usd: 0.0002,
            usd_per_million_requests: 1.0,
            usd_per_million_successful: Some(1.2),
            by_service: [("Lambda".to_string(), 0.00015)].into(),
            dominant: Some("Lambda duration".into()),
        }),
        goose_report: Some("goose/orders-baseline-orders-direct.html".into()),
    }
}

pub fn results() -> Results {
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
            memory_mb: 4096,
            cpu_model: "Test CPU".into(),
            os: "linux".into(),
        },
        region: "us-east-1".into(),
        price_table_version: "test".into(),
        latency_profile: None,
        records: vec![
            record("orders-direct", 510.0, 50),
            record("orders-queue", 900.0, 0),
        ],
        capacity: vec![CapacityResult {
            variant: "conduit-monolith".into(),
            users_held: Some(50),
            steps: vec![CapacityStep {
                users: 50,
                held: true,
                violations: vec![],
                summary: Default::default(),
            }],
            step_seconds: 20,
        }],
        skipped: vec![Skipped {
            scenario: "conduit-mixed".into(),
            variant: "conduit-micro-queue".into(),
            reason: "not deployed: ConduitMicroQueueApi is not in the template".into(),
        }],
    }
}
