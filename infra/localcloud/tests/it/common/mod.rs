//! Helpers shared by the local cloud's integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

/// An SDK configuration for the local cloud at `endpoint`, with test credentials.
pub fn sdk_config(endpoint: &str, region: &str) -> aws_config::SdkConfig {
    let credentials =
        aws_credential_types::Credentials::new("AKIDLOCALCLOUD", "secret", None, None, "test");
    aws_config::SdkConfig::builder()
        .behavior_version(aws_config::BehaviorVersion::latest())
        .region(aws_config::Region::new(region.to_string()))
        .credentials_provider(
            aws_credential_types::provider::SharedCredentialsProvider::new(credentials),
        )
        .endpoint_url(endpoint)
        .build()
}

/// A tiny HTTP/1.1 client (one request per connection), so the tests need no
/// HTTP client dependency. Returns status and body.
pub async fn http_call(method: &str, url: &str, body: &str) -> (u16, String) {
    let rest = url.strip_prefix("http://").expect("http URL");
    let (host, path) = match rest.find('/') {
        Some(i) => rest.split_at(i),
        None => (rest, "/"),
    };
    let request = format!(
        "{method} {path} HTTP/1.1\r\nhost: {host}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    exchange(host, &request).await
}

/// Sends one raw request to `host`; status and body of the answer.
pub async fn exchange(host: &str, request: &str) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(host).await.expect("connect");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await.unwrap();
    let response = String::from_utf8_lossy(&response).into_owned();
    let status = response[9..12].parse().expect("status code");
    let body = response
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}

pub async fn get_json(url: &str) -> serde_json::Value {
    let (status, body) = http_call("GET", url, "").await;
    assert_eq!(status, 200, "GET {url}: {body}");
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("GET {url}: {e}: {body}"))
}

/// `target/<profile>`, where the test-functions binaries are (built on demand).
pub fn test_function_binaries() -> PathBuf {
    localcloud::testing::function_binaries(&["echo", "sleep", "fail"])
}

/// The HTTP API benchmark's two no-op functions behind one HTTP API
/// (`tests/fixtures/noop-app.yaml`), logging into `log_dir`.
pub async fn noop_app(stack_name: &str, log_dir: &std::path::Path) -> localcloud::LocalCloud {
    let mut stack = fixture_stack("noop-app.yaml", &["noop-http", "noop-raw"], log_dir);
    stack.stack_name = stack_name.into();
    start_stack(stack).await
}

/// The floor of a DynamoDB call (`tests/fixtures/sdk-floor.yaml`): `noop-raw`
/// and `dynamodb-get` (one and three GetItem calls) behind one HTTP API.
pub async fn sdk_floor_app(log_dir: &std::path::Path) -> localcloud::LocalCloud {
    start_stack(fixture_stack(
        "sdk-floor.yaml",
        &["noop-raw", "dynamodb-get"],
        log_dir,
    ))
    .await
}

/// The front doors application (`tests/fixtures/front-doors.yaml`): a REST
/// API, the implicit `ServerlessRestApi`, an HTTP API and two function URLs
/// in front of `http-echo`, logging into `log_dir`.
pub async fn front_doors_app(log_dir: &std::path::Path) -> localcloud::LocalCloud {
    start_stack(fixture_stack("front-doors.yaml", &["http-echo"], log_dir)).await
}

/// One function on Lambda Managed Instances behind an HTTP API
/// (`tests/fixtures/managed-app.yaml`), logging into `log_dir`.
pub async fn managed_app(log_dir: &std::path::Path) -> localcloud::LocalCloud {
    start_stack(fixture_stack("managed-app.yaml", &["concurrent"], log_dir)).await
}

/// `AutoPublishAlias` on demand and on Lambda Managed Instances
/// (`tests/fixtures/versions-app.yaml`), logging into `log_dir`.
pub async fn versions_app(log_dir: &std::path::Path) -> localcloud::LocalCloud {
    start_stack(fixture_stack(
        "versions-app.yaml",
        &["echo", "concurrent"],
        log_dir,
    ))
    .await
}

/// `tests/fixtures/<fixture>` with the test functions `binaries` (built on demand).
fn fixture_stack(
    fixture: &str,
    binaries: &[&str],
    log_dir: &std::path::Path,
) -> localcloud::StackConfig {
    let mut stack = localcloud::StackConfig::new(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(fixture),
    );
    stack.binaries_dir = localcloud::testing::function_binaries(binaries);
    stack.log_dir = log_dir.to_path_buf();
    stack
}

async fn start_stack(stack: localcloud::StackConfig) -> localcloud::LocalCloud {
    localcloud::LocalCloud::start(localcloud::LocalCloudConfig {
        stack: Some(stack),
        ..localcloud::LocalCloudConfig::ephemeral()
    })
    .await
    .expect("the application starts")
}

/// One call of a query-protocol service (CloudFormation, STS) signed for
/// `service`; returns status and XML body.
pub async fn query_call(endpoint: &str, service: &str, params: &[(&str, &str)]) -> (u16, String) {
    let body: Vec<String> = params
        .iter()
        .map(|(k, v)| format!("{}={}", form_encode(k), form_encode(v)))
        .collect();
    signed_call(endpoint, "POST", "/", service, &body.join("&")).await
}

/// One request with a SigV4-shaped `Authorization` for `service` (the
/// local cloud reads the scope, not the signature); status and body.
pub async fn signed_call(
    endpoint: &str,
    method: &str,
    path: &str,
    service: &str,
    body: &str,
) -> (u16, String) {
    let host = endpoint.strip_prefix("http://").expect("http URL");
    let request = format!(
        "{method} {path} HTTP/1.1\r\nhost: {host}\r\ncontent-type: application/x-www-form-urlencoded\r\nauthorization: AWS4-HMAC-SHA256 Credential=AKIDLOCALCLOUD/20250101/us-east-1/{service}/aws4_request, SignedHeaders=host, Signature=0\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    exchange(host, &request).await
}

fn form_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// `file` (a template at the workspace root) on a fresh local cloud with the
/// workspace's function binaries, `OrdersDelayMs` set to `orders_delay_ms`,
/// its function logs in `logs`.
pub async fn start_repo_template(
    file: &str,
    orders_delay_ms: u64,
    logs: &std::path::Path,
) -> localcloud::LocalCloud {
    let template = localcloud::testing::workspace_root().join(file);
    let mut stack = localcloud::StackConfig::new(&template);
    stack.binaries_dir = localcloud::testing::template_binaries(&template);
    stack.log_dir = logs.to_path_buf();
    stack
        .parameter_overrides
        .insert("OrdersDelayMs".into(), orders_delay_ms.to_string());
    let config = localcloud::LocalCloudConfig {
        stack: Some(stack),
        ..localcloud::LocalCloudConfig::ephemeral()
    };
    localcloud::LocalCloud::start(config)
        .await
        .unwrap_or_else(|e| panic!("{file} starts: {e}"))
}
