//! Versions and aliases: SAM's `AutoPublishAlias` (the version and alias it
//! generates, the events it routes to the alias, `{Function}.Alias` and
//! `{Function}.Version`) and CloudFormation's `AWS::Lambda::Version` and
//! `AWS::Lambda::Alias`, with `Ref` and `Fn::GetAtt` as AWS returns them.

use localcloud_template::ResolveContext;

use crate::{errors, errors_with, find, load, load_with};

const ARN: &str = "arn:aws:lambda:eu-west-1:123456789012:function:test-Orders";

const AUTO_PUBLISH: &str = r#"
Parameters:
  Alias:
    Type: String
    Default: live
Resources:
  Jobs:
    Type: AWS::SQS::Queue
  Orders:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
      CodeUri: orders/
      AutoPublishAlias: !Ref Alias
      FunctionUrlConfig:
        AuthType: NONE
      Events:
        Get:
          Type: HttpApi
          Properties:
            Method: GET
            Path: /orders
        Work:
          Type: SQS
          Properties:
            Queue: !GetAtt Jobs.Arn
Outputs:
  AliasArn:
    Value: !Ref Orders.Alias
  VersionArn:
    Value: !Ref Orders.Version
  ByLogicalId:
    Value: !Ref OrdersAliaslive
"#;

#[test]
fn auto_publish_alias_generates_version_1_and_the_alias_as_sam_does() {
    let app = load(AUTO_PUBLISH);
    let orders = app.function("Orders").unwrap();
    assert_eq!(orders.auto_publish_alias.as_deref(), Some("live"));
    assert_eq!(app.versions.len(), 1);
    let version = &app.versions[0];
    assert!(
        version.logical_id.starts_with("OrdersVersion"),
        "{version:?}"
    );
    assert_eq!(version.logical_id.len(), "OrdersVersion".len() + 10);
    assert_eq!(
        (version.function.as_str(), version.version.as_str()),
        ("test-Orders", "1")
    );
    assert_eq!(version.arn, format!("{ARN}:1"));
    let alias = &app.aliases[0];
    assert_eq!(alias.logical_id, "OrdersAliaslive");
    assert_eq!(
        (alias.name.as_str(), alias.function_version.as_str()),
        ("live", "1")
    );
    assert_eq!(alias.arn, format!("{ARN}:live"));
    // AutoPublishAlias is read, not ignored
    assert!(app
        .warnings
        .iter()
        .all(|w| !w.path.contains("AutoPublishAlias")));
}

#[test]
fn references_to_the_generated_resources_give_their_arns() {
    let app = load(AUTO_PUBLISH);
    assert_eq!(app.outputs["AliasArn"], format!("{ARN}:live"));
    assert_eq!(app.outputs["VersionArn"], format!("{ARN}:1"));
    assert_eq!(app.outputs["ByLogicalId"], format!("{ARN}:live"));
}

#[test]
fn the_function_s_events_invoke_the_alias() {
    let app = load(AUTO_PUBLISH);
    let orders = app.function("Orders").unwrap();
    assert_eq!(orders.invoke_target(), "test-Orders:live");
    // Without AutoPublishAlias (and the outputs that refer to its alias)
    let without = AUTO_PUBLISH.replace("      AutoPublishAlias: !Ref Alias\n", "");
    let plain = load(&without[..without.find("Outputs:").unwrap()]);
    assert_eq!(
        plain.function("Orders").unwrap().invoke_target(),
        "test-Orders"
    );
    assert!(plain.versions.is_empty() && plain.aliases.is_empty());
}

#[test]
fn an_update_continues_the_numbers_the_context_gives() {
    let ctx = ResolveContext {
        function_versions: [("test-Orders".to_string(), 3)].into(),
        ..crate::ctx()
    };
    let app = load_with(AUTO_PUBLISH, &ctx);
    assert_eq!(app.versions[0].version, "3");
    assert_eq!(app.versions[0].arn, format!("{ARN}:3"));
    assert_eq!(app.aliases[0].function_version, "3");
    assert_eq!(app.outputs["VersionArn"], format!("{ARN}:3"));
    let declared = load_with(DECLARED, &ctx);
    assert_eq!(declared.outputs["VersionNumber"], "3");
    assert_eq!(declared.aliases[0].function_version, "3");
    // An alias naming another number than the stack publishes is refused.
    let stale = DECLARED.replace("!GetAtt OrdersVersion.Version", "\"1\"");
    let found = errors_with(&stale, &ctx);
    find(
        &found,
        "FunctionVersion `1` is not a version of this stack ($LATEST or 3",
    );
}

#[test]
fn globals_may_give_auto_publish_alias() {
    let app = load(
        r#"
Globals:
  Function:
    AutoPublishAlias: prod
Resources:
  Orders:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
Outputs:
  Alias:
    Value: !Ref Orders.Alias
"#,
    );
    assert_eq!(app.aliases[0].logical_id, "OrdersAliasprod");
    assert_eq!(app.outputs["Alias"], format!("{ARN}:prod"));
}

const DECLARED: &str = r#"
Resources:
  Orders:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
  OrdersVersion:
    Type: AWS::Lambda::Version
    Properties:
      FunctionName: !Ref Orders
      Description: first
  OrdersLive:
    Type: AWS::Lambda::Alias
    Properties:
      FunctionName: !GetAtt Orders.Arn
      FunctionVersion: !GetAtt OrdersVersion.Version
      Name: live
  OrdersDev:
    Type: AWS::Lambda::Alias
    Properties:
      FunctionName: !Ref Orders
      FunctionVersion: $LATEST
      Name: dev
Outputs:
  VersionRef:
    Value: !Ref OrdersVersion
  VersionNumber:
    Value: !GetAtt OrdersVersion.Version
  VersionArn:
    Value: !GetAtt OrdersVersion.FunctionArn
  AliasRef:
    Value: !Ref OrdersLive
  AliasArn:
    Value: !GetAtt OrdersLive.AliasArn
"#;

#[test]
fn declared_versions_and_aliases_are_read_with_cloudformation_s_return_values() {
    let app = load(DECLARED);
    assert_eq!(app.versions.len(), 1);
    assert_eq!(app.versions[0].description, "first");
    let aliases: Vec<(&str, &str)> = app
        .aliases
        .iter()
        .map(|a| (a.name.as_str(), a.function_version.as_str()))
        .collect();
    assert_eq!(aliases, [("live", "1"), ("dev", "$LATEST")]);
    assert_eq!(app.outputs["VersionRef"], format!("{ARN}:1"));
    assert_eq!(app.outputs["VersionNumber"], "1");
    assert_eq!(app.outputs["VersionArn"], format!("{ARN}:1"));
    assert_eq!(app.outputs["AliasRef"], format!("{ARN}:live"));
    assert_eq!(app.outputs["AliasArn"], format!("{ARN}:live"));
    // A declared alias does not move the function's events.
    assert_eq!(
        app.function("Orders").unwrap().invoke_target(),
        "test-Orders"
    );
}

#[test]
fn versions_and_aliases_must_be_of_the_template_s_functions() {
    let found = errors(&DECLARED.replace(
        "      FunctionName: !Ref Orders\n      Description: first",
        "      FunctionName: elsewhere",
    ));
    find(&found, "`elsewhere` is not a function of this template");
}

#[test]
fn an_alias_needs_a_version_the_stack_publishes_and_a_valid_name() {
    let no_version = errors(&DECLARED.replace("!GetAtt OrdersVersion.Version", "\"7\""));
    find(
        &no_version,
        "FunctionVersion `7` is not a version of this stack",
    );
    let numeric = errors(&DECLARED.replace("Name: dev", "Name: \"12\""));
    find(&numeric, "alias name `12`");
    let bad_auto = errors(&AUTO_PUBLISH.replace("Default: live", "Default: \"1\""));
    find(&bad_auto, "alias name `1`");
}

#[test]
fn an_alias_of_version_1_needs_a_version_resource() {
    let without = r#"
Resources:
  Orders:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
  Live:
    Type: AWS::Lambda::Alias
    Properties:
      FunctionName: !Ref Orders
      FunctionVersion: "1"
      Name: live
"#;
    find(&errors(without), "no AWS::Lambda::Version of `test-Orders`");
}
