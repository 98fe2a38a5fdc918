//! Intrinsic functions, pseudo parameters, parameters and conditions, seen
//! through a function's environment variables.

use localcloud_template::ResolveContext;

use crate::{ctx, errors, errors_with, find, load, load_with};

/// A template whose one function has these environment variables (YAML
/// indented by 10 spaces), after `prelude` sections.
fn env_template(prelude: &str, vars: &str) -> String {
    format!(
        "{prelude}
Resources:
  Queue:
    Type: AWS::SQS::Queue
  Table:
    Type: AWS::Serverless::SimpleTable
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
      Environment:
        Variables:
{vars}"
    )
}

fn env(prelude: &str, vars: &str) -> std::collections::BTreeMap<String, String> {
    let app = load(&env_template(prelude, vars));
    app.function("Fn").unwrap().environment.clone()
}

#[test]
fn ref_resolves_pseudo_parameters_and_resources() {
    let vars = "          REGION: !Ref AWS::Region
          ACCOUNT: !Ref AWS::AccountId
          STACK: !Ref AWS::StackName
          PARTITION: {Ref: AWS::Partition}
          QUEUE: !Ref Queue
          TABLE: !Ref Table
          FN: !Ref Fn
";
    let env = env("", vars);
    assert_eq!(env["REGION"], "eu-west-1");
    assert_eq!(env["ACCOUNT"], "123456789012");
    assert_eq!(env["STACK"], "test");
    assert_eq!(env["PARTITION"], "aws");
    assert_eq!(
        env["QUEUE"],
        "http://127.0.0.1:4566/123456789012/test-Queue"
    );
    assert_eq!(env["TABLE"], "test-Table");
    assert_eq!(env["FN"], "test-Fn");
}

#[test]
fn getatt_short_long_and_list_forms_agree() {
    let vars = "          A: !GetAtt Queue.Arn
          B: {\"Fn::GetAtt\": [Queue, Arn]}
          C: !GetAtt [Queue, QueueName]
          T: !GetAtt Table.Arn
          F: !GetAtt Fn.Arn
";
    let env = env("", vars);
    assert_eq!(env["A"], "arn:aws:sqs:eu-west-1:123456789012:test-Queue");
    assert_eq!(env["A"], env["B"]);
    assert_eq!(env["C"], "test-Queue");
    assert_eq!(
        env["T"],
        "arn:aws:dynamodb:eu-west-1:123456789012:table/test-Table"
    );
    assert_eq!(
        env["F"],
        "arn:aws:lambda:eu-west-1:123456789012:function:test-Fn"
    );
}

#[test]
fn sub_handles_both_forms_attributes_and_literals() {
    let vars = "          S1: !Sub \"${AWS::StackName}-${Queue.QueueName}@${AWS::URLSuffix}\"
          S2: !Sub
            - \"${Name}/${AWS::Region}\"
            - Name: !Ref Table
          S3: !Sub \"keep ${!Literal}\"
";
    let env = env("", vars);
    assert_eq!(env["S1"], "test-test-Queue@amazonaws.com");
    assert_eq!(env["S2"], "test-Table/eu-west-1");
    assert_eq!(env["S3"], "keep ${Literal}");
}

#[test]
fn join_select_split_compose() {
    let prelude = "Parameters:
  Hosts:
    Type: CommaDelimitedList
    Default: a.example,b.example";
    let vars = "          JOINED: !Join [\";\", !Ref Hosts]
          SECOND: !Select [1, !Ref Hosts]
          FIRST_PART: !Select [0, !Split [\".\", !Select [0, !Ref Hosts]]]
          LITERAL: !Join [\"-\", [x, 1, true]]
";
    let env = env(prelude, vars);
    assert_eq!(env["JOINED"], "a.example;b.example");
    assert_eq!(env["SECOND"], "b.example");
    assert_eq!(env["FIRST_PART"], "a");
    assert_eq!(env["LITERAL"], "x-1-true");
}

#[test]
fn if_follows_conditions_and_novalue_removes_the_property() {
    let prelude = "Parameters:
  Stage:
    Type: String
    Default: prod
Conditions:
  IsProd: !Equals [!Ref Stage, prod]
  IsDev: !Not [!Condition IsProd]
  Both: !And [!Condition IsProd, !Or [!Condition IsDev, !Equals [a, a]]]";
    let vars = "          MODE: !If [IsProd, production, development]
          BOTH: !If [Both, yes, no]
          GONE: !If [IsDev, here, !Ref AWS::NoValue]
";
    let env = env(prelude, vars);
    assert_eq!(env["MODE"], "production");
    assert_eq!(env["BOTH"], "yes");
    assert!(!env.contains_key("GONE"));
}

#[test]
fn parameter_overrides_win_over_defaults() {
    let prelude = "Parameters:
  Stage:
    Type: String
    Default: dev";
    let mut ctx = ctx();
    ctx.parameter_overrides
        .insert("Stage".into(), "prod".into());
    let app = load_with(&env_template(prelude, "          S: !Ref Stage\n"), &ctx);
    assert_eq!(app.function("Fn").unwrap().environment["S"], "prod");
    assert_eq!(app.parameters[0].value, serde_json::json!("prod"));
}

#[test]
fn find_in_map_reads_mappings() {
    let prelude = "Mappings:
  Sizes:
    eu-west-1:
      Memory: 512";
    let env = env(
        prelude,
        "          M: !FindInMap [Sizes, !Ref AWS::Region, Memory]\n",
    );
    assert_eq!(env["M"], "512");
}

#[test]
fn missing_parameter_value_is_an_error_naming_it() {
    let prelude = "Parameters:
  DbPassword:
    Type: String
    NoEcho: true";
    let errs = errors(&env_template(prelude, "          P: !Ref DbPassword\n"));
    let e = find(&errs, "DbPassword");
    assert_eq!(e.logical_id.as_deref(), Some("DbPassword"));
    assert_eq!(e.line, 3);
}

#[test]
fn no_echo_parameters_get_random_values_only_when_asked() {
    let prelude = "Parameters:
  Secret:
    Type: String
    NoEcho: true";
    let ctx = ResolveContext {
        generate_no_echo: true,
        ..ctx()
    };
    let a = load_with(&env_template(prelude, "          S: !Ref Secret\n"), &ctx);
    let b = load_with(&env_template(prelude, "          S: !Ref Secret\n"), &ctx);
    assert_eq!(a.generated_parameters(), ["Secret"]);
    assert!(a.parameters[0].no_echo);
    assert_ne!(
        a.function("Fn").unwrap().environment["S"],
        b.function("Fn").unwrap().environment["S"]
    );
}

#[test]
fn allowed_values_and_number_constraints_are_checked() {
    let prelude = "Parameters:
  Stage:
    Type: String
    Default: qa
    AllowedValues: [dev, prod]
  Memory:
    Type: Number
    Default: lots";
    let errs = errors(&env_template(prelude, "          A: x\n"));
    assert_eq!(find(&errs, "`qa` is not allowed").line, 6);
    assert!(find(&errs, "`lots` is not a number").logical_id.as_deref() == Some("Memory"));
}

#[test]
fn override_of_an_undeclared_parameter_is_an_error() {
    let mut ctx = ctx();
    ctx.parameter_overrides.insert("Nope".into(), "1".into());
    let errs = errors_with(&env_template("", "          A: x\n"), &ctx);
    find(&errs, "`Nope`");
}

#[test]
fn unsupported_intrinsic_is_reported_at_its_line() {
    let errs = errors(&env_template(
        "",
        "          A: x\n          B: !Base64 shared-thing\n",
    ));
    let e = find(&errs, "Fn::Base64");
    assert_eq!(e.line, 15);
    assert_eq!(e.logical_id.as_deref(), Some("Fn"));
    assert_eq!(e.path, "Properties.Environment.Variables.B");
}

#[test]
fn an_import_of_an_unknown_export_is_reported_at_its_line() {
    let errs = errors(&env_template(
        "",
        "          A: x\n          B: !ImportValue shared-thing\n",
    ));
    let e = find(&errs, "No export named shared-thing");
    assert_eq!(e.line, 15);
    assert_eq!(e.logical_id.as_deref(), Some("Fn"));
    assert_eq!(e.path, "Properties.Environment.Variables.B");
}

#[test]
fn unknown_reference_is_reported_at_its_line() {
    let errs = errors(&env_template("", "          A: !Ref Nothing\n"));
    assert_eq!(find(&errs, "`Nothing`").line, 14);
}

#[test]
fn circular_conditions_are_reported() {
    let prelude = "Conditions:
  A: !Condition B
  B: !Condition A";
    let errs = errors(&env_template(prelude, "          X: x\n"));
    assert_eq!(
        errs.iter()
            .filter(|e| e.message.contains("depends on itself"))
            .count(),
        2
    );
}

#[test]
fn resources_whose_condition_is_false_are_not_created() {
    let body = "Conditions:
  Never: !Equals [a, b]
Resources:
  Queue:
    Type: AWS::SQS::Queue
    Condition: Never
  Other:
    Type: AWS::SQS::Queue
";
    let app = load(body);
    assert!(app.queue("Queue").is_none());
    assert!(app.queue("Other").is_some());
}

#[test]
fn a_name_may_use_another_resources_name() {
    let body = "Resources:
  Dlq:
    Type: AWS::SQS::Queue
    Properties:
      QueueName: !Sub \"${Main.QueueName}-dlq\"
  Main:
    Type: AWS::SQS::Queue
    Properties:
      QueueName: main
";
    let app = load(body);
    assert_eq!(app.queue("Dlq").unwrap().name, "main-dlq");
}

#[test]
fn long_forms_work_like_short_forms() {
    let prelude = "Conditions:
  Yes:
    Fn::Equals: [{Ref: AWS::Region}, eu-west-1]";
    let vars = "          SUB:
            Fn::Sub: \"${AWS::Partition}:${AWS::URLSuffix}\"
          JOIN:
            Fn::Join: [\",\", {Fn::Split: [\"|\", \"a|b\"]}]
          SEL:
            Fn::Select: [\"1\", [x, y]]
          IF:
            Fn::If: [Yes, {Fn::GetAtt: [Queue, QueueName]}, no]
          COND:
            Condition: Yes
";
    let env = env(prelude, vars);
    assert_eq!(env["SUB"], "aws:amazonaws.com");
    assert_eq!(env["JOIN"], "a,b");
    assert_eq!(env["SEL"], "y");
    assert_eq!(env["IF"], "test-Queue");
    assert_eq!(env["COND"], "true");
}

#[test]
fn the_role_sam_generates_for_a_function_has_a_name_and_arn() {
    let body = "Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties: {Runtime: provided.al2023}
Outputs:
  Role:
    Value: !GetAtt FnRole.Arn
  RoleName:
    Value: !Ref FnRole
";
    let app = load(body);
    assert_eq!(
        app.outputs["Role"],
        "arn:aws:iam::123456789012:role/test-FnRole"
    );
    assert_eq!(app.outputs["RoleName"], "test-FnRole");
}

#[test]
fn buckets_are_named_in_lower_case_and_referable_and_imports_resolve() {
    let mut ctx = ctx();
    ctx.imports.insert(
        "shared-queue-arn".into(),
        "arn:aws:sqs:eu-west-1:123456789012:q".into(),
    );
    let app = load_with(
        "Resources:
  Artifacts:
    Type: AWS::S3::Bucket
    Properties:
      VersioningConfiguration: {Status: Enabled}
  Named:
    Type: AWS::S3::Bucket
    Properties:
      BucketName: !Sub '${AWS::StackName}-named'
Outputs:
  Name:
    Value: !Ref Artifacts
  Arn:
    Value: !GetAtt Named.Arn
    Export:
      Name: !Sub '${AWS::StackName}-arn'
  Imported:
    Value: !ImportValue shared-queue-arn
",
        &ctx,
    );
    assert_eq!(app.buckets[0].name, "test-artifacts");
    assert_eq!(app.buckets[0].versioning.as_deref(), Some("Enabled"));
    assert_eq!(app.outputs["Name"], "test-artifacts");
    assert_eq!(app.outputs["Arn"], "arn:aws:s3:::test-named");
    assert_eq!(app.exports["Arn"], "test-arn");
    assert_eq!(
        app.outputs["Imported"],
        "arn:aws:sqs:eu-west-1:123456789012:q"
    );
}
