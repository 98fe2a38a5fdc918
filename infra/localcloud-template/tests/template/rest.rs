//! REST APIs (`AWS::Serverless::Api`, `Type: Api` events, the implicit
//! `ServerlessRestApi`) and function URLs (`FunctionUrlConfig`).

use serde_json::json;

use crate::{errors, find, load, load_with};

/// The `sam init` Rust starter's shape: one function, an implicit REST API,
/// its URL spelled out in Outputs with `!Sub`.
const STARTER: &str = "Globals:
  Function:
    Timeout: 3
Resources:
  HelloWorldFunction:
    Type: AWS::Serverless::Function
    Metadata:
      BuildMethod: rust-cargolambda
    Properties:
      CodeUri: ./rust_app
      Handler: bootstrap
      Runtime: provided.al2023
      Architectures: [x86_64]
      Events:
        HelloWorld:
          Type: Api
          Properties:
            Path: /hello
            Method: get
Outputs:
  HelloWorldApi:
    Value: !Sub \"https://${ServerlessRestApi}.execute-api.${AWS::Region}.amazonaws.com/Prod/hello/\"
  HelloWorldFunction:
    Value: !GetAtt HelloWorldFunction.Arn
  HelloWorldFunctionIamRole:
    Value: !GetAtt HelloWorldFunctionRole.Arn
";

#[test]
fn api_events_without_rest_api_id_go_to_the_implicit_prod_api() {
    let app = load(STARTER);
    let api = app.rest_api("ServerlessRestApi").unwrap();
    assert!(api.implicit);
    assert_eq!(api.stage_name, "Prod");
    assert_eq!(api.routes.len(), 1);
    let route = &api.routes[0];
    assert_eq!(
        (route.method.as_str(), route.path.as_str()),
        ("GET", "/hello")
    );
    assert_eq!(route.payload_format_version, "1.0");
    assert_eq!(api.stage_url(), format!("{}/Prod", api.url));
    assert!(app.http_apis.is_empty());
}

#[test]
fn the_implicit_rest_api_id_resolves_in_outputs_to_the_local_url() {
    let mut ctx = crate::ctx();
    ctx.api_urls
        .insert("ServerlessRestApi".into(), "http://127.0.0.1:9100".into());
    let app = load_with(STARTER, &ctx);
    assert_eq!(
        app.outputs["HelloWorldApi"],
        "http://127.0.0.1:9100/Prod/hello/"
    );
}

#[test]
fn explicit_api_with_stage_binary_types_cors_variables_and_throttling() {
    let app = load(
        "Globals:
  Api:
    BinaryMediaTypes: [image~1png]
Resources:
  Api:
    Type: AWS::Serverless::Api
    Properties:
      StageName: v1
      Cors: \"'*'\"
      Variables: {table: t1}
      MethodSettings:
        - {ResourcePath: '/*', HttpMethod: '*', ThrottlingRateLimit: 50, ThrottlingBurstLimit: 10}
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
      Events:
        Any: {Type: Api, Properties: {RestApiId: !Ref Api, Method: ANY, Path: '/{proxy+}'}}
        Root: {Type: Api, Properties: {RestApiId: !Ref Api, Method: GET, Path: /}}
",
    );
    let api = app.rest_api("Api").unwrap();
    assert!(!api.implicit);
    assert_eq!(api.stage_name, "v1");
    assert_eq!(api.binary_media_types, ["image/png"]);
    assert_eq!(api.cors, Some(json!("'*'")));
    assert_eq!(api.stage_variables["table"], "t1");
    assert_eq!(api.throttle, Some((50.0, 10)));
    assert_eq!(api.routes.len(), 2);
    assert!(app.rest_api("ServerlessRestApi").is_none());
}

#[test]
fn rest_api_mistakes_are_reported_with_their_lines() {
    let errs = errors(
        "Resources:
  Api:
    Type: AWS::Serverless::Api
    Properties:
      DefinitionBody: {}
  Http:
    Type: AWS::Serverless::HttpApi
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
      Events:
        NoPath: {Type: Api, Properties: {Method: GET}}
        WrongApi: {Type: Api, Properties: {RestApiId: !Ref Http, Method: GET, Path: /a}}
        Default: {Type: Api, Properties: {Method: GET, Path: $default}}
",
    );
    find(&errs, "an Api needs a StageName");
    find(&errs, "DefinitionBody");
    find(&errs, "an Api event needs Method and Path");
    assert_eq!(find(&errs, "RestApiId must be").line, 15);
    find(&errs, "no $default route");
}

#[test]
fn function_url_config_gives_a_url_output_and_auth_type() {
    let mut ctx = crate::ctx();
    ctx.api_urls
        .insert("FnUrl".into(), "http://127.0.0.1:9200".into());
    let app = load_with(
        "Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
      FunctionUrlConfig:
        AuthType: AWS_IAM
        Cors: {AllowOrigins: ['*']}
Outputs:
  Url:
    Value: !GetAtt FnUrl.FunctionUrl
",
        &ctx,
    );
    let url = app.function("Fn").unwrap().url.as_ref().unwrap();
    assert_eq!(url.logical_id, "FnUrl");
    assert_eq!(url.auth_type, "AWS_IAM");
    assert_eq!(url.cors, Some(json!({"AllowOrigins": ["*"]})));
    assert_eq!(url.url, "http://127.0.0.1:9200/");
    assert_eq!(app.outputs["Url"], "http://127.0.0.1:9200/");
}

#[test]
fn function_url_needs_a_known_auth_type_and_buffered_mode() {
    let errs = errors(
        "Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
      FunctionUrlConfig:
        AuthType: OPEN
",
    );
    find(&errs, "AuthType must be NONE or AWS_IAM");
    let errs = errors(
        "Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
      FunctionUrlConfig: {AuthType: NONE, InvokeMode: RESPONSE_STREAM}
",
    );
    find(&errs, "InvokeMode RESPONSE_STREAM");
}

#[test]
fn a_function_url_from_globals_has_its_url_resource_too() {
    let app = load(
        "Globals:
  Function:
    FunctionUrlConfig: {AuthType: NONE}
Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
Outputs:
  Url:
    Value: !GetAtt FnUrl.FunctionUrl
",
    );
    let url = app.function("Fn").unwrap().url.as_ref().unwrap();
    assert_eq!(url.auth_type, "NONE");
    assert_eq!(app.outputs["Url"], url.url);
}
