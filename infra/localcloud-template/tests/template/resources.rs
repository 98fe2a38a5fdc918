//! Queues, tables and HTTP APIs.

use serde_json::json;

use crate::{errors, find, load};

#[test]
fn queue_attributes_are_create_queue_strings() {
    let app = load(
        "Resources:
  Q:
    Type: AWS::SQS::Queue
    Properties:
      FifoQueue: true
      ContentBasedDeduplication: true
      DelaySeconds: 5
      ReceiveMessageWaitTimeSeconds: 20
      MaximumMessageSize: 2048
      MessageRetentionPeriod: 3600
",
    );
    let q = app.queue("Q").unwrap();
    assert_eq!(q.name, "test-Q.fifo");
    let attrs: Vec<_> = q
        .attributes
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    assert_eq!(
        attrs,
        [
            "ContentBasedDeduplication=true",
            "DelaySeconds=5",
            "FifoQueue=true",
            "MaximumMessageSize=2048",
            "MessageRetentionPeriod=3600",
            "ReceiveMessageWaitTimeSeconds=20"
        ]
    );
}

#[test]
fn queue_rules_are_checked() {
    let errs = errors(
        "Resources:
  Q:
    Type: AWS::SQS::Queue
    Properties:
      QueueName: jobs
      FifoQueue: true
      VisibilityTimeout: 50000
  R:
    Type: AWS::SQS::Queue
    Properties:
      ContentBasedDeduplication: true
      RedrivePolicy: {deadLetterTargetArn: x}
",
    );
    assert_eq!(find(&errs, "must end with .fifo").line, 6);
    assert_eq!(find(&errs, "between 0 and 43200").line, 8);
    assert_eq!(find(&errs, "only valid for FIFO").line, 12);
    assert_eq!(find(&errs, "maxReceiveCount").line, 13);
}

#[test]
fn redrive_cycle_is_an_error() {
    let errs = errors(
        "Resources:
  A:
    Type: AWS::SQS::Queue
    Properties:
      RedrivePolicy: {deadLetterTargetArn: !GetAtt B.Arn, maxReceiveCount: 1}
  B:
    Type: AWS::SQS::Queue
    Properties:
      RedrivePolicy: {deadLetterTargetArn: !GetAtt A.Arn, maxReceiveCount: 1}
",
    );
    assert_eq!(
        errs.iter().filter(|e| e.message.contains("cycle")).count(),
        2
    );
}

#[test]
fn provisioned_table_with_gsi_and_lsi() {
    let app = load(
        "Resources:
  T:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: articles
      AttributeDefinitions:
        - {AttributeName: pk, AttributeType: S}
        - {AttributeName: sk, AttributeType: S}
        - {AttributeName: author, AttributeType: S}
        - {AttributeName: created, AttributeType: N}
      KeySchema:
        - {AttributeName: pk, KeyType: HASH}
        - {AttributeName: sk, KeyType: RANGE}
      ProvisionedThroughput: {ReadCapacityUnits: '5', WriteCapacityUnits: 2}
      GlobalSecondaryIndexes:
        - IndexName: by-author
          KeySchema: [{AttributeName: author, KeyType: HASH}]
          Projection: {ProjectionType: KEYS_ONLY}
          ProvisionedThroughput: {ReadCapacityUnits: 1, WriteCapacityUnits: 1}
      LocalSecondaryIndexes:
        - IndexName: by-created
          KeySchema:
            - {AttributeName: pk, KeyType: HASH}
            - {AttributeName: created, KeyType: RANGE}
          Projection: {ProjectionType: INCLUDE, NonKeyAttributes: [title]}
",
    );
    let t = app.table("T").unwrap();
    assert_eq!(
        t.arn,
        "arn:aws:dynamodb:eu-west-1:123456789012:table/articles"
    );
    let body = &t.create_table;
    assert_eq!(body["BillingMode"], "PROVISIONED");
    assert_eq!(
        body["ProvisionedThroughput"],
        json!({"ReadCapacityUnits": 5, "WriteCapacityUnits": 2})
    );
    assert_eq!(
        body["GlobalSecondaryIndexes"][0]["Projection"]["ProjectionType"],
        "KEYS_ONLY"
    );
    assert_eq!(
        body["LocalSecondaryIndexes"][0]["Projection"]["NonKeyAttributes"],
        json!(["title"])
    );
    assert!(t.ttl_attribute.is_none());
}

#[test]
fn table_errors_name_the_property_and_line() {
    let errs = errors(
        "Resources:
  T:
    Type: AWS::DynamoDB::Table
    Properties:
      AttributeDefinitions:
        - {AttributeName: pk, AttributeType: S}
        - {AttributeName: unused, AttributeType: S}
      KeySchema:
        - {AttributeName: pk, KeyType: HASH}
  U:
    Type: AWS::DynamoDB::Table
    Properties:
      BillingMode: PAY_PER_REQUEST
      ProvisionedThroughput: {ReadCapacityUnits: 1, WriteCapacityUnits: 1}
      AttributeDefinitions: [{AttributeName: pk, AttributeType: X}]
      KeySchema: [{AttributeName: pk, KeyType: HASH}]
",
    );
    let missing = find(&errs, "required with BillingMode PROVISIONED");
    assert_eq!(missing.logical_id.as_deref(), Some("T"));
    assert_eq!(
        find(&errs, "`unused` is defined but used by no key").line,
        6
    );
    assert_eq!(
        find(&errs, "not allowed with BillingMode PAY_PER_REQUEST").line,
        15
    );
    assert_eq!(find(&errs, "AttributeType S, N or B").line, 16);
}

#[test]
fn simple_table_defaults_to_an_on_demand_id_string_key() {
    let app = load(
        "Resources:
  T:
    Type: AWS::Serverless::SimpleTable
  P:
    Type: AWS::Serverless::SimpleTable
    Properties:
      TableName: counters
      PrimaryKey: {Name: n, Type: Number}
      ProvisionedThroughput: {ReadCapacityUnits: 2, WriteCapacityUnits: 3}
",
    );
    let t = &app.table("T").unwrap().create_table;
    assert_eq!(
        t,
        &json!({
            "TableName": "test-T",
            "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
            "BillingMode": "PAY_PER_REQUEST"
        })
    );
    let p = &app.table("P").unwrap().create_table;
    assert_eq!(p["AttributeDefinitions"][0]["AttributeType"], "N");
    assert_eq!(p["ProvisionedThroughput"]["WriteCapacityUnits"], 3);
}

#[test]
fn http_api_stage_cors_and_globals() {
    let app = load(
        "Globals:
  HttpApi:
    CorsConfiguration: true
Resources:
  Api:
    Type: AWS::Serverless::HttpApi
    Properties:
      StageName: v1
      StageVariables: {color: blue, size: 3}
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
      Events:
        E: {Type: HttpApi, Properties: {ApiId: !Ref Api, Method: GET, Path: /}}
",
    );
    let api = app.http_api("Api").unwrap();
    assert_eq!(api.stage_name, "v1");
    assert_eq!(api.stage_variables["color"], "blue");
    assert_eq!(api.stage_variables["size"], "3");
    assert_eq!(api.cors, Some(json!(true)));
    assert_eq!(api.stage_url(), "http://127.0.0.1:4566/_api/api/v1");
    assert_eq!(api.routes[0].route_key(), "GET /");
    assert!(app.http_api("ServerlessHttpApi").is_none());
}

#[test]
fn api_ids_and_urls_come_from_the_context() {
    let mut ctx = crate::ctx();
    ctx.api_id = |id| format!("id-{id}");
    ctx.api_urls
        .insert("Api".into(), "http://127.0.0.1:9000".into());
    let app = crate::load_with(
        "Resources:
  Api:
    Type: AWS::Serverless::HttpApi
Outputs:
  Url:
    Value: !Sub \"https://${Api}.execute-api.${AWS::Region}.amazonaws.com/\"
  Id:
    Value: !GetAtt Api.ApiId
",
        &ctx,
    );
    assert_eq!(app.http_api("Api").unwrap().api_id, "id-Api");
    assert_eq!(app.outputs["Url"], "http://127.0.0.1:9000/");
    assert_eq!(app.outputs["Id"], "id-Api");
}

#[test]
fn api_id_must_reference_an_http_api_of_the_template() {
    let errs = errors(
        "Resources:
  Q:
    Type: AWS::SQS::Queue
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
      Events:
        E:
          Type: HttpApi
          Properties: {ApiId: !Ref Q, Method: GET, Path: /}
",
    );
    assert_eq!(find(&errs, "ApiId must be").line, 12);
}

#[test]
fn local_index_must_share_the_partition_key() {
    let errs = errors(
        "Resources:
  T:
    Type: AWS::DynamoDB::Table
    Properties:
      BillingMode: PAY_PER_REQUEST
      AttributeDefinitions:
        - {AttributeName: pk, AttributeType: S}
        - {AttributeName: other, AttributeType: S}
      KeySchema: [{AttributeName: pk, KeyType: HASH}]
      LocalSecondaryIndexes:
        - IndexName: wrong
          KeySchema: [{AttributeName: other, KeyType: HASH}]
          Projection: {ProjectionType: ALL}
",
    );
    assert_eq!(find(&errs, "local index wrong").line, 11);
}
