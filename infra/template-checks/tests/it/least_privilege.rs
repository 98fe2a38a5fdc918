//! IAM least privilege for every function of `template.yaml`, from evidence:
//! the template runs on the local cloud under enforcement (the default,
//! `--iam enforce`) with the real binaries, every path of the orders and
//! Conduit experiments is driven once (both orders paths, every Conduit
//! route through the monolith and both microservice APIs, both reply-queue
//! sweepers), and the local cloud's record of what each function was allowed
//! and denied (`GET /_localcloud/iam`, the contract
//! `localcloud_metrics::iam::IamDocument`) must show no denial and no grant
//! left unused but those [`KEPT_UNUSED`] explains. Also: nothing on `*` but
//! `sqs:ListQueues`, every SQS event source can poll its queue, the orders
//! back ends only read.

use localcloud_metrics::iam::{Grant, IamDocument};
use localcloud_template::Target;
use serde_json::{json, Value};
use template_checks::load_template;

/// The DynamoDB actions that only read items or describe a table.
const DYNAMODB_READS: &[&str] = &[
    "dynamodb:GetItem",
    "dynamodb:BatchGetItem",
    "dynamodb:Query",
    "dynamodb:Scan",
    "dynamodb:ConditionCheckItem",
    "dynamodb:DescribeTable",
];

/// Grants no scenario uses that stay, and why: (function or `*`, action
/// or action prefix, part of the resource, why). Any other unused grant
/// fails the test: drive the path that needs it, or take it out of
/// template.yaml.
const KEPT_UNUSED: &[(&str, &str, &str, &str)] = &[
    // SQS authorises a batch call as its single action: IAM has no
    // `*Batch` action ("Amazon SQS API permissions: Actions and resource
    // reference", SQS Developer Guide), but SAM's SQSPollerPolicy grants
    // them by name.
    ("*", "sqs:ChangeMessageVisibilityBatch", "-requests", "SAM's SQSPollerPolicy: not an IAM action (authorised as sqs:ChangeMessageVisibility)"),
    ("*", "sqs:DeleteMessageBatch", "-requests", "SAM's SQSPollerPolicy: not an IAM action (authorised as sqs:DeleteMessage)"),
    // Lambda's poller may hand a failed batch back early with
    // ChangeMessageVisibility; the local event source mapping lets the
    // visibility timeout run out instead, and checks only Receive, Delete
    // and GetQueueAttributes at start (recorded as the role's calls).
    ("*", "sqs:ChangeMessageVisibility", "-requests", "SAM's SQSPollerPolicy, for Lambda's poller: the local event source mapping does not call it"),
];

/// Why `function`'s `grant` may stay unused, if [`KEPT_UNUSED`] says.
fn kept(function: &str, grant: &Grant) -> Option<&'static str> {
    KEPT_UNUSED
        .iter()
        .find(|(who, action, resource_part, _)| {
            (*who == "*" || function.starts_with(who))
                && grant.action.starts_with(action)
                && grant.resource.contains(resource_part)
        })
        .map(|(_, _, _, why)| *why)
}

/// A Conduit call through `base` with an optional token; (status, JSON body).
async fn conduit(
    base: &str,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<Value>,
) -> (u16, Value) {
    let mut headers = "content-type: application/json\r\n".to_string();
    if let Some(token) = token {
        headers.push_str(&format!("authorization: Token {token}\r\n"));
    }
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let (status, text) = crate::common::request_with(base, method, path, &headers, &body).await;
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

/// `conduit` that must answer `expected`; the body.
async fn expect(
    base: &str,
    expected: u16,
    (method, path): (&str, &str),
    token: Option<&str>,
    body: Option<Value>,
) -> Value {
    let (status, answer) = conduit(base, method, path, token, body).await;
    assert_eq!(status, expected, "{method} {base}{path}: {answer}");
    answer
}

async fn register(base: &str, name: &str) -> String {
    let user = json!({"user": {"username": name, "email": format!("{name}@example.com"), "password": format!("password-{name}")}});
    let answer = expect(base, 201, ("POST", "/api/users"), None, Some(user)).await;
    answer["user"]["token"].as_str().unwrap().to_string()
}

/// Every Conduit route once through `base`, each DynamoDB action of each
/// store and each internal call among them: users, follows, articles with
/// tags and favorites, comments, and an article deleted with its comments.
/// The three APIs share their tables: `n` keeps each tour's users apart.
async fn conduit_tour(base: &str, n: usize) {
    let (alice, bob, alicia) = (format!("alice{n}"), format!("bob{n}"), format!("alicia{n}"));
    let alice_token = register(base, &alice).await;
    let bob_token = register(base, &bob).await;
    let (a, b) = (Some(alice_token.as_str()), Some(bob_token.as_str()));
    let login = json!({"user": {"email": format!("{alice}@example.com"), "password": format!("password-{alice}")}});
    expect(base, 200, ("POST", "/api/users/login"), None, Some(login)).await;
    expect(base, 200, ("GET", "/api/user"), a, None).await;
    let rename =
        json!({"user": {"username": alicia, "email": format!("{alicia}@example.com"), "bio": "b"}});
    expect(base, 200, ("PUT", "/api/user"), a, Some(rename)).await;
    let profile = format!("/api/profiles/{bob}");
    let follow = format!("{profile}/follow");
    expect(base, 200, ("GET", &profile), a, None).await;
    expect(base, 200, ("POST", &follow), a, None).await;
    let article = json!({"article": {"title": format!("Evidence {n}"), "description": "d", "body": "b", "tagList": ["iam"]}});
    let created = expect(base, 201, ("POST", "/api/articles"), b, Some(article)).await;
    let slug = created["article"]["slug"].as_str().unwrap().to_string();
    let one = format!("/api/articles/{slug}");
    let favorite = format!("{one}/favorite");
    let comments = format!("{one}/comments");
    expect(base, 200, ("POST", &favorite), a, None).await;
    for listing in [
        "/api/articles".to_string(),
        "/api/articles?tag=iam".to_string(),
        format!("/api/articles?author={bob}"),
        format!("/api/articles?favorited={alicia}"),
        "/api/articles/feed".to_string(),
        "/api/tags".to_string(),
    ] {
        expect(base, 200, ("GET", &listing), a, None).await;
    }
    expect(base, 200, ("GET", "/api/articles"), None, None).await;
    expect(base, 200, ("GET", &one), a, None).await;
    expect(base, 200, ("DELETE", &favorite), a, None).await;
    let update = json!({"article": {"body": "changed"}});
    expect(base, 200, ("PUT", &one), b, Some(update)).await;
    let comment = json!({"comment": {"body": "first"}});
    let added = expect(base, 201, ("POST", &comments), a, Some(comment.clone())).await;
    let id = added["comment"]["id"].as_i64().unwrap();
    expect(base, 200, ("GET", &comments), b, None).await;
    let delete_comment = format!("{comments}/{id}");
    expect(base, 204, ("DELETE", &delete_comment), a, None).await;
    expect(base, 201, ("POST", &comments), a, Some(comment)).await;
    expect(base, 204, ("DELETE", &one), b, None).await;
    expect(base, 200, ("DELETE", &follow), a, None).await;
    expect(base, 404, ("GET", "/api/nothing-here"), None, None).await;
}

#[tokio::test]
async fn every_grant_is_used_by_the_scenarios_and_none_is_missing() {
    // GIVEN the template on the local cloud, IAM enforced, its orders seeded
    // and a dead reply queue of each kind of caller
    let app = load_template().expect("template.yaml loads");
    let (cloud, _logs) = crate::common::start_template(&app).await;
    let endpoint = cloud.endpoint();
    crate::reply_sweeper::seed_orders_and_leave_dead_reply_queues(&app, &endpoint).await;
    let urls = cloud.stack().unwrap().api_urls().clone();

    // WHEN every path runs once: both orders paths, every Conduit route
    // through each of the three APIs, both sweepers on their schedule
    for api in ["OrdersDirectApi", "OrdersQueueApi"] {
        let (status, body) = crate::common::request(&urls[api], "GET", "/orders/2", "").await;
        assert_eq!(status, 200, "{api}: {body}");
    }
    for (n, api) in [
        "ConduitApi",
        "ConduitMicroInvokeApi",
        "ConduitMicroQueueApi",
    ]
    .into_iter()
    .enumerate()
    {
        conduit_tour(&urls[api], n).await;
    }
    for sweeper in [
        "OrdersReplySweeperFunction",
        "ConduitMicroQueueReplySweeperFunction",
    ] {
        crate::common::invoke_scheduled(&endpoint, &app, sweeper).await;
    }
    let (status, body) = crate::common::request(&endpoint, "GET", "/_localcloud/iam", "").await;
    assert_eq!(status, 200, "{body}");
    let evidence = IamDocument::from_json(&body).expect("the IAM document");
    cloud.shutdown().await.unwrap();

    // THEN IAM denied nothing
    let denials: Vec<String> = evidence
        .denials()
        .iter()
        .map(|d| {
            format!(
                "{}: {} on {} ({}x)",
                d.logical_id, d.action, d.resource, d.count
            )
        })
        .collect();
    assert!(
        denials.is_empty(),
        "IAM denied calls template.yaml must grant:\n{}",
        denials.join("\n")
    );
    // AND every function ran and every grant it has served a call, but
    // those KEPT_UNUSED explains (all printed: the evidence docs/iam.md shows)
    let mut unexplained = Vec::new();
    for f in &evidence.functions {
        assert!(!f.calls.is_empty(), "{} made no call", f.logical_id);
        for grant in &f.unused_grants {
            let why = kept(&f.logical_id, grant);
            eprintln!(
                "{}: unused {} on {} ({}){}",
                f.logical_id,
                grant.action,
                grant.resource,
                grant.policy,
                why.map(|w| format!(": kept, {w}")).unwrap_or_default()
            );
            if why.is_none() {
                unexplained.push(format!(
                    "{}: {} on {} ({})",
                    f.logical_id, grant.action, grant.resource, grant.policy
                ));
            }
        }
    }
    assert!(
        unexplained.is_empty(),
        "template.yaml grants that no scenario used (drive the path that needs one, or take it out):\n{}",
        unexplained.join("\n")
    );
}

#[test]
fn nothing_is_granted_on_every_resource_but_listing_queues() {
    // GIVEN the project's template
    let app = load_template().expect("template.yaml loads");
    for function in &app.functions {
        // WHEN the actions granted on `*` are listed
        let on_any = function.actions_on(&Target::Other("*".into()));
        // THEN only sqs:ListQueues (which IAM cannot scope) is among them
        let broad: Vec<&&str> = on_any
            .iter()
            .filter(|a| !a.eq_ignore_ascii_case("sqs:ListQueues"))
            .collect();
        assert!(
            broad.is_empty(),
            "{} is granted {broad:?} on every resource",
            function.logical_id
        );
    }
}

#[test]
fn every_sqs_event_source_can_poll_its_queue() {
    // GIVEN the functions fed by an SQS event source mapping
    let app = load_template().expect("template.yaml loads");
    for function in &app.functions {
        for event in &function.sqs_events {
            let queue = Target::from_arn(&event.queue_arn);
            // WHEN the actions granted on the event's queue are listed
            let granted = function.actions_on(&queue);
            // THEN the mapping can receive, delete and read attributes, as
            // Lambda requires of the execution role
            for needed in [
                "sqs:ReceiveMessage",
                "sqs:DeleteMessage",
                "sqs:GetQueueAttributes",
            ] {
                assert!(
                    granted.iter().any(|g| g.eq_ignore_ascii_case(needed)),
                    "{} event {} lacks {needed} on {queue:?}",
                    function.logical_id,
                    event.name
                );
            }
        }
    }
}

#[test]
fn the_orders_back_ends_may_only_read_their_table() {
    // GIVEN the project's template and the orders table
    let app = load_template().expect("template.yaml loads");
    let table = Target::table(&app.table("OrdersTable").expect("OrdersTable").name);
    for logical_id in ["OrdersBackendFunction", "OrdersWorkerFunction"] {
        // WHEN the actions granted on the table are listed
        let function = app.function(logical_id).expect("function");
        let granted = function.actions_on(&table);
        // THEN every one of them reads, and the Query the back end sends is among them
        let not_reads: Vec<&&str> = granted
            .iter()
            .filter(|a| !DYNAMODB_READS.iter().any(|r| r.eq_ignore_ascii_case(a)))
            .collect();
        assert!(
            not_reads.is_empty(),
            "{logical_id} may only read the orders table, but is granted {not_reads:?}"
        );
        assert!(
            granted.contains(&"dynamodb:Query"),
            "{logical_id}: {granted:?}"
        );
    }
}
