//! Versions and aliases through the real `aws-sdk-lambda` client:
//! `PublishVersion`, `ListVersionsByFunction`, the alias operations,
//! qualified `Invoke` and `GetFunctionConfiguration`, each error with
//! Lambda's code and status.

use crate::common::*;
use crate::sdk::{local, Local};
use aws_sdk_lambda::config::http::HttpResponse;
use aws_sdk_lambda::error::ProvideErrorMetadata;
use aws_sdk_lambda::primitives::Blob;
use aws_sdk_lambda::types::{AliasRoutingConfiguration, FunctionVersionLatestPublished};
use localcloud_lambda::{AliasConfig, FunctionConfig, LambdaService, Publication};

const ARN: &str = "arn:aws:lambda:us-east-1:000000000000:function:echo";

impl Local {
    /// `PublishVersion` of `echo`: the version's number.
    async fn publish(&self) -> String {
        let published = self
            .client
            .publish_version()
            .function_name("echo")
            .send()
            .await
            .unwrap();
        published.version().unwrap().to_string()
    }

    /// Invokes `function` with `qualifier`: the executed version and the
    /// invoked ARN the function saw.
    async fn invoke(&self, function: &str, qualifier: Option<&str>) -> (String, String) {
        let output = self
            .client
            .invoke()
            .function_name(function)
            .set_qualifier(qualifier.map(str::to_string))
            .payload(Blob::new("{}"))
            .send()
            .await
            .unwrap_or_else(|e| panic!("invoke {function} {qualifier:?}: {e:?}"));
        assert_eq!(output.function_error(), None);
        let body = json(&output.payload().unwrap().as_ref().to_vec().into());
        let arn = body["context"]["invoked_function_arn"].as_str().unwrap();
        (
            output.executed_version().unwrap().to_string(),
            arn.to_string(),
        )
    }
}

/// The code and message of a failed call, and its HTTP status.
fn failure<E>(err: aws_sdk_lambda::error::SdkError<E, HttpResponse>) -> (String, String, u16)
where
    E: ProvideErrorMetadata + std::fmt::Debug,
{
    let status = err.raw_response().map_or(0, |r| r.status().as_u16());
    let code = err.code().unwrap_or_default().to_string();
    let message = err.message().unwrap_or_default().to_string();
    (code, message, status)
}

#[tokio::test]
async fn publish_version_snapshots_the_function_and_lists_it_after_latest() {
    let local = local(vec![function("echo", "echo")]).await;

    let published = local
        .client
        .publish_version()
        .function_name("echo")
        .description("first")
        .send()
        .await
        .unwrap();
    assert_eq!(published.version(), Some("1"));
    assert_eq!(published.function_arn(), Some(format!("{ARN}:1").as_str()));
    assert_eq!(published.description(), Some("first"));
    assert!(published.code_sha256().is_some_and(|c| !c.is_empty()));
    // Nothing changed since version 1: Lambda answers with version 1 again.
    let again = local
        .client
        .publish_version()
        .function_name("echo")
        .send()
        .await
        .unwrap();
    assert_eq!(again.version(), Some("1"));

    let listed = local
        .client
        .list_versions_by_function()
        .function_name("echo")
        .send()
        .await
        .unwrap();
    let versions: Vec<(&str, &str)> = listed
        .versions()
        .iter()
        .map(|v| (v.version().unwrap(), v.function_arn().unwrap()))
        .collect();
    let latest_arn = format!("{ARN}:$LATEST");
    let one_arn = format!("{ARN}:1");
    assert_eq!(
        versions,
        [("$LATEST", latest_arn.as_str()), ("1", one_arn.as_str())]
    );

    let one = local
        .client
        .get_function_configuration()
        .function_name("echo")
        .qualifier("1")
        .send()
        .await
        .unwrap();
    assert_eq!(
        (one.version(), one.function_arn()),
        (Some("1"), Some(one_arn.as_str()))
    );
    assert_eq!(one.code_sha256(), published.code_sha256());
    local.stop().await;
}

#[tokio::test]
async fn a_published_version_keeps_the_code_it_was_published_with() {
    // GIVEN a function whose binary is a copy, published as version 1
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bootstrap");
    std::fs::copy(binary("echo"), &bin).unwrap();
    let local = local(vec![FunctionConfig::new("echo", &bin)]).await;
    let one = local
        .client
        .publish_version()
        .function_name("echo")
        .send()
        .await
        .unwrap();

    // WHEN the code on disk changes
    let mut code = std::fs::read(&bin).unwrap();
    code.extend_from_slice(b"changed");
    std::fs::write(&bin, code).unwrap();

    // THEN $LATEST has the new code, version 1 still the old one, and a new
    // publish makes version 2
    let latest = local
        .client
        .get_function_configuration()
        .function_name("echo")
        .send()
        .await
        .unwrap();
    let still = local
        .client
        .get_function_configuration()
        .function_name("echo")
        .qualifier("1")
        .send()
        .await
        .unwrap();
    assert_ne!(latest.code_sha256(), one.code_sha256());
    assert_eq!(still.code_sha256(), one.code_sha256());
    let two = local
        .client
        .publish_version()
        .function_name("echo")
        .send()
        .await
        .unwrap();
    assert_eq!(two.version(), Some("2"));
    assert_eq!(two.code_sha256(), latest.code_sha256());
    local.stop().await;
}

#[tokio::test]
async fn publish_version_errors_are_lambda_s() {
    let local = local(vec![function("echo", "echo")]).await;

    let err = local
        .client
        .publish_version()
        .function_name("echo")
        .code_sha256("stale")
        .send()
        .await
        .unwrap_err();
    let (code, message, status) = failure(err);
    assert_eq!(
        (code.as_str(), status),
        ("InvalidParameterValueException", 400)
    );
    assert!(
        message.starts_with("CodeSHA256 (stale) is different from current CodeSHA256 in $LATEST"),
        "{message}"
    );
    // $LATEST.PUBLISHED is for functions on a capacity provider.
    let err = local
        .client
        .publish_version()
        .function_name("echo")
        .publish_to(FunctionVersionLatestPublished::LatestPublished)
        .send()
        .await
        .unwrap_err();
    assert_eq!(failure(err).0, "InvalidParameterValueException");
    let err = local
        .client
        .publish_version()
        .function_name("missing")
        .send()
        .await
        .unwrap_err();
    let (code, _, status) = failure(err);
    assert_eq!((code.as_str(), status), ("ResourceNotFoundException", 404));
    local.stop().await;
}

#[tokio::test]
async fn aliases_are_created_read_listed_updated_and_deleted() {
    // GIVEN versions 1 and 2 (the binary changed in between)
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bootstrap");
    std::fs::copy(binary("echo"), &bin).unwrap();
    let local = local(vec![FunctionConfig::new("echo", &bin)]).await;
    local.publish().await;
    let mut code = std::fs::read(&bin).unwrap();
    code.extend_from_slice(b"v2");
    std::fs::write(&bin, code).unwrap();
    local.publish().await;

    // WHEN aliases are created THEN they are read and listed by name
    let created = local
        .client
        .create_alias()
        .function_name("echo")
        .name("live")
        .function_version("1")
        .description("prod")
        .send()
        .await
        .unwrap();
    assert_eq!(created.alias_arn(), Some(format!("{ARN}:live").as_str()));
    assert_eq!(
        (created.function_version(), created.description()),
        (Some("1"), Some("prod"))
    );
    local
        .client
        .create_alias()
        .function_name("echo")
        .name("dev")
        .function_version("$LATEST")
        .send()
        .await
        .unwrap();
    let got = local
        .client
        .get_alias()
        .function_name("echo")
        .name("live")
        .send()
        .await
        .unwrap();
    assert_eq!(got.revision_id(), created.revision_id());
    let listed = local
        .client
        .list_aliases()
        .function_name("echo")
        .send()
        .await
        .unwrap();
    let names: Vec<&str> = listed.aliases().iter().filter_map(|a| a.name()).collect();
    assert_eq!(names, ["dev", "live"]);
    let of_one = local
        .client
        .list_aliases()
        .function_name("echo")
        .function_version("1")
        .send()
        .await
        .unwrap();
    assert_eq!(of_one.aliases().len(), 1);

    // WHEN live sends a tenth of its invocations to version 2
    let updated = local
        .client
        .update_alias()
        .function_name("echo")
        .name("live")
        .revision_id(created.revision_id().unwrap())
        .routing_config(
            AliasRoutingConfiguration::builder()
                .additional_version_weights("2", 0.1)
                .build(),
        )
        .send()
        .await
        .unwrap();
    // THEN it keeps its version and description, with a new revision
    assert_eq!(
        (updated.function_version(), updated.description()),
        (Some("1"), Some("prod"))
    );
    let weights = updated
        .routing_config()
        .and_then(|r| r.additional_version_weights())
        .cloned()
        .unwrap_or_default();
    assert_eq!(weights.get("2"), Some(&0.1));
    assert_ne!(updated.revision_id(), created.revision_id());

    // WHEN dev is deleted THEN only live is left
    local
        .client
        .delete_alias()
        .function_name("echo")
        .name("dev")
        .send()
        .await
        .unwrap();
    let after = local
        .client
        .list_aliases()
        .function_name("echo")
        .send()
        .await
        .unwrap();
    let names: Vec<&str> = after.aliases().iter().filter_map(|a| a.name()).collect();
    assert_eq!(names, ["live"]);
    local.stop().await;
}

#[tokio::test]
async fn alias_errors_are_lambda_s_with_their_messages_and_statuses() {
    let local = local(vec![function("echo", "echo")]).await;
    local
        .client
        .publish_version()
        .function_name("echo")
        .send()
        .await
        .unwrap();
    local
        .client
        .create_alias()
        .function_name("echo")
        .name("live")
        .function_version("1")
        .send()
        .await
        .unwrap();

    let err = local
        .client
        .create_alias()
        .function_name("echo")
        .name("live")
        .function_version("1")
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        failure(err),
        (
            "ResourceConflictException".into(),
            format!("Alias already exists: {ARN}:live"),
            409
        )
    );
    let err = local
        .client
        .create_alias()
        .function_name("echo")
        .name("next")
        .function_version("9")
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        failure(err),
        (
            "ResourceNotFoundException".into(),
            format!("Function not found: {ARN}:9"),
            404
        )
    );
    let err = local
        .client
        .get_alias()
        .function_name("echo")
        .name("gone")
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        failure(err),
        (
            "ResourceNotFoundException".into(),
            format!("Alias not found: {ARN}:gone"),
            404
        )
    );
    let err = local
        .client
        .update_alias()
        .function_name("echo")
        .name("live")
        .revision_id("stale")
        .send()
        .await
        .unwrap_err();
    let (code, _, status) = failure(err);
    assert_eq!(
        (code.as_str(), status),
        ("PreconditionFailedException", 412)
    );
    let err = local
        .client
        .create_alias()
        .function_name("echo")
        .name("split")
        .function_version("$LATEST")
        .routing_config(
            AliasRoutingConfiguration::builder()
                .additional_version_weights("1", 0.5)
                .build(),
        )
        .send()
        .await
        .unwrap_err();
    let (code, _, status) = failure(err);
    assert_eq!(
        (code.as_str(), status),
        ("InvalidParameterValueException", 400)
    );
    // DeleteAlias of an alias that does not exist succeeds, as on AWS.
    local
        .client
        .delete_alias()
        .function_name("echo")
        .name("gone")
        .send()
        .await
        .unwrap();
    local.stop().await;
}

#[tokio::test]
async fn qualified_invokes_run_the_version_and_report_the_qualified_arn() {
    let local = local(vec![function("echo", "echo")]).await;
    local
        .client
        .publish_version()
        .function_name("echo")
        .send()
        .await
        .unwrap();
    local
        .client
        .create_alias()
        .function_name("echo")
        .name("live")
        .function_version("1")
        .send()
        .await
        .unwrap();

    assert_eq!(
        local.invoke("echo", None).await,
        ("$LATEST".into(), ARN.into())
    );
    assert_eq!(
        local.invoke("echo", Some("$LATEST")).await,
        ("$LATEST".into(), format!("{ARN}:$LATEST"))
    );
    assert_eq!(
        local.invoke("echo", Some("1")).await,
        ("1".into(), format!("{ARN}:1"))
    );
    assert_eq!(
        local.invoke("echo", Some("live")).await,
        ("1".into(), format!("{ARN}:live"))
    );
    // The qualifier may be part of the name or the ARN.
    assert_eq!(
        local.invoke("echo:live", None).await,
        ("1".into(), format!("{ARN}:live"))
    );
    assert_eq!(
        local.invoke(&format!("{ARN}:1"), None).await,
        ("1".into(), format!("{ARN}:1"))
    );

    let err = local
        .client
        .invoke()
        .function_name("echo")
        .qualifier("nope")
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        failure(err),
        (
            "ResourceNotFoundException".into(),
            format!("Function not found: {ARN}:nope"),
            404
        )
    );
    let err = local
        .client
        .invoke()
        .function_name("echo:live")
        .qualifier("1")
        .send()
        .await
        .unwrap_err();
    let (code, message, status) = failure(err);
    assert_eq!(
        (code.as_str(), status),
        ("InvalidParameterValueException", 400)
    );
    assert_eq!(
        message,
        "The derived qualifier from the function name does not match the specified qualifier."
    );
    local.stop().await;
}

#[tokio::test]
async fn get_function_with_an_alias_describes_its_version_under_the_alias_arn() {
    let local = local(vec![function("echo", "echo")]).await;
    local
        .client
        .publish_version()
        .function_name("echo")
        .send()
        .await
        .unwrap();
    local
        .client
        .create_alias()
        .function_name("echo")
        .name("live")
        .function_version("1")
        .send()
        .await
        .unwrap();

    let got = local
        .client
        .get_function()
        .function_name("echo")
        .qualifier("live")
        .send()
        .await
        .unwrap();
    let config = got.configuration().unwrap();
    assert_eq!(config.version(), Some("1"));
    assert_eq!(config.function_arn(), Some(format!("{ARN}:live").as_str()));
    let err = local
        .client
        .get_function_configuration()
        .function_name("echo")
        .qualifier("7")
        .send()
        .await
        .unwrap_err();
    assert_eq!(failure(err).0, "ResourceNotFoundException");
    local.stop().await;
}

#[tokio::test]
async fn a_stack_s_version_and_aliases_exist_from_the_start() {
    // GIVEN a function configured as a stack with AWS::Lambda::Version and
    // AWS::Lambda::Alias resources configures it
    let echo = FunctionConfig {
        publish: Publication {
            version: true,
            aliases: vec![AliasConfig {
                name: "live".into(),
                function_version: "1".into(),
                description: String::new(),
            }],
            ..Publication::default()
        },
        ..function("echo", "echo")
    };
    let local = local(vec![echo]).await;

    // THEN version 1 and the alias answer at once
    assert_eq!(local.invoke("echo", Some("live")).await.0, "1");
    let listed = local
        .client
        .list_versions_by_function()
        .function_name("echo")
        .send()
        .await
        .unwrap();
    assert_eq!(listed.versions().len(), 2);
    local.stop().await;
}

#[test]
fn an_alias_of_a_version_the_stack_does_not_publish_fails_the_start() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let _guard = runtime.enter();
    let echo = FunctionConfig {
        publish: Publication {
            version: false,
            aliases: vec![AliasConfig {
                name: "live".into(),
                function_version: "1".into(),
                description: String::new(),
            }],
            ..Publication::default()
        },
        ..function("echo", "echo")
    };
    let err = LambdaService::start(config(vec![echo]))
        .err()
        .expect("the start fails");
    assert!(err.to_string().contains("Function not found"), "{err}");
}
