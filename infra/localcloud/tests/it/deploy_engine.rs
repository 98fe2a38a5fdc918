//! CloudFormation on the local cloud with small templates: change sets,
//! create, update, delete, parameters, outputs, exports, failures with
//! rollback, and bad templates; over the query protocol as SDKs speak it.

use crate::common::query_call;
use localcloud::{LocalCloud, LocalCloudConfig};
use localcloud_core::xml::{elements, first};

struct Cloud {
    cloud: LocalCloud,
    _state: tempfile::TempDir,
}

async fn start() -> Cloud {
    let state = tempfile::tempdir().unwrap();
    let config = LocalCloudConfig {
        state_dir: state.path().to_path_buf(),
        ..LocalCloudConfig::ephemeral()
    };
    let cloud = LocalCloud::start(config).await.unwrap();
    Cloud {
        cloud,
        _state: state,
    }
}

impl Cloud {
    async fn cfn(&self, params: &[(&str, &str)]) -> (u16, String) {
        query_call(&self.cloud.endpoint(), "cloudformation", params).await
    }

    async fn ok(&self, params: &[(&str, &str)]) -> String {
        let (status, body) = self.cfn(params).await;
        assert_eq!(status, 200, "{params:?}: {body}");
        body
    }

    /// Creates and describes a change set; its status and reason.
    async fn change_set(
        &self,
        stack: &str,
        name: &str,
        kind: &str,
        template: &str,
        extra: &[(&str, &str)],
    ) -> (String, Option<String>, String) {
        let mut params = vec![
            ("Action", "CreateChangeSet"),
            ("StackName", stack),
            ("ChangeSetName", name),
            ("ChangeSetType", kind),
            ("TemplateBody", template),
        ];
        params.extend_from_slice(extra);
        self.ok(&params).await;
        let described = self
            .ok(&[
                ("Action", "DescribeChangeSet"),
                ("StackName", stack),
                ("ChangeSetName", name),
            ])
            .await;
        (
            first(&described, "Status").unwrap(),
            first(&described, "StatusReason"),
            described,
        )
    }

    async fn deploy(
        &self,
        stack: &str,
        name: &str,
        kind: &str,
        template: &str,
        extra: &[(&str, &str)],
    ) -> String {
        let (status, reason, _) = self.change_set(stack, name, kind, template, extra).await;
        assert_eq!(status, "CREATE_COMPLETE", "{reason:?}");
        self.ok(&[
            ("Action", "ExecuteChangeSet"),
            ("StackName", stack),
            ("ChangeSetName", name),
        ])
        .await;
        self.stack(stack).await
    }

    async fn stack(&self, stack: &str) -> String {
        self.ok(&[("Action", "DescribeStacks"), ("StackName", stack)])
            .await
    }
}

/// The value of `key` in `<member><{k}Key>key</..><{k}Value>..` lists.
fn member_value(xml: &str, kind: &str, key: &str) -> Option<String> {
    elements(xml, "member")
        .into_iter()
        .find(|m| first(m, &format!("{kind}Key")).as_deref() == Some(key))
        .and_then(|m| first(&m, &format!("{kind}Value")))
}

const DATA_TEMPLATE: &str = r#"
AWSTemplateFormatVersion: "2010-09-09"
Description: queue, table and bucket
Parameters:
  QueueName:
    Type: String
    Default: jobs-v1
  Secret:
    Type: String
    NoEcho: true
Resources:
  Jobs:
    Type: AWS::SQS::Queue
    Properties:
      QueueName: !Ref QueueName
  Items:
    Type: AWS::DynamoDB::Table
    Properties:
      BillingMode: PAY_PER_REQUEST
      AttributeDefinitions: [{AttributeName: pk, AttributeType: S}]
      KeySchema: [{AttributeName: pk, KeyType: HASH}]
  Artifacts:
    Type: AWS::S3::Bucket
    Properties:
      VersioningConfiguration: {Status: Enabled}
Outputs:
  QueueUrl:
    Value: !Ref Jobs
    Export:
      Name: !Sub "${AWS::StackName}-queue"
  BucketName:
    Value: !Ref Artifacts
"#;

/// The previous secret and a new queue name.
const V2_PARAMETERS: &[(&str, &str)] = &[
    ("Parameters.member.1.ParameterKey", "Secret"),
    ("Parameters.member.1.UsePreviousValue", "true"),
    ("Parameters.member.2.ParameterKey", "QueueName"),
    ("Parameters.member.2.ParameterValue", "jobs-v2"),
];

#[tokio::test]
async fn a_stack_is_created_updated_and_deleted_through_change_sets() {
    // GIVEN a local cloud
    let c = start().await;
    // WHEN a CREATE change set is made with the NoEcho parameter
    let (status, _, described) = c
        .change_set(
            "data",
            "first",
            "CREATE",
            DATA_TEMPLATE,
            &[
                ("Parameters.member.1.ParameterKey", "Secret"),
                ("Parameters.member.1.ParameterValue", "s3cret"),
            ],
        )
        .await;
    // THEN it lists the three resources to add, and the stack awaits review
    assert_eq!(status, "CREATE_COMPLETE");
    assert_eq!(
        first(&described, "ExecutionStatus").as_deref(),
        Some("AVAILABLE")
    );
    assert_eq!(elements(&described, "Action"), vec!["Add", "Add", "Add"]);
    assert!(
        described.contains("<ParameterValue>****</ParameterValue>"),
        "{described}"
    );
    assert_eq!(
        first(&c.stack("data").await, "StackStatus").as_deref(),
        Some("REVIEW_IN_PROGRESS")
    );

    // WHEN it is executed
    c.ok(&[
        ("Action", "ExecuteChangeSet"),
        ("StackName", "data"),
        ("ChangeSetName", "first"),
    ])
    .await;
    // THEN the stack is complete with masked NoEcho, defaults, outputs and exports
    let stack = c.stack("data").await;
    assert_eq!(
        first(&stack, "StackStatus").as_deref(),
        Some("CREATE_COMPLETE")
    );
    assert_eq!(
        member_value(&stack, "Parameter", "Secret").as_deref(),
        Some("****")
    );
    assert_eq!(
        member_value(&stack, "Parameter", "QueueName").as_deref(),
        Some("jobs-v1")
    );
    let queue_url = member_value(&stack, "Output", "QueueUrl").unwrap();
    assert!(queue_url.ends_with("/000000000000/jobs-v1"), "{queue_url}");
    assert!(
        stack.contains("<ExportName>data-queue</ExportName>"),
        "{stack}"
    );
    let bucket = member_value(&stack, "Output", "BucketName").unwrap();
    assert_eq!(bucket, "data-artifacts");
    assert!(c.cloud.s3().bucket_exists("data-artifacts"));
    let exports = c.ok(&[("Action", "ListExports")]).await;
    assert_eq!(first(&exports, "Name").as_deref(), Some("data-queue"));
    let events = c
        .ok(&[("Action", "DescribeStackEvents"), ("StackName", "data")])
        .await;
    let statuses = elements(&events, "ResourceStatus");
    assert_eq!(
        statuses.first().map(String::as_str),
        Some("CREATE_COMPLETE"),
        "newest first"
    );
    assert!(statuses.iter().filter(|s| *s == "CREATE_COMPLETE").count() >= 4);
    let resources = c
        .ok(&[("Action", "DescribeStackResources"), ("StackName", "data")])
        .await;
    assert!(
        elements(&resources, "PhysicalResourceId").contains(&"data-Items".to_string()),
        "{resources}"
    );

    // WHEN it is updated with a new queue name and the previous secret
    let stack = c
        .deploy("data", "second", "UPDATE", DATA_TEMPLATE, V2_PARAMETERS)
        .await;
    // THEN the new queue replaced the old one
    assert_eq!(
        first(&stack, "StackStatus").as_deref(),
        Some("UPDATE_COMPLETE")
    );
    assert!(member_value(&stack, "Output", "QueueUrl")
        .unwrap()
        .ends_with("/jobs-v2"));
    assert!(c
        .cloud
        .sqs()
        .queue_by_arn("arn:aws:sqs:us-east-1:000000000000:jobs-v2")
        .is_ok());
    assert!(c
        .cloud
        .sqs()
        .queue_by_arn("arn:aws:sqs:us-east-1:000000000000:jobs-v1")
        .is_err());

    // AND the same again changes nothing: the change set fails as on AWS
    let (status, reason, _) = c
        .change_set("data", "third", "UPDATE", DATA_TEMPLATE, V2_PARAMETERS)
        .await;
    assert_eq!(status, "FAILED");
    assert!(reason.unwrap().contains("didn't contain changes"));

    // WHEN the stack is deleted
    let id = first(&stack, "StackId").unwrap();
    c.ok(&[("Action", "DeleteStack"), ("StackName", "data")])
        .await;
    // THEN it is gone by name, DELETE_COMPLETE by id, and so are its resources
    let (status, body) = c
        .cfn(&[("Action", "DescribeStacks"), ("StackName", "data")])
        .await;
    assert_eq!(status, 400);
    assert_eq!(first(&body, "Code").as_deref(), Some("ValidationError"));
    assert!(body.contains("Stack with id data does not exist"), "{body}");
    let by_id = c.stack(&id).await;
    assert_eq!(
        first(&by_id, "StackStatus").as_deref(),
        Some("DELETE_COMPLETE")
    );
    assert!(!c.cloud.s3().bucket_exists("data-artifacts"));
    assert!(c
        .cloud
        .sqs()
        .queue_by_arn("arn:aws:sqs:us-east-1:000000000000:jobs-v2")
        .is_err());
    let tables = c
        .cloud
        .dynamodb()
        .call(
            &localcloud_core::RequestContext::new("us-east-1", "000000000000"),
            "ListTables",
            b"{}",
        )
        .unwrap();
    assert!(!String::from_utf8(tables).unwrap().contains("data-Items"));
}

#[tokio::test]
async fn parameters_are_checked_as_cloudformation_checks_them() {
    let c = start().await;
    let create = |params: Vec<(&'static str, &'static str)>| {
        let mut all = vec![
            ("Action", "CreateChangeSet"),
            ("StackName", "p"),
            ("ChangeSetName", "cs"),
            ("ChangeSetType", "CREATE"),
            ("TemplateBody", DATA_TEMPLATE),
        ];
        all.extend(params);
        all
    };
    // GIVEN no value for the NoEcho parameter THEN it must have one
    let (status, body) = c.cfn(&create(vec![])).await;
    assert_eq!(status, 400);
    assert!(
        body.contains("Parameters: [Secret] must have values"),
        "{body}"
    );
    // GIVEN an undeclared parameter THEN it does not exist
    let (_, body) = c
        .cfn(&create(vec![
            ("Parameters.member.1.ParameterKey", "Nope"),
            ("Parameters.member.1.ParameterValue", "x"),
        ]))
        .await;
    assert!(
        body.contains("Parameters: [Nope] do not exist in the template"),
        "{body}"
    );
    // GIVEN UsePreviousValue on a new stack THEN there is no previous value
    let (_, body) = c
        .cfn(&create(vec![
            ("Parameters.member.1.ParameterKey", "Secret"),
            ("Parameters.member.1.UsePreviousValue", "true"),
        ]))
        .await;
    assert!(body.contains("Cannot specify usePreviousValue"), "{body}");
    // GIVEN an UPDATE of a stack that does not exist THEN it is a ValidationError
    let (_, body) = c
        .cfn(&[
            ("Action", "CreateChangeSet"),
            ("StackName", "ghost"),
            ("ChangeSetName", "cs"),
            ("TemplateBody", DATA_TEMPLATE),
        ])
        .await;
    assert!(body.contains("Stack [ghost] does not exist"), "{body}");
}

#[tokio::test]
async fn a_bad_template_fails_the_change_set_naming_the_resource_and_line() {
    let c = start().await;
    // GIVEN a resource type the local cloud cannot create
    let template = "Resources:\n  Queue:\n    Type: AWS::SQS::Queue\n  Cluster:\n    Type: AWS::ECS::Cluster\n";
    let (status, reason, described) = c.change_set("bad", "cs", "CREATE", template, &[]).await;
    // THEN the change set is FAILED with the logical id and line, and cannot run
    assert_eq!(status, "FAILED");
    let reason = reason.unwrap();
    assert!(
        reason.contains("Cluster")
            && reason.contains("line 5")
            && reason.contains("AWS::ECS::Cluster"),
        "{reason}"
    );
    assert_eq!(
        first(&described, "ExecutionStatus").as_deref(),
        Some("UNAVAILABLE")
    );
    let (status, body) = c
        .cfn(&[
            ("Action", "ExecuteChangeSet"),
            ("StackName", "bad"),
            ("ChangeSetName", "cs"),
        ])
        .await;
    assert_eq!(status, 400);
    assert_eq!(
        first(&body, "Code").as_deref(),
        Some("InvalidChangeSetStatus")
    );
    // AND nothing was created
    assert!(c
        .cloud
        .sqs()
        .queue_by_arn("arn:aws:sqs:us-east-1:000000000000:bad-Queue")
        .is_err());
    // GIVEN text that is not a template THEN it is a template format error
    let (status, body) = c
        .cfn(&[
            ("Action", "CreateChangeSet"),
            ("StackName", "bad2"),
            ("ChangeSetName", "cs"),
            ("ChangeSetType", "CREATE"),
            ("TemplateBody", "Resources: [unclosed"),
        ])
        .await;
    assert_eq!(status, 400);
    assert!(body.contains("Template format error"), "{body}");
}

#[tokio::test]
async fn a_failed_create_rolls_back_and_a_failed_update_restores_the_stack() {
    // GIVEN a function whose package has no bootstrap, beside a queue
    let c = start().await;
    c.cloud.s3().create_bucket("code", "us-east-1").unwrap();
    let zip = localcloud::zip_of(&[("main", 0o100755, b"#!/bin/sh\n")]);
    c.cloud
        .s3()
        .put_object("code", "no-bootstrap.zip", zip.into())
        .unwrap();
    let template = "Transform: AWS::Serverless-2016-10-31\nResources:\n  Jobs:\n    Type: AWS::SQS::Queue\n  Fn:\n    Type: AWS::Serverless::Function\n    Properties:\n      Runtime: provided.al2023\n      Handler: bootstrap\n      CodeUri: s3://code/no-bootstrap.zip\n";
    let caps = [("Capabilities.member.1", "CAPABILITY_IAM")];
    // WHEN it is deployed
    let stack = c.deploy("broken", "cs", "CREATE", template, &caps).await;
    // THEN the stack rolled back, saying why, and the queue is gone
    assert_eq!(
        first(&stack, "StackStatus").as_deref(),
        Some("ROLLBACK_COMPLETE")
    );
    let events = c
        .ok(&[("Action", "DescribeStackEvents"), ("StackName", "broken")])
        .await;
    assert!(
        events.contains("The following resource(s) failed to create: [Fn]"),
        "{events}"
    );
    assert!(
        events.contains("Couldn&apos;t find valid bootstrap(s)")
            || events.contains("Couldn't find valid bootstrap(s)"),
        "{events}"
    );
    assert!(c
        .cloud
        .sqs()
        .queue_by_arn("arn:aws:sqs:us-east-1:000000000000:broken-Jobs")
        .is_err());
    // AND a rolled-back stack cannot be updated, only deleted
    let (_, body) = c
        .cfn(&[
            ("Action", "CreateChangeSet"),
            ("StackName", "broken"),
            ("ChangeSetName", "again"),
            ("TemplateBody", template),
        ])
        .await;
    assert!(
        body.contains("ROLLBACK_COMPLETE state and can not be updated"),
        "{body}"
    );
    c.ok(&[("Action", "DeleteStack"), ("StackName", "broken")])
        .await;

    // GIVEN a working stack with a queue
    let good = "Resources:\n  Jobs:\n    Type: AWS::SQS::Queue\n";
    c.deploy("svc", "v1", "CREATE", good, &[]).await;
    // WHEN an update adds a function whose code object does not exist
    let update = format!("{good}  Fn:\n    Type: AWS::Serverless::Function\n    Properties:\n      Runtime: provided.al2023\n      CodeUri: s3://code/missing.zip\nTransform: AWS::Serverless-2016-10-31\n");
    let stack = c.deploy("svc", "v2", "UPDATE", &update, &caps).await;
    // THEN the update rolled back and the queue still runs
    assert_eq!(
        first(&stack, "StackStatus").as_deref(),
        Some("UPDATE_ROLLBACK_COMPLETE")
    );
    let events = c
        .ok(&[("Action", "DescribeStackEvents"), ("StackName", "svc")])
        .await;
    assert!(events.contains("S3 Error Code: NoSuchKey"), "{events}");
    assert!(c
        .cloud
        .sqs()
        .queue_by_arn("arn:aws:sqs:us-east-1:000000000000:svc-Jobs")
        .is_ok());
}

/// A stack exporting its queue's ARN, and one importing it.
const EXPORTER: &str = "Resources:\n  Jobs:\n    Type: AWS::SQS::Queue\nOutputs:\n  Arn:\n    Value: !GetAtt Jobs.Arn\n    Export:\n      Name: shared-jobs-arn\n";
const IMPORTER: &str = "Resources:\n  Other:\n    Type: AWS::SQS::Queue\nOutputs:\n  Imported:\n    Value: !ImportValue shared-jobs-arn\n";

#[tokio::test]
async fn exports_are_imported_by_other_stacks_and_unique() {
    let c = start().await;
    c.deploy("exporter", "cs", "CREATE", EXPORTER, &[]).await;
    // WHEN another stack imports the export
    let stack = c.deploy("importer", "cs", "CREATE", IMPORTER, &[]).await;
    // THEN its output has the exported value
    assert_eq!(
        member_value(&stack, "Output", "Imported").as_deref(),
        Some("arn:aws:sqs:us-east-1:000000000000:exporter-Jobs")
    );
    // AND a third stack exporting the same name fails its change set
    let clash = EXPORTER.replace("Jobs", "Mine");
    let (status, reason, _) = c.change_set("clash", "cs", "CREATE", &clash, &[]).await;
    assert_eq!(status, "FAILED");
    assert!(reason
        .unwrap()
        .contains("Export with name shared-jobs-arn is already exported by stack exporter"));
}

#[tokio::test]
async fn an_export_in_use_is_neither_removed_nor_deleted_until_its_importer_goes() {
    // GIVEN a stack whose export another stack imports
    let c = start().await;
    c.deploy("exporter", "cs", "CREATE", EXPORTER, &[]).await;
    c.deploy("importer", "cs", "CREATE", IMPORTER, &[]).await;
    let in_use = "Export shared-jobs-arn cannot be deleted as it is in use by importer";
    // WHEN an update would remove the export
    let without = "Resources:\n  Jobs:\n    Type: AWS::SQS::Queue\n";
    let (status, reason, _) = c
        .change_set("exporter", "drop", "UPDATE", without, &[])
        .await;
    // THEN its change set fails, naming the export and its importer
    assert_eq!(status, "FAILED");
    assert_eq!(reason.as_deref(), Some(in_use));
    // WHEN the exporting stack is deleted
    c.ok(&[("Action", "DeleteStack"), ("StackName", "exporter")])
        .await;
    // THEN the deletion fails with the same reason and the stack keeps running
    let stack = c.stack("exporter").await;
    assert_eq!(
        first(&stack, "StackStatus").as_deref(),
        Some("DELETE_FAILED")
    );
    assert_eq!(first(&stack, "StackStatusReason").as_deref(), Some(in_use));
    let queue = "arn:aws:sqs:us-east-1:000000000000:exporter-Jobs";
    assert!(
        c.cloud.sqs().queue_by_arn(queue).is_ok(),
        "the exporter's queue was deleted"
    );
    // WHEN the importer goes first
    c.ok(&[("Action", "DeleteStack"), ("StackName", "importer")])
        .await;
    c.ok(&[("Action", "DeleteStack"), ("StackName", "exporter")])
        .await;
    // THEN the exporter is deleted too
    let (status, body) = c
        .cfn(&[("Action", "DescribeStacks"), ("StackName", "exporter")])
        .await;
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("does not exist"), "{body}");
}

#[tokio::test]
async fn a_template_url_in_the_local_s3_is_read_and_summarised() {
    let c = start().await;
    c.cloud
        .s3()
        .create_bucket("templates", "us-east-1")
        .unwrap();
    c.cloud
        .s3()
        .put_object(
            "templates",
            "data.yaml",
            DATA_TEMPLATE.as_bytes().to_vec().into(),
        )
        .unwrap();
    let url = format!("{}/templates/data.yaml", c.cloud.endpoint());
    let summary = c
        .ok(&[("Action", "GetTemplateSummary"), ("TemplateURL", &url)])
        .await;
    assert_eq!(
        first(&summary, "Description").as_deref(),
        Some("queue, table and bucket")
    );
    assert!(summary.contains("<ParameterKey>Secret</ParameterKey><ParameterType>String</ParameterType><NoEcho>true</NoEcho>"), "{summary}");
    assert!(
        elements(&summary, "member").contains(&"AWS::S3::Bucket".to_string()),
        "{summary}"
    );
    let (status, body) = c
        .cfn(&[
            ("Action", "GetTemplateSummary"),
            (
                "TemplateURL",
                "https://s3.amazonaws.com/templates/missing.yaml",
            ),
        ])
        .await;
    assert_eq!(status, 400, "{body}");
}

#[tokio::test]
async fn sts_says_who_the_caller_is() {
    let c = start().await;
    let (status, body) = query_call(
        &c.cloud.endpoint(),
        "sts",
        &[("Action", "GetCallerIdentity"), ("Version", "2011-06-15")],
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(first(&body, "Account").as_deref(), Some("000000000000"));
    assert_eq!(
        first(&body, "Arn").as_deref(),
        Some("arn:aws:iam::000000000000:root")
    );
}

#[tokio::test]
async fn the_projects_template_makes_a_valid_change_set() {
    // GIVEN template.yaml as `sam deploy` sends it (the SAM transform intact)
    let c = start().await;
    let template =
        std::fs::read_to_string(localcloud::testing::workspace_root().join("template.yaml"))
            .unwrap();
    let secret = "0123456789abcdef0123456789abcdef";
    // WHEN a change set is created for it
    let (status, reason, described) = c
        .change_set(
            "bench",
            "cs",
            "CREATE",
            &template,
            &[
                ("Parameters.member.1.ParameterKey", "JwtSecret"),
                ("Parameters.member.1.ParameterValue", secret),
                ("Capabilities.member.1", "CAPABILITY_IAM"),
            ],
        )
        .await;
    // THEN it is ready to run, lists the APIs and functions, and masks the secret
    assert_eq!(status, "CREATE_COMPLETE", "{reason:?}");
    let ids = elements(&described, "LogicalResourceId");
    assert!(
        ids.contains(&"ConduitApi".to_string()) && ids.contains(&"OrdersDirectApi".to_string()),
        "{ids:?}"
    );
    assert!(!described.contains(secret));
    // AND without CAPABILITY_IAM it is refused, as SAM's roles need it
    let (status, body) = c
        .cfn(&[
            ("Action", "CreateChangeSet"),
            ("StackName", "bench2"),
            ("ChangeSetName", "cs"),
            ("ChangeSetType", "CREATE"),
            ("TemplateBody", &template),
            ("Parameters.member.1.ParameterKey", "JwtSecret"),
            ("Parameters.member.1.ParameterValue", secret),
        ])
        .await;
    assert_eq!(status, 400);
    assert_eq!(
        first(&body, "Code").as_deref(),
        Some("InsufficientCapabilitiesException")
    );
}

#[tokio::test]
async fn an_update_changes_queue_attributes_in_place() {
    // GIVEN a stack with a queue
    let c = start().await;
    let v1 = "Resources:\n  Jobs:\n    Type: AWS::SQS::Queue\n    Properties:\n      VisibilityTimeout: 30\n";
    c.deploy("q", "v1", "CREATE", v1, &[]).await;
    let arn = "arn:aws:sqs:us-east-1:000000000000:q-Jobs";
    c.cloud.sqs().queue_by_arn(arn).unwrap();
    // WHEN an update changes its visibility timeout
    let stack = c
        .deploy("q", "v2", "UPDATE", &v1.replace("30", "90"), &[])
        .await;
    // THEN the update completes and the queue has the new value
    assert_eq!(
        first(&stack, "StackStatus").as_deref(),
        Some("UPDATE_COMPLETE"),
        "{stack}"
    );
    let queue = c.cloud.sqs().queue_by_arn(arn).unwrap();
    let names = vec!["VisibilityTimeout".to_string()];
    let attributes = c.cloud.sqs().queue_attributes(&queue, &names).unwrap();
    assert_eq!(attributes["VisibilityTimeout"], "90");
}

#[tokio::test]
async fn create_stack_and_update_stack_run_without_a_visible_wait() {
    let c = start().await;
    let v1 = "Resources:\n  Jobs:\n    Type: AWS::SQS::Queue\n";
    // WHEN a stack is created directly
    let body = c
        .ok(&[
            ("Action", "CreateStack"),
            ("StackName", "direct"),
            ("TemplateBody", v1),
        ])
        .await;
    assert!(first(&body, "StackId").unwrap().contains(":stack/direct/"));
    // THEN it is complete, and creating it again is AlreadyExistsException
    assert_eq!(
        first(&c.stack("direct").await, "StackStatus").as_deref(),
        Some("CREATE_COMPLETE")
    );
    let (status, body) = c
        .cfn(&[
            ("Action", "CreateStack"),
            ("StackName", "direct"),
            ("TemplateBody", v1),
        ])
        .await;
    assert_eq!(
        (status, first(&body, "Code").as_deref()),
        (400, Some("AlreadyExistsException"))
    );
    // AND an update that changes nothing is refused as on AWS
    let (status, body) = c
        .cfn(&[
            ("Action", "UpdateStack"),
            ("StackName", "direct"),
            ("TemplateBody", v1),
        ])
        .await;
    assert_eq!(status, 400);
    assert!(body.contains("No updates are to be performed."), "{body}");
    // AND an update that adds a queue completes
    let v2 = format!("{v1}  More:\n    Type: AWS::SQS::Queue\n");
    c.ok(&[
        ("Action", "UpdateStack"),
        ("StackName", "direct"),
        ("TemplateBody", &v2),
    ])
    .await;
    assert_eq!(
        first(&c.stack("direct").await, "StackStatus").as_deref(),
        Some("UPDATE_COMPLETE")
    );
    assert!(c
        .cloud
        .sqs()
        .queue_by_arn("arn:aws:sqs:us-east-1:000000000000:direct-More")
        .is_ok());
}
