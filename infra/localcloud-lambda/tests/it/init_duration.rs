//! Init Duration counts the function's init only, whatever the CPU share:
//! the cgroup of `--cpu-share aws` is set up before the clock starts or
//! beside the init (moving a process into a cgroup waits for an RCU grace
//! period, 12-20 ms here), and the init runs unthrottled until its first
//! `/next` (docs/cpu-share.md).

use localcloud_lambda::{CpuShare, LambdaService};
use serde_json::json;

use crate::common::*;
use crate::cpu_share::{cgroup_or_skip, SERIAL};

/// Cold starts per mode, in pairs a moment apart; the median of the pairs'
/// differences is compared (a pair shares the machine's load of the moment,
/// which separate medians of each mode do not share: under a loaded test
/// run they drift apart for reasons that are not the modes').
const COLD_STARTS: usize = 15;

fn service(share: CpuShare) -> std::sync::Arc<LambdaService> {
    let functions = (0..=COLD_STARTS)
        .map(|i| function(&format!("echo-{i}"), "echo"))
        .collect();
    start(localcloud_lambda::LambdaConfig {
        cpu_share: share,
        ..config(functions)
    })
}

/// The Init Duration of the first invocation of `function`, started apart
/// from the last: moves into cgroups in quick succession skip the grace
/// period (the kernel's `rcu_sync` stays in its writer state a while), a
/// lone cold start waits for it whole.
async fn cold_start_ms(service: &LambdaService, function: &str) -> f64 {
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let response = invoke(service, function, json!({})).await.expect("invoke");
    assert!(response.function_error.is_none(), "{:?}", response.payload);
    service
        .records()
        .into_iter()
        .find(|r| r.request_id == response.request_id)
        .and_then(|r| r.init_duration_ms)
        .expect("a cold start's record")
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

#[tokio::test]
async fn init_duration_under_the_cgroup_quota_is_within_a_millisecond_of_unthrottled() {
    let _serial = SERIAL.lock().await;
    // GIVEN the same binary in environments with their cgroup and without
    let aws = service(CpuShare::Aws);
    if !cgroup_or_skip(&aws) {
        return;
    }
    let off = service(CpuShare::Off);
    // A first start of each, not counted: the binary's first run after a
    // build pays for its pages.
    for service in [&aws, &off] {
        cold_start_ms(service, &format!("echo-{COLD_STARTS}")).await;
    }
    // WHEN each starts cold as often, in turns (the machine's load drifts)
    let (mut with_group, mut without) = (Vec::new(), Vec::new());
    for i in 0..COLD_STARTS {
        let name = format!("echo-{i}");
        if i % 2 == 0 {
            with_group.push(cold_start_ms(&aws, &name).await);
            without.push(cold_start_ms(&off, &name).await);
        } else {
            without.push(cold_start_ms(&off, &name).await);
            with_group.push(cold_start_ms(&aws, &name).await);
        }
    }
    // THEN the median difference of a pair's Init Durations is within 1 ms
    let differences = with_group
        .iter()
        .zip(&without)
        .map(|(aws, off)| aws - off)
        .collect();
    let difference = median(differences);
    assert!(
        difference.abs() <= 1.0,
        "median Init Duration difference {difference:.2} ms with the cgroup against off ({with_group:.2?} against {without:.2?})"
    );
    eprintln!("Init Duration, ms: aws {with_group:.2?}, off {without:.2?}");
    // AND every environment of the first went into a group of its own
    let pids = aws.process_ids();
    assert_eq!(pids.len(), COLD_STARTS + 1);
    for pid in pids {
        let cgroup = std::fs::read_to_string(format!("/proc/{pid}/cgroup")).unwrap_or_default();
        assert!(
            cgroup
                .lines()
                .any(|l| l.contains(":cpu") && l.contains("/env-")),
            "{pid}: {cgroup}"
        );
    }
    aws.shutdown().await;
    off.shutdown().await;
}
