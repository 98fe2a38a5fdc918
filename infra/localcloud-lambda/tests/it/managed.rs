//! Lambda Managed Instances: an environment serves many invocations at once
//! through the real runtime's `run_concurrent` (the `concurrent` test
//! function), each answered to its own caller, failures isolated; on-demand
//! functions keep one invocation per environment at a time. The fleet:
//! three environments started before the first invocation, on at least
//! three instances that are metered; a burst beyond its slots is throttled
//! at once while the scaler adds environments in the background (at most
//! doubling within five minutes), and retires them when idle.

use std::sync::Arc;
use std::time::{Duration, Instant};

use localcloud_core::InvokeError;
use localcloud_lambda::{
    FunctionConfig, LambdaService, ManagedInstances, Outcome, ScalingBounds, MIN_ENVIRONMENTS,
    SCALING_THROTTLE_REASON,
};
use serde_json::{json, Value};

use crate::common::{config, function, invoke, json, start};

fn managed(name: &str, max_concurrency: Option<u32>, timeout: Duration) -> FunctionConfig {
    managed_on("concurrent", name, max_concurrency, timeout)
}

/// A managed function of the test function `binary`.
fn managed_on(
    binary: &str,
    name: &str,
    max_concurrency: Option<u32>,
    timeout: Duration,
) -> FunctionConfig {
    FunctionConfig {
        memory_mb: 4096,
        timeout,
        managed: Some(ManagedInstances {
            provider: "fleet".into(),
            memory_gib_per_vcpu: 2,
            max_concurrency,
            scaling: ScalingBounds::default(),
        }),
        ..function(name, binary)
    }
}

/// Invocations sent at once; each answer (request id, function error,
/// payload) in the order of `payloads`.
async fn invoke_all(
    service: &Arc<LambdaService>,
    name: &str,
    payloads: Vec<Value>,
) -> Vec<(String, Option<String>, Value)> {
    let calls: Vec<_> = payloads
        .into_iter()
        .map(|p| {
            let (service, name) = (service.clone(), name.to_string());
            tokio::spawn(async move { invoke(&service, &name, p).await })
        })
        .collect();
    let mut answers = Vec::new();
    for call in calls {
        let r = call.await.expect("joined").expect("invoked");
        answers.push((
            r.request_id.clone(),
            r.function_error.clone(),
            json(&r.payload),
        ));
    }
    answers
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_invocations_run_together_in_one_environment() {
    let service = start(config(vec![managed(
        "lmi",
        Some(8),
        Duration::from_secs(10),
    )]));
    // A first invocation waits for the minimum environments to start.
    invoke_all(&service, "lmi", vec![json!({"ms": 0})]).await;
    let started = Instant::now();
    let answers = invoke_all(&service, "lmi", vec![json!({"ms": 1000}); 6]).await;
    let wall = started.elapsed();
    let pids: Vec<u64> = answers
        .iter()
        .map(|(_, _, a)| a["pid"].as_u64().unwrap())
        .collect();
    assert!(pids.iter().all(|&p| p == pids[0]), "one process: {pids:?}");
    for (request_id, error, answer) in &answers {
        assert_eq!(error, &None, "{answer}");
        // Each caller got the answer to its own invocation.
        assert_eq!(answer["request_id"], request_id.as_str());
        assert_eq!(answer["max_concurrency"], "8");
    }
    let peak = answers
        .iter()
        .map(|(_, _, a)| a["peak_in_flight"].as_u64().unwrap())
        .max();
    assert_eq!(peak, Some(6), "all six were in flight at once");
    // About one sleep, not six one after another.
    assert!(wall < Duration::from_millis(3000), "{wall:?}");
    // The others are the minimum environments, idle.
    assert_eq!(service.process_ids().len(), MIN_ENVIRONMENTS as usize);
    service.shutdown().await;
}

/// The Conduit functions' runtime (`thin_runtime`) has its own concurrent
/// mode: the same guarantees as `run_concurrent`'s, a panic included.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_thin_runtime_serves_together_and_a_panic_fails_only_its_invocation() {
    let function = managed_on("thin-concurrent", "thin", Some(8), Duration::from_secs(10));
    let service = start(config(vec![function]));
    invoke_all(&service, "thin", vec![json!({"ms": 0})]).await;
    let mut payloads: Vec<Value> = (0..6).map(|n| json!({"ms": 1000, "tag": n})).collect();
    payloads.push(json!({"ms": 1000, "fail": "bad order"}));
    payloads.push(json!({"ms": 1000, "panic": "bad luck"}));
    let started = Instant::now();
    let answers = invoke_all(&service, "thin", payloads).await;
    let wall = started.elapsed();
    let pid = answers[0].2["pid"].as_u64().expect("a pid");
    for (n, (_, error, answer)) in answers[..6].iter().enumerate() {
        assert_eq!(error, &None, "{answer}");
        assert_eq!(answer["tag"], n, "each caller gets its own answer");
        assert_eq!(answer["pid"].as_u64(), Some(pid), "one process");
        assert_eq!(answer["max_concurrency"], "8");
    }
    let (_, error, refused) = &answers[6];
    assert_eq!(
        (error.as_deref(), &refused["errorType"]),
        (Some("Unhandled"), &json!("Refused"))
    );
    let (_, error, panicked) = &answers[7];
    assert_eq!(error.as_deref(), Some("Unhandled"));
    assert_eq!(panicked["errorType"], "Runtime.HandlerPanic", "{panicked}");
    let peak = answers[..6]
        .iter()
        .map(|(_, _, a)| a["peak_in_flight"].as_u64().unwrap())
        .max();
    assert_eq!(peak, Some(8), "all eight were in flight at once");
    assert!(
        wall < Duration::from_millis(3000),
        "about one sleep, not eight: {wall:?}"
    );
    // The process that panicked serves on.
    let later = invoke_all(&service, "thin", vec![json!({"ms": 0, "tag": "after"})]).await;
    assert_eq!(later[0].2["pid"].as_u64(), Some(pid), "{:?}", later[0]);
    assert_eq!(service.process_ids().len(), MIN_ENVIRONMENTS as usize);
    service.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handler_error_fails_only_its_own_invocation() {
    let service = start(config(vec![managed(
        "lmi",
        Some(4),
        Duration::from_secs(10),
    )]));
    let mut payloads = vec![json!({"ms": 300}); 3];
    payloads.insert(1, json!({"ms": 300, "fail": "bad order"}));
    let answers = invoke_all(&service, "lmi", payloads).await;
    let (_, error, failed) = &answers[1];
    assert_eq!(error.as_deref(), Some("Unhandled"));
    assert_eq!(failed["errorType"], "Refused");
    for i in [0, 2, 3] {
        let (request_id, error, answer) = &answers[i];
        assert_eq!(error, &None, "{answer}");
        assert_eq!(answer["request_id"], request_id.as_str());
    }
    let pids: Vec<u64> = answers
        .iter()
        .filter_map(|(_, _, a)| a["pid"].as_u64())
        .collect();
    assert!(pids.iter().all(|&p| p == pids[0]), "one process: {pids:?}");
    assert_eq!(service.process_ids().len(), MIN_ENVIRONMENTS as usize);
    service.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timeout_fails_only_its_own_invocation_and_the_environment_stays() {
    let service = start(config(vec![managed(
        "lmi",
        Some(4),
        Duration::from_secs(1),
    )]));
    let payloads = vec![json!({"ms": 4000}), json!({"ms": 200}), json!({"ms": 200})];
    let answers = invoke_all(&service, "lmi", payloads).await;
    let (_, error, timed_out) = &answers[0];
    assert_eq!(error.as_deref(), Some("Unhandled"));
    assert_eq!(timed_out["errorType"], "Sandbox.Timedout", "{timed_out}");
    let pid = answers[1].2["pid"].as_u64().unwrap();
    assert_eq!(answers[2].2["pid"].as_u64(), Some(pid));
    // The same process serves on.
    let later = invoke_all(&service, "lmi", vec![json!({"ms": 0})]).await;
    assert_eq!(later[0].2["pid"].as_u64(), Some(pid), "{:?}", later[0]);
    service.shutdown().await;
}

#[tokio::test]
async fn the_default_concurrency_is_eight_per_vcpu() {
    let service = start(config(vec![managed("lmi", None, Duration::from_secs(5))]));
    let answers = invoke_all(&service, "lmi", vec![json!({"ms": 0})]).await;
    // 4,096 MB at 2 GiB per vCPU: two vCPUs.
    assert_eq!(answers[0].2["max_concurrency"], "16");
    service.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_demand_environments_take_one_invocation_at_a_time() {
    let on_demand = FunctionConfig {
        timeout: Duration::from_secs(10),
        ..function("od", "concurrent")
    };
    let service = start(config(vec![on_demand]));
    let answers = invoke_all(&service, "od", vec![json!({"ms": 500}); 3]).await;
    let mut pids: Vec<u64> = answers
        .iter()
        .map(|(_, _, a)| a["pid"].as_u64().unwrap())
        .collect();
    for (_, _, answer) in &answers {
        assert_eq!(answer["peak_in_flight"], 1, "{answer}");
        assert_eq!(answer["max_concurrency"], Value::Null);
    }
    pids.sort();
    pids.dedup();
    assert_eq!(pids.len(), 3, "one environment each");
    service.shutdown().await;
}

/// Waits (up to 20 s) until the service has `n` environment processes.
async fn wait_for_environments(service: &LambdaService, n: usize) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while service.process_ids().len() < n && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// "Managed Instances currently scales based on CPU resource utilization":
/// a function whose environments' mean CPU use stays above the target gets
/// more environments though none is ever full (one invocation at a time of
/// two slots each), and the scaler's growth is no refusal.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cpu_use_above_the_target_adds_environments_before_any_is_full() {
    let burn = FunctionConfig {
        memory_mb: 2048,
        ..managed_on("cpu-burn", "burn", Some(2), Duration::from_secs(30))
    };
    let mut config = config(vec![burn]);
    // One busy environment of three is a mean of a third at most, above a
    // tenth however loaded the machine running the test.
    config.managed_cpu_target = 0.1;
    let service = start(config);
    wait_for_environments(&service, 3).await;
    let idle = service.metrics().capacity_providers["fleet"].environments;
    assert_eq!(idle, 3, "no CPU use, no scaling");
    let until = Instant::now() + Duration::from_secs(8);
    while Instant::now() < until {
        let answer = invoke(&service, "burn", json!({"cpu_ms": 200}))
            .await
            .expect("served");
        assert_eq!(answer.function_error, None);
    }
    let fleet = service.metrics().capacity_providers["fleet"].clone();
    assert!(fleet.environments > 3, "{fleet:?}");
    assert_eq!(fleet.scaling_refusals, 0, "{fleet:?}");
    assert_eq!(service.metrics().functions["burn"].throttles, 0);
    service.shutdown().await;
}

/// Lambda "starts three execution environments before marking your function
/// version ACTIVE", on three instances; the fleet meters them busy or idle.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_managed_function_starts_three_environments_on_three_metered_instances() {
    let service = start(config(vec![managed(
        "lmi",
        Some(2),
        Duration::from_secs(10),
    )]));
    wait_for_environments(&service, 3).await;
    assert_eq!(service.process_ids().len(), 3, "before any invocation");
    let fleet = service.metrics().capacity_providers["fleet"].clone();
    // A provider the configuration does not declare runs on the type the
    // bill prices where none is named; 4,096 MB at 2 GiB per vCPU is two
    // vCPUs: one environment per c7i.xlarge beside the 1 vCPU its OS keeps.
    assert_eq!(fleet.instance_type, "c7i.xlarge");
    assert_eq!((fleet.instances, fleet.environments), (3, 3));
    assert_eq!(fleet.vcpus_allocated, 6.0);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let metered = service.metrics().capacity_providers["fleet"].instance_seconds;
    assert!(metered >= 3.0 * 0.5, "{metered}");
    service.shutdown().await;
}

/// Invocations sent at once: how many were served and how many throttled
/// (with the scaler's reason); any other failure fails the test.
async fn burst(service: &Arc<LambdaService>, name: &str, n: usize, ms: u64) -> (usize, usize) {
    let (served, throttled) = timed_burst(service, name, n, ms).await;
    (served, throttled.len())
}

/// As [`burst`], with how long each throttled call took to be answered.
async fn timed_burst(
    service: &Arc<LambdaService>,
    name: &str,
    n: usize,
    ms: u64,
) -> (usize, Vec<Duration>) {
    let calls: Vec<_> = (0..n)
        .map(|_| {
            let (service, name) = (service.clone(), name.to_string());
            tokio::spawn(async move {
                let sent = Instant::now();
                let answer = invoke(&service, &name, json!({"ms": ms})).await;
                (answer, sent.elapsed())
            })
        })
        .collect();
    let (mut served, mut throttled) = (0, Vec::new());
    for call in calls {
        match call.await.expect("joined") {
            (Ok(answer), _) => {
                assert_eq!(answer.function_error, None);
                served += 1;
            }
            (Err(InvokeError::Throttled { reason }), took) => {
                assert_eq!(reason, SCALING_THROTTLE_REASON);
                throttled.push(took);
            }
            (Err(other), _) => panic!("{other}"),
        }
    }
    (served, throttled)
}

/// Polls the fleet's environments (up to `within`) until `done` holds;
/// the last count seen.
async fn environments_until(
    service: &LambdaService,
    within: Duration,
    done: impl Fn(u32) -> bool,
) -> u32 {
    let deadline = Instant::now() + within;
    loop {
        let n = service.metrics().capacity_providers["fleet"].environments;
        if done(n) || Instant::now() >= deadline {
            return n;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// "Lambda Managed Instances does not scale when invocations arrive and
/// does not support cold starts ... [it] might reject new invokes to
/// protect invokes that are already in flight": 20 invocations at once on
/// three environments of two slots are throttled beyond the slots, and no
/// served one waited for an init. The scaler then adds environments in the
/// background, at most doubling them within five minutes ("If your traffic
/// more than doubles within 5 minutes, you may see throttles"), and
/// retires them once idle, down to the minimum.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_beyond_the_slots_is_throttled_and_the_fleet_scales_out_then_in() {
    let mut config = config(vec![managed("lmi", Some(2), Duration::from_secs(20))]);
    config.managed_scale_in_after = Duration::from_secs(1);
    let service = start(config);
    wait_for_environments(&service, 3).await;
    // WHEN 20 invocations of 1.5 s arrive at once
    let (served, throttled_after) = timed_burst(&service, "lmi", 20, 1500).await;
    let throttled = throttled_after.len();
    // THEN at most the doubled fleet's 12 slots served them, the rest
    // were throttled at once (not after a slot or an environment freed up:
    // the served ones held theirs for 1.5 s), counted by the function and
    // the fleet
    assert_eq!(served + throttled, 20);
    assert!((6..=12).contains(&served), "served {served}");
    let slowest = throttled_after.iter().max().copied().unwrap_or_default();
    assert!(slowest < Duration::from_millis(1500), "{throttled_after:?}");
    let metrics = service.metrics();
    assert_eq!(metrics.functions["lmi"].throttles, throttled as u64);
    let fleet = &metrics.capacity_providers["fleet"];
    assert_eq!(fleet.scaling_refusals, throttled as u64, "{fleet:?}");
    // AND no served invocation waited for an environment's init
    let records = service.records();
    let successes: Vec<_> = records
        .iter()
        .filter(|r| r.outcome == Outcome::Success)
        .collect();
    assert_eq!(successes.len(), served);
    assert!(successes.iter().all(|r| r.init_duration_ms.is_none()));
    // AND the scaler added environments, up to the doubling bound's six
    // (one per c7i.xlarge beside its OS: the fleet's peak instances are its peak
    // environments, whatever it has retired since)
    let deadline = Instant::now() + Duration::from_secs(20);
    while service.metrics().capacity_providers["fleet"].peak_instances < 6
        && Instant::now() < deadline
    {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let fleet = &service.metrics().capacity_providers["fleet"];
    assert_eq!(fleet.peak_instances, 6, "{fleet:?}");
    // AND retires them once idle, one at a time, down to the minimum three
    let scaled_in = environments_until(&service, Duration::from_secs(60), |n| n <= 3).await;
    assert_eq!(scaled_in, 3);
    let fleet = &service.metrics().capacity_providers["fleet"];
    assert_eq!((fleet.environments, fleet.instances), (3, 3), "{fleet:?}");
    assert_eq!(service.process_ids().len(), 3);
    service.shutdown().await;
}

/// `FunctionScalingConfig`: a function starts its `MinExecutionEnvironments`
/// and the scaler never passes its `MaxExecutionEnvironments`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_function_scaling_config_bounds_the_environments() {
    let mut function = managed("lmi", Some(1), Duration::from_secs(20));
    if let Some(managed) = &mut function.managed {
        managed.scaling = ScalingBounds {
            min: 1,
            max: Some(2),
        };
    }
    let service = start(config(vec![function]));
    // GIVEN its one environment, started before any invocation
    wait_for_environments(&service, 1).await;
    assert_eq!(service.process_ids().len(), 1);
    // WHEN more invocations come than two environments hold
    let (served, throttled) = burst(&service, "lmi", 6, 1000).await;
    assert!(
        (1..=2).contains(&served) && throttled >= 4,
        "{served} {throttled}"
    );
    // THEN the scaler adds one, and no more
    let scaled = environments_until(&service, Duration::from_secs(20), |n| n >= 2).await;
    assert_eq!(scaled, 2);
    let (served, _) = burst(&service, "lmi", 6, 1000).await;
    assert!(served <= 2, "two environments of one slot: {served}");
    let fleet = &service.metrics().capacity_providers["fleet"];
    assert_eq!(fleet.environments, 2, "{fleet:?}");
    service.shutdown().await;
}
