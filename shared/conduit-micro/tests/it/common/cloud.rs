//! One of the project's templates on a fresh local cloud, with the real
//! function binaries and the scenarios' JWT secret.

use std::path::PathBuf;

use localcloud::{LocalCloud, LocalCloudConfig, StackConfig};
use serde_json::Value;

use super::Client;

fn workspace() -> PathBuf {
    localcloud::testing::workspace_root()
}

pub struct Cloud {
    pub cloud: LocalCloud,
    _logs: tempfile::TempDir,
}

impl Cloud {
    /// `template.yaml` (HTTP APIs).
    pub async fn start() -> Self {
        Self::start_template("template.yaml").await
    }

    /// `file`, a template at the workspace root (e.g. `template-rest.yaml`).
    pub async fn start_template(file: &str) -> Self {
        let template = workspace().join(file);
        let logs = tempfile::tempdir().unwrap();
        let mut stack = StackConfig::new(&template);
        // `target/<profile>`, with this template's function binaries.
        stack.binaries_dir = localcloud::testing::template_binaries(&template);
        stack.log_dir = logs.path().to_path_buf();
        stack.parameter_overrides.insert(
            "JwtSecret".into(),
            String::from_utf8(super::client::SECRET.to_vec()).unwrap(),
        );
        let config = LocalCloudConfig {
            stack: Some(stack),
            ..LocalCloudConfig::ephemeral()
        };
        let cloud = LocalCloud::start(config)
            .await
            .unwrap_or_else(|e| panic!("{file} starts: {e}"));
        Self { cloud, _logs: logs }
    }

    pub fn client(&self, api: &str) -> Client {
        Client::http(&self.cloud.stack().unwrap().api_urls()[api])
    }

    /// Invocations per function name so far.
    pub fn invocations(&self) -> std::collections::BTreeMap<String, u64> {
        let metrics = self.cloud.stack().unwrap().metrics();
        metrics["lambda"]["functions"]
            .as_object()
            .map(|functions| {
                functions
                    .iter()
                    .map(|(name, m)| (name.clone(), m["invocations"].as_u64().unwrap_or(0)))
                    .collect()
            })
            .unwrap_or_default()
    }

    pub fn metrics(&self) -> Value {
        self.cloud.stack().unwrap().metrics()
    }

    /// Stops the cloud; fails when IAM denied any function's call (the
    /// cloud enforces IAM by default: template.yaml must grant what its
    /// functions call).
    pub async fn stop(self) {
        let denied: Vec<String> = self
            .cloud
            .iam()
            .usage
            .by_role()
            .iter()
            .flat_map(|role| {
                role.denied().into_iter().map(move |(action, resource, n)| {
                    format!("{}: {action} on {resource} ({n}x)", role.role)
                })
            })
            .collect();
        self.cloud.shutdown().await.unwrap();
        assert!(denied.is_empty(), "IAM denied: {denied:#?}");
    }
}
