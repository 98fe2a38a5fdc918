//! The project's template.yaml gives the three Conduit APIs a CORS
//! configuration: a browser on another origin gets its preflight answered
//! and may read the responses. Checked with plain HTTP requests, and with a
//! real browser (headless Chromium) loading a page from another origin;
//! that test is skipped when no `chromium` is installed, unless
//! LOCALCLOUD_REQUIRE_BROWSER is set (CI sets it and installs Debian's
//! `chromium`).

use std::process::Command;
use std::time::Duration;

use localcloud::{LocalCloud, LocalCloudConfig, StackConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const CONDUIT_APIS: [&str; 3] = [
    "ConduitApi",
    "ConduitMicroInvokeApi",
    "ConduitMicroQueueApi",
];
const ORIGIN: &str = "http://localhost:4100";

/// template.yaml on the local cloud with its real function binaries.
async fn start_template(logs: &std::path::Path) -> LocalCloud {
    let template = localcloud::testing::workspace_root().join("template.yaml");
    let mut stack = StackConfig::new(&template);
    stack.binaries_dir = localcloud::testing::template_binaries(&template);
    stack.log_dir = logs.to_path_buf();
    let config = LocalCloudConfig {
        stack: Some(stack),
        ..LocalCloudConfig::ephemeral()
    };
    LocalCloud::start(config).await.expect("template starts")
}

/// One HTTP/1.1 request with headers; returns the status and the header block.
async fn call(method: &str, url: &str, headers: &[(&str, &str)]) -> (u16, String) {
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
    let logs = tempfile::tempdir().unwrap();
    let cloud = start_template(logs.path()).await;
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

fn chromium() -> Option<&'static str> {
    ["chromium", "chromium-browser"].into_iter().find(|c| {
        Command::new(c)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

/// The front end: fetches the tags twice (plain, and with a JSON content
/// type, which makes the browser send a preflight first) and writes what it
/// got into the page.
fn page(api: &str) -> String {
    format!(
        r#"<!doctype html><html><body><pre id="out">pending</pre><script>
const out = document.getElementById("out");
Promise.all([
  fetch("{api}/api/tags").then(r => r.json()),
  fetch("{api}/api/tags", {{headers: {{"content-type": "application/json"}}}}).then(r => r.json()),
]).then(([a, b]) => {{ out.textContent = "OK " + JSON.stringify(a) + " " + JSON.stringify(b); }})
  .catch(e => {{ out.textContent = "BLOCKED " + e; }});
</script></body></html>"#
    )
}

/// Serves `html` to every request on a free port of its own (another origin).
async fn serve_page(html: String) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let html = html.clone();
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                let _ = stream.read(&mut buf).await;
                let response = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{html}",
                    html.len()
                );
                let _ = stream.write_all(response.as_bytes()).await;
            });
        }
    });
    format!("http://{addr}/")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_browser_page_on_another_origin_reads_the_tags_from_every_conduit_api() {
    let Some(browser) = chromium() else {
        assert!(
            std::env::var_os("LOCALCLOUD_REQUIRE_BROWSER").is_none(),
            "LOCALCLOUD_REQUIRE_BROWSER is set but no chromium is installed"
        );
        eprintln!("skipped: no chromium installed");
        return;
    };
    // GIVEN template.yaml on the local cloud
    let logs = tempfile::tempdir().unwrap();
    let cloud = start_template(logs.path()).await;
    let profile = tempfile::tempdir().unwrap();

    for api in CONDUIT_APIS {
        // WHEN a page served from another origin fetches the tags
        let api_url = cloud.stack().unwrap().api_urls()[api].clone();
        let page_url = serve_page(page(&api_url)).await;
        let mut command = tokio::process::Command::new(browser);
        command
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--virtual-time-budget=10000",
                "--dump-dom",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg(&page_url)
            .kill_on_drop(true);
        let output = tokio::time::timeout(Duration::from_secs(60), command.output())
            .await
            .expect("chromium finishes")
            .expect("chromium runs");
        let dom = String::from_utf8_lossy(&output.stdout);

        // THEN both calls succeeded: CORS let the browser read the answers
        assert!(
            dom.contains(r#"OK {"tags":[]} {"tags":[]}"#),
            "{api}: {dom}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    cloud.shutdown().await.unwrap();
}
