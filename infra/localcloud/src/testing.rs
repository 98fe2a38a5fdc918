//! Support for tests that run function binaries on the local cloud.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// The directory holding the workspace's binaries for the running test:
/// `target/<profile>`, beside the test executable. When one of `required` is
/// missing there, the workspace is built first in the test's own profile
/// (`cargo build [--release] --workspace --all-targets`: the same feature set
/// as `cargo test`, so nothing already built is rebuilt differently).
/// Binaries are not rebuilt when present: `scripts/test.sh` builds everything
/// before testing; after editing a function, build before running a single
/// package's tests.
pub fn function_binaries(required: &[&str]) -> PathBuf {
    static BUILD: Mutex<()> = Mutex::new(());
    let dir = std::env::current_exe()
        .expect("test executable path")
        .parent()
        .and_then(Path::parent)
        .expect("test executables live in target/<profile>/deps")
        .to_path_buf();
    let _one_build_at_a_time = BUILD.lock().unwrap_or_else(|e| e.into_inner());
    let missing: Vec<&str> = required
        .iter()
        .copied()
        .filter(|b| !dir.join(b).is_file())
        .collect();
    if !missing.is_empty() {
        eprintln!(
            "building the workspace: missing binaries {missing:?} in {}",
            dir.display()
        );
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut build = Command::new(cargo);
        build.args(["build", "--quiet", "--workspace", "--all-targets"]);
        if dir.ends_with("release") {
            build.arg("--release");
        }
        let status = build
            .current_dir(workspace_root())
            .status()
            .expect("cargo runs");
        assert!(status.success(), "building the workspace failed");
    }
    dir
}

/// The workspace root (where `template.yaml` is).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// [`function_binaries`] for every function a SAM template builds
/// (`Metadata.BuildProperties.Binary`).
pub fn template_binaries(template: &Path) -> PathBuf {
    let ctx = localcloud_template::ResolveContext {
        generate_no_echo: true,
        ..Default::default()
    };
    let app = localcloud_template::load(template, &ctx)
        .unwrap_or_else(|e| panic!("{} does not load: {e}", template.display()));
    let binaries: Vec<String> = app
        .functions
        .iter()
        .filter_map(|f| f.build.as_ref().and_then(|b| b.binary.clone()))
        .collect();
    let required: Vec<&str> = binaries.iter().map(String::as_str).collect();
    function_binaries(&required)
}
