//! The Lambda Managed Instances version of a template: one capacity provider
//! (`AWS::Lambda::CapacityProvider`) that every function runs on through
//! its `CapacityProviderConfig`, memory raised to LMI's 2,048 MB floor.
//! Everything else is kept, so the two versions deploy the same application
//! on the two compute types. A property the change cannot carry (a memory
//! size that is not a number) is an error naming its place.
//!
//! A separate template rather than a parameter: "This configuration
//! determines the compute type of a function and needs to be specified
//! during the first function deployment. It can't be added or removed after
//! the function resource has been created."
//! (https://docs.aws.amazon.com/serverless-application-model/latest/developerguide/sam-property-function-capacityproviderconfig.html)
//!
//! No alias or version is added: "When you invoke a Lambda Managed Instances
//! function using an unqualified ARN, Lambda implicitly invokes the
//! $LATEST.PUBLISHED version", which CloudFormation creates
//! (https://docs.aws.amazon.com/lambda/latest/dg/lambda-managed-instances-version-publishing.html),
//! so the APIs, event source mappings and direct invokes stay as they are.

use crate::emit::emit;
use crate::variant::{
    entries, entry, error, map_entry, map_entry_or_empty, parse, text, VariantError,
};
use crate::yaml::{self, Kind, Node};

/// The logical id of the capacity provider every function runs on.
pub const LMI_CAPACITY_PROVIDER: &str = "FunctionsCapacityProvider";

/// The least memory of a function on Lambda Managed Instances: "The memory
/// ratio per CPU can't exceed function's total memory of 2048MB" (the SAM
/// page above), one vCPU at 2 GiB per vCPU.
pub const LMI_MIN_MEMORY_MB: u64 = 2048;

const HEADER: &str = "\
# GENERATED from template.yaml by `localcloud lmi-template`: do not edit.
# The same application on Lambda Managed Instances: every function on one
# capacity provider (docs/managed-instances.md). A test fails when this file
# and template.yaml drift apart; regenerate with
#   cargo run -p localcloud -- lmi-template > template-lmi.yaml
";

const PARAMETERS: &str = "
CapacityProviderSubnetIds:
  Type: CommaDelimitedList
  Default: subnet-00000000000000000
  Description: >
    Subnets the capacity provider's instances run in (AWS spreads them over
    three Availability Zones). The default is a placeholder the local cloud
    accepts and AWS refuses: on AWS give your VPC's subnets at deploy time.
CapacityProviderSecurityGroupIds:
  Type: CommaDelimitedList
  Default: sg-00000000000000000
  Description: >
    Security groups of the capacity provider's instances (outbound HTTPS to
    DynamoDB, SQS and Lambda). The default is a placeholder the local cloud
    accepts and AWS refuses: on AWS give yours at deploy time.
";

/// The concurrency parameter of the orders functions (see
/// [`IO_BOUND_FUNCTIONS`]), added when the template has one.
const ORDERS_CONCURRENCY: &str = "
OrdersPerExecutionEnvironmentMaxConcurrency:
  Type: Number
  Default: 64
  MinValue: 1
  MaxValue: 1600
  Description: >
    Invocations one environment of an orders function serves at once. They
    wait OrdersDelayMs and spend about a millisecond of CPU, and AWS advises
    raising the maximum concurrency, up to 64 per vCPU, for functions that
    use little CPU; the runtime's default (8 per vCPU for Rust) would leave
    three environments 24 slots.
";

/// Functions (by logical id prefix) that wait far more than they compute,
/// and the parameter that sets how many invocations one of their
/// environments serves at once ("Scaling Lambda Managed Instances",
/// "Maximum concurrency": "If your function invocations use very little
/// CPU, you can increase max concurrency (up to 64 per vCPU)",
/// https://docs.aws.amazon.com/lambda/latest/dg/lambda-managed-instances-scaling.html).
/// Three environments at 8 per vCPU hold 24 invocations, and the fleet at
/// most doubles in five minutes: the orders ramps (50 to 200 users in
/// seconds, each request 500 ms) were 78-99 % throttled at the default.
/// Entries: (prefix, parameter, its declaration).
const IO_BOUND_FUNCTIONS: &[(&str, &str, &str)] = &[(
    "Orders",
    "OrdersPerExecutionEnvironmentMaxConcurrency",
    ORDERS_CONCURRENCY,
)];

/// What SAM makes of an `AWS::Serverless::CapacityProvider` without an
/// `OperatorRole` (https://docs.aws.amazon.com/serverless-application-model/latest/developerguide/sam-specification-generated-resources-capacityprovider.html),
/// written out: cfn-lint knows no attribute of the SAM type and refuses
/// `!GetAtt ....Arn` on it, which the SAM page documents. The operator role
/// is Lambda's own (https://docs.aws.amazon.com/lambda/latest/dg/lambda-managed-instances-operator-role.html).
const PROVIDER: &str = "
FunctionsCapacityProviderOperatorRole:
  Type: AWS::IAM::Role
  Properties:
    AssumeRolePolicyDocument:
      Version: '2012-10-17'
      Statement:
        - Effect: Allow
          Principal:
            Service: lambda.amazonaws.com
          Action: sts:AssumeRole
    ManagedPolicyArns:
      - !Sub arn:${AWS::Partition}:iam::aws:policy/AWSLambdaManagedEC2ResourceOperator
FunctionsCapacityProvider:
  Type: AWS::Lambda::CapacityProvider
  Properties:
    PermissionsConfig:
      CapacityProviderOperatorRoleArn: !GetAtt FunctionsCapacityProviderOperatorRole.Arn
    VpcConfig:
      SubnetIds: !Ref CapacityProviderSubnetIds
      SecurityGroupIds: !Ref CapacityProviderSecurityGroupIds
";

/// 2 GiB per vCPU: a 2,048 MB environment has one vCPU.
const FUNCTION_CONFIG: &str = "
Arn: !GetAtt FunctionsCapacityProvider.Arn
ExecutionEnvironmentMemoryGiBPerVCpu: 2
";

/// The Lambda Managed Instances version of `template` (YAML text).
pub fn lmi_variant(template: &str) -> Result<String, Vec<VariantError>> {
    let mut root = parse(template)?;
    let mut errors = Vec::new();
    let parameters = map_entry_or_empty(&mut root, "Parameters");
    if let Kind::Map(list) = &mut parameters.value.kind {
        list.extend(map_of(PARAMETERS));
    }
    let globals = map_entry_or_empty(&mut root, "Globals");
    let function_globals = map_entry_or_empty(&mut globals.value, "Function");
    let architectures = function_globals.value.get("Architectures").cloned();
    raise_memory(
        &mut function_globals.value,
        "Globals.Function",
        true,
        &mut errors,
    );
    let resources = map_entry_or_empty(&mut root, "Resources");
    let mut used_parameters = Vec::new();
    for e in entries(&mut resources.value) {
        if text(e.value.get("Type")) == Some("AWS::Serverless::Function") {
            let at = format!("Resources.{}.Properties", e.key);
            let io_bound = IO_BOUND_FUNCTIONS
                .iter()
                .find(|(prefix, _, _)| e.key.starts_with(prefix));
            let concurrency = io_bound.map(|&(_, parameter, _)| parameter);
            let props = map_entry_or_empty(&mut e.value, "Properties");
            let attached = attach_to_provider(&mut props.value, &at, concurrency, &mut errors);
            if let (true, Some(&(_, _, declaration))) = (attached, io_bound) {
                if !used_parameters.contains(&declaration) {
                    used_parameters.push(declaration);
                }
            }
        }
    }
    let mut added = map_of(PROVIDER);
    if let Some(architectures) = architectures {
        // The instances must be of the functions' architecture.
        let provider = added.iter_mut().find(|e| e.key == LMI_CAPACITY_PROVIDER);
        let props = map_entry_or_empty(&mut provider.expect("in PROVIDER").value, "Properties");
        let requirements = Node {
            kind: Kind::Map(vec![architectures]),
            line: 0,
        };
        if let Kind::Map(list) = &mut props.value.kind {
            list.push(entry("InstanceRequirements", requirements));
        }
    }
    if let Kind::Map(list) = &mut resources.value.kind {
        list.splice(0..0, added);
    }
    let parameters = map_entry_or_empty(&mut root, "Parameters");
    if let Kind::Map(list) = &mut parameters.value.kind {
        for declaration in used_parameters {
            list.extend(map_of(declaration));
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(format!("{HEADER}{}", emit(&root)))
}

/// A function's properties on the capacity provider, at LMI's memory floor;
/// its environments' concurrency from `concurrency` (a parameter's name)
/// where given, the runtime's default otherwise. False when the function
/// already had a provider (kept as it is).
fn attach_to_provider(
    props: &mut Node,
    at: &str,
    concurrency: Option<&str>,
    errors: &mut Vec<VariantError>,
) -> bool {
    raise_memory(props, at, false, errors);
    if props.get("CapacityProviderConfig").is_some() {
        return false;
    }
    let mut config = FUNCTION_CONFIG.to_string();
    if let Some(parameter) = concurrency {
        config.push_str(&format!(
            "PerExecutionEnvironmentMaxConcurrency: !Ref {parameter}\n"
        ));
    }
    if let Kind::Map(list) = &mut props.kind {
        list.push(entry("CapacityProviderConfig", snippet(&config)));
    }
    true
}

/// `MemorySize` raised to [`LMI_MIN_MEMORY_MB`] where it is lower; set to it
/// where it is missing and `add` is true (the globals).
fn raise_memory(props: &mut Node, at: &str, add: bool, errors: &mut Vec<VariantError>) {
    // A plain scalar, so that it is emitted as a number.
    let floor = || map_of(&format!("MemorySize: {LMI_MIN_MEMORY_MB}")).remove(0);
    match map_entry(props, "MemorySize") {
        Some(memory) => match memory.value.text().and_then(|t| t.parse::<u64>().ok()) {
            Some(mb) if mb >= LMI_MIN_MEMORY_MB => {}
            Some(_) => memory.value = floor().value,
            None => error(
                errors,
                memory.key_line,
                &format!("{at}.MemorySize"),
                "must be a number of MB to be raised to Lambda Managed Instances' 2048",
            ),
        },
        None if add => {
            if let Kind::Map(list) = &mut props.kind {
                list.push(floor());
            }
        }
        None => {}
    }
}

/// A constant YAML snippet as a tree.
fn snippet(yaml_text: &str) -> Node {
    yaml::parse(yaml_text).expect("the variant's own snippets parse")
}

fn map_of(yaml_text: &str) -> Vec<crate::yaml::Entry> {
    match snippet(yaml_text).kind {
        Kind::Map(list) => list,
        _ => unreachable!("the snippets are maps"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const APP: &str = "\
Globals:
  Function:
    Architectures: [x86_64]
    MemorySize: 128
Resources:
  Small:
    Type: AWS::Serverless::Function
    Properties:
      MemorySize: 256
  Large:
    Type: AWS::Serverless::Function
    Properties:
      MemorySize: 4096
  Table:
    Type: AWS::DynamoDB::Table
";

    fn function<'a>(root: &'a Node, name: &str) -> &'a Node {
        &root
            .get("Resources")
            .unwrap()
            .value
            .get(name)
            .unwrap()
            .value
            .get("Properties")
            .unwrap()
            .value
    }

    #[test]
    fn every_function_runs_on_the_provider_with_at_least_2048_mb() {
        let generated = lmi_variant(APP).expect("a managed version");
        let root = yaml::parse(&generated).unwrap();
        let globals = &root
            .get("Globals")
            .unwrap()
            .value
            .get("Function")
            .unwrap()
            .value;
        assert_eq!(text(globals.get("MemorySize")), Some("2048"));
        assert_eq!(
            text(function(&root, "Small").get("MemorySize")),
            Some("2048")
        );
        assert_eq!(
            text(function(&root, "Large").get("MemorySize")),
            Some("4096")
        );
        for name in ["Small", "Large"] {
            let config = &function(&root, name)
                .get("CapacityProviderConfig")
                .unwrap()
                .value;
            let arn = &config.get("Arn").unwrap().value;
            let target: Vec<_> = arn
                .get("Fn::GetAtt")
                .unwrap()
                .value
                .seq()
                .unwrap()
                .iter()
                .map(Node::text)
                .collect();
            assert_eq!(target, [Some(LMI_CAPACITY_PROVIDER), Some("Arn")], "{name}");
        }
        let provider = &root
            .get("Resources")
            .unwrap()
            .value
            .get(LMI_CAPACITY_PROVIDER)
            .unwrap()
            .value;
        assert_eq!(
            text(provider.get("Type")),
            Some("AWS::Lambda::CapacityProvider")
        );
        let requirements = &provider
            .get("Properties")
            .unwrap()
            .value
            .get("InstanceRequirements")
            .unwrap()
            .value;
        let architectures = requirements
            .get("Architectures")
            .unwrap()
            .value
            .seq()
            .unwrap();
        assert_eq!(architectures[0].text(), Some("x86_64"));
        let table = &root
            .get("Resources")
            .unwrap()
            .value
            .get("Table")
            .unwrap()
            .value;
        assert!(
            table.get("Properties").is_none(),
            "other resources are left alone"
        );
        let parameters = root.get("Parameters").unwrap().value.map().unwrap();
        let names: Vec<&str> = parameters.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(
            names,
            [
                "CapacityProviderSubnetIds",
                "CapacityProviderSecurityGroupIds"
            ]
        );
    }

    #[test]
    fn orders_functions_serve_as_many_at_once_as_the_parameter_says() {
        let app = APP.replace("  Small:", "  OrdersSmall:");
        let root = yaml::parse(&lmi_variant(&app).unwrap()).unwrap();
        let config = |name| {
            function(&root, name)
                .get("CapacityProviderConfig")
                .unwrap()
                .value
                .clone()
        };
        let orders = config("OrdersSmall");
        let reference = &orders
            .get("PerExecutionEnvironmentMaxConcurrency")
            .expect("the orders function's concurrency is set")
            .value;
        assert_eq!(
            text(reference.get("Ref")),
            Some("OrdersPerExecutionEnvironmentMaxConcurrency")
        );
        assert!(
            config("Large")
                .get("PerExecutionEnvironmentMaxConcurrency")
                .is_none(),
            "other functions keep the runtime's default"
        );
        let parameters = &root.get("Parameters").unwrap().value;
        let declared = &parameters
            .get("OrdersPerExecutionEnvironmentMaxConcurrency")
            .expect("declared")
            .value;
        assert_eq!(text(declared.get("Default")), Some("64"));
    }

    #[test]
    fn a_memory_size_that_is_not_a_number_is_named() {
        let app = APP.replace("MemorySize: 256", "MemorySize: !Ref Memory");
        let errors = lmi_variant(&app).unwrap_err();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].path, "Resources.Small.Properties.MemorySize");
        assert_eq!(errors[0].line, 9);
    }

    #[test]
    fn a_function_already_on_a_provider_keeps_it() {
        let app = APP.replace(
            "      MemorySize: 4096\n",
            "      MemorySize: 4096\n      CapacityProviderConfig:\n        Arn: arn:aws:lambda:us-east-1:123456789012:capacity-provider:mine\n",
        );
        let root = yaml::parse(&lmi_variant(&app).unwrap()).unwrap();
        let config = &function(&root, "Large")
            .get("CapacityProviderConfig")
            .unwrap()
            .value;
        assert!(text(config.get("Arn")).unwrap().ends_with(":mine"));
    }
}
