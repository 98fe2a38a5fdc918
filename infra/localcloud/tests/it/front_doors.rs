//! REST APIs, HTTP APIs and function URLs of a SAM application, run on the
//! local cloud with a real `lambda_http` function (`http-echo`): payload 1.0
//! and 2.0 events as the runtime reads them, multi-value headers and binary
//! bodies, CORS answered by the gateway, and URLs in the outputs.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use localcloud::LocalCloud;
use serde_json::Value;

struct App {
    cloud: LocalCloud,
    _logs: tempfile::TempDir,
}

impl App {
    async fn start() -> Self {
        let logs = tempfile::tempdir().unwrap();
        let cloud = crate::common::front_doors_app(logs.path()).await;
        Self { cloud, _logs: logs }
    }

    fn url(&self, id: &str) -> String {
        self.cloud.stack().unwrap().api_urls()[id].clone()
    }

    fn output(&self, name: &str) -> String {
        self.cloud.stack().unwrap().app.outputs[name].clone()
    }
}

async fn send(method: &str, url: &str, headers: &[(&str, &str)]) -> http::Response<Bytes> {
    let mut request = http::Request::builder().method(method).uri(url);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let request = request.body(Full::new(Bytes::new())).unwrap();
    let client = Client::builder(TokioExecutor::new()).build_http();
    let response = client.request(request).await.expect("the gateway answers");
    let (parts, body) = response.into_parts();
    let body = body.collect().await.unwrap().to_bytes();
    http::Response::from_parts(parts, body)
}

fn json(response: &http::Response<Bytes>) -> Value {
    serde_json::from_slice(response.body())
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(response.body())))
}

fn all<'a>(response: &'a http::Response<Bytes>, name: &str) -> Vec<&'a str> {
    response
        .headers()
        .get_all(name)
        .iter()
        .map(|v| v.to_str().unwrap())
        .collect()
}

#[tokio::test]
async fn rest_api_runs_lambda_http_with_a_v1_event_and_returns_its_multi_value_headers() {
    // GIVEN the application with its REST API on stage dev
    let app = App::start().await;
    let rest = app.url("RestApi");
    assert!(rest.ends_with("/dev"), "{rest}");

    // WHEN a client calls a path under {proxy+} with a repeated query key
    let response = send("GET", &format!("{rest}/api/articles?tag=a&tag=b"), &[]).await;

    // THEN lambda_http saw a REST request with the path, parameters and query
    assert_eq!(response.status(), 200);
    let seen = json(&response);
    assert_eq!(seen["kind"], "rest");
    assert_eq!(seen["method"], "GET");
    assert_eq!(seen["pathParameters"]["proxy"], "api/articles");
    assert_eq!(seen["query"]["tag"], serde_json::json!(["a", "b"]));
    // AND its repeated headers and cookies all reached the client
    assert_eq!(all(&response, "x-tag"), ["a", "b"]);
    assert_eq!(all(&response, "set-cookie"), ["a=1; Path=/", "b=2; Path=/"]);
    app.cloud.shutdown().await.unwrap();
}

#[tokio::test]
async fn rest_api_binary_response_is_bytes_for_binary_media_types() {
    let app = App::start().await;
    let response = send("GET", &format!("{}/files/image", app.url("RestApi")), &[]).await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "image/png");
    assert_eq!(
        &response.body()[..],
        &[0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a, 0, 255]
    );
    assert_eq!(all(&response, "x-tag"), ["a", "b"]);
    app.cloud.shutdown().await.unwrap();
}

#[tokio::test]
async fn implicit_rest_api_serves_prod_and_its_output_url_works_unchanged() {
    // GIVEN the output spelled as the AWS URL of ServerlessRestApi's Prod stage
    let app = App::start().await;
    let hello = app.output("HelloUrl");
    assert!(hello.starts_with("http://127.0.0.1:"), "{hello}");
    assert!(hello.ends_with("/Prod/hello/"), "{hello}");

    // WHEN it is called with a name
    let response = send("GET", &format!("{hello}jane"), &[]).await;

    // THEN the function answers through the implicit API
    assert_eq!(response.status(), 200);
    assert_eq!(json(&response)["pathParameters"]["name"], "jane");

    // AND REST's own answer for a path nobody declared
    let root = app.url("ServerlessRestApi");
    let response = send("GET", &format!("{root}/nothing"), &[]).await;
    assert_eq!(response.status(), 403);
    assert_eq!(
        json(&response),
        serde_json::json!({"message": "Missing Authentication Token"})
    );
    app.cloud.shutdown().await.unwrap();
}

#[tokio::test]
async fn cors_preflights_are_answered_by_every_kind_of_front_door() {
    let app = App::start().await;
    let preflight = [
        ("origin", "http://localhost:3000"),
        ("access-control-request-method", "GET"),
        ("access-control-request-headers", "authorization"),
    ];
    let before = app.cloud.stack().unwrap().metrics()["lambda"].to_string();
    for (url, status, origin) in [
        (app.url("HttpApi"), 204, "http://localhost:3000"),
        (app.url("RestApi"), 200, "http://localhost:3000"),
        (app.url("EchoFunctionUrl"), 204, "*"),
    ] {
        let response = send("OPTIONS", &format!("{url}/api/tags"), &preflight).await;
        assert_eq!(response.status(), status, "{url}");
        assert_eq!(
            response.headers()["access-control-allow-origin"],
            origin,
            "{url}"
        );
    }
    // No function ran for a preflight.
    let after = app.cloud.stack().unwrap().metrics()["lambda"].to_string();
    assert_eq!(before, after);

    // AND the HTTP API adds the allow-origin header to a real response
    let response = send(
        "GET",
        &format!("{}/api/tags", app.url("HttpApi")),
        &[("origin", "http://localhost:3000")],
    )
    .await;
    assert_eq!(response.status(), 200);
    assert_eq!(json(&response)["kind"], "http");
    assert_eq!(
        response.headers()["access-control-allow-origin"],
        "http://localhost:3000"
    );
    app.cloud.shutdown().await.unwrap();
}

#[tokio::test]
async fn function_urls_have_outputs_payload_2_events_and_iam_auth() {
    let app = App::start().await;
    let echo = app.output("EchoUrl");
    assert!(echo.ends_with('/'), "AWS function URLs end with /: {echo}");
    assert_eq!(format!("{}/", app.url("EchoFunctionUrl")), echo);

    let response = send("POST", &format!("{echo}any/path?x=1"), &[]).await;
    assert_eq!(response.status(), 200);
    let seen = json(&response);
    assert_eq!(seen["kind"], "http");
    assert_eq!(seen["path"], "/any/path");

    let private = app.output("PrivateUrl");
    let response = send("GET", &private, &[]).await;
    assert_eq!(response.status(), 403);
    assert_eq!(&response.body()[..], br#"{"Message":"Forbidden"}"#);
    app.cloud.shutdown().await.unwrap();
}
