//! The project's template.yaml gives the three Conduit APIs a CORS
//! configuration: a browser on another origin gets its preflight answered
//! and may read the responses.

use localcloud::{LocalCloud, LocalCloudConfig, StackConfig};

const CONDUIT_APIS: [&str; 3] = [
    "ConduitApi",
    "ConduitMicroInvokeApi",
    "ConduitMicroQueueApi",
];
const ORIGIN: &str = "http://localhost:4100";

/// One HTTP/1.1 request with headers; returns the status and the header block.
async fn call(method: &str, url: &str, headers: &[(&str, &str)]) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let rest = url.strip_prefix("http://").expect("http URL");
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let mut stream = tokio::net::TcpStream::connect(host).await.unwrap();
    let extra: String = headers
        .iter()
        .map(|(k, v)| format!("{k}: {v}\r\n"))
        .collect();
    let request =
        format!("{method} {path} HTTP/1.1\r\nhost: {host}\r\n{extra}connection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await.unwrap();
    let text = String::from_utf8_lossy(&response).to_ascii_lowercase();
    let head = text
        .split("\r\n\r\n")
        .next()
        .unwrap_or_default()
        .to_string();
    (text[9..12].parse().unwrap(), head)
}

#[tokio::test]
async fn a_browser_origin_can_call_every_conduit_api() {
    // GIVEN template.yaml running with the real binaries (default origin *)
    let workspace = localcloud::testing::workspace_root();
    let logs = tempfile::tempdir().unwrap();
    let mut stack = StackConfig::new(workspace.join("template.yaml"));
    stack.binaries_dir = localcloud::testing::template_binaries(&workspace.join("template.yaml"));
    stack.log_dir = logs.path().to_path_buf();
    let config = LocalCloudConfig {
        stack: Some(stack),
        ..LocalCloudConfig::ephemeral()
    };
    let cloud = LocalCloud::start(config).await.expect("template starts");
    let urls = cloud.stack().unwrap().api_urls().clone();

    for api in CONDUIT_APIS {
        // WHEN the browser sends the preflight for an authenticated JSON call
        let (status, head) = call(
            "OPTIONS",
            &format!("{}/api/articles", urls[api]),
            &[
                ("origin", ORIGIN),
                ("access-control-request-method", "POST"),
                (
                    "access-control-request-headers",
                    "authorization,content-type",
                ),
            ],
        )
        .await;
        // THEN API Gateway allows it
        assert_eq!(status, 204, "{api}: {head}");
        assert!(
            head.contains("access-control-allow-origin: *"),
            "{api}: {head}"
        );
        assert!(
            head.contains("access-control-allow-methods: get,post,put,delete"),
            "{api}: {head}"
        );
        assert!(
            head.contains("access-control-allow-headers: authorization,content-type"),
            "{api}: {head}"
        );

        // AND the real call's response carries the allow-origin header
        let (status, head) = call(
            "GET",
            &format!("{}/api/tags", urls[api]),
            &[("origin", ORIGIN)],
        )
        .await;
        assert_eq!(status, 200, "{api}: {head}");
        assert!(
            head.contains("access-control-allow-origin: *"),
            "{api}: {head}"
        );
    }
    cloud.shutdown().await.unwrap();
}
