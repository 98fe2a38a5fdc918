//! Helpers shared by the checks that run the template on the local cloud.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

use localcloud::{LocalCloud, LocalCloudConfig, StackConfig};
use localcloud_template::Application;
use template_checks::{workspace, workspace_root};

/// `target/<profile>`, with the template's binaries built if one is missing.
fn binaries_dir(binaries: &BTreeMap<String, String>) -> PathBuf {
    let dir = std::env::current_exe()
        .unwrap()
        .parent()
        .and_then(|p| p.parent())
        .unwrap()
        .to_path_buf();
    if binaries.keys().any(|b| !dir.join(b).is_file()) {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut build = Command::new(cargo);
        build
            .args(["build", "--quiet"])
            .current_dir(workspace_root());
        for (bin, package) in binaries {
            build.args(["-p", package, "--bin", bin]);
        }
        assert!(
            build.status().unwrap().success(),
            "building the functions failed"
        );
    }
    dir
}

/// `app` (the project's template) on an in-process local cloud with the real
/// function binaries and a 10 ms orders delay; its logs go to the returned
/// folder. Nothing is invoked yet.
pub async fn start_template(app: &Application) -> (LocalCloud, tempfile::TempDir) {
    let all_bins = workspace::binaries(&workspace_root()).expect("cargo metadata");
    let needed: BTreeMap<String, String> = app
        .functions
        .iter()
        .filter_map(|f| f.build.as_ref()?.binary.clone())
        .filter_map(|b| Some((b.clone(), all_bins.get(&b)?.clone())))
        .collect();
    let logs = tempfile::tempdir().unwrap();
    let mut stack = StackConfig::new(workspace_root().join("template.yaml"));
    stack.binaries_dir = binaries_dir(&needed);
    stack.log_dir = logs.path().to_path_buf();
    stack
        .parameter_overrides
        .insert("OrdersDelayMs".into(), "10".into());
    let config = LocalCloudConfig {
        stack: Some(stack),
        ..LocalCloudConfig::ephemeral()
    };
    let cloud = LocalCloud::start(config).await.expect("template starts");
    (cloud, logs)
}

/// One request through a fresh connection: (status, body).
pub async fn request(base: &str, method: &str, path: &str, body: &str) -> (u16, String) {
    request_with(base, method, path, "", body).await
}

/// [`request`] with more header lines (each ending in `\r\n`).
pub async fn request_with(
    base: &str,
    method: &str,
    path: &str,
    headers: &str,
    body: &str,
) -> (u16, String) {
    let rest = base.strip_prefix("http://").expect("local URLs are http");
    let (host, prefix) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let head = format!(
        "{method} {prefix}{path} HTTP/1.1\r\nhost: {host}\r\n{headers}content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    exchange(host, &head).await
}

/// A scheduled event as EventBridge sends it (the reply-queue sweepers').
pub const SCHEDULED_EVENT: &str = r#"{"version": "0", "id": "53dc4d37-cffa-4f76-80c9-8b7d4a4d2eaa",
  "detail-type": "Scheduled Event", "source": "aws.events", "account": "000000000000",
  "time": "2026-12-01T16:53:06Z", "region": "us-east-1",
  "resources": ["arn:aws:events:us-east-1:000000000000:rule/local-sweep"], "detail": {}}"#;

/// Invokes the function of `logical_id` with a scheduled event, as its
/// schedule does; its answer (the invocation must succeed).
pub async fn invoke_scheduled(
    endpoint: &str,
    app: &Application,
    logical_id: &str,
) -> serde_json::Value {
    let name = &app.function(logical_id).expect("the function").name;
    let path = format!("/2015-03-31/functions/{name}/invocations");
    let (status, body) = request(endpoint, "POST", &path, SCHEDULED_EVENT).await;
    assert_eq!(status, 200, "{logical_id}: {body}");
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("{logical_id}: {e}: {body}"))
}

/// One AWS JSON 1.0 call (SQS, DynamoDB) to the local cloud, which does not
/// check signatures: (status, body).
pub async fn json_call(endpoint: &str, target: &str, body: &str) -> (u16, String) {
    let host = endpoint
        .strip_prefix("http://")
        .expect("local URLs are http");
    let head = format!(
        "POST / HTTP/1.1\r\nhost: {host}\r\ncontent-type: application/x-amz-json-1.0\r\nx-amz-target: {target}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    exchange(host, &head).await
}

/// Sends a whole HTTP/1.1 request to `host`; the answer's status and body.
async fn exchange(host: &str, request: &str) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(host).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    let status = response
        .get(9..12)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = response
        .split_once("\r\n\r\n")
        .map(|(_, b)| b)
        .unwrap_or("");
    (status, body.to_string())
}
