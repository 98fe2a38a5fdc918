//! The HTTP API benchmark's no-op functions work behind the local cloud's
//! gateway: the `lambda_http` one and the one with a hand-written runtime
//! client, each cold once and then warm; and the floor of a DynamoDB call
//! (`dynamodb-get`) makes the calls it is configured for.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::common::{get_json, http_call, noop_app, sdk_config, sdk_floor_app};

#[tokio::test]
async fn both_noop_functions_answer_ok_cold_then_warm() {
    // GIVEN the two no-op functions behind one HTTP API
    let logs = tempfile::tempdir().unwrap();
    let cloud = noop_app("noop", logs.path()).await;
    let api = cloud.stack().unwrap().api_urls()["Api"].clone();

    // WHEN each route is called three times in a row
    for route in ["noop", "raw"] {
        for _ in 0..3 {
            // THEN every call is answered 200 "ok"
            let (status, body) = http_call("GET", &format!("{api}/{route}"), "").await;
            assert_eq!((status, body.as_str()), (200, "ok"), "GET /{route}");
        }
    }

    // AND each function ran three times in one environment: one cold start
    let mut metrics = localcloud_metrics::MetricsDocument::new();
    cloud.stack().unwrap().fill_metrics(&mut metrics);
    for function in ["noop-NoopHttp", "noop-NoopRaw"] {
        let totals = &metrics.lambda.functions[function];
        assert_eq!(totals.invocations, 3, "{function}: {totals:?}");
        assert_eq!(totals.errors, 0, "{function}: {totals:?}");
        assert_eq!(totals.cold_starts, 1, "{function}: {totals:?}");
    }
    cloud.shutdown().await.unwrap();
}

#[tokio::test]
async fn the_dynamodb_floor_function_makes_as_many_get_item_calls_as_configured() {
    // GIVEN `dynamodb-get` configured for one and for three GetItem calls,
    // its table empty
    let logs = tempfile::tempdir().unwrap();
    let cloud = sdk_floor_app(logs.path()).await;
    let api = cloud.stack().unwrap().api_urls()["Api"].clone();
    let dynamodb = aws_sdk_dynamodb::Client::new(&sdk_config(&cloud.endpoint(), "us-east-1"));
    let tables = dynamodb
        .list_tables()
        .send()
        .await
        .unwrap()
        .table_names
        .unwrap();
    let [table] = tables.as_slice() else {
        panic!("one table expected: {tables:?}")
    };

    // WHEN each is called before and after the item is written
    let mut answers = Vec::new();
    for route in ["get1", "get3"] {
        answers.push(http_call("GET", &format!("{api}/{route}"), "").await);
    }
    dynamodb
        .put_item()
        .table_name(table)
        .item("id", AttributeValue::S("floor".into()))
        .send()
        .await
        .unwrap();
    for route in ["get1", "get3"] {
        answers.push(http_call("GET", &format!("{api}/{route}"), "").await);
    }

    // THEN they answer what the table holds
    let expected = ["missing", "missing", "found", "found"].map(|b| (200, b.to_string()));
    assert_eq!(answers, expected);

    // AND the table saw 2 x (1 + 3) GetItem calls
    let metrics = get_json(&format!("{}/_localcloud/metrics", cloud.endpoint())).await;
    assert_eq!(
        metrics["dynamodb"]["tables"][table]["requests"]["GetItem"], 8,
        "{metrics}"
    );
    cloud.shutdown().await.unwrap();
}
