//! The route table is written twice: in template.yaml (which function each
//! HTTP API route invokes) and in `cluster::service_of` (which service owns
//! each conduit route, the in-process cluster's routing). These tests read
//! the template and fail where the two disagree.

use std::path::Path;

use conduit::http::routes::{patterns, route};
use conduit_micro::cluster::{service_of, Cluster};
use conduit_micro::Service;
use localcloud_apigw::{RouteConfig, RouteTable};
use localcloud_template::{Application, ResolveContext};

/// The HTTP APIs of the microservice variants.
const MICRO_APIS: [&str; 2] = ["ConduitMicroInvokeApi", "ConduitMicroQueueApi"];

fn template() -> Application {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../template.yaml");
    let ctx = ResolveContext {
        generate_no_echo: true,
        ..ResolveContext::default()
    };
    localcloud_template::load(path, &ctx).expect("template.yaml loads")
}

/// The API's routes as API Gateway matches them (most specific first).
fn route_table(app: &Application, api: &str) -> RouteTable {
    let routes: Vec<RouteConfig> = app
        .http_api(api)
        .unwrap_or_else(|| panic!("{api} is in template.yaml"))
        .routes
        .iter()
        .map(|r| RouteConfig::new(&r.method, &r.path, &r.function))
        .collect();
    RouteTable::new(api, &routes).expect("the API's routes are valid")
}

/// The service a function of the template is (its `CONDUIT_SERVICE`).
fn service_of_function(app: &Application, logical_id: &str) -> Service {
    let function = app.function(logical_id).expect("routes name functions");
    function
        .environment
        .get("CONDUIT_SERVICE")
        .unwrap_or_else(|| panic!("{logical_id} has no CONDUIT_SERVICE"))
        .parse()
        .expect("CONDUIT_SERVICE names a service")
}

/// A request path for a conduit pattern, `{}` filled with a sample value.
fn sample_path(pattern: &str) -> String {
    format!("/api/{}", pattern.replace("{}", "x"))
}

/// A request path for a template path, each `{parameter}` filled with a sample value.
fn filled(template_path: &str) -> String {
    template_path
        .split('/')
        .map(|segment| {
            if segment.starts_with('{') {
                "x"
            } else {
                segment
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

#[test]
fn every_conduit_route_reaches_the_function_of_the_service_that_owns_it() {
    // GIVEN the micro APIs' routes in template.yaml
    let app = template();
    let mut disagreements = Vec::new();
    for api in MICRO_APIS {
        let table = route_table(&app, api);
        // WHEN each route conduit serves is sent to the API
        for (method, pattern) in patterns() {
            let path = sample_path(pattern);
            let owner = service_of(&route(method, &path).expect("a conduit route"));
            let function = table
                .find(method.as_str(), &path)
                .expect("the catch-all takes every path")
                .function;
            // THEN it lands on the function of the service `service_of` names
            let served_by = service_of_function(&app, function);
            if served_by != owner {
                disagreements.push(format!(
                    "{api}: {method} {path} goes to {function} ({served_by}), service_of says {owner}"
                ));
            }
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}

#[test]
fn every_template_route_of_a_service_is_a_conduit_route_that_service_owns() {
    // GIVEN the micro APIs' routes in template.yaml
    let app = template();
    let mut disagreements = Vec::new();
    for api in MICRO_APIS {
        for declared in &app.http_api(api).expect("the API exists").routes {
            // The catch-all: conduit's own 404 and 405, from users.
            if declared.path.ends_with("+}") {
                continue;
            }
            // WHEN the route's path is asked of conduit's router
            let method = declared.method.parse().expect("an HTTP method");
            let path = filled(&declared.path);
            let served_by = service_of_function(&app, &declared.function);
            // THEN conduit serves it, and from the service of that function
            match route(&method, &path) {
                Ok(known) if service_of(&known) == served_by => {}
                Ok(known) => disagreements.push(format!(
                    "{api}: {} is on {} ({served_by}), service_of says {}",
                    declared.route_key(),
                    declared.function,
                    service_of(&known)
                )),
                Err(_) => disagreements.push(format!(
                    "{api}: {} is no conduit route",
                    declared.route_key()
                )),
            }
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}

#[test]
fn paths_no_service_serves_go_to_users_in_the_template_and_in_the_cluster() {
    // GIVEN a path conduit has no route for
    let app = template();
    let unrouted = conduit::ApiRequest {
        method: http::Method::GET,
        path: "/api/nowhere".into(),
        query: Default::default(),
        headers: Default::default(),
        body: Default::default(),
    };
    // THEN the in-process cluster sends it to users
    assert_eq!(Cluster::service_for(&unrouted), Service::Users);
    for api in MICRO_APIS {
        // AND so does each micro API's catch-all
        let table = route_table(&app, api);
        let found = table
            .find("GET", &unrouted.path)
            .expect("a catch-all route");
        let function = found.function;
        assert_eq!(service_of_function(&app, function), Service::Users, "{api}");
    }
}
