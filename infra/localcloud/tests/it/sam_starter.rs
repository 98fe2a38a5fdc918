//! A SAM app as `sam init` generates it for Rust (`infra/sam-starter`: REST
//! `Type: Api` event, one function, the implicit `ServerlessRestApi`, its URL
//! as `!Sub` in Outputs) runs on the local cloud without a change: the
//! output URL answers as the deployed app would.

use std::path::Path;

use crate::common::http_call;
use localcloud::{LocalCloud, LocalCloudConfig, StackConfig};

/// A project directory holding a copy of the starter's template; the local
/// cloud is given no binaries directory, so it looks for build outputs.
fn copied_project(project: &Path) -> LocalCloudConfig {
    let source = localcloud::testing::workspace_root().join("infra/sam-starter/template.yaml");
    std::fs::copy(source, project.join("template.yaml")).unwrap();
    let mut stack = StackConfig::new(project.join("template.yaml"));
    stack.binaries_dir = project.join("target/debug");
    stack.build_outputs = true;
    stack.log_dir = project.join("logs");
    LocalCloudConfig {
        stack: Some(stack),
        ..LocalCloudConfig::ephemeral()
    }
}

#[tokio::test]
async fn the_sam_init_rust_starter_runs_unmodified_and_its_output_url_answers() {
    // GIVEN the starter's template, its binary built by cargo as usual
    let template = localcloud::testing::workspace_root().join("infra/sam-starter/template.yaml");
    let logs = tempfile::tempdir().unwrap();
    let mut stack = StackConfig::new(&template);
    stack.binaries_dir = localcloud::testing::function_binaries(&["sam-starter-hello"]);
    stack.log_dir = logs.path().to_path_buf();
    let config = LocalCloudConfig {
        stack: Some(stack),
        ..LocalCloudConfig::ephemeral()
    };
    let cloud = LocalCloud::start(config).await.expect("the starter starts");
    let app = &cloud.stack().unwrap().app;

    // WHEN the URL from its Outputs is called, with and without a name
    let url = app.outputs["HelloWorldApi"].clone();
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/Prod/hello/"),
        "{url}"
    );
    let (status, body) = http_call("GET", &url, "").await;
    let (named_status, named) = http_call("GET", &format!("{url}?name=jane"), "").await;

    // THEN the function answers through the implicit REST API
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, "Hello world, this is an AWS Lambda HTTP request");
    assert_eq!(named_status, 200);
    assert_eq!(named, "Hello jane, this is an AWS Lambda HTTP request");
    // AND the other outputs resolve as on AWS
    assert!(app.outputs["HelloWorldFunction"].starts_with("arn:aws:lambda:"));
    assert!(app.outputs["HelloWorldFunctionIamRole"].contains(":role/"));
    cloud.shutdown().await.unwrap();
}

#[tokio::test]
async fn after_sam_build_the_starter_runs_from_aws_sam_build_without_a_binaries_dir() {
    // GIVEN the starter's template with its binary where `sam build` puts it
    let project = tempfile::tempdir().unwrap();
    let config = copied_project(project.path());
    let built = localcloud::testing::function_binaries(&["sam-starter-hello"]);
    let sam_build = project.path().join(".aws-sam/build/HelloWorldFunction");
    std::fs::create_dir_all(&sam_build).unwrap();
    std::fs::copy(built.join("sam-starter-hello"), sam_build.join("bootstrap")).unwrap();

    // WHEN the local cloud starts it without a binaries directory
    let cloud = LocalCloud::start(config)
        .await
        .expect("found the sam build output");

    // THEN the function answers
    let url = cloud.stack().unwrap().app.outputs["HelloWorldApi"].clone();
    let (status, body) = http_call("GET", &url, "").await;
    assert_eq!(status, 200, "{body}");
    cloud.shutdown().await.unwrap();
}

#[tokio::test]
async fn without_any_build_the_error_lists_every_place_looked_in() {
    let project = tempfile::tempdir().unwrap();
    let config = copied_project(project.path());
    let message = LocalCloud::start(config)
        .await
        .err()
        .expect("no binary")
        .to_string();
    for place in [
        ".aws-sam/build/HelloWorldFunction/bootstrap",
        "target/lambda/",
        "target/debug/",
    ] {
        assert!(message.contains(place), "{place} in {message}");
    }
    assert!(message.contains("sam build"), "{message}");
}
