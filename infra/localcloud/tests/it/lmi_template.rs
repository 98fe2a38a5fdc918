//! template-lmi.yaml (template.yaml on Lambda Managed Instances) on the
//! local cloud with the real function binaries: every function starts its
//! minimum of three environments on the capacity provider's fleet, and the
//! orders functions (on `run_concurrent`) serve many requests at once in
//! those environments.

use std::time::{Duration, Instant};

use crate::common::http_call;
use localcloud_template::LMI_CAPACITY_PROVIDER;
use serde_json::Value;

/// Requests sent at once to each orders path: more than the runtime's
/// default would let the fleet hold within five minutes (three environments
/// of 8 slots, doubled: 48), fewer than the three minimum environments hold
/// at template-lmi.yaml's OrdersPerExecutionEnvironmentMaxConcurrency (64
/// each: 192), so no scaling and no throttle; and fewer than the direct
/// path's reserved concurrency (OrdersBackendConcurrency, 100).
const AT_ONCE: usize = 90;
const DELAY_MS: u64 = 500;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn orders_on_managed_instances_serve_many_requests_per_environment() {
    // GIVEN the LMI version of the template, its orders table seeded
    let logs = tempfile::tempdir().unwrap();
    let cloud =
        crate::common::start_repo_template("template-lmi.yaml", DELAY_MS, logs.path()).await;
    let stack = cloud.stack().unwrap();
    let ddb =
        aws_sdk_dynamodb::Client::new(&crate::common::sdk_config(&cloud.endpoint(), "us-east-1"));
    let table = &stack.app.table("OrdersTable").unwrap().name;
    orders::table::seed(&ddb, table).await.unwrap();
    let functions = stack.app.functions.len();

    for output in ["OrdersDirectUrl", "OrdersQueueUrl"] {
        let url = format!("{}/orders/3", stack.app.outputs[output]);
        // One request first: the environments are up and warm.
        let (status, first) = http_call("GET", &url, "").await;
        assert_eq!(status, 200, "{output}: {first}");
        // WHEN many requests arrive at once
        let started = Instant::now();
        let calls: Vec<_> = (0..AT_ONCE)
            .map(|_| {
                let url = url.clone();
                tokio::spawn(async move { http_call("GET", &url, "").await })
            })
            .collect();
        for call in calls {
            let (status, body) = call.await.unwrap();
            assert_eq!(status, 200, "{output}: {body}");
            assert_eq!(body, first, "{output}: the same orders");
        }
        // THEN they were served together: one at a time per environment,
        // three environments would take at least seven rounds of the delay.
        let wall = started.elapsed();
        let one_at_a_time = Duration::from_millis(DELAY_MS * AT_ONCE.div_ceil(3) as u64);
        assert!(
            wall < one_at_a_time * 3 / 4,
            "{output}: {AT_ONCE} requests took {wall:?}"
        );
    }

    // AND every function runs its minimum environments on the fleet, metered
    let metrics = stack.metrics();
    let fleets = metrics["lambda"]["capacity_providers"].as_object().unwrap();
    assert_eq!(fleets.len(), 1, "{fleets:?}");
    let (name, fleet) = fleets.iter().next().unwrap();
    assert!(name.contains(LMI_CAPACITY_PROVIDER), "{name}");
    assert_eq!(fleet["environments"], Value::from(3 * functions), "{fleet}");
    assert!(fleet["instance_seconds"].as_f64().unwrap() > 0.0, "{fleet}");
    assert_eq!(fleet["scaling_refusals"], 0, "{fleet}");
    // AND each function says its provider and pays its part of the
    // instances: the parts add up to what the fleet ran (every moment had
    // environments, the minimum ones started with the stack)
    let parts: Vec<f64> = metrics["lambda"]["functions"]
        .as_object()
        .unwrap()
        .values()
        .filter(|f| f["capacity_provider"] == name.as_str())
        .map(|f| f["instance_seconds"].as_f64().unwrap())
        .collect();
    assert_eq!(parts.len(), functions, "{metrics}");
    assert!(parts.iter().all(|p| *p > 0.0), "{parts:?}");
    let total = fleet["instance_seconds"].as_f64().unwrap();
    let shared: f64 = parts.iter().sum();
    assert!(
        shared <= total + 1e-6 && shared > 0.5 * total,
        "{shared} of {total}"
    );
    // AND each function records the settings its environments run with (what
    // the bill sizes a fleet by): the orders functions the template's 64 at
    // once, the others the runtime's 8 per vCPU, one vCPU per 2 GiB
    for (function, f) in metrics["lambda"]["functions"].as_object().unwrap() {
        let expected = if function.contains("Orders") { 64 } else { 8 };
        assert_eq!(f["max_concurrency"], expected, "{function}: {f}");
        assert_eq!(f["memory_gib_per_vcpu"], 2.0, "{function}: {f}");
    }
    cloud.shutdown().await.unwrap();
}
