//! CPU in proportion to memory size, as AWS gives it: a fixed amount of CPU
//! work takes 1,769 / MemorySize times as long as at 1,769 MB (one vCPU),
//! through the kernel's quota and through the model; an environment's
//! threads share its quota; `off` leaves every size at this machine's speed.
//!
//! Each figure is the shortest of a few warm invocations: other tests of
//! this binary run beside these on a 2-core machine, and contention only
//! ever lengthens a run.

use std::time::Duration;

use localcloud_lambda::{CpuShare, CpuShareMode, FunctionConfig, LambdaService};
use serde_json::json;

use crate::common::*;

/// CPU milliseconds of work per invocation.
const WORK_MS: u64 = 80;
const TOLERANCE: f64 = 0.15;
const SIZES: [u32; 5] = [128, 256, 512, 1024, 1769];

/// These tests time CPU-bound work: one at a time, so that they do not
/// contend with each other for the machine's two cores.
pub(crate) static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

fn burner(memory_mb: u32) -> FunctionConfig {
    FunctionConfig {
        memory_mb,
        timeout: Duration::from_secs(15),
        ..function(&format!("burn-{memory_mb}"), "cpu-burn")
    }
}

fn service(share: CpuShare, sizes: &[u32]) -> std::sync::Arc<LambdaService> {
    start(localcloud_lambda::LambdaConfig {
        cpu_share: share,
        ..config(sizes.iter().map(|&mb| burner(mb)).collect())
    })
}

/// The cgroup mode where this machine permits it; CI requires it
/// (`LOCALCLOUD_REQUIRE_CGROUP=1`), elsewhere the test says it is skipped.
pub(crate) fn cgroup_or_skip(service: &LambdaService) -> bool {
    let metrics = service.metrics().cpu_share;
    if matches!(
        metrics.mode,
        CpuShareMode::CgroupV1 | CpuShareMode::CgroupV2
    ) {
        return true;
    }
    let reason = metrics.fallback_reason.unwrap_or_default();
    assert!(
        std::env::var("LOCALCLOUD_REQUIRE_CGROUP").as_deref() != Ok("1"),
        "LOCALCLOUD_REQUIRE_CGROUP=1 but the CPU share fell back to {:?}: {reason}",
        metrics.mode
    );
    eprintln!("skipped: no writable cgroup here ({reason})");
    false
}

/// The shortest billed duration of `runs` warm invocations of `function`.
async fn billed_ms(
    service: &LambdaService,
    function: &str,
    payload: serde_json::Value,
    runs: usize,
) -> f64 {
    // The first one starts the environment; its init is not the work.
    invoke(service, function, payload.clone())
        .await
        .expect("warm-up");
    let mut best = f64::INFINITY;
    for _ in 0..runs {
        let response = invoke(service, function, payload.clone())
            .await
            .expect("invoke");
        assert!(response.function_error.is_none(), "{:?}", response.payload);
        let record = service
            .records()
            .into_iter()
            .rev()
            .find(|r| r.request_id == response.request_id)
            .expect("a record of the invocation");
        assert!(record.init_duration_ms.is_none(), "a warm invocation");
        best = best.min(record.billed_ms as f64);
    }
    best
}

/// Each size's billed duration against 1,769 MB's, as 1,769 / MemorySize.
async fn assert_scales_with_memory(share: CpuShare) -> Option<()> {
    let service = service(share, &SIZES);
    if share == CpuShare::Aws && !cgroup_or_skip(&service) {
        return None;
    }
    let work = json!({ "cpu_ms": WORK_MS });
    let one_vcpu = billed_ms(&service, "burn-1769", work.clone(), 3).await;
    for mb in SIZES {
        let billed = billed_ms(&service, &format!("burn-{mb}"), work.clone(), 3).await;
        let ratio = billed / one_vcpu;
        let expected = 1769.0 / f64::from(mb);
        assert!(
            (ratio / expected - 1.0).abs() <= TOLERANCE,
            "{share:?} at {mb} MB: {billed} ms against {one_vcpu} ms at 1,769 MB, x{ratio:.2} (expected x{expected:.2})"
        );
    }
    service.shutdown().await;
    Some(())
}

#[tokio::test]
async fn billed_duration_scales_with_1769_over_memory_under_the_cgroup_quota() {
    let _serial = SERIAL.lock().await;
    assert_scales_with_memory(CpuShare::Aws).await;
}

#[tokio::test]
async fn billed_duration_scales_with_1769_over_memory_under_the_model() {
    let _serial = SERIAL.lock().await;
    assert_scales_with_memory(CpuShare::Model)
        .await
        .expect("the model runs anywhere");
}

#[tokio::test]
async fn cpu_share_off_runs_every_size_at_this_machine_s_speed() {
    let _serial = SERIAL.lock().await;
    let service = service(CpuShare::Off, &[128, 1769]);
    assert_eq!(service.metrics().cpu_share.mode, CpuShareMode::Off);
    let work = json!({ "cpu_ms": WORK_MS });
    let small = billed_ms(&service, "burn-128", work.clone(), 5).await;
    let large = billed_ms(&service, "burn-1769", work, 5).await;
    assert!(
        (small / large - 1.0).abs() <= TOLERANCE,
        "off: {small} ms at 128 MB against {large} ms at 1,769 MB"
    );
    assert_eq!(service.metrics().functions["burn-128"].cpu_share_vcpus, 0.0);
    service.shutdown().await;
}

/// Two threads' work against one thread's, at one and at two vCPUs.
async fn assert_threads_share_the_quota(share: CpuShare) -> Option<()> {
    let service = service(share, &[1769, 3538]);
    if share == CpuShare::Aws && !cgroup_or_skip(&service) {
        return None;
    }
    let one_thread = json!({ "cpu_ms": WORK_MS, "threads": 1 });
    let two_threads = json!({ "cpu_ms": WORK_MS, "threads": 2 });
    let single = billed_ms(&service, "burn-1769", one_thread, 3).await;
    let split_one_vcpu = billed_ms(&service, "burn-1769", two_threads.clone(), 3).await;
    let split_two_vcpus = billed_ms(&service, "burn-3538", two_threads, 7).await;
    let near = |actual: f64, expected: f64| (actual / expected - 1.0).abs() <= TOLERANCE;
    assert!(
        near(split_one_vcpu, single),
        "{share:?}: two threads at 1,769 MB took {split_one_vcpu} ms, one thread {single} ms"
    );
    assert!(
        near(split_two_vcpus, single / 2.0),
        "{share:?}: two threads at 3,538 MB took {split_two_vcpus} ms, one thread at 1,769 MB {single} ms"
    );
    service.shutdown().await;
    Some(())
}

#[tokio::test]
async fn an_environment_s_threads_share_its_cgroup_quota() {
    let _serial = SERIAL.lock().await;
    assert_threads_share_the_quota(CpuShare::Aws).await;
}

#[tokio::test]
async fn an_environment_s_threads_share_its_modeled_share() {
    let _serial = SERIAL.lock().await;
    assert_threads_share_the_quota(CpuShare::Model)
        .await
        .expect("the model runs anywhere");
}

#[tokio::test]
async fn the_quota_and_the_model_are_metered_per_function() {
    let _serial = SERIAL.lock().await;
    // GIVEN a 128 MB function under the model and one under the quota
    let modeled = service(CpuShare::Model, &[128]);
    invoke(&modeled, "burn-128", json!({ "cpu_ms": 20 }))
        .await
        .unwrap();
    let metrics = modeled.metrics();
    // THEN the model's addition is counted, at about 20 ms x (1769/128 - 1)
    let function = &metrics.functions["burn-128"];
    assert_eq!(metrics.cpu_share.mode, CpuShareMode::Model);
    assert!((function.cpu_share_vcpus - 128.0 / 1769.0).abs() < 1e-9);
    assert!(
        function.modeled_cpu_ms > 200.0 && function.modeled_cpu_ms < 320.0,
        "{}",
        function.modeled_cpu_ms
    );
    assert_eq!(function.throttled_ms, 0.0);
    modeled.shutdown().await;
    let quota = service(CpuShare::Aws, &[128]);
    if !cgroup_or_skip(&quota) {
        return;
    }
    invoke(&quota, "burn-128", json!({ "cpu_ms": 20 }))
        .await
        .unwrap();
    // AND the quota's hold-backs are read from the group, nothing modeled
    let function = &quota.metrics().functions["burn-128"];
    assert!(function.throttled_ms > 150.0, "{}", function.throttled_ms);
    // AND the hold-backs are not taken for contention, whether or not this
    // kernel counts them as run-queue waits
    assert!(
        function.contention_ms() < function.throttled_ms / 2.0,
        "{} contention of {} waited, {} throttled",
        function.contention_ms(),
        function.run_queue_wait_ms,
        function.throttled_ms
    );
    assert_eq!(function.modeled_cpu_ms, 0.0);
    quota.shutdown().await;
}
