//! IAM as AWS enforces it (`tests/fixtures/iam-app.yaml`): each function's
//! role from its `Policies`, its credentials in its environment, every call
//! signed with them allowed or denied as IAM would, with each service's own
//! error; STS; signatures verified; what each function used, reported.

use aws_sdk_dynamodb::types::AttributeValue;
use localcloud::LocalCloud;
use localcloud_iam::Credentials;
use localcloud_metrics::iam::{IamDocument, IamMode};

use crate::common;

const STACK: &str = "iamapp";
const ACCOUNT: &str = "000000000000";
const REGION: &str = "us-east-1";

async fn iam_app(log_dir: &std::path::Path) -> LocalCloud {
    let mut stack = localcloud::StackConfig::new(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/iam-app.yaml"),
    );
    stack.stack_name = STACK.into();
    stack.binaries_dir = localcloud::testing::function_binaries(&["echo"]);
    stack.log_dir = log_dir.to_path_buf();
    LocalCloud::start(localcloud::LocalCloudConfig {
        stack: Some(stack),
        ..localcloud::LocalCloudConfig::ephemeral()
    })
    .await
    .expect("the application starts")
}

fn role_credentials(cloud: &LocalCloud, logical_id: &str) -> Credentials {
    cloud.stack().unwrap().role(logical_id).unwrap().1.clone()
}

/// An SDK configuration signing with `credentials` (a role session's).
fn as_role(cloud: &LocalCloud, credentials: &Credentials) -> aws_config::SdkConfig {
    let sdk = aws_credential_types::Credentials::new(
        &credentials.access_key_id,
        &credentials.secret_access_key,
        Some(credentials.session_token.clone()),
        None,
        "role",
    );
    aws_config::SdkConfig::builder()
        .behavior_version(aws_config::BehaviorVersion::latest())
        .region(aws_config::Region::new(REGION))
        .credentials_provider(aws_credential_types::provider::SharedCredentialsProvider::new(sdk))
        .endpoint_url(cloud.endpoint())
        .build()
}

fn table(name: &str) -> String {
    format!("{STACK}-{name}")
}

fn table_arn(name: &str) -> String {
    format!("arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/{STACK}-{name}")
}

fn assumed(logical_id: &str, function: &str) -> String {
    format!("arn:aws:sts::{ACCOUNT}:assumed-role/{STACK}-{logical_id}Role/{STACK}-{function}")
}

/// The error code and message of a failed SDK call.
fn refusal<E, R>(
    result: Result<impl std::fmt::Debug, aws_sdk_dynamodb::error::SdkError<E, R>>,
) -> (String, String)
where
    E: aws_sdk_dynamodb::error::ProvideErrorMetadata + std::fmt::Debug,
    R: std::fmt::Debug,
{
    let err = result.expect_err("the call is refused");
    let meta = err.as_service_error().expect("a service error");
    (
        meta.code().unwrap_or_default().to_string(),
        meta.message().unwrap_or_default().to_string(),
    )
}

fn denied(principal: &str, action: &str, resource: &str) -> String {
    format!("User: {principal} is not authorized to perform: {action} on resource: {resource} because no identity-based policy allows the {action} action")
}

async fn get(ddb: &aws_sdk_dynamodb::Client, name: &str) -> Result<(), String> {
    ddb.get_item()
        .table_name(table(name))
        .key("id", AttributeValue::S("1".into()))
        .send()
        .await
        .map(|_| ())
        .map_err(|e| format!("{:?}", e.into_service_error()))
}

#[tokio::test]
async fn the_issue_s_six_calls_are_answered_as_their_roles_say() {
    // GIVEN the SAM application and the credentials of two of its functions
    let logs = tempfile::tempdir().unwrap();
    let cloud = iam_app(logs.path()).await;
    let read_only = as_role(&cloud, &role_credentials(&cloud, "ReadOnly"));
    let no_policy = as_role(&cloud, &role_credentials(&cloud, "NoPolicy"));
    let queue_url = format!("{}/{ACCOUNT}/{STACK}-jobs", cloud.endpoint());

    // WHEN the read-only function reads its table and sends to its queue
    let ddb = aws_sdk_dynamodb::Client::new(&read_only);
    let sqs = aws_sdk_sqs::Client::new(&read_only);
    // THEN both are allowed
    assert_eq!(get(&ddb, "granted").await, Ok(()));
    sqs.send_message()
        .queue_url(&queue_url)
        .message_body("hi")
        .send()
        .await
        .expect("SQSSendMessagePolicy allows SendMessage");

    // WHEN it writes the table it may only read, or reads another table
    let put = ddb
        .put_item()
        .table_name(table("granted"))
        .item("id", AttributeValue::S("1".into()))
        .send()
        .await;
    // THEN DynamoDB answers AccessDeniedException with IAM's message
    let principal = assumed("ReadOnly", "read-only");
    assert_eq!(
        refusal(put),
        (
            "AccessDeniedException".to_string(),
            denied(&principal, "dynamodb:PutItem", &table_arn("granted"))
        )
    );
    let other = ddb
        .get_item()
        .table_name(table("other"))
        .key("id", AttributeValue::S("1".into()))
        .send()
        .await;
    assert_eq!(
        refusal(other),
        (
            "AccessDeniedException".to_string(),
            denied(&principal, "dynamodb:GetItem", &table_arn("other"))
        )
    );

    // WHEN the function with no policy writes the table and sends to the queue
    let put = aws_sdk_dynamodb::Client::new(&no_policy)
        .put_item()
        .table_name(table("granted"))
        .item("id", AttributeValue::S("1".into()))
        .send()
        .await;
    let send = aws_sdk_sqs::Client::new(&no_policy)
        .send_message()
        .queue_url(&queue_url)
        .message_body("hi")
        .send()
        .await;
    // THEN both are denied; SQS says AccessDenied and names the action in lower case
    let principal = assumed("NoPolicy", "no-policy");
    assert_eq!(
        refusal(put),
        (
            "AccessDeniedException".to_string(),
            denied(&principal, "dynamodb:PutItem", &table_arn("granted"))
        )
    );
    let queue_arn = format!("arn:aws:sqs:{REGION}:{ACCOUNT}:{STACK}-jobs");
    assert_eq!(
        refusal(send),
        (
            "AccessDenied".to_string(),
            denied(&principal, "sqs:sendmessage", &queue_arn)
        )
    );

    // AND the administrator (the test's own credentials) may do anything
    let admin = aws_sdk_dynamodb::Client::new(&common::sdk_config(&cloud.endpoint(), REGION));
    admin
        .put_item()
        .table_name(table("other"))
        .item("id", AttributeValue::S("1".into()))
        .send()
        .await
        .expect("the administrator is not enforced");
    cloud.shutdown().await.unwrap();
}

#[tokio::test]
async fn wildcards_not_resource_explicit_deny_and_conditions() {
    let logs = tempfile::tempdir().unwrap();
    let cloud = iam_app(logs.path()).await;
    let wildcard = as_role(&cloud, &role_credentials(&cloud, "Wildcard"));
    let denied_fn = as_role(&cloud, &role_credentials(&cloud, "Denied"));

    // Wildcard: dynamodb:Get* on table/* reads any table, writes none.
    let ddb = aws_sdk_dynamodb::Client::new(&wildcard);
    assert_eq!(get(&ddb, "other").await, Ok(()));
    let put = ddb
        .put_item()
        .table_name(table("other"))
        .item("id", AttributeValue::S("1".into()))
        .send()
        .await;
    assert_eq!(refusal(put).0, "AccessDeniedException");

    // Wildcard invokes functions of the stack, but the explicit deny on the
    // no-policy one wins; Lambda answers 403 AccessDeniedException.
    let lambda = aws_sdk_lambda::Client::new(&wildcard);
    lambda
        .invoke()
        .function_name(format!("{STACK}-read-only"))
        .send()
        .await
        .expect("lambda:InvokeFunction on function:iamapp-*");
    let invoke = lambda
        .invoke()
        .function_name(format!("{STACK}-no-policy"))
        .send()
        .await;
    let (code, message) = refusal(invoke);
    assert_eq!(code, "AccessDeniedException");
    assert_eq!(
        message,
        format!(
            "User: {} is not authorized to perform: lambda:InvokeFunction on resource: arn:aws:lambda:{REGION}:{ACCOUNT}:function:{STACK}-no-policy with an explicit deny in an identity-based policy",
            assumed("Wildcard", "wildcard")
        )
    );

    // Denied: CRUD on its table, but DeleteItem explicitly denied.
    let ddb = aws_sdk_dynamodb::Client::new(&denied_fn);
    ddb.put_item()
        .table_name(table("granted"))
        .item("id", AttributeValue::S("2".into()))
        .send()
        .await
        .expect("DynamoDBCrudPolicy allows PutItem");
    let delete = ddb
        .delete_item()
        .table_name(table("granted"))
        .key("id", AttributeValue::S("2".into()))
        .send()
        .await;
    let (code, message) = refusal(delete);
    assert_eq!(code, "AccessDeniedException");
    assert!(
        message.ends_with(&format!(
            "dynamodb:DeleteItem on resource: {} with an explicit deny in an identity-based policy",
            table_arn("granted")
        )),
        "{message}"
    );
    // NotAction sqs:DeleteQueue with a region condition: sends, cannot delete.
    let sqs = aws_sdk_sqs::Client::new(&denied_fn);
    let queue_url = format!("{}/{ACCOUNT}/{STACK}-jobs", cloud.endpoint());
    sqs.send_message()
        .queue_url(&queue_url)
        .message_body("x")
        .send()
        .await
        .expect("NotAction sqs:DeleteQueue allows SendMessage");
    let delete = sqs.delete_queue().queue_url(&queue_url).send().await;
    assert_eq!(refusal(delete).0, "AccessDenied");
    // Signed for another region, the condition does not hold.
    let elsewhere = aws_config::SdkConfig::builder()
        .behavior_version(aws_config::BehaviorVersion::latest())
        .region(aws_config::Region::new("eu-west-1"))
        .credentials_provider(denied_fn.credentials_provider().unwrap())
        .endpoint_url(cloud.endpoint())
        .build();
    let send = aws_sdk_sqs::Client::new(&elsewhere)
        .send_message()
        .queue_url(&queue_url)
        .message_body("x")
        .send()
        .await;
    assert_eq!(refusal(send).0, "AccessDenied");
    cloud.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_function_runs_with_its_role_s_temporary_credentials() {
    // GIVEN the application
    let logs = tempfile::tempdir().unwrap();
    let cloud = iam_app(logs.path()).await;
    let expected = role_credentials(&cloud, "ReadOnly");
    // WHEN the read-only function is invoked (echo returns its environment)
    let admin = aws_sdk_lambda::Client::new(&common::sdk_config(&cloud.endpoint(), REGION));
    let out = admin
        .invoke()
        .function_name(format!("{STACK}-read-only"))
        .send()
        .await
        .unwrap();
    let echoed: serde_json::Value =
        serde_json::from_slice(out.payload().unwrap().as_ref()).unwrap();
    // THEN it has its role's ASIA credentials, as Lambda gives them
    let env = &echoed["env"];
    assert!(
        env["AWS_ACCESS_KEY_ID"]
            .as_str()
            .unwrap()
            .starts_with("ASIA"),
        "{echoed}"
    );
    assert_eq!(env["AWS_ACCESS_KEY_ID"], expected.access_key_id.as_str());
    assert_eq!(
        env["AWS_SECRET_ACCESS_KEY"],
        expected.secret_access_key.as_str()
    );
    assert_eq!(env["AWS_SESSION_TOKEN"], expected.session_token.as_str());
    cloud.shutdown().await.unwrap();
}

/// Sends `request` (signed or not) as raw HTTP/1.1; status and body.
async fn send(cloud: &LocalCloud, request: http::Request<bytes::Bytes>) -> (u16, String) {
    let host = cloud.addr().to_string();
    let mut head = format!("{} {} HTTP/1.1\r\n", request.method(), request.uri());
    for (name, value) in request.headers() {
        head.push_str(&format!("{name}: {}\r\n", value.to_str().unwrap()));
    }
    let body = String::from_utf8(request.body().to_vec()).unwrap();
    head.push_str(&format!(
        "content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    ));
    common::exchange(&host, &head).await
}

/// A query-protocol STS call signed with `credentials` at `time`.
fn sts_request(
    cloud: &LocalCloud,
    credentials: &Credentials,
    body: &str,
    time: chrono::DateTime<chrono::Utc>,
) -> http::Request<bytes::Bytes> {
    let mut request = http::Request::post("/")
        .header("host", cloud.addr().to_string())
        .header("content-type", "application/x-www-form-urlencoded")
        .header("x-amz-security-token", credentials.session_token.as_str())
        .body(bytes::Bytes::from(body.to_string()))
        .unwrap();
    localcloud_iam::sigv4::sign(
        &mut request,
        &credentials.access_key_id,
        &credentials.secret_access_key,
        REGION,
        "sts",
        time,
    );
    request
}

fn xml(body: &str, element: &str) -> String {
    let open = format!("<{element}>");
    let start = body
        .find(&open)
        .unwrap_or_else(|| panic!("no {element} in {body}"))
        + open.len();
    let end = body[start..].find(&format!("</{element}>")).unwrap() + start;
    body[start..end].to_string()
}

#[tokio::test]
async fn sts_answers_the_assumed_role_assumes_template_roles_and_issues_session_tokens() {
    let logs = tempfile::tempdir().unwrap();
    let cloud = iam_app(logs.path()).await;
    let read_only = role_credentials(&cloud, "ReadOnly");
    let now = chrono::Utc::now();

    // GetCallerIdentity inside a function: the assumed role, session = function name.
    let (status, body) = send(
        &cloud,
        sts_request(
            &cloud,
            &read_only,
            "Action=GetCallerIdentity&Version=2011-06-15",
            now,
        ),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(xml(&body, "Arn"), assumed("ReadOnly", "read-only"));
    assert_eq!(xml(&body, "Account"), ACCOUNT);
    assert!(xml(&body, "UserId").starts_with("AROA"), "{body}");
    assert!(xml(&body, "UserId").ends_with(&format!(":{STACK}-read-only")));

    // A role session may not GetSessionToken, nor assume another function's
    // role (it trusts Lambda only).
    let (status, body) = send(
        &cloud,
        sts_request(
            &cloud,
            &read_only,
            "Action=GetSessionToken&Version=2011-06-15",
            now,
        ),
    )
    .await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(xml(&body, "Code"), "AccessDenied");
    assert_eq!(
        xml(&body, "Message"),
        "Cannot call GetSessionToken with session credentials"
    );

    // The administrator assumes the read-only function's role ...
    let role_arn = format!("arn:aws:iam::{ACCOUNT}:role/{STACK}-ReadOnlyRole");
    let (status, body) = common::query_call(
        &cloud.endpoint(),
        "sts",
        &[
            ("Action", "AssumeRole"),
            ("Version", "2011-06-15"),
            ("RoleArn", &role_arn),
            ("RoleSessionName", "me"),
        ],
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        xml(&body, "Arn"),
        format!("arn:aws:sts::{ACCOUNT}:assumed-role/{STACK}-ReadOnlyRole/me")
    );
    let assumed_creds = Credentials {
        access_key_id: xml(&body, "AccessKeyId"),
        secret_access_key: xml(&body, "SecretAccessKey"),
        session_token: xml(&body, "SessionToken"),
        expiration: now,
    };
    assert!(assumed_creds.access_key_id.starts_with("ASIA"));
    // ... and its credentials carry the role's policies.
    let ddb = aws_sdk_dynamodb::Client::new(&as_role(&cloud, &assumed_creds));
    assert_eq!(get(&ddb, "granted").await, Ok(()));
    assert_eq!(
        get(&ddb, "other")
            .await
            .map_err(|e| e.contains("AccessDenied")),
        Err(true)
    );

    // AssumeRole of a role no template defines is denied.
    let (status, body) = common::query_call(
        &cloud.endpoint(),
        "sts",
        &[
            ("Action", "AssumeRole"),
            ("RoleArn", &format!("arn:aws:iam::{ACCOUNT}:role/nobody")),
            ("RoleSessionName", "me"),
        ],
    )
    .await;
    assert_eq!(
        (status, xml(&body, "Code")),
        (403, "AccessDenied".to_string()),
        "{body}"
    );

    // GetSessionToken by the administrator: credentials that are the administrator's.
    let (status, body) = common::query_call(
        &cloud.endpoint(),
        "sts",
        &[("Action", "GetSessionToken"), ("DurationSeconds", "900")],
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let session = Credentials {
        access_key_id: xml(&body, "AccessKeyId"),
        secret_access_key: xml(&body, "SecretAccessKey"),
        session_token: xml(&body, "SessionToken"),
        expiration: now,
    };
    let ddb = aws_sdk_dynamodb::Client::new(&as_role(&cloud, &session));
    assert_eq!(get(&ddb, "other").await, Ok(()));
    let (_, body) = send(
        &cloud,
        sts_request(&cloud, &session, "Action=GetCallerIdentity", now),
    )
    .await;
    assert_eq!(xml(&body, "Arn"), format!("arn:aws:iam::{ACCOUNT}:root"));
    cloud.shutdown().await.unwrap();
}

/// Credentials of an STS answer as `localcloud_iam::Credentials`.
fn from_sts(credentials: &aws_sdk_sts::types::Credentials) -> Credentials {
    Credentials {
        access_key_id: credentials.access_key_id().to_string(),
        secret_access_key: credentials.secret_access_key().to_string(),
        session_token: credentials.session_token().to_string(),
        expiration: chrono::Utc::now(),
    }
}

// `PackedPolicySize` is deprecated in the SDK (for `SessionTokenUtilization`)
// but still in the API reference; the local cloud answers it.
#[allow(deprecated)]
#[tokio::test]
async fn federation_tokens_and_authorization_messages_through_the_sts_sdk() {
    let logs = tempfile::tempdir().unwrap();
    let cloud = iam_app(logs.path()).await;
    let admin = aws_sdk_sts::Client::new(&common::sdk_config(&cloud.endpoint(), REGION));
    let code = |e: &dyn aws_sdk_sts::error::ProvideErrorMetadata| e.code().map(str::to_string);

    // GetFederationToken by the administrator (the account's root user):
    // a federated user, for an hour at most.
    let issued = admin
        .get_federation_token()
        .name("alice")
        .duration_seconds(7200)
        .send()
        .await
        .unwrap();
    let user = issued.federated_user().unwrap();
    let arn = format!("arn:aws:sts::{ACCOUNT}:federated-user/alice");
    assert_eq!(user.arn(), arn);
    assert_eq!(user.federated_user_id(), format!("{ACCOUNT}:alice"));
    assert_eq!(issued.packed_policy_size(), None);
    let credentials = issued.credentials().unwrap();
    assert!(credentials.access_key_id().starts_with("ASIA"));
    let lifetime = credentials.expiration().secs() - chrono::Utc::now().timestamp();
    assert!((3500..=3600).contains(&lifetime), "{lifetime}");

    // Its credentials are the federated user's ...
    let federated = aws_sdk_sts::Client::new(&as_role(&cloud, &from_sts(credentials)));
    let me = federated.get_caller_identity().send().await.unwrap();
    assert_eq!(me.arn(), Some(arn.as_str()));
    assert_eq!(me.user_id(), Some(format!("{ACCOUNT}:alice").as_str()));
    // ... and, like a role's, they may not ask for another federation token.
    let role = aws_sdk_sts::Client::new(&as_role(&cloud, &role_credentials(&cloud, "ReadOnly")));
    for session in [&federated, &role] {
        let refused = session
            .get_federation_token()
            .name("bob")
            .send()
            .await
            .unwrap_err();
        assert_eq!(code(&refused), Some("AccessDenied".into()));
    }

    // A session policy is sized; a bad name or policy is refused.
    let with_policy = admin
        .get_federation_token()
        .name("carol")
        .policy(r#"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}]}"#)
        .send()
        .await
        .unwrap();
    assert!(with_policy
        .packed_policy_size()
        .is_some_and(|p| (1..=100).contains(&p)));
    let short = admin
        .get_federation_token()
        .name("a")
        .send()
        .await
        .unwrap_err();
    assert_eq!(code(&short), Some("ValidationError".into()));
    let malformed = admin
        .get_federation_token()
        .name("dave")
        .policy("not json")
        .send()
        .await
        .unwrap_err();
    assert_eq!(code(&malformed), Some("MalformedPolicyDocument".into()));

    // DecodeAuthorizationMessage: the local cloud encoded no message.
    let undecodable = admin
        .decode_authorization_message()
        .encoded_message("c29tZXRoaW5n")
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(
        undecodable.is_invalid_authorization_message_exception(),
        "{undecodable:?}"
    );
    cloud.shutdown().await.unwrap();
}

#[tokio::test]
async fn signatures_tokens_and_dates_are_verified_for_minted_credentials() {
    let logs = tempfile::tempdir().unwrap();
    let cloud = iam_app(logs.path()).await;
    let good = role_credentials(&cloud, "ReadOnly");
    let ddb = |c: &Credentials| aws_sdk_dynamodb::Client::new(&as_role(&cloud, c));

    // A wrong secret: DynamoDB's InvalidSignatureException.
    let wrong_secret = Credentials {
        secret_access_key: "not-the-secret".into(),
        ..good.clone()
    };
    let err = get(&ddb(&wrong_secret), "granted").await.unwrap_err();
    assert!(err.contains("InvalidSignatureException"), "{err}");
    // A key the local cloud never minted, or the token of another session.
    let unknown = Credentials {
        access_key_id: "ASIAUNKNOWNUNKNOWN00".into(),
        ..good.clone()
    };
    let err = get(&ddb(&unknown), "granted").await.unwrap_err();
    assert!(err.contains("UnrecognizedClientException"), "{err}");
    let other_token = Credentials {
        session_token: role_credentials(&cloud, "NoPolicy").session_token,
        ..good.clone()
    };
    let err = get(&ddb(&other_token), "granted").await.unwrap_err();
    assert!(err.contains("UnrecognizedClientException"), "{err}");

    // An expired session: ExpiredTokenException.
    let role = cloud
        .iam()
        .sessions
        .role(&format!("arn:aws:iam::{ACCOUNT}:role/{STACK}-ReadOnlyRole"))
        .unwrap();
    let expired = cloud.iam().sessions.open(
        localcloud_iam::Principal::AssumedRole {
            role,
            session_name: "old".into(),
        },
        chrono::Duration::seconds(-1),
    );
    let err = get(&ddb(&expired), "granted").await.unwrap_err();
    assert!(err.contains("ExpiredTokenException"), "{err}");

    // A request signed 20 minutes ago: STS's SignatureDoesNotMatch, "Signature expired".
    let stale = chrono::Utc::now() - chrono::Duration::minutes(20);
    let (status, body) = send(
        &cloud,
        sts_request(&cloud, &good, "Action=GetCallerIdentity", stale),
    )
    .await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(xml(&body, "Code"), "SignatureDoesNotMatch");
    assert!(
        xml(&body, "Message").starts_with("Signature expired: "),
        "{body}"
    );
    cloud.shutdown().await.unwrap();
}

#[tokio::test]
async fn the_report_gives_each_function_its_least_policy_and_unused_grants() {
    // GIVEN the read-only function read its table once and was denied a write
    let logs = tempfile::tempdir().unwrap();
    let cloud = iam_app(logs.path()).await;
    let ddb =
        aws_sdk_dynamodb::Client::new(&as_role(&cloud, &role_credentials(&cloud, "ReadOnly")));
    get(&ddb, "granted").await.unwrap();
    let _ = ddb
        .put_item()
        .table_name(table("granted"))
        .item("id", AttributeValue::S("1".into()))
        .send()
        .await;

    // WHEN the report is asked for (the contract the bench reads)
    let report = common::get_json(&format!("{}/_localcloud/iam", cloud.endpoint())).await;
    let report = IamDocument::from_value(report).expect("the IAM document");

    // THEN it lists both calls, a least policy allowing exactly them, and
    // what the role grants that was never used
    let f = report
        .functions
        .iter()
        .find(|f| f.logical_id == "ReadOnly")
        .unwrap();
    assert_eq!(report.mode, IamMode::Enforce);
    assert_eq!(
        serde_json::to_value(&f.least_policy).unwrap()["Statement"],
        serde_json::json!([{"Effect": "Allow", "Action": ["dynamodb:GetItem", "dynamodb:PutItem"], "Resource": [table_arn("granted")]}])
    );
    assert!(
        f.calls
            .iter()
            .any(|c| c.action == "dynamodb:PutItem" && c.denied == 1),
        "{:?}",
        f.calls
    );
    let unused: Vec<String> = f
        .unused_grants
        .iter()
        .map(|g| format!("{} {}", g.action, g.resource))
        .collect();
    assert!(
        unused.contains(&format!("dynamodb:Scan {}", table_arn("granted"))),
        "{unused:?}"
    );
    assert!(
        unused.iter().any(|u| u.starts_with("sqs:SendMessage*")),
        "{unused:?}"
    );
    assert!(!unused.contains(&format!("dynamodb:GetItem {}", table_arn("granted"))));
    // AND the denial is named with its function
    let denials = report.denials();
    assert_eq!(denials.len(), 1, "{denials:?}");
    assert_eq!(denials[0].action, "dynamodb:PutItem");
    let text = localcloud::iam_report::render(&report);
    assert!(text.contains("DENIED dynamodb:PutItem"), "{text}");
    cloud.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_malformed_policy_fails_the_stack_with_a_clear_error() {
    let template = r#"
Transform: AWS::Serverless-2016-10-31
Resources:
  Broken:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
      Handler: bootstrap
      CodeUri: ../../../test-functions
      Policies:
        - Statement:
            - Effect: Allow
              Action: GetItem
              Resource: "*"
"#;
    let mut stack = localcloud::StackConfig::new(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/iam-app.yaml"),
    );
    stack.template_body = Some(template.into());
    stack.binaries_dir = localcloud::testing::function_binaries(&["echo"]);
    stack
        .binaries
        .insert("Broken".into(), stack.binaries_dir.join("echo"));
    let err = LocalCloud::start(localcloud::LocalCloudConfig {
        stack: Some(stack),
        ..localcloud::LocalCloudConfig::ephemeral()
    })
    .await
    .err()
    .expect("the stack fails");
    assert_eq!(
        err.to_string(),
        "function Broken: Policies[0]: Statement 0: Actions/Conditions must be prefaced by a vendor, e.g., iam, sdb, ec2, etc. (GetItem)"
    );
}
