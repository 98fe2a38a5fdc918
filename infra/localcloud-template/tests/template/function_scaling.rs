//! A function's `FunctionScalingConfig` (Lambda Managed Instances): read
//! beside its `CapacityProviderConfig`, checked as Lambda checks it.

use localcloud_template::FunctionScaling;

use crate::{errors, find, load};

/// A capacity provider and a function on it with `scaling` as its
/// `FunctionScalingConfig` body (none when empty).
fn on_provider(scaling: &str) -> String {
    let scaling = if scaling.is_empty() {
        String::new()
    } else {
        format!("      FunctionScalingConfig:\n{scaling}")
    };
    format!(
        "Resources:
  Fleet:
    Type: AWS::Serverless::CapacityProvider
    Properties:
      VpcConfig: {{SubnetIds: [subnet-1], SecurityGroupIds: [sg-1]}}
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
      MemorySize: 2048
      CapacityProviderConfig:
        Arn: !GetAtt Fleet.Arn
{scaling}"
    )
}

fn scaling_of(template: &str) -> FunctionScaling {
    let app = load(template);
    let function = app.function("Fn").unwrap();
    function.capacity_provider.as_ref().unwrap().scaling
}

#[test]
fn min_and_max_execution_environments_are_read() {
    let scaling = scaling_of(&on_provider(
        "        MinExecutionEnvironments: 5\n        MaxExecutionEnvironments: 20\n",
    ));
    assert_eq!(scaling.min_execution_environments, Some(5));
    assert_eq!(scaling.max_execution_environments, Some(20));
    // Unset: Lambda's defaults (the service's 3 and no maximum).
    assert_eq!(scaling_of(&on_provider("")), FunctionScaling::default());
    // Both 0: the function is deactivated.
    let off = scaling_of(&on_provider(
        "        MinExecutionEnvironments: 0\n        MaxExecutionEnvironments: 0\n",
    ));
    assert_eq!(off.max_execution_environments, Some(0));
}

#[test]
fn invalid_bounds_are_errors_as_lambda_validates_them() {
    let cases = [
        (
            "MinExecutionEnvironments: 15001\n",
            "must be between 0 and 15000",
        ),
        (
            "MinExecutionEnvironments: 0\n        MaxExecutionEnvironments: 4\n",
            "only valid with MaxExecutionEnvironments 0",
        ),
        (
            "MinExecutionEnvironments: 8\n        MaxExecutionEnvironments: 4\n",
            "below the minimum 8",
        ),
        ("MaxExecutionEnvironments: 2\n", "below the minimum 3"),
        (
            "MinExecutionEnvironments: many\n",
            "expected a whole number",
        ),
        ("Weight: 1\n", "FunctionScalingConfig.Weight"),
    ];
    for (body, error) in cases {
        let problems = errors(&on_provider(&format!("        {body}")));
        let d = find(&problems, error);
        assert_eq!(d.logical_id.as_deref(), Some("Fn"), "{d:?}");
    }
}

#[test]
fn function_scaling_config_needs_a_capacity_provider() {
    let template = "Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
      FunctionScalingConfig: {MinExecutionEnvironments: 3, MaxExecutionEnvironments: 6}
";
    find(&errors(template), "needs CapacityProviderConfig");
}

#[test]
fn globals_give_every_function_its_scaling() {
    let template = format!(
        "Globals:
  Function:
    FunctionScalingConfig: {{MinExecutionEnvironments: 4, MaxExecutionEnvironments: 9}}
{}",
        on_provider("")
    );
    let scaling = scaling_of(&template);
    assert_eq!(scaling.min_execution_environments, Some(4));
    assert_eq!(scaling.max_execution_environments, Some(9));
}
