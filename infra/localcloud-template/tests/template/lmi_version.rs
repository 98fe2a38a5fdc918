//! template-lmi.yaml is template.yaml on Lambda Managed Instances: generated
//! by `localcloud lmi-template`, and checked here so the two cannot drift.

use localcloud_template::{
    lmi_variant, load, Application, ResolveContext, LMI_CAPACITY_PROVIDER, LMI_MIN_MEMORY_MB,
};

use crate::rest_version::{load_repo, read};

#[test]
fn template_lmi_yaml_is_what_template_yaml_generates() {
    let generated = lmi_variant(&read("template.yaml")).expect("template.yaml has an LMI version");
    assert!(
        generated == read("template-lmi.yaml"),
        "template-lmi.yaml is out of date: run\n  cargo run -p localcloud -- lmi-template > template-lmi.yaml"
    );
}

#[test]
fn the_lmi_version_runs_every_function_on_the_capacity_provider_and_nothing_else_changes() {
    let on_demand = load_repo("template.yaml");
    let managed: Application = load_repo("template-lmi.yaml");
    let [provider] = managed.capacity_providers.as_slice() else {
        panic!("one capacity provider: {:?}", managed.capacity_providers);
    };
    assert_eq!(provider.logical_id, LMI_CAPACITY_PROVIDER);
    // The instances are of the functions' architecture (arm64 by default).
    assert_eq!(provider.architecture, on_demand.functions[0].architecture);
    assert_eq!(managed.functions.len(), on_demand.functions.len());
    for (od, lmi) in on_demand.functions.iter().zip(&managed.functions) {
        let config = lmi
            .capacity_provider
            .as_ref()
            .unwrap_or_else(|| panic!("{} is not on the capacity provider", lmi.logical_id));
        assert_eq!(config.provider.as_deref(), Some(LMI_CAPACITY_PROVIDER));
        assert_eq!(config.arn, provider.arn);
        assert_eq!(config.memory_gib_per_vcpu, 2);
        assert_eq!(
            u64::from(lmi.memory_size),
            u64::from(od.memory_size).max(LMI_MIN_MEMORY_MB),
            "{}",
            lmi.logical_id
        );
        // The rest of each function is the same.
        let same = localcloud_template::Function {
            memory_size: od.memory_size,
            capacity_provider: None,
            ..lmi.clone()
        };
        assert!(
            same == *od,
            "{} differs beyond memory and compute",
            od.logical_id
        );
    }
    assert!(managed.tables == on_demand.tables, "the tables differ");
    assert!(managed.queues == on_demand.queues, "the queues differ");
    assert!(managed.http_apis == on_demand.http_apis, "the APIs differ");
    assert_eq!(managed.outputs, on_demand.outputs);
}

#[test]
fn the_placeholder_network_can_be_given_at_deploy_time() {
    let mut ctx = ResolveContext::default();
    for (name, value) in [
        ("JwtSecret", "a-fixed-secret-of-at-least-32-bytes"),
        ("CapacityProviderSubnetIds", "subnet-1,subnet-2,subnet-3"),
        ("CapacityProviderSecurityGroupIds", "sg-1"),
    ] {
        ctx.parameter_overrides.insert(name.into(), value.into());
    }
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../template-lmi.yaml");
    let app = load(path, &ctx).expect("loads with the network given");
    assert_eq!(app.capacity_providers.len(), 1);
}
