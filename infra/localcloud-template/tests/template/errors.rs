//! Unsupported constructs are reported, all at once, with their lines.

use localcloud_template::{load_str, TemplateError};

use crate::{ctx, errors, find, load};

#[test]
fn all_problems_are_reported_not_just_the_first() {
    let errs = errors(
        "Resources:
  Cluster:
    Type: AWS::ECS::Cluster
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
      InlineCode: fn main() {}
  Q:
    Type: AWS::SQS::Queue
    Properties:
      VisibilityTimeout: soon
",
    );
    let ecs = find(&errs, "AWS::ECS::Cluster");
    assert_eq!((ecs.logical_id.as_deref(), ecs.line), (Some("Cluster"), 4));
    let inline = find(&errs, "Properties.InlineCode");
    assert_eq!((inline.logical_id.as_deref(), inline.line), (Some("Fn"), 9));
    assert_eq!(find(&errs, "expected a whole number, got `soon`").line, 13);
    assert_eq!(errs.len(), 3, "{errs:#?}");
}

#[test]
fn error_display_lists_every_problem_with_its_line() {
    let text =
        "Transform: AWS::Serverless-2016-10-31\nResources:\n  B:\n    Type: AWS::SNS::Topic\n";
    let err = load_str(text, &ctx()).unwrap_err();
    let shown = err.to_string();
    assert!(
        shown.contains("line 4: error: B.Type: resource type AWS::SNS::Topic"),
        "{shown}"
    );
}

#[test]
fn unknown_section_and_transform_are_errors() {
    let text = "Transform: [AWS::Serverless-2016-10-31, AWS::LanguageExtensions]\nRules: {}\nResources: {}\n";
    let err = load_str(text, &ctx()).unwrap_err();
    let problems = err.problems();
    assert!(problems
        .iter()
        .any(|p| p.message.contains("AWS::LanguageExtensions") && p.line == 1));
    assert!(problems.iter().any(|p| p.path == "Rules" && p.line == 2));
}

#[test]
fn yaml_syntax_errors_have_lines() {
    let err = load_str("Resources:\n  A: [\n", &ctx()).unwrap_err();
    assert!(matches!(err, TemplateError::Invalid { .. }));
    assert!(err.problems()[0].line >= 2);
}

#[test]
fn unknown_short_form_tag_is_an_error_with_its_line() {
    let errs = errors("Resources:\n  Q:\n    Type: AWS::SQS::Queue\n    Properties:\n      QueueName: !Reference x\n");
    assert_eq!(find(&errs, "!Reference").line, 6);
}

#[test]
fn getatt_of_an_unsupported_attribute_is_an_error() {
    let errs = errors(
        "Resources:
  T:
    Type: AWS::Serverless::SimpleTable
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
      Environment:
        Variables:
          S: !GetAtt T.StreamArn
",
    );
    assert_eq!(find(&errs, "T.StreamArn").line, 11);
}

#[test]
fn ignorable_resources_and_attributes_are_warnings_and_log_groups_are_accepted() {
    let app = load(
        "Resources:
  Logs:
    Type: AWS::Logs::LogGroup
    Properties: {RetentionInDays: 7}
  Q:
    Type: AWS::SQS::Queue
    UpdateReplacePolicy: Retain
    Properties:
      Tags: [{Key: a, Value: b}]
Outputs:
  RoleArn:
    Value: !GetAtt NoSuchRole.Arn
",
    );
    let lines: Vec<_> = app.warnings.iter().map(|w| w.line).collect();
    assert_eq!(lines, [8, 10, 13], "{:#?}", app.warnings);
    assert!(app.outputs.is_empty());
}

#[test]
fn missing_file_is_an_io_error() {
    let err = localcloud_template::load("/nonexistent/template.yaml", &ctx()).unwrap_err();
    assert!(matches!(err, TemplateError::Io { .. }));
}

#[test]
fn depends_on_must_name_template_resources() {
    let errs = errors(
        "Resources:
  Q:
    Type: AWS::SQS::Queue
    DependsOn: [Ghost]
",
    );
    assert_eq!(find(&errs, "DependsOn").line, 5);
}

#[test]
fn two_resources_with_one_physical_name_are_an_error_at_the_second() {
    let errs = errors(
        "Resources:
  A:
    Type: AWS::SQS::Queue
    Properties: {QueueName: jobs}
  B:
    Type: AWS::SQS::Queue
    Properties: {QueueName: jobs}
",
    );
    let e = find(&errs, "queue name `jobs` is also used by A");
    assert_eq!((e.logical_id.as_deref(), e.line), (Some("B"), 6));
}

#[test]
fn logical_ids_must_be_alphanumeric() {
    let errs = errors("Resources:\n  my-queue:\n    Type: AWS::SQS::Queue\n");
    let e = find(&errs, "letters and digits");
    assert_eq!((e.logical_id.as_deref(), e.line), (Some("my-queue"), 3));
}
