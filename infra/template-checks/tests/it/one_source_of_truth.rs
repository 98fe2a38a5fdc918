//! template.yaml is the one source of truth: every function it builds is a
//! binary of the workspace, every HTTP API has an output with its URL, and
//! the local cloud starts it and routes a request to every route.
//!
//! Requests carry no body and no token: a route is served when its function
//! answers at all (4xx included), not when the request succeeds.

use template_checks::routes::sample_request;
use template_checks::{load_template, workspace, workspace_root};

/// What API Gateway answers when no route matches.
const GATEWAY_NOT_FOUND: &str = r#"{"message":"Not Found"}"#;

/// The value sent for a greedy `{proxy+}` segment, by route path: a path the
/// function serves.
const PROXY_VALUES: &[(&str, &str)] = &[("/api/{proxy+}", "tags")];

#[test]
fn every_function_names_a_binary_of_the_workspace() {
    // GIVEN the template's functions and the workspace's bin targets
    let app = load_template().expect("template.yaml loads");
    let bins = workspace::binaries(&workspace_root()).expect("cargo metadata");
    for f in &app.functions {
        // WHEN the binary SAM would build is looked up
        let build = f.build.as_ref();
        assert_eq!(
            build.map(|b| b.method.as_str()),
            Some("rust-cargolambda"),
            "{}: Metadata.BuildMethod",
            f.logical_id
        );
        let binary = build.and_then(|b| b.binary.as_deref());
        // THEN it is a bin target of a workspace package
        let binary = binary.unwrap_or_else(|| panic!("{}: no binary", f.logical_id));
        assert!(
            bins.contains_key(binary),
            "{}: binary {binary} is not a [[bin]] of the workspace ({:?})",
            f.logical_id,
            bins.keys()
        );
    }
}

#[test]
fn every_function_runs_on_arm64_al2023_with_a_bootstrap() {
    let app = load_template().expect("template.yaml loads");
    for f in &app.functions {
        assert_eq!(f.runtime, "provided.al2023", "{}", f.logical_id);
        assert_eq!(f.architecture, "arm64", "{}", f.logical_id);
        assert_eq!(f.handler.as_deref(), Some("bootstrap"), "{}", f.logical_id);
    }
}

#[test]
fn every_http_api_has_an_output_with_its_url() {
    // GIVEN the template's HTTP APIs and outputs (the reader rewrites the AWS
    // URL shape to the API's local URL)
    let app = load_template().expect("template.yaml loads");
    for api in &app.http_apis {
        // WHEN the output the bench reads for it is looked up: API `XApi` is
        // published as output `XUrl` (loadtest/bench, target.rs)
        let stem = api
            .logical_id
            .strip_suffix("Api")
            .unwrap_or(&api.logical_id);
        let key = format!("{stem}Url");
        // THEN it exists and holds that API's URL
        assert_eq!(
            app.outputs.get(&key),
            Some(&api.url),
            "HTTP API {} needs an output {key} with its URL; outputs: {:?}",
            api.logical_id,
            app.outputs
        );
    }
}

#[test]
fn the_deploy_parameters_exist_and_the_secret_is_not_echoed() {
    // GIVEN the template's parameters (docs/deploy.md documents them)
    let app = load_template().expect("template.yaml loads");
    let param = |name: &str| app.parameters.iter().find(|p| p.name == name);
    // THEN the JWT secret is NoEcho and the experiment knobs exist
    let secret = param("JwtSecret").expect("parameter JwtSecret");
    assert!(secret.no_echo, "JwtSecret must be NoEcho");
    for knob in ["OrdersDelayMs", "OrdersBackendConcurrency"] {
        assert!(param(knob).is_some(), "parameter {knob}");
    }
}

#[tokio::test]
async fn the_local_cloud_serves_every_route_of_the_template() {
    // GIVEN the template started on the local cloud with its real binaries
    let app = load_template().expect("template.yaml loads");
    let (cloud, _logs) = crate::common::start_template(&app).await;
    let urls = cloud.stack().unwrap().api_urls().clone();
    // AND its orders table seeded, as the bench does before any run
    let orders_table = &app.table("OrdersTable").expect("OrdersTable").name;
    let ddb = bench::seed::local_client(&cloud.endpoint());
    bench::seed::seed_orders(&ddb, orders_table).await.unwrap();

    let mut unrouted = Vec::new();
    let mut requested = 0;
    for api in &app.http_apis {
        for route in &api.routes {
            let proxy = PROXY_VALUES
                .iter()
                .find(|(p, _)| *p == route.path)
                .map_or("probe", |(_, v)| v);
            let Some((method, path)) = sample_request(route, proxy) else {
                continue;
            };
            // WHEN a request is sent to the route
            let (status, body) =
                crate::common::request(&urls[&api.logical_id], &method, &path, "").await;
            requested += 1;
            // THEN it reaches the function and the function answers: not the
            // gateway's own 404 (a function may answer 404 for a missing
            // entity), not a connection failure nor a 5xx
            let gateway_not_found = status == 404 && body == GATEWAY_NOT_FOUND;
            if gateway_not_found || status == 0 || status >= 500 {
                unrouted.push(format!(
                    "{} {}: {method} {path} -> {status} {body}",
                    api.logical_id,
                    route.route_key()
                ));
            }
        }
    }
    cloud.shutdown().await.unwrap();
    eprintln!("{requested} routes requested");
    assert!(requested > 0, "the template has routes to request");
    assert!(
        unrouted.is_empty(),
        "routes not served:\n{}",
        unrouted.join("\n")
    );
}
