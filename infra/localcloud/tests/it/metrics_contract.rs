//! The metrics contract holds for the real thing: the document a running local
//! cloud serves at `/_localcloud/metrics` is read by the strict typed reader
//! (every field present, none unknown, this version) and its log and data
//! transfer counters are filled in; every API says its kind, which prices it.

use localcloud_metrics::{ApiKind, MetricsDocument, VERSION};

use crate::common::{front_doors_app, get_json, http_call, noop_app};

#[tokio::test]
async fn the_served_metrics_document_is_the_typed_contract() {
    // GIVEN an application with one function behind an HTTP API
    let logs = tempfile::tempdir().unwrap();
    let cloud = noop_app("contract", logs.path()).await;
    let api = cloud.stack().unwrap().api_urls()["Api"].clone();

    // WHEN a client calls it twice and the metrics are read over HTTP
    for _ in 0..2 {
        let (status, _) = http_call("GET", &format!("{api}/noop"), "").await;
        assert_eq!(status, 200);
    }
    let served = get_json(&format!("{}/_localcloud/metrics", cloud.endpoint())).await;

    // THEN the strict reader accepts it, and it round-trips unchanged
    let doc = MetricsDocument::from_value(served.clone()).expect("the contract holds");
    assert_eq!(doc.version, VERSION);
    assert_eq!(serde_json::to_value(&doc).unwrap(), served);

    // AND the HTTP API counted its requests and every byte it sent out
    let api = &doc.apis["Api"];
    assert_eq!(api.kind, ApiKind::Http);
    assert_eq!(api.requests, 2);
    assert!(
        api.data_transfer_out_bytes > api.response_bytes + 2 * "HTTP/1.1 200 OK\r\n".len() as u64,
        "{api:?}"
    );
    // AND the function's START, END and REPORT lines were metered (3 per invocation at least)
    let function = &doc.lambda.functions["contract-NoopHttp"];
    assert_eq!(function.invocations, 2);
    assert!(function.log_events >= 6, "{function:?}");
    assert!(
        function.log_bytes >= function.log_events * 26,
        "{function:?}"
    );
    cloud.shutdown().await.unwrap();
}

#[tokio::test]
async fn the_invocation_records_behind_the_totals_are_served() {
    // GIVEN an application with one function behind an HTTP API, called three times
    let logs = tempfile::tempdir().unwrap();
    let cloud = noop_app("records", logs.path()).await;
    let api = cloud.stack().unwrap().api_urls()["Api"].clone();
    for _ in 0..3 {
        let (status, _) = http_call("GET", &format!("{api}/noop"), "").await;
        assert_eq!(status, 200);
    }
    let admin = format!("{}/_localcloud", cloud.endpoint());

    // WHEN the newest two of the function's records are read
    let served = get_json(&format!(
        "{admin}/invocations?function=records-NoopHttp&last=2"
    ))
    .await;

    // THEN they are the last two invocations, each with the figures the totals add up
    let records = served["invocations"].as_array().expect("a list of records");
    assert_eq!(records.len(), 2, "{served}");
    let all = get_json(&format!("{admin}/invocations")).await;
    let ids: Vec<&serde_json::Value> = all["invocations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["request_id"])
        .collect();
    assert_eq!(ids.len(), 3, "{all}");
    assert_eq!(
        [&records[0]["request_id"], &records[1]["request_id"]],
        ids[1..]
    );
    for record in records {
        assert_eq!(record["function"], "records-NoopHttp");
        assert!(record["duration_ms"].as_f64().unwrap() > 0.0, "{record}");
        assert!(record.get("contention_ms").is_some(), "{record}");
    }
    // AND a reset empties them; a wrong parameter is a 400 that names it
    let (status, _) = http_call("POST", &format!("{admin}/reset"), "").await;
    assert_eq!(status, 200);
    let emptied = get_json(&format!("{admin}/invocations")).await;
    assert_eq!(emptied["invocations"].as_array().map(Vec::len), Some(0));
    let (status, body) = http_call("GET", &format!("{admin}/invocations?last=all"), "").await;
    let message: serde_json::Value = serde_json::from_str(&body).unwrap();
    let names_it = message["message"]
        .as_str()
        .is_some_and(|m| m.contains("\"all\""));
    assert_eq!((status, names_it), (400, true), "{body}");
    cloud.shutdown().await.unwrap();
}

#[tokio::test]
async fn each_served_api_says_whether_it_is_an_http_api_a_rest_api_or_a_function_url() {
    // GIVEN an application with REST APIs, an HTTP API and function URLs
    let logs = tempfile::tempdir().unwrap();
    let cloud = front_doors_app(logs.path()).await;
    let urls = cloud.stack().unwrap().api_urls().clone();

    // WHEN a client calls each door once and the metrics are read over HTTP
    for (id, path) in [
        ("RestApi", "/echo"),
        ("ServerlessRestApi", "/hello/jake"),
        ("HttpApi", "/echo"),
        ("EchoFunctionUrl", "/echo"),
    ] {
        let (status, body) = http_call("GET", &format!("{}{path}", urls[id]), "").await;
        assert_eq!(status, 200, "{id}: {body}");
    }
    let served = get_json(&format!("{}/_localcloud/metrics", cloud.endpoint())).await;

    // THEN the strict reader accepts it and each API is of its kind
    let doc = MetricsDocument::from_value(served).expect("the contract holds");
    let kinds: Vec<(&str, ApiKind, u64)> = doc
        .apis
        .iter()
        .map(|(id, api)| (id.as_str(), api.kind, api.metered_requests))
        .collect();
    assert_eq!(
        kinds,
        [
            ("EchoFunctionUrl", ApiKind::FunctionUrl, 1),
            ("HttpApi", ApiKind::Http, 1),
            ("PrivateFunctionUrl", ApiKind::FunctionUrl, 0),
            ("RestApi", ApiKind::Rest, 1),
            ("ServerlessRestApi", ApiKind::Rest, 1),
        ]
    );
    cloud.shutdown().await.unwrap();
}
