//! The HTTP API benchmark's no-op functions work behind the local cloud's
//! gateway: the `lambda_http` one and the one with a hand-written runtime
//! client, each cold once and then warm.

use crate::common::{http_call, noop_app};

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
