//! Lambda Managed Instances from a template (`tests/fixtures/managed-app.yaml`):
//! the capacity provider's instance type and the function's
//! `CapacityProviderConfig` reach the Lambda service, which starts the
//! function's three environments before any request, serves requests
//! through the HTTP API, and meters the fleet's instance-seconds in the
//! served metrics document.

use std::time::{Duration, Instant};

use localcloud_metrics::MetricsDocument;

use crate::common::{get_json, http_call, managed_app};

async fn metrics(cloud: &localcloud::LocalCloud) -> MetricsDocument {
    let served = get_json(&format!("{}/_localcloud/metrics", cloud.endpoint())).await;
    MetricsDocument::from_value(served).expect("the contract holds")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_template_function_runs_on_its_capacity_providers_fleet() {
    // GIVEN the application, its minimum environments started
    let logs = tempfile::tempdir().unwrap();
    let cloud = managed_app(logs.path()).await;
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut doc = metrics(&cloud).await;
    while doc.lambda.capacity_providers["managed-fleet"].environments < 3
        && Instant::now() < deadline
    {
        tokio::time::sleep(Duration::from_millis(50)).await;
        doc = metrics(&cloud).await;
    }
    let fleet = &doc.lambda.capacity_providers["managed-fleet"];
    assert_eq!(fleet.instance_type, "m7i.large");
    assert_eq!((fleet.environments, fleet.instances), (3, 3), "{fleet:?}");
    // 2,048 MB at the default 2 GiB per vCPU: one vCPU each.
    assert_eq!(fleet.vcpus_allocated, 3.0);

    // WHEN a client calls the function through the HTTP API
    let api = cloud.stack().unwrap().api_urls()["Api"].clone();
    for _ in 0..3 {
        let (status, body) = http_call("GET", &format!("{api}/work"), "").await;
        assert_eq!(status, 200, "{body}");
        let answer: serde_json::Value = serde_json::from_str(&body).unwrap();
        // THEN it ran in a managed environment that was told its concurrency
        assert_eq!(answer["max_concurrency"], "8", "{answer}");
    }

    // AND the function and its fleet are metered
    let doc = metrics(&cloud).await;
    let function = doc
        .lambda
        .functions
        .iter()
        .find(|(name, _)| name.ends_with("-Concurrent"))
        .map(|(_, f)| f)
        .expect("the function is metered");
    assert_eq!(function.invocations, 3);
    let fleet = &doc.lambda.capacity_providers["managed-fleet"];
    assert!(fleet.instance_seconds > 0.0, "{fleet:?}");
    assert_eq!(fleet.scaling_refusals, 0);
    cloud.shutdown().await.unwrap();
}
