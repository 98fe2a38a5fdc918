//! Lambda Managed Instances: capacity providers (SAM and CloudFormation
//! forms) and a function's `CapacityProviderConfig`.

use crate::{errors, find, load};

const PROVIDERS: &str = "Resources:
  Fleet:
    Type: AWS::Serverless::CapacityProvider
    Properties:
      VpcConfig: {SubnetIds: [subnet-1], SecurityGroupIds: [sg-1]}
      ScalingConfig: {MaxVCpuCount: 64, AverageCPUUtilization: 70.0}
  Raw:
    Type: AWS::Lambda::CapacityProvider
    Properties:
      CapacityProviderName: raw-fleet
      PermissionsConfig: {CapacityProviderOperatorRoleArn: arn:aws:iam::123456789012:role/op}
      VpcConfig: {SubnetIds: [subnet-1], SecurityGroupIds: [sg-1]}
      CapacityProviderScalingConfig:
        ScalingMode: Manual
        ScalingPolicies:
          - {PredefinedMetricType: LambdaCapacityProviderAverageCPUUtilization, TargetValue: 40}
";

fn with_function(config: &str, memory: u32) -> String {
    format!(
        "{PROVIDERS}  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
      MemorySize: {memory}
      CapacityProviderConfig:
{config}"
    )
}

#[test]
fn both_provider_forms_are_read_with_name_arn_and_max_vcpus() {
    let app = load(PROVIDERS);
    let [fleet, raw] = app.capacity_providers.as_slice() else {
        panic!("{:#?}", app.capacity_providers);
    };
    assert_eq!(fleet.name, "test-Fleet");
    assert_eq!(
        fleet.arn,
        "arn:aws:lambda:eu-west-1:123456789012:capacity-provider:test-Fleet"
    );
    assert_eq!(fleet.max_vcpu_count, Some(64));
    assert_eq!((raw.name.as_str(), raw.max_vcpu_count), ("raw-fleet", None));
    // The CPU targets the fleets scale to: SAM's and CloudFormation's forms
    assert_eq!(fleet.target_cpu_utilization, Some(70.0));
    assert_eq!(raw.target_cpu_utilization, Some(40.0));
    // The fleet's networking does nothing locally: warned; the scaling
    // settings are read, not warned.
    let warned: Vec<&str> = app.warnings.iter().map(|w| w.path.as_str()).collect();
    assert!(warned.contains(&"Properties.VpcConfig"), "{warned:?}");
    assert!(warned.iter().all(|w| !w.contains("Scaling")), "{warned:?}");
}

#[test]
fn a_cpu_target_that_is_no_percentage_or_policy_is_an_error() {
    for (scaling, path) in [
        (
            "ScalingConfig: {AverageCPUUtilization: 150}",
            "Properties.ScalingConfig.AverageCPUUtilization",
        ),
        (
            "ScalingConfig: {AverageCPUUtilization: high}",
            "Properties.ScalingConfig.AverageCPUUtilization",
        ),
    ] {
        let template = PROVIDERS.replace(
            "ScalingConfig: {MaxVCpuCount: 64, AverageCPUUtilization: 70.0}",
            scaling,
        );
        let found = errors(&template);
        assert!(found.iter().any(|d| d.path == path), "{scaling}: {found:?}");
    }
    let policy =
        "{PredefinedMetricType: LambdaCapacityProviderAverageCPUUtilization, TargetValue: 40}";
    for bad in [
        "{TargetValue: 40}",
        "{PredefinedMetricType: LambdaCapacityProviderAverageCPUUtilization, TargetValue: -1}",
        "{PredefinedMetricType: Memory, TargetValue: 40}",
    ] {
        let found = errors(&PROVIDERS.replace(policy, bad));
        let path = "Properties.CapacityProviderScalingConfig.ScalingPolicies";
        assert!(found.iter().any(|d| d.path == path), "{bad}: {found:?}");
    }
    let bad_mode = PROVIDERS.replace("ScalingMode: Manual", "ScalingMode: Sometimes");
    let found = errors(&bad_mode);
    assert!(
        found
            .iter()
            .any(|d| d.path == "Properties.CapacityProviderScalingConfig.ScalingMode"),
        "{found:?}"
    );
}

#[test]
fn function_config_names_its_provider_by_get_att_with_sams_defaults() {
    let app = load(&with_function("        Arn: !GetAtt Fleet.Arn\n", 2048));
    let config = app
        .function("Fn")
        .unwrap()
        .capacity_provider
        .clone()
        .unwrap();
    assert_eq!(config.provider.as_deref(), Some("Fleet"));
    assert_eq!(
        config.arn,
        "arn:aws:lambda:eu-west-1:123456789012:capacity-provider:test-Fleet"
    );
    assert_eq!(config.memory_gib_per_vcpu, 2);
    assert_eq!(config.per_environment_max_concurrency, None);
}

#[test]
fn function_config_reads_ratio_and_concurrency() {
    let app = load(&with_function(
        "        Arn: !Sub arn:aws:lambda:${AWS::Region}:${AWS::AccountId}:capacity-provider:raw-fleet
        ExecutionEnvironmentMemoryGiBPerVCpu: 4.0
        PerExecutionEnvironmentMaxConcurrency: 100
",
        8192,
    ));
    let config = app
        .function("Fn")
        .unwrap()
        .capacity_provider
        .clone()
        .unwrap();
    assert_eq!(config.provider.as_deref(), Some("Raw"));
    assert_eq!(config.memory_gib_per_vcpu, 4);
    assert_eq!(config.per_environment_max_concurrency, Some(100));
    let on_demand = load(PROVIDERS);
    assert!(on_demand.functions.is_empty());
}

#[test]
fn a_provider_outside_the_template_is_accepted_by_arn() {
    let app = load(&with_function(
        "        Arn: arn:aws:lambda:us-east-1:999999999999:capacity-provider:shared\n",
        4096,
    ));
    let config = app
        .function("Fn")
        .unwrap()
        .capacity_provider
        .clone()
        .unwrap();
    assert_eq!(config.provider, None);
}

#[test]
fn invalid_values_are_errors_as_lambda_validates_them() {
    // (CapacityProviderConfig body, MemorySize, the error it must give)
    let cases = [
        (
            "Arn: !GetAtt Fleet.Arn\n        ExecutionEnvironmentMemoryGiBPerVCpu: 3\n",
            4096,
            "must be 2, 4 or 8",
        ),
        (
            "Arn: !GetAtt Fleet.Arn\n        PerExecutionEnvironmentMaxConcurrency: 1601\n",
            4096,
            "must be between 1 and 1600",
        ),
        (
            "Arn: !GetAtt Fleet.Arn\n        PerExecutionEnvironmentMaxConcurrency: 0\n",
            4096,
            "must be between 1 and 1600",
        ),
        ("Arn: !GetAtt Fleet.Arn\n", 1024, "at least 2048 MB"),
        // 4 GiB per vCPU needs 4 GiB for one vCPU.
        (
            "Arn: !GetAtt Fleet.Arn\n        ExecutionEnvironmentMemoryGiBPerVCpu: 4\n",
            2048,
            "at least 4096 MB",
        ),
        (
            "Arn: !GetAtt Fn.Arn\n",
            2048,
            "is not a capacity provider ARN",
        ),
        (
            "PerExecutionEnvironmentMaxConcurrency: 10\n",
            2048,
            "Arn is required",
        ),
    ];
    for (config, memory_mb, error) in cases {
        find(
            &errors(&with_function(&format!("        {config}"), memory_mb)),
            error,
        );
    }
    let unknown = errors(&with_function(
        "        Arn: !GetAtt Fleet.Arn\n        Weight: 1\n",
        2048,
    ));
    let d = find(&unknown, "CapacityProviderConfig.Weight");
    assert_eq!(d.logical_id.as_deref(), Some("Fn"));
}

#[test]
fn provider_names_are_checked() {
    let errs = errors(
        "Resources:
  Fleet:
    Type: AWS::Lambda::CapacityProvider
    Properties:
      CapacityProviderName: my.fleet
",
    );
    find(&errs, "capacity provider name `my.fleet`");
}

#[test]
fn instance_requirements_give_the_architecture_and_the_allowed_or_excluded_types() {
    let app = load(
        "Resources:
  Sam:
    Type: AWS::Serverless::CapacityProvider
    Properties:
      InstanceRequirements: {Architectures: [arm64], AllowedTypes: [m7g.xlarge, c7g.large]}
  Cfn:
    Type: AWS::Lambda::CapacityProvider
    Properties:
      InstanceRequirements: {AllowedInstanceTypes: [c7i.large]}
  Bare:
    Type: AWS::Serverless::CapacityProvider
    Properties:
      InstanceRequirements: {ExcludedTypes: [t2.micro]}
  CfnExcluding:
    Type: AWS::Lambda::CapacityProvider
    Properties:
      InstanceRequirements: {ExcludedInstanceTypes: [c7i.xlarge, c7i.large]}
",
    );
    let [sam, cfn, bare, excluding] = app.capacity_providers.as_slice() else {
        panic!("{:#?}", app.capacity_providers);
    };
    assert_eq!(sam.architecture, "arm64");
    assert_eq!(sam.allowed_instance_types, ["m7g.xlarge", "c7g.large"]);
    assert_eq!(cfn.architecture, "x86_64");
    assert_eq!(cfn.allowed_instance_types, ["c7i.large"]);
    assert_eq!(bare.architecture, "x86_64");
    assert!(bare.allowed_instance_types.is_empty());
    assert_eq!(bare.excluded_instance_types, ["t2.micro"]);
    assert!(sam.excluded_instance_types.is_empty());
    assert_eq!(
        excluding.excluded_instance_types,
        ["c7i.xlarge", "c7i.large"]
    );
    assert!(
        !app.warnings
            .iter()
            .any(|w| w.path.contains("InstanceRequirements")),
        "{:?}",
        app.warnings
    );
}

#[test]
fn instance_requirements_are_checked() {
    for (requirements, expected) in [
        (
            "{AllowedTypes: [c7g.large], ExcludedTypes: [t2.micro]}",
            "not both",
        ),
        ("{Architectures: [arm64, x86_64]}", "one of x86_64 or arm64"),
        ("{Architectures: [sparc]}", "one of x86_64 or arm64"),
        ("{AllowedTypes: c7g.large}", "must be a list of strings"),
        (
            "{AllowedInstanceTypes: [c7g.large]}",
            "AllowedInstanceTypes",
        ),
    ] {
        let errs = errors(&format!(
            "Resources:
  Fleet:
    Type: AWS::Serverless::CapacityProvider
    Properties:
      InstanceRequirements: {requirements}
"
        ));
        assert!(
            errs.iter().any(|e| e.to_string().contains(expected)),
            "{requirements}: {errs:?}"
        );
    }
}
