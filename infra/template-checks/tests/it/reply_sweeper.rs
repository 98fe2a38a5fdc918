//! The reply-queue clean-up runs off the request path, in the template's
//! scheduled sweeper: on the local cloud with the real binaries, requests on
//! fresh queue-path environments list no queue and read no tag, and the
//! sweeper, invoked with EventBridge's scheduled event, deletes the reply
//! queues of environments that are gone and keeps the live ones.

use template_checks::load_template;

async fn sqs_call(endpoint: &str, target: &str, body: &str) -> serde_json::Value {
    let (status, text) =
        crate::common::json_call(endpoint, &format!("AmazonSQS.{target}"), body).await;
    assert_eq!(status, 200, "{target}: {text}");
    serde_json::from_str(&text).unwrap()
}

/// The orders table seeded, and a reply queue of a dead environment of
/// each kind of caller (orders, Conduit), its heartbeat long past.
pub(crate) async fn seed_orders_and_leave_dead_reply_queues(
    app: &localcloud_template::Application,
    endpoint: &str,
) {
    let orders_table = &app.table("OrdersTable").expect("OrdersTable").name;
    bench::seed::seed_orders(&bench::seed::local_client(endpoint), orders_table)
        .await
        .unwrap();
    for name in ["local-orders-reply-dead", "local-cr-articles-users-dead"] {
        let body = format!(r#"{{"QueueName": "{name}", "tags": {{"heartbeat-ms": "1000"}}}}"#);
        sqs_call(endpoint, "CreateQueue", &body).await;
    }
}

async fn reply_queues(endpoint: &str) -> Vec<String> {
    let listed = sqs_call(endpoint, "ListQueues", r#"{"QueueNamePrefix": "local-"}"#).await;
    let urls = listed["QueueUrls"].as_array().cloned().unwrap_or_default();
    let mut names: Vec<String> = urls
        .iter()
        .filter_map(|u| u.as_str()?.rsplit('/').next().map(String::from))
        .filter(|n| n.contains("-reply-") || n.contains("-cr-"))
        .collect();
    names.sort();
    names
}

#[tokio::test]
async fn fresh_environments_do_not_sweep_and_the_scheduled_sweeper_deletes_only_dead_queues() {
    // GIVEN the template on the local cloud, its orders seeded, and reply
    // queues left behind by dead environments of both kinds of caller
    let app = load_template().expect("template.yaml loads");
    let (cloud, _logs) = crate::common::start_template(&app).await;
    let endpoint = cloud.endpoint();
    seed_orders_and_leave_dead_reply_queues(&app, &endpoint).await;
    let before = cloud.sqs().metrics();

    // WHEN four requests arrive at once on the queue path (fresh environments)
    let url = cloud.stack().unwrap().api_urls()["OrdersQueueApi"].clone();
    let requests: Vec<_> = (0..4)
        .map(|_| {
            let url = url.clone();
            tokio::spawn(async move { crate::common::request(&url, "GET", "/orders/2", "").await })
        })
        .collect();
    for request in requests {
        let (status, body) = request.await.unwrap();
        assert_eq!(status, 200, "{body}");
    }

    // THEN no environment listed queues (ListQueues reaches no queue: it is
    // counted apart) nor read a tag, and the dead queues are still there
    let after = cloud.sqs().metrics();
    assert_eq!(after.unattributed_requests, before.unattributed_requests);
    assert_eq!(after.calls_to_queues("ListQueueTags"), 0);
    let live = reply_queues(&endpoint).await;
    assert!(
        live.len() >= 3,
        "the dead ones and at least one live one: {live:?}"
    );

    // WHEN each experiment's sweeper is invoked by its schedule
    for logical_id in [
        "OrdersReplySweeperFunction",
        "ConduitMicroQueueReplySweeperFunction",
    ] {
        let swept = crate::common::invoke_scheduled(&endpoint, &app, logical_id).await;
        // THEN it deleted its experiment's dead queue
        assert_eq!(swept["deleted"], 1, "{logical_id}: {swept}");
    }
    // AND only the dead queues are gone
    let remaining = reply_queues(&endpoint).await;
    assert_eq!(remaining.len(), live.len() - 2, "{remaining:?}");
    assert!(
        remaining.iter().all(|n| !n.ends_with("-dead")),
        "{remaining:?}"
    );
    cloud.shutdown().await.unwrap();
}
