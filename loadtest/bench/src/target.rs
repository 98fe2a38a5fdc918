//! Where the load goes. `local`: a `localcloud serve` child process per run
//! (so its CPU is apart from the load generator's), metered through
//! `/_localcloud/metrics`. `localstack` / `aws`: base URLs from flags or from a
//! stack outputs document; the same scenarios, without the local metering.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use localcloud_metrics::iam::IamDocument;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::variants::Variant;

/// The region of every target: the local cloud's, the stack's, the prices'.
pub const REGION: &str = "us-east-1";

/// The latency profile every local run injects unless told `none`: AWS's
/// per-call latencies from a function in the same region (quick and full
/// runs alike, so that their durations and verdicts are comparable).
pub const DEFAULT_LATENCY_PROFILE: &str = "infra/localcloud/profiles/aws-us-east-1.json";

/// `--latency-profile`: `none` is no profile; a path must exist (said now,
/// not when the first local cloud fails to start).
pub fn latency_profile(arg: &str) -> anyhow::Result<Option<PathBuf>> {
    if arg.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    let path = PathBuf::from(arg);
    if !path.is_file() {
        bail!(
            "--latency-profile {arg}: no such file (run from the repository's root for the default, \
             give a profile's path, or `--latency-profile none` for none)"
        );
    }
    Ok(Some(path))
}

/// Base URLs by API logical id, from either document the project produces:
/// the local cloud's endpoints file (`{"apis": {"OrdersDirectApi": url}}`) or
/// `aws cloudformation describe-stacks` (outputs `OrdersDirectUrl`, ...).
pub fn api_urls_from_document(doc: &Value) -> BTreeMap<String, String> {
    let mut urls = BTreeMap::new();
    if let Some(apis) = doc.get("apis").and_then(Value::as_object) {
        for (id, url) in apis {
            if let Some(url) = url.as_str() {
                urls.insert(id.clone(), url.trim_end_matches('/').to_string());
            }
        }
    }
    let outputs = doc
        .pointer("/Stacks/0/Outputs")
        .and_then(Value::as_array)
        .into_iter()
        .flatten();
    for output in outputs {
        let (Some(key), Some(url)) = (
            output.get("OutputKey").and_then(Value::as_str),
            output.get("OutputValue").and_then(Value::as_str),
        ) else {
            continue;
        };
        // The template's convention: API `XApi` is published as output `XUrl`.
        if let Some(stem) = key.strip_suffix("Url") {
            urls.insert(format!("{stem}Api"), url.trim_end_matches('/').to_string());
        }
    }
    urls
}

/// `variant=url` flags override the document's URLs.
pub fn parse_url_flags(flags: &[String]) -> anyhow::Result<BTreeMap<String, String>> {
    let mut urls = BTreeMap::new();
    for flag in flags {
        let (variant, url) = flag
            .split_once('=')
            .with_context(|| format!("--url takes variant=URL, got {flag:?}"))?;
        let variant = crate::variants::by_name(variant)
            .with_context(|| format!("--url: unknown variant {variant:?}"))?;
        urls.insert(
            variant.api.to_string(),
            url.trim_end_matches('/').to_string(),
        );
    }
    Ok(urls)
}

/// A running `localcloud serve` with the project's template.
pub struct LocalCloudProcess {
    child: Child,
    pub endpoint: String,
    pub endpoints: Value,
    pub pid: u32,
}

/// `localcloud serve --cpu-share`: how each execution environment gets its
/// CPU. `aws` (the local cloud's default): memory / 1,769 vCPU through the
/// kernel's cgroup quota where permitted, else the model; `model`: durations
/// stretched from each invocation's measured CPU time; `off`: unthrottled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum CpuShare {
    #[default]
    Aws,
    Model,
    Off,
}

impl CpuShare {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Aws => "aws",
            Self::Model => "model",
            Self::Off => "off",
        }
    }
}

pub struct LocalLaunch<'a> {
    pub binaries_dir: &'a Path,
    pub template: &'a Path,
    pub parameter_overrides: &'a BTreeMap<String, String>,
    /// Endpoints file and function logs go here.
    pub work_dir: &'a Path,
    /// `localcloud serve --latency-profile`.
    pub latency_profile: Option<&'a Path>,
    /// `localcloud serve --cpu-share`.
    pub cpu_share: CpuShare,
    /// `localcloud serve --memory-size`, each `[FUNCTION=]MB` (none: the
    /// template's MemorySize).
    pub memory_sizes: &'a [String],
}

/// The binaries a template needs: the emulator and every function's
/// `BuildProperties: Binary:` (the template names them; nothing to keep in sync).
pub fn required_binaries(template: &str) -> Vec<String> {
    let mut binaries = vec!["localcloud".to_string()];
    for line in template.lines() {
        if let Some(name) = line.trim().strip_prefix("Binary:") {
            let name = name.trim().trim_matches('"').to_string();
            if !binaries.contains(&name) {
                binaries.push(name);
            }
        }
    }
    binaries
}

pub fn check_binaries(binaries_dir: &Path, template: &str) -> anyhow::Result<()> {
    let missing: Vec<String> = required_binaries(template)
        .into_iter()
        .filter(|b| !binaries_dir.join(b).is_file())
        .collect();
    if !missing.is_empty() {
        bail!(
            "missing binaries in {}: {}. Build them first: `cargo build --release --workspace --bins` \
             (or pass --binaries-dir target/debug after `cargo build --workspace --bins`)",
            binaries_dir.display(),
            missing.join(", ")
        );
    }
    Ok(())
}

impl LocalCloudProcess {
    pub async fn start(launch: LocalLaunch<'_>) -> anyhow::Result<Self> {
        let template = std::fs::read_to_string(launch.template)
            .with_context(|| format!("cannot read {}", launch.template.display()))?;
        check_binaries(launch.binaries_dir, &template)?;
        std::fs::create_dir_all(launch.work_dir)?;
        let endpoints_file = launch.work_dir.join("endpoints.json");
        let _ = std::fs::remove_file(&endpoints_file);
        let mut command = Command::new(launch.binaries_dir.join("localcloud"));
        command
            .args(["serve", "--bind", "127.0.0.1:0", "--stack-name", "bench"])
            .arg("--template")
            .arg(launch.template)
            .arg("--binaries-dir")
            .arg(launch.binaries_dir)
            .arg("--log-dir")
            .arg(launch.work_dir.join("logs"))
            .arg("--endpoints-file")
            .arg(&endpoints_file)
            .env("LOCALCLOUD_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::from(std::fs::File::create(
                launch.work_dir.join("localcloud.log"),
            )?));
        if let Some(profile) = launch.latency_profile {
            command.arg("--latency-profile").arg(profile);
        }
        command.args(serve_cpu_args(launch.cpu_share, launch.memory_sizes));
        if !launch.parameter_overrides.is_empty() {
            command.arg("--parameter-overrides");
            for (name, value) in launch.parameter_overrides {
                command.arg(format!("{name}={value}"));
            }
        }
        let mut child = command.spawn().context("cannot start localcloud")?;
        let pid = child.id();
        let endpoints = match wait_for_file(&mut child, &endpoints_file).await {
            Ok(endpoints) => endpoints,
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                let log = launch.work_dir.join("localcloud.log");
                return Err(e.context(format!("see {}", log.display())));
            }
        };
        let endpoint = endpoints
            .get("endpoint")
            .and_then(Value::as_str)
            .context("endpoints file has no `endpoint`")?
            .to_string();
        Ok(Self {
            child,
            endpoint,
            endpoints,
            pid,
        })
    }

    pub fn api_urls(&self) -> BTreeMap<String, String> {
        api_urls_from_document(&self.endpoints)
    }

    pub fn url_of(&self, variant: &Variant) -> Option<String> {
        self.api_urls().get(variant.api).cloned()
    }

    /// Table names by logical id.
    pub fn tables(&self) -> BTreeMap<String, String> {
        serde_json::from_value(self.endpoints["tables"].clone()).unwrap_or_default()
    }

    /// Kills the environment of that share of `function`'s invocations from
    /// now on (`POST /_localcloud/faults`); `function` is a logical id.
    pub async fn set_kill_rate(
        &self,
        client: &reqwest::Client,
        function: &str,
        rate: f64,
    ) -> anyhow::Result<()> {
        let url = format!("{}/_localcloud/faults", self.endpoint);
        let response = client
            .post(&url)
            .json(&serde_json::json!({ "function": function, "killRate": rate }))
            .send()
            .await
            .with_context(|| format!("POST {url}"))?;
        if !response.status().is_success() {
            let status = response.status();
            let body = response.text().await.unwrap_or_default();
            bail!("POST {url} for {function}: {status} {body}");
        }
        Ok(())
    }

    pub async fn metrics(&self, client: &reqwest::Client) -> anyhow::Result<Value> {
        self.admin_document(client, "metrics").await
    }

    /// What IAM allowed and denied each function so far (`GET
    /// /_localcloud/iam`), as the local cloud wrote it.
    pub async fn iam(&self, client: &reqwest::Client) -> anyhow::Result<IamDocument> {
        let document = self.admin_document(client, "iam").await?;
        Ok(IamDocument::from_value(document)?)
    }

    /// `GET /_localcloud/{name}` as JSON.
    async fn admin_document(&self, client: &reqwest::Client, name: &str) -> anyhow::Result<Value> {
        let url = format!("{}/_localcloud/{name}", self.endpoint);
        let response = client.get(&url).send().await.context(name.to_string())?;
        if !response.status().is_success() {
            bail!("GET {url}: {}", response.status());
        }
        Ok(response.json().await?)
    }

    /// SIGINT, so the local cloud stops its function processes; then kill.
    pub async fn stop(mut self) {
        let _ = Command::new("kill")
            .args(["-INT", &self.pid.to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(15);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for LocalCloudProcess {
    fn drop(&mut self) {
        // A panic or an early return must not leave the emulator running.
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The `--cpu-share` and `--memory-size` arguments of `localcloud serve`.
/// `aws` is the local cloud's default and goes unsaid, so that a local cloud
/// built before the flag existed still serves the default run.
pub fn serve_cpu_args(cpu_share: CpuShare, memory_sizes: &[String]) -> Vec<String> {
    let mut args = Vec::new();
    if cpu_share != CpuShare::Aws {
        args.extend(["--cpu-share".to_string(), cpu_share.as_str().to_string()]);
    }
    for size in memory_sizes {
        args.extend(["--memory-size".to_string(), size.clone()]);
    }
    args
}

async fn wait_for_file(child: &mut Child, path: &PathBuf) -> anyhow::Result<Value> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(status) = child.try_wait()? {
            bail!("localcloud exited before it was ready ({status})");
        }
        if let Ok(text) = std::fs::read_to_string(path) {
            if let Ok(value) = serde_json::from_str::<Value>(&text) {
                return Ok(value);
            }
        }
        if Instant::now() > deadline {
            bail!("localcloud did not write {} within 60 s", path.display());
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_latency_profile_is_on_by_default_and_none_turns_it_off() {
        // Tests run from the crate's folder; the default is the repository's.
        let default = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(DEFAULT_LATENCY_PROFILE);
        assert!(default.is_file(), "{}", default.display());
        assert_eq!(latency_profile("none").unwrap(), None);
        assert_eq!(latency_profile("NONE").unwrap(), None);
        let missing = latency_profile("no/such/profile.json")
            .unwrap_err()
            .to_string();
        assert!(missing.contains("--latency-profile none"), "{missing}");
    }

    #[test]
    fn endpoints_file_gives_urls_by_logical_id() {
        let doc = json!({"endpoint": "http://127.0.0.1:4566",
            "apis": {"OrdersDirectApi": "http://127.0.0.1:4001/", "OrdersQueueApi": "http://127.0.0.1:4002"}});
        let urls = api_urls_from_document(&doc);
        assert_eq!(urls["OrdersDirectApi"], "http://127.0.0.1:4001");
        assert_eq!(urls.len(), 2);
    }

    #[test]
    fn describe_stacks_outputs_map_url_to_api() {
        let doc = json!({"Stacks": [{"Outputs": [
            {"OutputKey": "OrdersQueueUrl", "OutputValue": "https://abc.execute-api.eu-west-1.amazonaws.com"},
            {"OutputKey": "SomethingElse", "OutputValue": "x"}]}]});
        let urls = api_urls_from_document(&doc);
        assert_eq!(
            urls["OrdersQueueApi"],
            "https://abc.execute-api.eu-west-1.amazonaws.com"
        );
        assert_eq!(urls.len(), 1);
    }

    #[test]
    fn url_flags_name_variants() {
        let urls = parse_url_flags(&["orders-direct=http://h:1/".into()]).unwrap();
        assert_eq!(urls["OrdersDirectApi"], "http://h:1");
        assert!(parse_url_flags(&["nope=http://x".into()]).is_err());
        assert!(parse_url_flags(&["orders-direct".into()]).is_err());
    }

    #[test]
    fn the_cpu_share_and_memory_sizes_are_passed_to_the_local_cloud() {
        let sizes = ["OrdersBackendFunction=1769".to_string(), "512".to_string()];
        assert_eq!(
            serve_cpu_args(CpuShare::Model, &sizes),
            [
                "--cpu-share",
                "model",
                "--memory-size",
                "OrdersBackendFunction=1769",
                "--memory-size",
                "512"
            ]
        );
        assert_eq!(serve_cpu_args(CpuShare::Off, &[]), ["--cpu-share", "off"]);
        // the default is the local cloud's own
        assert!(serve_cpu_args(CpuShare::Aws, &[]).is_empty());
    }

    #[test]
    fn missing_binaries_say_how_to_build_them() {
        // GIVEN a template naming orders-api twice and an empty binaries folder
        let dir = tempfile::tempdir().unwrap();
        let template = "Resources:\n  F:\n    Metadata:\n      BuildProperties:\n        Binary: orders-api\n  G:\n        Binary: orders-api\n";
        assert_eq!(required_binaries(template), ["localcloud", "orders-api"]);
        // WHEN checked
        let err = check_binaries(dir.path(), template)
            .unwrap_err()
            .to_string();
        // THEN the message names them and says how to build them
        assert!(
            err.contains("cargo build --release --workspace --bins"),
            "{err}"
        );
        assert!(err.contains("localcloud, orders-api"), "{err}");
    }
}
