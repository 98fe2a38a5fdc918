//! A real browser (headless Chromium) on another origin calls Conduit's
//! `GET /api/tags` through each of template.yaml's Conduit APIs: a simple
//! request, and one with a JSON content type that needs a CORS preflight.
//! Skipped when no `chromium` is installed, unless LOCALCLOUD_REQUIRE_BROWSER
//! is set (CI sets it and installs Debian's `chromium`).

use std::process::Command;
use std::time::Duration;

use localcloud::{LocalCloud, LocalCloudConfig, StackConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const CONDUIT_APIS: [&str; 3] = [
    "ConduitApi",
    "ConduitMicroInvokeApi",
    "ConduitMicroQueueApi",
];

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
