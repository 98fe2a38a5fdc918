//! Versions and aliases through the local CloudFormation, as `sam deploy`
//! sends a template (the SAM transform intact, code in the local S3):
//! `AutoPublishAlias` and an `AWS::Lambda::Alias` resource are created, the
//! stack lists the version and the aliases with their ARNs, its outputs give
//! CloudFormation's `Ref` and `Fn::GetAtt` values, and Lambda answers for them.

use crate::common::{query_call, sdk_config, test_function_binaries};
use localcloud::{LocalCloud, LocalCloudConfig};
use localcloud_core::xml::{elements, first};

const TEMPLATE: &str = r#"
Transform: AWS::Serverless-2016-10-31
Resources:
  Echo:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
      Handler: bootstrap
      CodeUri: s3://artifacts/echo.zip
      AutoPublishAlias: live
  Dev:
    Type: AWS::Lambda::Alias
    Properties:
      FunctionName: !Ref Echo
      FunctionVersion: $LATEST
      Name: dev
Outputs:
  LiveArn:
    Value: !Ref Echo.Alias
  VersionArn:
    Value: !Ref Echo.Version
  DevArn:
    Value: !GetAtt Dev.AliasArn
"#;

const ARN: &str = "arn:aws:lambda:us-east-1:000000000000:function:versions-Echo";

#[tokio::test]
async fn a_deployed_template_creates_the_version_and_aliases_it_declares() {
    // GIVEN the echo binary zipped as `bootstrap` in the local S3
    let state = tempfile::tempdir().unwrap();
    let cloud = LocalCloud::start(LocalCloudConfig {
        state_dir: state.path().to_path_buf(),
        ..LocalCloudConfig::ephemeral()
    })
    .await
    .unwrap();
    let binary = std::fs::read(test_function_binaries().join("echo")).unwrap();
    cloud.s3().create_bucket("artifacts", "us-east-1").unwrap();
    cloud
        .s3()
        .put_object(
            "artifacts",
            "echo.zip",
            localcloud::zip_of(&[("bootstrap", 0o100755, &binary)]).into(),
        )
        .unwrap();
    let endpoint = cloud.endpoint();
    // WHEN the template is deployed through a change set
    for (action, create) in [("CreateChangeSet", true), ("ExecuteChangeSet", false)] {
        let mut params = vec![
            ("Action", action),
            ("StackName", "versions"),
            ("ChangeSetName", "cs"),
        ];
        if create {
            params.extend([
                ("ChangeSetType", "CREATE"),
                ("TemplateBody", TEMPLATE),
                ("Capabilities.member.1", "CAPABILITY_IAM"),
            ]);
        }
        let (status, body) = query_call(&endpoint, "cloudformation", &params).await;
        assert_eq!(status, 200, "{body}");
    }

    // THEN the stack lists the version and both aliases by their ARNs
    let (status, resources) = query_call(
        &endpoint,
        "cloudformation",
        &[
            ("Action", "DescribeStackResources"),
            ("StackName", "versions"),
        ],
    )
    .await;
    assert_eq!(status, 200, "{resources}");
    let mut listed: Vec<(String, String)> = elements(&resources, "member")
        .iter()
        .filter_map(|m| Some((first(m, "ResourceType")?, first(m, "PhysicalResourceId")?)))
        .filter(|(ty, _)| ty == "AWS::Lambda::Version" || ty == "AWS::Lambda::Alias")
        .collect();
    listed.sort();
    assert_eq!(
        listed,
        [
            ("AWS::Lambda::Alias".to_string(), format!("{ARN}:dev")),
            ("AWS::Lambda::Alias".to_string(), format!("{ARN}:live")),
            ("AWS::Lambda::Version".to_string(), format!("{ARN}:1")),
        ]
    );
    // AND the outputs are CloudFormation's Ref and GetAtt values
    let (_, stack) = query_call(
        &endpoint,
        "cloudformation",
        &[("Action", "DescribeStacks"), ("StackName", "versions")],
    )
    .await;
    for (key, want) in [
        ("LiveArn", format!("{ARN}:live")),
        ("VersionArn", format!("{ARN}:1")),
        ("DevArn", format!("{ARN}:dev")),
    ] {
        let value = elements(&stack, "member")
            .into_iter()
            .find(|m| first(m, "OutputKey").as_deref() == Some(key))
            .and_then(|m| first(&m, "OutputValue"));
        assert_eq!(value, Some(want), "{key}: {stack}");
    }
    // AND Lambda runs version 1 through `live` and $LATEST through `dev`
    let lambda = aws_sdk_lambda::Client::new(&sdk_config(&endpoint, "us-east-1"));
    for (alias, version) in [("live", "1"), ("dev", "$LATEST")] {
        let output = lambda
            .invoke()
            .function_name("versions-Echo")
            .qualifier(alias)
            .send()
            .await
            .unwrap();
        assert_eq!(output.executed_version(), Some(version), "{alias}");
    }
    cloud.shutdown().await.unwrap();
}
