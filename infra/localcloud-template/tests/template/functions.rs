//! Functions: defaults, globals, events, policies, build metadata.

use localcloud_template::{cargo_binary, PolicySource, Target};

use crate::{errors, find, load};

#[test]
fn function_defaults_are_those_of_aws() {
    let app = load(
        "Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
      CodeUri: ./fn
",
    );
    let f = app.function("Fn").unwrap();
    assert_eq!((f.memory_size, f.timeout), (128, 3));
    assert_eq!(f.architecture, "x86_64");
    assert_eq!(f.name, "test-Fn");
    assert_eq!(f.code_uri.as_deref(), Some("./fn"));
    assert!(f.reserved_concurrency.is_none() && f.sqs_events.is_empty());
}

#[test]
fn globals_merge_maps_and_the_function_wins() {
    let app = load(
        "Globals:
  Function:
    Runtime: provided.al2023
    Timeout: 30
    Environment:
      Variables:
        A: global
        B: global
Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Timeout: 5
      Environment:
        Variables:
          B: local
          C: local
",
    );
    let f = app.function("Fn").unwrap();
    assert_eq!(f.timeout, 5);
    let vars: Vec<_> = f
        .environment
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    assert_eq!(vars, ["A=global", "B=local", "C=local"]);
}

#[test]
fn http_api_events_cover_methods_params_greedy_paths_and_default_route() {
    let app = load(
        "Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
      Events:
        Get:
          Type: HttpApi
          Properties: {Method: get, Path: \"/articles/{slug}\"}
        Any:
          Type: HttpApi
          Properties:
            Method: ANY
            Path: /files/{proxy+}
        Fallback:
          Type: HttpApi
",
    );
    let api = app.http_api("ServerlessHttpApi").unwrap();
    let keys: Vec<_> = api.routes.iter().map(|r| r.route_key()).collect();
    assert_eq!(
        keys,
        ["GET /articles/{slug}", "ANY /files/{proxy+}", "$default"]
    );
    assert_eq!(api.routes[0].payload_format_version, "2.0");
    assert_eq!(api.routes[2].method, "ANY");
    assert_eq!(api.stage_url(), api.url);
}

#[test]
fn bad_routes_are_errors_at_their_lines() {
    let errs = errors(
        "Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
      Events:
        A:
          Type: HttpApi
          Properties:
            Method: GET
            Path: /x/{proxy+}/y
        B:
          Type: HttpApi
          Properties:
            Method: FETCH
            Path: /y
        C:
          Type: HttpApi
          Properties:
            PayloadFormatVersion: '1.0'
",
    );
    assert_eq!(find(&errs, "must be last").line, 12);
    assert_eq!(find(&errs, "unknown method FETCH").line, 16);
    assert_eq!(find(&errs, "payload format 1.0").line, 21);
}

#[test]
fn duplicate_route_on_one_api_is_an_error() {
    let errs = errors(
        "Resources:
  A:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
      Events:
        E: {Type: HttpApi, Properties: {Method: GET, Path: /x}}
  B:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
      Events:
        E: {Type: HttpApi, Properties: {Method: get, Path: /x}}
",
    );
    let e = find(&errs, "route `GET /x`");
    assert_eq!(e.logical_id.as_deref(), Some("B"));
}

#[test]
fn sqs_event_defaults_and_limits() {
    let app = load(
        "Resources:
  Q:
    Type: AWS::SQS::Queue
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
      Events:
        Jobs:
          Type: SQS
          Properties:
            Queue: !GetAtt Q.Arn
            Enabled: false
",
    );
    let e = &app.function("Fn").unwrap().sqs_events[0];
    assert_eq!((e.batch_size, e.maximum_batching_window_seconds), (10, 0));
    assert_eq!(e.queue.as_deref(), Some("Q"));
    assert!(!e.enabled && !e.report_batch_item_failures);
    assert!(e.maximum_concurrency.is_none());
    let errs = errors(
        "Resources:
  Q:
    Type: AWS::SQS::Queue
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
      Events:
        Jobs:
          Type: SQS
          Properties:
            Queue: !GetAtt Q.Arn
            BatchSize: 100
            ScalingConfig: {MaximumConcurrency: 1}
            FilterCriteria: {Filters: []}
",
    );
    assert_eq!(find(&errs, "BatchSize over 10").line, 14);
    assert_eq!(find(&errs, "between 2 and 1000").line, 15);
    assert_eq!(find(&errs, "FilterCriteria").line, 16);
}

#[test]
fn unsupported_event_type_and_runtime_are_errors() {
    let errs = errors(
        "Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: python3.12
      Events:
        Uploads:
          Type: S3
          Properties: {Bucket: b}
",
    );
    assert_eq!(find(&errs, "runtime `python3.12`").line, 6);
    let e = find(&errs, "event type S3");
    assert_eq!(
        (e.line, e.path.as_str()),
        (9, "Properties.Events.Uploads.Type")
    );
}

#[test]
fn schedule_events_read_their_rate_state_and_input() {
    // GIVEN a function with an enabled rule, a disabled one and one with Input
    let app = load(
        "Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
      Events:
        Sweep:
          Type: Schedule
          Properties:
            Schedule: rate(15 minutes)
            Description: sweeps
        Off:
          Type: Schedule
          Properties: {Schedule: rate(1 hour), State: DISABLED}
        Given:
          Type: Schedule
          Properties: {Schedule: rate(2 days), Input: '{\"a\": 1}', Name: nightly}
",
    );
    // THEN each is read with its period, state and input
    let events = &app.function("Fn").unwrap().schedule_events;
    let by = |name: &str| events.iter().find(|e| e.name == name).unwrap();
    assert_eq!(by("Sweep").rate, std::time::Duration::from_secs(900));
    assert!(by("Sweep").enabled);
    assert!(!by("Off").enabled);
    assert_eq!(by("Given").input.as_deref(), Some(r#"{"a": 1}"#));
    assert_eq!(by("Given").rule_name.as_deref(), Some("nightly"));
}

#[test]
fn cron_and_malformed_schedules_are_errors_at_their_lines() {
    let errs = errors(
        "Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
      Events:
        Nightly:
          Type: Schedule
          Properties:
            Schedule: cron(0 3 * * ? *)
        Often:
          Type: Schedule
          Properties:
            Schedule: rate(1 minutes)
",
    );
    let e = find(&errs, "cron(...) schedules are not supported locally");
    assert_eq!(
        (e.line, e.path.as_str()),
        (11, "Properties.Events.Nightly.Properties.Schedule")
    );
    assert_eq!(find(&errs, "singular").line, 15);
}

#[test]
fn policies_expose_templates_managed_and_inline_grants() {
    let app = load(
        "Resources:
  T:
    Type: AWS::Serverless::SimpleTable
  Other:
    Type: AWS::Serverless::Function
    Properties: {Runtime: provided.al2023}
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
      Policies:
        - AWSLambdaBasicExecutionRole
        - DynamoDBWritePolicy: {TableName: !Ref T}
        - LambdaInvokePolicy: {FunctionName: !Ref Other}
        - Statement:
            Effect: Allow
            Action: dynamodb:Query
            Resource: !Sub \"${T.Arn}/index/*\"
",
    );
    let f = app.function("Fn").unwrap();
    let sources: Vec<_> = f.policies.iter().map(|p| p.source.clone()).collect();
    assert_eq!(
        sources[0],
        PolicySource::Managed("AWSLambdaBasicExecutionRole".into())
    );
    assert_eq!(
        sources[1],
        PolicySource::Template("DynamoDBWritePolicy".into())
    );
    assert_eq!(sources[3], PolicySource::Inline);
    assert_eq!(
        f.actions_on(&Target::table("test-T")),
        [
            "dynamodb:PutItem",
            "dynamodb:UpdateItem",
            "dynamodb:BatchWriteItem"
        ]
    );
    let index = Target::Table {
        name: "test-T".into(),
        index: Some("by-x".into()),
    };
    assert!(f.actions_on(&index).contains(&"dynamodb:Query"));
    assert_eq!(
        f.actions_on(&Target::Function("test-Other".into())),
        ["lambda:InvokeFunction"]
    );
    assert!(f.actions_on(&Target::Queue("anything".into())).is_empty());
}

#[test]
fn full_access_managed_policy_grants_everything_of_its_service() {
    let app = load(
        "Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
      Policies: AmazonDynamoDBFullAccess
",
    );
    let f = app.function("Fn").unwrap();
    assert_eq!(f.actions_on(&Target::table("any")), ["dynamodb:*"]);
}

#[test]
fn policy_template_without_its_parameter_is_an_error() {
    let errs = errors(
        "Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
      Policies:
        - SQSPollerPolicy: {}
",
    );
    assert_eq!(find(&errs, "needs the parameter QueueName").line, 8);
}

#[test]
fn build_metadata_keeps_method_and_binary() {
    let app = load(
        "Resources:
  Fn:
    Type: AWS::Serverless::Function
    Metadata:
      BuildMethod: rust-cargolambda
      BuildProperties:
        Binary: conduit-monolith
    Properties:
      Runtime: provided.al2023
",
    );
    let b = app.function("Fn").unwrap().build.clone().unwrap();
    assert_eq!(
        (b.method.as_str(), b.binary.as_deref()),
        ("rust-cargolambda", Some("conduit-monolith"))
    );
}

#[test]
fn cargo_binary_is_the_single_bin_or_the_package_name() {
    let package =
        "[package]\nname = \"orders-api\"\nversion = \"0.1.0\"\n[dependencies]\nname = \"x\"\n";
    assert_eq!(cargo_binary(package).unwrap(), "orders-api");
    let one_bin = "[package]\nname = \"p\"\n[[bin]]\nname = \"api\"\npath = \"src/api.rs\"\n";
    assert_eq!(cargo_binary(one_bin).unwrap(), "api");
    let two = format!("{one_bin}[[bin]]\nname = \"worker\"\n");
    assert!(cargo_binary(&two).unwrap_err().contains("several binaries"));
}

#[test]
fn ignored_function_settings_are_warnings_not_errors() {
    let app = load(
        "Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
      Tracing: Active
      Description: hello
      Tags: {team: a}
",
    );
    let paths: Vec<_> = app
        .warnings
        .iter()
        .map(|w| (w.path.as_str(), w.line))
        .collect();
    assert_eq!(
        paths,
        [
            ("Properties.Tracing", 7),
            ("Properties.Description", 8),
            ("Properties.Tags", 9)
        ]
    );
}

#[test]
fn out_of_range_settings_are_errors() {
    let errs = errors(
        "Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
      MemorySize: 64
      Timeout: 901
      Architectures: [x86_64, arm64]
      Layers: [arn:aws:lambda:eu-west-1:1:layer:x:1]
",
    );
    assert_eq!(find(&errs, "Properties.MemorySize").line, 7);
    assert_eq!(find(&errs, "Properties.Timeout").line, 8);
    assert_eq!(find(&errs, "one architecture").line, 9);
    assert_eq!(find(&errs, "Properties.Layers").line, 10);
}

#[test]
fn environment_may_be_chosen_by_a_condition() {
    let app = load(
        "Conditions:
  Yes: !Equals [a, a]
Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
      Environment: !If [Yes, {Variables: {MODE: on}}, !Ref AWS::NoValue]
      Policies: !If [Yes, [SQSPollerPolicy: {QueueName: jobs}], []]
",
    );
    let f = app.function("Fn").unwrap();
    assert_eq!(f.environment["MODE"], "on");
    assert!(f
        .actions_on(&Target::Queue("jobs".into()))
        .contains(&"sqs:ReceiveMessage"));
}

#[test]
fn reserved_and_malformed_variable_names_are_errors() {
    let errs = errors(
        "Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
      Environment:
        Variables:
          AWS_REGION: eu-west-1
          9LIVES: x
          OK: [not, a, string]
",
    );
    assert_eq!(find(&errs, "Lambda reserves").line, 9);
    assert_eq!(find(&errs, "not a valid variable name").line, 10);
    assert_eq!(find(&errs, "expected a string, got a list").line, 11);
}

#[test]
fn globals_reject_what_sam_does_not_accept_there() {
    let errs = errors(
        "Globals:
  Function:
    Policies: [AWSLambdaBasicExecutionRole]
Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
      FunctionName: not a valid name
",
    );
    let g = find(&errs, "in Globals");
    assert_eq!((g.path.as_str(), g.line), ("Globals.Function.Policies", 4));
    assert_eq!(find(&errs, "function name `not a valid name`").line, 10);
}

#[test]
fn fifo_event_source_limits_batch_size_and_window() {
    let errs = errors(
        "Resources:
  Q:
    Type: AWS::SQS::Queue
    Properties: {FifoQueue: true}
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
      Events:
        Jobs:
          Type: SQS
          Properties:
            Queue: !GetAtt Q.Arn
            BatchSize: 20
            MaximumBatchingWindowInSeconds: 5
",
    );
    assert_eq!(find(&errs, "a FIFO queue allows").line, 15);
}

#[test]
fn loading_a_file_derives_a_missing_binary_from_the_code_uri_manifest() {
    // GIVEN a template beside two function packages, one without Cargo.toml
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("fn")).unwrap();
    std::fs::write(
        dir.path().join("fn/Cargo.toml"),
        "[package]\nname = \"orders-api\"\n",
    )
    .unwrap();
    let template = "Transform: AWS::Serverless-2016-10-31
Resources:
  Fn:
    Type: AWS::Serverless::Function
    Metadata: {BuildMethod: rust-cargolambda}
    Properties: {Runtime: provided.al2023, CodeUri: fn}
  Lost:
    Type: AWS::Serverless::Function
    Metadata: {BuildMethod: rust-cargolambda}
    Properties: {Runtime: provided.al2023, CodeUri: missing}
";
    let path = dir.path().join("template.yaml");
    std::fs::write(&path, template).unwrap();
    // WHEN it is loaded from the file
    let app = localcloud_template::load(&path, &crate::ctx()).unwrap();
    // THEN the binary is the package name, and the missing one is a warning
    let binary = |id: &str| app.function(id).unwrap().build.clone().unwrap().binary;
    assert_eq!(binary("Fn").as_deref(), Some("orders-api"));
    assert_eq!(binary("Lost"), None);
    let w = app
        .warnings
        .iter()
        .find(|w| w.logical_id.as_deref() == Some("Lost"))
        .unwrap();
    assert!(w.message.contains("cannot read"), "{w}");
}

#[test]
fn sqs_event_queue_must_be_an_arn_not_a_url() {
    let errs = errors(
        "Resources:
  Q:
    Type: AWS::SQS::Queue
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
      Events:
        Jobs:
          Type: SQS
          Properties:
            Queue: !Ref Q
",
    );
    assert_eq!(find(&errs, "Queue must be an SQS queue ARN").line, 13);
}
