//! One service function and the three kinds of event it receives, told apart
//! by shape: API Gateway v2 (fixture), internal invokes, SQS batches (fixture).
//! Bad events are errors with a type, never panics.

use aws_lambda_events::sqs::SqsEvent;
use conduit_micro::cluster::Cluster;
use conduit_micro::lambda::ServiceFunction;
use conduit_micro::Service;
use serde_json::{json, Value};

/// A service function over the in-process cluster (its SQS client points nowhere).
fn function(cluster: &Cluster, service: Service) -> ServiceFunction {
    let config = aws_sdk_sqs::Config::builder()
        .behavior_version(aws_sdk_sqs::config::BehaviorVersion::latest())
        .region(aws_sdk_sqs::config::Region::new("us-east-1"))
        .endpoint_url("http://127.0.0.1:9")
        .credentials_provider(aws_credential_types::Credentials::new(
            "AKIDLOCAL",
            "secret",
            None,
            None,
            "test",
        ))
        .build();
    ServiceFunction {
        app: cluster.apps[&service].clone(),
        owned: cluster.owned[&service].clone(),
        sqs: aws_sdk_sqs::Client::from_conf(config),
    }
}

async fn cluster_with_jake() -> (Cluster, String) {
    let cluster = Cluster::in_memory(crate::common::tokens());
    let users = function(&cluster, Service::Users);
    let register = json!({
        "version": "2.0", "routeKey": "POST /api/users", "rawPath": "/api/users",
        "rawQueryString": "", "headers": {"host": "x"},
        "requestContext": {"http": {"method": "POST", "path": "/api/users", "protocol": "HTTP/1.1", "sourceIp": "1.2.3.4", "userAgent": "t"}, "stage": "$default", "requestId": "r", "routeKey": "POST /api/users", "accountId": "1", "apiId": "a", "domainName": "x", "domainPrefix": "x", "time": "t", "timeEpoch": 0},
        "body": json!({"user": {"username": "jake", "email": "jake@jake.jake", "password": "jakejake"}}).to_string(),
        "isBase64Encoded": false
    });
    let answer = users.handle(register).await.unwrap();
    assert_eq!(answer["statusCode"], 201, "{answer}");
    let body: Value = serde_json::from_str(answer["body"].as_str().unwrap()).unwrap();
    let token = body["user"]["token"].as_str().unwrap().to_owned();
    (cluster, token)
}

#[tokio::test]
async fn an_http_api_event_is_answered_as_a_v2_response() {
    // GIVEN jake, and the fixture event for GET /api/profiles/jake with his token
    let (cluster, token) = cluster_with_jake().await;
    let text = include_str!("../fixtures/apigw-v2-get-profile.json").replace("{{TOKEN}}", &token);
    let event: Value = serde_json::from_str(&text).unwrap();
    // WHEN the profiles function gets it
    let answer = function(&cluster, Service::Profiles)
        .handle(event)
        .await
        .unwrap();
    // THEN it answers in the payload v2 response shape
    assert_eq!(answer["statusCode"], 200, "{answer}");
    assert_eq!(answer["headers"]["content-type"], "application/json");
    assert_eq!(answer["isBase64Encoded"], false);
    let body: Value = serde_json::from_str(answer["body"].as_str().unwrap()).unwrap();
    assert_eq!(body["profile"]["username"], "jake");
    assert_eq!(body["profile"]["following"], false);
}

#[tokio::test]
async fn a_401_carries_www_authenticate_and_the_spec_body() {
    let (cluster, _) = cluster_with_jake().await;
    let text = include_str!("../fixtures/apigw-v2-get-profile.json")
        .replace("Token {{TOKEN}}", "Token forged");
    let answer = function(&cluster, Service::Profiles)
        .handle(serde_json::from_str(&text).unwrap())
        .await
        .unwrap();
    assert_eq!(answer["statusCode"], 401);
    assert_eq!(answer["headers"]["www-authenticate"], "Token");
}

#[tokio::test]
async fn an_internal_invoke_is_answered_by_its_owner_with_cards_only() {
    // GIVEN jake
    let (cluster, _) = cluster_with_jake().await;
    let users = function(&cluster, Service::Users);
    // WHEN users is invoked for a card by name
    let answer = users
        .handle(json!({"op": "userByUsername", "username": "jake"}))
        .await
        .unwrap();
    // THEN it answers the card, without email or password hash
    assert_eq!(answer["username"], "jake");
    assert!(answer.get("email").is_none(), "{answer}");
    assert!(!answer.to_string().contains("argon2"), "{answer}");
    // AND an unknown name is null, an empty batch is empty
    let none = users
        .handle(json!({"op": "userByUsername", "username": "nobody"}))
        .await
        .unwrap();
    assert_eq!(none, Value::Null);
    let empty = users
        .handle(json!({"op": "usersByIds", "ids": []}))
        .await
        .unwrap();
    assert_eq!(empty, json!([]));
}

#[tokio::test]
async fn another_owners_request_or_a_malformed_one_is_a_bad_request() {
    let cluster = Cluster::in_memory(crate::common::tokens());
    let users = function(&cluster, Service::Users);
    let wrong = users
        .handle(json!({"op": "followees", "viewer": "v"}))
        .await
        .unwrap_err();
    assert_eq!(wrong.error_type, "BadRequest");
    assert!(
        wrong.error_message.contains("profiles"),
        "{}",
        wrong.error_message
    );
    let malformed = users
        .handle(json!({"op": "usersByIds", "ids": "not a list"}))
        .await
        .unwrap_err();
    assert_eq!(malformed.error_type, "BadRequest");
}

#[tokio::test]
async fn events_of_no_known_shape_are_errors_not_panics() {
    let cluster = Cluster::in_memory(crate::common::tokens());
    let users = function(&cluster, Service::Users);
    for event in [
        json!(null),
        json!([]),
        json!("text"),
        json!({"hello": 1}),
        json!({"Records": "nope"}),
        json!({"requestContext": 5}),
    ] {
        let error = users.handle(event.clone()).await.unwrap_err();
        assert_eq!(error.error_type, "BadRequest", "{event}");
    }
}

#[tokio::test]
async fn in_a_batch_a_malformed_request_is_retried_and_an_expired_one_skipped() {
    // GIVEN the fixture batch: a body that is no request, and a request nobody waits for
    let cluster = Cluster::in_memory(crate::common::tokens());
    let users = function(&cluster, Service::Users);
    let batch: SqsEvent =
        serde_json::from_str(include_str!("../fixtures/sqs-internal-requests.json")).unwrap();
    // WHEN the users function gets it
    let response = users.answer_batch(batch).await;
    // THEN only the malformed one is reported (so it ends in the DLQ); the
    // expired one is dropped without a reply (its reply queue does not exist)
    let failed: Vec<&str> = response
        .batch_item_failures
        .iter()
        .map(|f| f.item_identifier.as_str())
        .collect();
    assert_eq!(failed, vec!["malformed-1"]);
}
