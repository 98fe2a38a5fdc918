//! `AutoPublishAlias` from a template (`tests/fixtures/versions-app.yaml`):
//! version 1 and the alias exist when the stack starts, on demand and on
//! Lambda Managed Instances; a qualified invoke through the alias runs
//! version 1; the HTTP API, the function URL and the SQS event source
//! mapping invoke the alias, as SAM's transform points them.

use aws_sdk_lambda::primitives::Blob;
use aws_sdk_lambda::types::FunctionVersion;
use aws_sdk_lambda::Client;
use serde_json::Value;

use std::time::{Duration, Instant};

use localcloud_metrics::MetricsDocument;

use crate::common::{get_json, http_call, sdk_config, versions_app};

fn lambda(cloud: &localcloud::LocalCloud) -> Client {
    Client::new(&sdk_config(&cloud.endpoint(), "us-east-1"))
}

/// Waits (up to 20 s) until the capacity provider's fleet runs the three
/// environments a managed function starts with: until then Lambda
/// Managed Instances throttle rather than wait for an init.
async fn wait_for_the_fleet(cloud: &localcloud::LocalCloud) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let served = get_json(&format!("{}/_localcloud/metrics", cloud.endpoint())).await;
        let doc = MetricsDocument::from_value(served).expect("the contract holds");
        let environments = doc
            .lambda
            .capacity_providers
            .get("versions-fleet")
            .map_or(0, |f| f.environments);
        if environments >= 3 || Instant::now() > deadline {
            assert!(
                environments >= 3,
                "the fleet runs {environments} environments"
            );
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The executed version of a synchronous invoke of `function` at `qualifier`.
async fn executed_version(lambda: &Client, function: &str, qualifier: Option<&str>) -> String {
    let output = lambda
        .invoke()
        .function_name(function)
        .set_qualifier(qualifier.map(str::to_string))
        .payload(Blob::new(r#"{"ms":1}"#))
        .send()
        .await
        .unwrap_or_else(|e| panic!("invoke {function} {qualifier:?}: {e:?}"));
    assert_eq!(output.function_error(), None, "{function} {qualifier:?}");
    output.executed_version().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_publish_alias_on_demand_publishes_version_1_and_routes_events_to_the_alias() {
    // GIVEN the application
    let logs = tempfile::tempdir().unwrap();
    let cloud = versions_app(logs.path()).await;
    let stack = cloud.stack().unwrap().clone();
    let echo = stack.app.function("Echo").unwrap().name.clone();
    let arn = stack.app.function("Echo").unwrap().arn.clone();
    let lambda = lambda(&cloud);

    // THEN the alias points at version 1, and Ref of Echo.Alias is its ARN
    let alias = lambda
        .get_alias()
        .function_name(&echo)
        .name("live")
        .send()
        .await
        .unwrap();
    assert_eq!(alias.function_version(), Some("1"));
    assert_eq!(alias.alias_arn(), Some(format!("{arn}:live").as_str()));
    assert_eq!(stack.app.outputs["EchoAlias"], format!("{arn}:live"));
    // AND a qualified invoke through the alias runs version 1
    assert_eq!(executed_version(&lambda, &echo, Some("live")).await, "1");
    assert_eq!(executed_version(&lambda, &echo, None).await, "$LATEST");

    // AND the HTTP API and the function URL invoke the alias
    let api = stack.api_urls()["Api"].clone();
    let url = stack.api_urls()["EchoUrl"].clone();
    for target in [format!("{api}/echo"), format!("{url}/")] {
        let (status, body) = http_call("GET", &target, "").await;
        assert_eq!(status, 200, "{target}: {body}");
        let answer: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(
            answer["context"]["invoked_function_arn"],
            format!("{arn}:live"),
            "{target}"
        );
    }
    // AND the queue's event source mapping names the alias
    let mappings = lambda
        .list_event_source_mappings()
        .function_name(&echo)
        .send()
        .await
        .unwrap();
    let functions: Vec<&str> = mappings
        .event_source_mappings()
        .iter()
        .filter_map(|m| m.function_arn())
        .collect();
    assert_eq!(functions, [format!("{arn}:live").as_str()]);
    // AND ListFunctions lists version 1 after the function with
    // FunctionVersion=ALL, and only $LATEST without
    for (all, want) in [(true, vec!["$LATEST", "1"]), (false, vec!["$LATEST"])] {
        let listed = lambda
            .list_functions()
            .set_function_version(all.then_some(FunctionVersion::All))
            .send()
            .await
            .unwrap();
        let versions: Vec<&str> = listed
            .functions()
            .iter()
            .filter(|f| f.function_name() == Some(echo.as_str()))
            .filter_map(|f| f.version())
            .collect();
        assert_eq!(versions, want, "FunctionVersion=ALL: {all}");
    }
    cloud.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_publish_alias_on_managed_instances_runs_version_1_and_latest_published() {
    // GIVEN the application
    let logs = tempfile::tempdir().unwrap();
    let cloud = versions_app(logs.path()).await;
    let stack = cloud.stack().unwrap().clone();
    let concurrent = stack.app.function("Concurrent").unwrap().name.clone();
    let arn = stack.app.function("Concurrent").unwrap().arn.clone();
    let lambda = lambda(&cloud);
    wait_for_the_fleet(&cloud).await;

    // THEN the function has $LATEST, version 1 and $LATEST.PUBLISHED, which
    // CloudFormation publishes for a function on a capacity provider
    let listed = lambda
        .list_versions_by_function()
        .function_name(&concurrent)
        .send()
        .await
        .unwrap();
    let versions: Vec<&str> = listed
        .versions()
        .iter()
        .filter_map(|v| v.version())
        .collect();
    assert_eq!(versions, ["$LATEST", "1", "$LATEST.PUBLISHED"]);
    assert_eq!(stack.app.outputs["ConcurrentVersion"], format!("{arn}:1"));
    // AND a qualified invoke through the alias runs version 1, an
    // unqualified one $LATEST.PUBLISHED
    assert_eq!(
        executed_version(&lambda, &concurrent, Some("live")).await,
        "1"
    );
    assert_eq!(
        executed_version(&lambda, &concurrent, None).await,
        "$LATEST.PUBLISHED"
    );
    // AND the HTTP API reaches it through the alias
    let api = stack.api_urls()["Api"].clone();
    let (status, body) = http_call("GET", &format!("{api}/work"), "").await;
    assert_eq!(status, 200, "{body}");
    let answer: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(answer["max_concurrency"], "8", "{answer}");
    cloud.shutdown().await.unwrap();
}
