//! The bench driver and template.yaml name the same things: every variant the
//! bench measures is an HTTP API of the template, every HTTP API is measured,
//! and every function and queue is billed to exactly one variant.

use template_checks::load_template;

#[test]
fn every_bench_variant_is_an_api_of_the_template_and_every_api_a_variant() {
    let app = load_template().expect("template.yaml loads");
    let apis: Vec<&str> = app
        .http_apis
        .iter()
        .map(|a| a.logical_id.as_str())
        .collect();
    for variant in bench::variants::ALL {
        assert!(
            apis.contains(&variant.api),
            "bench variant {} measures {}, which template.yaml does not define (APIs: {apis:?})",
            variant.name,
            variant.api
        );
    }
    for api in &apis {
        assert!(
            bench::variants::ALL.iter().any(|v| v.api == *api),
            "template.yaml's HTTP API {api} is measured by no bench variant"
        );
    }
}

#[test]
fn every_function_is_billed_to_exactly_one_variant() {
    let app = load_template().expect("template.yaml loads");
    for function in &app.functions {
        let owners: Vec<&str> = bench::variants::ALL
            .iter()
            .filter(|v| v.owns_function(&function.name))
            .map(|v| v.name)
            .collect();
        assert_eq!(
            owners.len(),
            1,
            "function {} ({}) is billed to {owners:?}",
            function.logical_id,
            function.name
        );
    }
}

#[test]
fn every_queue_is_billed_to_exactly_one_variant() {
    let app = load_template().expect("template.yaml loads");
    for queue in &app.queues {
        let owners: Vec<&str> = bench::variants::ALL
            .iter()
            .filter(|v| v.owns_queue(&queue.arn))
            .map(|v| v.name)
            .collect();
        assert_eq!(
            owners.len(),
            1,
            "queue {} is billed to {owners:?}",
            queue.name
        );
    }
}

#[test]
fn every_route_of_a_variant_reaches_only_that_variants_functions() {
    let app = load_template().expect("template.yaml loads");
    for api in &app.http_apis {
        let variant = bench::variants::ALL
            .iter()
            .find(|v| v.api == api.logical_id)
            .expect("checked above");
        for route in &api.routes {
            let function = app
                .function(&route.function)
                .expect("routes name functions");
            assert!(
                variant.owns_function(&function.name),
                "{} route {} goes to {}, which variant {} does not own",
                api.logical_id,
                route.route_key(),
                function.name,
                variant.name
            );
        }
    }
}

#[test]
fn every_function_has_a_log_group_kept_as_long_as_the_cost_model_prices_it() {
    // GIVEN the template's text and its functions
    let app = load_template().expect("template.yaml loads");
    let text = std::fs::read_to_string(template_checks::workspace_root().join("template.yaml"))
        .expect("template.yaml is readable");
    // THEN each function has the log group Lambda writes to, with the retention parameter
    for f in &app.functions {
        let group = format!("LogGroupName: !Sub \"/aws/lambda/${{{}}}\"", f.logical_id);
        assert!(
            text.contains(&group),
            "{}: no log group {group}",
            f.logical_id
        );
    }
    let retention = "RetentionInDays: !Ref LogRetentionInDays";
    assert_eq!(text.matches(retention).count(), app.functions.len());
    // AND the bench prices storage over the template's default retention
    let defaults = bench::driver::template_defaults(&text);
    assert_eq!(
        bench::pricing::log_retention_days(&defaults),
        Some(costmodel::DEFAULT_LOG_RETENTION_DAYS)
    );
}
