//! Versions and aliases through the local CloudFormation, as `sam deploy`
//! sends a template (the SAM transform intact, code in the local S3):
//! `AutoPublishAlias` and an `AWS::Lambda::Alias` resource are created, the
//! stack lists the version and the aliases with their ARNs, its outputs give
//! CloudFormation's `Ref` and `Fn::GetAtt` values, and Lambda answers for
//! them. On updates, as CloudFormation and SAM do: a new environment keeps
//! version 1 (SAM's version resource stays), new code publishes version 2.

use crate::common::{query_call, sdk_config, test_function_binaries};
use localcloud::{LocalCloud, LocalCloudConfig};
use localcloud_core::xml::{elements, first};

const TEMPLATE: &str = r#"
Transform: AWS::Serverless-2016-10-31
Parameters:
  Greeting: {Type: String, Default: hello}
  CodeKey: {Type: String, Default: echo.zip}
Resources:
  Echo:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
      Handler: bootstrap
      CodeUri: !Sub "s3://artifacts/${CodeKey}"
      Environment: {Variables: {GREETING: !Ref Greeting}}
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
    deploy(&endpoint, "CREATE", "hello", "echo.zip").await;

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

    // WHEN an update changes the function's environment only
    deploy(&endpoint, "UPDATE", "bonjour", "echo.zip").await;
    // THEN SAM's version resource stays: live still runs version 1, whose
    // snapshot keeps the environment it was published with
    assert_eq!(alias_version(&lambda, "live").await, "1");
    assert_eq!(greeting(&lambda, Some("1")).await, "hello");
    assert_eq!(greeting(&lambda, None).await, "bonjour");
    assert_eq!(versions(&lambda).await, ["$LATEST", "1"]);

    // WHEN an update brings new code (another package)
    let mut changed = binary.clone();
    changed.extend_from_slice(b"v2");
    cloud
        .s3()
        .put_object(
            "artifacts",
            "echo-v2.zip",
            localcloud::zip_of(&[("bootstrap", 0o100755, &changed)]).into(),
        )
        .unwrap();
    deploy(&endpoint, "UPDATE", "bonjour", "echo-v2.zip").await;
    // THEN version 2 is published, live points at it, version 1 is kept
    assert_eq!(alias_version(&lambda, "live").await, "2");
    assert_eq!(versions(&lambda).await, ["$LATEST", "1", "2"]);
    assert_eq!(greeting(&lambda, Some("2")).await, "bonjour");
    let (_, stack) = query_call(
        &endpoint,
        "cloudformation",
        &[("Action", "DescribeStacks"), ("StackName", "versions")],
    )
    .await;
    assert!(stack.contains(&format!("{ARN}:2")), "{stack}");
    cloud.shutdown().await.unwrap();
}

async fn alias_version(lambda: &aws_sdk_lambda::Client, alias: &str) -> String {
    let alias = lambda
        .get_alias()
        .function_name("versions-Echo")
        .name(alias)
        .send()
        .await
        .unwrap();
    alias.function_version().unwrap().to_string()
}

async fn versions(lambda: &aws_sdk_lambda::Client) -> Vec<String> {
    let listed = lambda
        .list_versions_by_function()
        .function_name("versions-Echo")
        .send()
        .await
        .unwrap();
    listed
        .versions()
        .iter()
        .filter_map(|v| v.version().map(str::to_string))
        .collect()
}

/// `GREETING` in the configuration of `qualifier`.
async fn greeting(lambda: &aws_sdk_lambda::Client, qualifier: Option<&str>) -> String {
    let config = lambda
        .get_function_configuration()
        .function_name("versions-Echo")
        .set_qualifier(qualifier.map(str::to_string))
        .send()
        .await
        .unwrap();
    let variables = config.environment().and_then(|e| e.variables());
    variables
        .and_then(|v| v.get("GREETING").cloned())
        .unwrap_or_default()
}

/// Creates and executes a change set of `TEMPLATE` with `Greeting` and
/// `CodeKey`, and waits for its end.
async fn deploy(endpoint: &str, kind: &str, greeting: &str, code_key: &str) {
    let name = format!("cs-{greeting}-{}", code_key.replace('.', "-"));
    for (action, create) in [("CreateChangeSet", true), ("ExecuteChangeSet", false)] {
        let mut params = vec![
            ("Action", action),
            ("StackName", "versions"),
            ("ChangeSetName", name.as_str()),
        ];
        if create {
            params.extend([
                ("ChangeSetType", kind),
                ("TemplateBody", TEMPLATE),
                ("Capabilities.member.1", "CAPABILITY_IAM"),
                ("Parameters.member.1.ParameterKey", "Greeting"),
                ("Parameters.member.1.ParameterValue", greeting),
                ("Parameters.member.2.ParameterKey", "CodeKey"),
                ("Parameters.member.2.ParameterValue", code_key),
            ]);
        }
        let (status, body) = query_call(endpoint, "cloudformation", &params).await;
        assert_eq!(status, 200, "{body}");
    }
    // The execution runs on its own; wait for its end.
    let done = format!("{kind}_COMPLETE");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let (_, stack) = query_call(
            endpoint,
            "cloudformation",
            &[("Action", "DescribeStacks"), ("StackName", "versions")],
        )
        .await;
        let status = first(&stack, "StackStatus").unwrap_or_default();
        if status == done {
            return;
        }
        assert!(
            status.ends_with("IN_PROGRESS") && std::time::Instant::now() < deadline,
            "{status}: {stack}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}
