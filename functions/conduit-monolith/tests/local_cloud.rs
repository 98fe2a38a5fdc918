//! End to end: the real `conduit-monolith` binary run by the local cloud behind its
//! HTTP API, on its DynamoDB, from a SAM template (tests/fixtures/conduit-app.yaml).

use std::path::{Path, PathBuf};

use localcloud::{LocalCloud, LocalCloudConfig, StackConfig};
use serde_json::{json, Value};

/// `target/<profile>`, with the function binary built if it is missing.
fn binaries_dir() -> PathBuf {
    localcloud::testing::function_binaries(&["conduit-monolith"])
}

async fn start(log_dir: &Path) -> LocalCloud {
    let template = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/conduit-app.yaml");
    let mut stack = StackConfig::new(template);
    stack.stack_name = "conduit".into();
    stack.binaries_dir = binaries_dir();
    stack.log_dir = log_dir.to_path_buf();
    stack.parameter_overrides.insert(
        "JwtSecret".into(),
        "e2e-secret-e2e-secret-e2e-secret-0123".into(),
    );
    let config = LocalCloudConfig {
        stack: Some(stack),
        ..LocalCloudConfig::ephemeral()
    };
    LocalCloud::start(config)
        .await
        .expect("the application starts")
}

/// One HTTP/1.1 request per connection; returns status and JSON body (Null if none).
async fn call(method: &str, url: &str, token: Option<&str>, body: Option<Value>) -> (u16, Value) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let rest = url.strip_prefix("http://").expect("http URL");
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let auth = token
        .map(|t| format!("authorization: Token {t}\r\n"))
        .unwrap_or_default();
    let request = format!(
        "{method} {path} HTTP/1.1\r\nhost: {host}\r\n{auth}content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = tokio::net::TcpStream::connect(host).await.expect("connect");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    let status = response[9..12].parse().expect("status code");
    let body = response
        .split_once("\r\n\r\n")
        .map(|(_, b)| b)
        .unwrap_or_default();
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

#[tokio::test]
async fn conduit_runs_as_one_function_behind_the_http_api() {
    // GIVEN the monolith deployed on the local cloud
    let logs = tempfile::tempdir().unwrap();
    let cloud = start(logs.path()).await;
    let api = cloud.stack().unwrap().api_urls()["Api"].clone();

    // WHEN a user registers (no Content-Type header) and writes an article
    let (status, user) = call(
        "POST",
        &format!("{api}/api/users"),
        None,
        Some(json!({"user": {"username": "jake", "email": "jake@jake.jake", "password": "jakejake"}})),
    )
    .await;
    assert_eq!(status, 201, "{user}");
    let token = user["user"]["token"].as_str().unwrap().to_owned();
    let (status, created) = call(
        "POST",
        &format!("{api}/api/articles"),
        Some(&token),
        Some(json!({"article": {"title": "Hello Lambda", "description": "d", "body": "b", "tagList": ["rust"]}})),
    )
    .await;
    assert_eq!(status, 201, "{created}");

    // THEN reads through the API see it at once, with the tag and the author
    let (status, list) = call("GET", &format!("{api}/api/articles?tag=rust"), None, None).await;
    assert_eq!(status, 200);
    assert_eq!(list["articlesCount"], 1);
    assert_eq!(list["articles"][0]["author"]["username"], "jake");
    let (status, article) = call(
        "GET",
        &format!("{api}/api/articles/hello-lambda"),
        None,
        None,
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(article["article"]["body"], "b");
    // AND auth errors come back as the spec says
    let (status, err) = call("GET", &format!("{api}/api/user"), None, None).await;
    assert_eq!(status, 401);
    assert_eq!(err["errors"]["token"][0], "is missing");
    cloud.shutdown().await.unwrap();
}

/// Every `Max Memory Used` of the REPORT lines in the function logs, and
/// whether any invocation ran out of memory.
fn memory_reports(log_dir: &Path) -> (Vec<u64>, bool) {
    let mut peaks = Vec::new();
    let mut out_of_memory = false;
    for entry in std::fs::read_dir(log_dir).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        out_of_memory |= text.contains("Runtime.OutOfMemory");
        peaks.extend(text.lines().filter_map(|line| {
            let rest = line.split("Max Memory Used: ").nth(1)?;
            rest.split(' ').next()?.parse::<u64>().ok()
        }));
    }
    (peaks, out_of_memory)
}

/// Argon2 needs a 19 MiB buffer per hash. Hashed on whichever thread served the
/// request, each thread's allocator arena kept one: Max Memory Used grew until
/// the environment was killed at its MemorySize and the request got a 500.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_128_mb_function_registers_and_logs_in_1000_users_16_at_a_time_in_flat_memory() {
    use futures::StreamExt;
    // GIVEN the monolith with MemorySize 128 (tests/fixtures/conduit-app.yaml)
    let logs = tempfile::tempdir().unwrap();
    let cloud = start(logs.path()).await;
    let api = cloud.stack().unwrap().api_urls()["Api"].clone();

    // WHEN 1,000 users register and log in, 16 at a time
    let statuses: Vec<(u16, u16)> = futures::stream::iter(0..1000)
        .map(|i| {
            let api = api.clone();
            async move {
                let user = json!({"user": {"username": format!("u{i}"), "email": format!("u{i}@x.io"), "password": format!("password-{i}")}});
                let (registered, _) = call("POST", &format!("{api}/api/users"), None, Some(user)).await;
                let login = json!({"user": {"email": format!("U{i}@X.io"), "password": format!("password-{i}")}});
                let (logged_in, _) =
                    call("POST", &format!("{api}/api/users/login"), None, Some(login)).await;
                (registered, logged_in)
            }
        })
        .buffer_unordered(16)
        .collect()
        .await;
    cloud.shutdown().await.unwrap();

    // THEN every call succeeded
    let failed: Vec<_> = statuses.iter().filter(|s| **s != (201, 200)).collect();
    assert!(
        failed.is_empty(),
        "{} failed, e.g. {:?}",
        failed.len(),
        &failed[..failed.len().min(5)]
    );
    // AND no environment ran out of memory or came near half of its 128 MB
    let (peaks, out_of_memory) = memory_reports(logs.path());
    assert!(!out_of_memory, "an invocation ran out of memory");
    assert!(peaks.len() >= 2000, "{} REPORT lines", peaks.len());
    let highest = peaks.iter().max().copied().unwrap_or_default();
    println!(
        "Max Memory Used over {} invocations: lowest {} MB, highest {highest} MB",
        peaks.len(),
        peaks.iter().min().copied().unwrap_or_default()
    );
    assert!(highest < 64, "Max Memory Used reached {highest} MB");
}
