//! A function deployed from a zip in the local S3 runs behind its API, and
//! the read calls deploy tools make see it: Lambda `ListFunctions`,
//! `GetFunction`, event source mappings, `ListTags`; API Gateway v2
//! `GetApis`, `GetApi`, `GetRoutes`, `GetStages`.

use crate::common::{http_call, query_call, sdk_config, signed_call, test_function_binaries};
use localcloud::{LocalCloud, LocalCloudConfig};
use localcloud_core::xml::{elements, first};

const TEMPLATE: &str = r#"
Transform: AWS::Serverless-2016-10-31
Parameters:
  Greeting: {Type: String, Default: hello}
Resources:
  Api:
    Type: AWS::Serverless::HttpApi
  Jobs:
    Type: AWS::SQS::Queue
  Echo:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
      Handler: bootstrap
      CodeUri: s3://artifacts/echo.zip
      Environment: {Variables: {GREETING: !Ref Greeting}}
      Events:
        Get:
          Type: HttpApi
          Properties: {ApiId: !Ref Api, Method: GET, Path: "/echo/{name}"}
        Work:
          Type: SQS
          Properties: {Queue: !GetAtt Jobs.Arn, BatchSize: 7}
Outputs:
  Url:
    Value: !GetAtt Api.ApiEndpoint
"#;

#[tokio::test]
async fn a_function_from_s3_runs_and_the_read_apis_list_it() {
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
    for (action, extra) in [("CreateChangeSet", true), ("ExecuteChangeSet", false)] {
        let mut params = vec![
            ("Action", action),
            ("StackName", "reads"),
            ("ChangeSetName", "cs"),
        ];
        if extra {
            params.extend([
                ("ChangeSetType", "CREATE"),
                ("TemplateBody", TEMPLATE),
                ("Capabilities.member.1", "CAPABILITY_IAM"),
            ]);
        }
        let (status, body) = query_call(&endpoint, "cloudformation", &params).await;
        assert_eq!(status, 200, "{body}");
    }
    let (_, stack) = query_call(
        &endpoint,
        "cloudformation",
        &[("Action", "DescribeStacks"), ("StackName", "reads")],
    )
    .await;
    assert_eq!(
        first(&stack, "StackStatus").as_deref(),
        Some("CREATE_COMPLETE"),
        "{stack}"
    );
    // THEN the API URL of the outputs answers with the function's environment
    let url = elements(&stack, "OutputValue").pop().unwrap();
    let (status, body) = http_call("GET", &format!("{url}/echo/x"), "").await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"GREETING\":\"hello\""), "{body}");
    // AND the package was unpacked once, under the state directory
    assert_eq!(
        std::fs::read_dir(state.path().join("code"))
            .unwrap()
            .count(),
        1
    );

    // AND Lambda lists and describes the function, its mapping and tags
    let lambda = aws_sdk_lambda::Client::new(&sdk_config(&endpoint, "us-east-1"));
    let functions = lambda.list_functions().send().await.unwrap();
    let names: Vec<_> = functions
        .functions()
        .iter()
        .filter_map(|f| f.function_name())
        .collect();
    assert_eq!(names, vec!["reads-Echo"]);
    let got = lambda
        .get_function()
        .function_name("reads-Echo")
        .send()
        .await
        .unwrap();
    assert_eq!(got.configuration().unwrap().memory_size(), Some(128));
    let mappings = lambda
        .list_event_source_mappings()
        .function_name("reads-Echo")
        .send()
        .await
        .unwrap();
    let mapping = &mappings.event_source_mappings()[0];
    assert_eq!(mapping.batch_size(), Some(7));
    assert_eq!(
        mapping.event_source_arn(),
        Some("arn:aws:sqs:us-east-1:000000000000:reads-Jobs")
    );
    let one = lambda
        .get_event_source_mapping()
        .uuid(mapping.uuid().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(one.function_arn(), mapping.function_arn());
    let tags = lambda
        .list_tags()
        .resource(got.configuration().unwrap().function_arn().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(tags.tags().unwrap()["lambda:createdBy"], "SAM");
    let missing = lambda
        .get_function()
        .function_name("nope")
        .send()
        .await
        .unwrap_err();
    assert!(missing
        .into_service_error()
        .is_resource_not_found_exception());

    // AND API Gateway v2 lists the API, its routes and stage
    let (status, apis) = signed_call(&endpoint, "GET", "/v2/apis", "apigateway", "").await;
    assert_eq!(status, 200, "{apis}");
    let apis: serde_json::Value = serde_json::from_str(&apis).unwrap();
    let id = apis["items"][0]["apiId"].as_str().unwrap().to_string();
    assert_eq!(apis["items"][0]["apiEndpoint"], url.as_str());
    let (_, routes) = signed_call(
        &endpoint,
        "GET",
        &format!("/v2/apis/{id}/routes"),
        "apigateway",
        "",
    )
    .await;
    assert!(
        routes.contains("\"routeKey\":\"GET /echo/{name}\""),
        "{routes}"
    );
    let (_, stages) = signed_call(
        &endpoint,
        "GET",
        &format!("/v2/apis/{id}/stages"),
        "apigateway",
        "",
    )
    .await;
    assert!(stages.contains("\"stageName\":\"$default\""), "{stages}");
    let (status, _) = signed_call(&endpoint, "GET", "/v2/apis/nope", "apigateway", "").await;
    assert_eq!(status, 404);

    // WHEN the stack is deleted THEN the function is gone from every list
    let (status, _) = query_call(
        &endpoint,
        "cloudformation",
        &[("Action", "DeleteStack"), ("StackName", "reads")],
    )
    .await;
    assert_eq!(status, 200);
    assert!(lambda
        .list_functions()
        .send()
        .await
        .unwrap()
        .functions()
        .is_empty());
    let api_addr = url.trim_start_matches("http://").trim_end_matches('/');
    assert!(
        tokio::net::TcpStream::connect(api_addr).await.is_err(),
        "the API still listens"
    );
    cloud.shutdown().await.unwrap();
}
