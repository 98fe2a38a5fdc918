//! template-rest.yaml (the REST API version of template.yaml) on the local
//! cloud: the orders smoke through both REST APIs, with REST's stage URLs.

use crate::common::http_call;
use serde_json::Value;

#[tokio::test]
async fn both_orders_paths_answer_the_same_orders_through_their_rest_apis() {
    // GIVEN the REST version of the template, with a short back-end delay
    let logs = tempfile::tempdir().unwrap();
    let cloud = crate::common::start_repo_template("template-rest.yaml", 20, logs.path()).await;
    let stack = cloud.stack().unwrap();
    // AND its orders table seeded, as the bench does before any run
    let ddb =
        aws_sdk_dynamodb::Client::new(&crate::common::sdk_config(&cloud.endpoint(), "us-east-1"));
    let table = &stack.app.table("OrdersTable").unwrap().name;
    orders::table::seed(&ddb, table).await.unwrap();

    // WHEN each path is asked for five orders at the URL its output gives
    let direct = &stack.app.outputs["OrdersDirectUrl"];
    let queue = &stack.app.outputs["OrdersQueueUrl"];
    assert!(
        direct.ends_with("/Prod") && queue.ends_with("/Prod"),
        "{direct} {queue}"
    );
    let (status, by_direct) = http_call("GET", &format!("{direct}/orders/5"), "").await;
    assert_eq!(status, 200, "{by_direct}");
    let (status, by_queue) = http_call("GET", &format!("{queue}/orders/5"), "").await;
    assert_eq!(status, 200, "{by_queue}");

    // THEN both give the same five orders, and an unknown path is REST's 403
    let orders: Vec<Value> = serde_json::from_str(&by_direct).unwrap();
    assert_eq!(orders.len(), 5);
    assert_eq!(by_direct, by_queue);
    let (status, _) = http_call("GET", &format!("{direct}/nothing"), "").await;
    assert_eq!(status, 403);
    cloud.shutdown().await.unwrap();
}
