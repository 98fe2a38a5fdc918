//! No function writes to DynamoDB while it starts: every function of
//! template.yaml is cold-started on the local cloud with its real binary, and
//! the local cloud's metrics (`/_localcloud/metrics`) show no DynamoDB write
//! over its first invocation. Tables are filled from outside (the bench's
//! `seed-orders`, `conduit-seed`), so that a cold start costs the same on an
//! empty table as on a full one and no environment races another to write.

use std::collections::BTreeMap;

use localcloud_metrics::MetricsDocument;
use template_checks::load_template;

/// The event of each first invocation: not an API Gateway, SQS or internal
/// request, so every handler rejects it before any DynamoDB call (the
/// reply-queue sweeper takes any event, and calls only SQS), and whatever
/// DynamoDB sees during the invocation comes from the function's init.
const NOT_AN_EVENT: &str = "{}";

/// DynamoDB operations that write items.
const WRITES: &[&str] = &[
    "PutItem",
    "UpdateItem",
    "DeleteItem",
    "BatchWriteItem",
    "TransactWriteItems",
];

async fn metrics(endpoint: &str) -> MetricsDocument {
    let (status, body) = crate::common::request(endpoint, "GET", "/_localcloud/metrics", "").await;
    assert_eq!(status, 200, "{body}");
    MetricsDocument::from_json(&body).expect("the metrics document")
}

/// Write requests and write units by table.
fn writes(doc: &MetricsDocument) -> BTreeMap<String, (u64, f64)> {
    doc.dynamodb
        .tables
        .iter()
        .map(|(table, t)| {
            let requests = WRITES.iter().filter_map(|op| t.requests.get(*op)).sum();
            (table.clone(), (requests, t.write_units))
        })
        .filter(|(_, (requests, units))| *requests > 0 || *units > 0.0)
        .collect()
}

#[tokio::test]
async fn no_function_writes_to_dynamodb_while_it_starts_cold() {
    // GIVEN the template on the local cloud with its real binaries, nothing invoked yet
    let app = load_template().expect("template.yaml loads");
    let (cloud, _logs) = crate::common::start_template(&app).await;
    let endpoint = cloud.endpoint();
    let mut writers = Vec::new();
    for function in &app.functions {
        let before = metrics(&endpoint).await;
        // WHEN the function is invoked for the first time
        let path = format!("/2015-03-31/functions/{}/invocations", function.name);
        let (status, body) = crate::common::request(&endpoint, "POST", &path, NOT_AN_EVENT).await;
        assert_eq!(status, 200, "{}: {body}", function.logical_id);
        let after = metrics(&endpoint).await;
        // THEN it started cold...
        let cold_starts = |doc: &MetricsDocument| {
            doc.lambda
                .functions
                .get(&function.name)
                .map_or(0, |f| f.cold_starts)
        };
        assert_eq!(
            cold_starts(&after),
            cold_starts(&before) + 1,
            "{}: one cold start",
            function.logical_id
        );
        // ...and no table was written meanwhile
        if writes(&after) != writes(&before) {
            writers.push(format!(
                "{}: (write requests, write units) by table {:?} -> {:?}",
                function.logical_id,
                writes(&before),
                writes(&after)
            ));
        }
    }
    cloud.shutdown().await.unwrap();
    assert!(
        writers.is_empty(),
        "functions that write to DynamoDB while they start:\n{}",
        writers.join("\n")
    );
}
