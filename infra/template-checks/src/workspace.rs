//! The workspace's cargo binaries, as `cargo metadata` lists them.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

#[derive(Debug, thiserror::Error)]
pub enum WorkspaceError {
    #[error("cannot run cargo metadata: {0}")]
    Spawn(#[from] std::io::Error),
    #[error("cargo metadata failed: {0}")]
    Failed(String),
    #[error("cargo metadata printed something that is not its JSON: {0}")]
    Parse(#[from] serde_json::Error),
}

/// Binary name -> package name, for every `bin` target of every workspace
/// member (`[[bin]]`, `src/main.rs` and `src/bin/*.rs` alike).
pub fn binaries(root: &Path) -> Result<BTreeMap<String, String>, WorkspaceError> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .args([
            "metadata",
            "--no-deps",
            "--offline",
            "--format-version",
            "1",
        ])
        .current_dir(root)
        .output()?;
    if !output.status.success() {
        return Err(WorkspaceError::Failed(
            String::from_utf8_lossy(&output.stderr).into_owned(),
        ));
    }
    Ok(binaries_in(&serde_json::from_slice(&output.stdout)?))
}

/// The `bin` targets of a `cargo metadata` document.
pub fn binaries_in(metadata: &Value) -> BTreeMap<String, String> {
    let empty = Vec::new();
    let packages = metadata["packages"].as_array().unwrap_or(&empty);
    packages
        .iter()
        .flat_map(|p| {
            let package = p["name"].as_str().unwrap_or_default().to_string();
            p["targets"]
                .as_array()
                .unwrap_or(&empty)
                .iter()
                .filter(|t| {
                    t["kind"]
                        .as_array()
                        .is_some_and(|k| k.iter().any(|k| k == "bin"))
                })
                .filter_map(|t| t["name"].as_str())
                .map(move |name| (name.to_string(), package.clone()))
                .collect::<Vec<_>>()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_bin_targets_are_binaries() {
        // GIVEN a package with a lib, a bin and a test target
        let metadata = json!({"packages": [{"name": "orders-api", "targets": [
            {"name": "orders_api", "kind": ["lib"]},
            {"name": "orders-api", "kind": ["bin"]},
            {"name": "api", "kind": ["test"]}
        ]}]});
        // WHEN the binaries are listed
        let bins = binaries_in(&metadata);
        // THEN only the bin is, with its package
        assert_eq!(bins.len(), 1);
        assert_eq!(bins["orders-api"], "orders-api");
    }
}
