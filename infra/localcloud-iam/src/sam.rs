//! The policies a SAM template names: SAM's policy templates (as in SAM's
//! `policy_templates.json`) and the AWS managed policies, as documents.
//! https://docs.aws.amazon.com/serverless-application-model/latest/developerguide/serverless-policy-template-list.html
//! https://docs.aws.amazon.com/aws-managed-policy/latest/reference/policy-list.html

use serde_json::{json, Value};

use crate::document::PolicyDocument;
use crate::error::PolicyError;

/// Where ARNs are made: `AWS::Region` and `AWS::AccountId`.
#[derive(Debug, Clone)]
pub struct Scope<'a> {
    pub region: &'a str,
    pub account: &'a str,
}

impl Scope<'_> {
    fn arn(&self, service: &str, resource: &str) -> String {
        format!(
            "arn:aws:{service}:{}:{}:{resource}",
            self.region, self.account
        )
    }
}

const DYNAMODB_CRUD: &[&str] = &[
    "dynamodb:GetItem",
    "dynamodb:DeleteItem",
    "dynamodb:PutItem",
    "dynamodb:Scan",
    "dynamodb:Query",
    "dynamodb:UpdateItem",
    "dynamodb:BatchWriteItem",
    "dynamodb:BatchGetItem",
    "dynamodb:DescribeTable",
    "dynamodb:ConditionCheckItem",
];
const DYNAMODB_READ: &[&str] = &[
    "dynamodb:GetItem",
    "dynamodb:Scan",
    "dynamodb:Query",
    "dynamodb:BatchGetItem",
    "dynamodb:DescribeTable",
];
const DYNAMODB_WRITE: &[&str] = &[
    "dynamodb:PutItem",
    "dynamodb:UpdateItem",
    "dynamodb:BatchWriteItem",
];
const SQS_POLLER: &[&str] = &[
    "sqs:ChangeMessageVisibility",
    "sqs:ChangeMessageVisibilityBatch",
    "sqs:DeleteMessage",
    "sqs:DeleteMessageBatch",
    "sqs:GetQueueAttributes",
    "sqs:ReceiveMessage",
];
const S3_READ: &[&str] = &[
    "s3:GetObject",
    "s3:ListBucket",
    "s3:GetBucketLocation",
    "s3:GetObjectVersion",
    "s3:GetLifecycleConfiguration",
];
const S3_CRUD: &[&str] = &[
    "s3:GetObject",
    "s3:ListBucket",
    "s3:GetBucketLocation",
    "s3:GetObjectVersion",
    "s3:PutObject",
    "s3:PutObjectAcl",
    "s3:GetLifecycleConfiguration",
    "s3:PutLifecycleConfiguration",
    "s3:DeleteObject",
];
const S3_WRITE: &[&str] = &[
    "s3:PutObject",
    "s3:PutObjectAcl",
    "s3:PutLifecycleConfiguration",
];
const LOGS: &[&str] = &[
    "logs:CreateLogGroup",
    "logs:CreateLogStream",
    "logs:PutLogEvents",
];

fn allow(actions: &[&str], resources: Vec<String>) -> Value {
    json!({"Effect": "Allow", "Action": actions, "Resource": resources})
}

fn document(statements: Vec<Value>) -> PolicyDocument {
    PolicyDocument::parse(&json!({"Version": "2012-10-17", "Statement": statements}))
        .expect("the built-in policies are valid")
}

/// A SAM policy template's document; `None` for a template the local cloud
/// does not know.
pub fn policy_template(
    name: &str,
    params: &Value,
    scope: &Scope,
) -> Option<Result<PolicyDocument, PolicyError>> {
    let param = match name {
        n if n.starts_with("DynamoDB") => "TableName",
        n if n.starts_with("SQS") => "QueueName",
        n if n.starts_with("S3") => "BucketName",
        "LambdaInvokePolicy" => "FunctionName",
        _ => return None,
    };
    let value = params.get(param).and_then(|v| match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    });
    let value = match value {
        Some(v) => v,
        None if known_template(name) => {
            return Some(Err(PolicyError::new(
                name,
                format!("the policy template {name} needs the parameter {param} (a string)"),
            )))
        }
        None => return None,
    };
    let table = || {
        vec![
            scope.arn("dynamodb", &format!("table/{value}")),
            scope.arn("dynamodb", &format!("table/{value}/index/*")),
        ]
    };
    let bucket = || {
        vec![
            format!("arn:aws:s3:::{value}"),
            format!("arn:aws:s3:::{value}/*"),
        ]
    };
    let statement = match name {
        "DynamoDBCrudPolicy" => allow(DYNAMODB_CRUD, table()),
        "DynamoDBReadPolicy" => allow(DYNAMODB_READ, table()),
        "DynamoDBWritePolicy" => allow(DYNAMODB_WRITE, table()),
        "DynamoDBReconfigurePolicy" => allow(
            &["dynamodb:UpdateTable"],
            vec![scope.arn("dynamodb", &format!("table/{value}"))],
        ),
        "SQSPollerPolicy" => allow(SQS_POLLER, vec![scope.arn("sqs", &value)]),
        "SQSSendMessagePolicy" => allow(&["sqs:SendMessage*"], vec![scope.arn("sqs", &value)]),
        "S3ReadPolicy" => allow(S3_READ, bucket()),
        "S3CrudPolicy" => allow(S3_CRUD, bucket()),
        "S3WritePolicy" => allow(S3_WRITE, bucket()),
        "LambdaInvokePolicy" => allow(
            &["lambda:InvokeFunction"],
            vec![scope.arn("lambda", &format!("function:{value}*"))],
        ),
        _ => return None,
    };
    Some(Ok(document(vec![statement])))
}

fn known_template(name: &str) -> bool {
    matches!(
        name,
        "DynamoDBCrudPolicy"
            | "DynamoDBReadPolicy"
            | "DynamoDBWritePolicy"
            | "DynamoDBReconfigurePolicy"
            | "SQSPollerPolicy"
            | "SQSSendMessagePolicy"
            | "S3ReadPolicy"
            | "S3CrudPolicy"
            | "S3WritePolicy"
            | "LambdaInvokePolicy"
    )
}

/// An AWS managed policy by name or ARN; `None` when the local cloud does
/// not know it.
pub fn managed_policy(name_or_arn: &str) -> Option<PolicyDocument> {
    let name = name_or_arn.rsplit('/').next().unwrap_or(name_or_arn);
    let all = || vec!["*".to_string()];
    let statements = match name {
        "AWSLambdaBasicExecutionRole" => vec![allow(LOGS, all())],
        "AWSLambdaSQSQueueExecutionRole" => vec![
            allow(
                &[
                    "sqs:ReceiveMessage",
                    "sqs:DeleteMessage",
                    "sqs:GetQueueAttributes",
                ],
                all(),
            ),
            allow(LOGS, all()),
        ],
        "AWSLambdaDynamoDBExecutionRole" => vec![
            allow(
                &[
                    "dynamodb:DescribeStream",
                    "dynamodb:GetRecords",
                    "dynamodb:GetShardIterator",
                    "dynamodb:ListStreams",
                ],
                all(),
            ),
            allow(LOGS, all()),
        ],
        "AWSLambdaRole" => vec![allow(&["lambda:InvokeFunction"], all())],
        "AmazonDynamoDBFullAccess" => vec![allow(&["dynamodb:*"], all())],
        "AmazonDynamoDBReadOnlyAccess" => vec![allow(
            &[
                "dynamodb:BatchGetItem",
                "dynamodb:Describe*",
                "dynamodb:List*",
                "dynamodb:GetItem",
                "dynamodb:Query",
                "dynamodb:Scan",
                "dynamodb:PartiQLSelect",
            ],
            all(),
        )],
        "AmazonSQSFullAccess" => vec![allow(&["sqs:*"], all())],
        "AmazonSQSReadOnlyAccess" => vec![allow(
            &[
                "sqs:GetQueueAttributes",
                "sqs:GetQueueUrl",
                "sqs:ListDeadLetterSourceQueues",
                "sqs:ListQueues",
                "sqs:ListMessageMoveTasks",
                "sqs:ListQueueTags",
            ],
            all(),
        )],
        "AWSLambda_FullAccess" | "AWSLambdaFullAccess" => vec![allow(&["lambda:*"], all())],
        "AWSLambda_ReadOnlyAccess" => vec![allow(&["lambda:Get*", "lambda:List*"], all())],
        "AmazonS3FullAccess" => vec![allow(&["s3:*", "s3-object-lambda:*"], all())],
        "AmazonS3ReadOnlyAccess" => vec![allow(
            &[
                "s3:Get*",
                "s3:List*",
                "s3:Describe*",
                "s3-object-lambda:Get*",
                "s3-object-lambda:List*",
            ],
            all(),
        )],
        "AdministratorAccess" => vec![allow(&["*"], all())],
        _ => return None,
    };
    Some(document(statements))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::{evaluate, Decision, Request};

    const SCOPE: Scope<'static> = Scope {
        region: "us-east-1",
        account: "123456789012",
    };

    #[test]
    fn read_policy_reads_the_table_and_its_indexes_only() {
        let doc = policy_template("DynamoDBReadPolicy", &json!({"TableName": "Users"}), &SCOPE)
            .unwrap()
            .unwrap();
        let table = "arn:aws:dynamodb:us-east-1:123456789012:table/Users";
        let docs = [doc];
        let decide = |a: &str, r: &str| evaluate(&docs, &Request::new(a, r));
        assert_eq!(decide("dynamodb:GetItem", table), Decision::Allow);
        assert_eq!(
            decide("dynamodb:Query", &format!("{table}/index/ByName")),
            Decision::Allow
        );
        assert_eq!(decide("dynamodb:PutItem", table), Decision::ImplicitDeny);
        assert_eq!(
            decide("dynamodb:GetItem", &table.replace("Users", "Orders")),
            Decision::ImplicitDeny
        );
    }

    #[test]
    fn send_message_policy_covers_the_batch_and_one_queue() {
        let doc = policy_template(
            "SQSSendMessagePolicy",
            &json!({"QueueName": "jobs"}),
            &SCOPE,
        )
        .unwrap()
        .unwrap();
        let queue = "arn:aws:sqs:us-east-1:123456789012:jobs";
        let docs = [doc];
        assert!(evaluate(&docs, &Request::new("sqs:SendMessage", queue)).allowed());
        assert!(evaluate(&docs, &Request::new("sqs:SendMessageBatch", queue)).allowed());
        assert!(!evaluate(&docs, &Request::new("sqs:ReceiveMessage", queue)).allowed());
        assert!(!evaluate(&docs, &Request::new("sqs:SendMessage", format!("{queue}2"))).allowed());
    }

    #[test]
    fn a_template_without_its_parameter_is_an_error_and_unknown_ones_are_none() {
        assert!(policy_template("DynamoDBCrudPolicy", &json!({}), &SCOPE)
            .unwrap()
            .is_err());
        assert!(
            policy_template("DynamoDBCrudPolicy", &json!({"TableName": ["x"]}), &SCOPE)
                .unwrap()
                .is_err()
        );
        assert!(policy_template("VPCAccessPolicy", &json!({}), &SCOPE).is_none());
    }

    #[test]
    fn managed_policies_are_known_by_name_or_arn() {
        assert!(managed_policy("AWSLambdaBasicExecutionRole").is_some());
        assert!(managed_policy(
            "arn:aws:iam::aws:policy/service-role/AWSLambdaSQSQueueExecutionRole"
        )
        .is_some());
        assert!(managed_policy("arn:aws:iam::123456789012:policy/Mine").is_none());
    }
}
