//! Shared test fixtures: the test function binaries and a started service.
//!
//! The functions are the `test-functions` crate's binaries. A test binary sits
//! in `target/<profile>/deps/`, so the functions are looked up in
//! `target/<profile>/`; when one is missing or older than its sources, the
//! fixture runs `cargo build -p test-functions --bins` once per test binary.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime};

use bytes::Bytes;
use localcloud_core::{InvokeError, InvokeRequest, InvokeResponse, Invoker};
use localcloud_lambda::{FunctionConfig, LambdaConfig, LambdaService};
use serde_json::Value;

pub const FUNCTIONS: &[&str] = &[
    "echo",
    "sleep",
    "crash",
    "init-exit",
    "slow-init",
    "fail",
    "print-lines",
    "thread-burn",
    "cpu-burn",
    "concurrent",
];

pub fn binary(name: &str) -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(build_test_functions).join(name)
}

fn build_test_functions() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>");
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../test-functions");
    if !FUNCTIONS
        .iter()
        .all(|f| is_fresh(&dir.join(f), &crate_dir, f))
    {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let status = Command::new(cargo)
            .args(["build", "--quiet", "-p", "test-functions", "--bins"])
            .current_dir(crate_dir.join("../.."))
            .status()
            .expect("cargo runs");
        assert!(status.success(), "building test-functions failed");
    }
    dir.to_path_buf()
}

/// Cargo relinks a binary only when its own source or the library changes,
/// so each binary is compared with those.
fn is_fresh(binary: &Path, crate_dir: &Path, name: &str) -> bool {
    let sources = [
        crate_dir.join("Cargo.toml"),
        crate_dir.join("src/lib.rs"),
        crate_dir.join(format!("src/bin/{name}.rs")),
    ];
    let newest = sources
        .iter()
        .map(|p| mtime(p).unwrap_or_else(SystemTime::now))
        .fold(SystemTime::UNIX_EPOCH, SystemTime::max);
    mtime(binary).is_some_and(|built| built >= newest)
}

fn mtime(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).ok()?.modified().ok()
}

/// A function running test binary `bin` under the name `name`.
pub fn function(name: &str, bin: &str) -> FunctionConfig {
    FunctionConfig::new(name, binary(bin))
}

/// A config with fast retries and a short idle timeout for tests.
pub fn config(functions: Vec<FunctionConfig>) -> LambdaConfig {
    LambdaConfig {
        functions,
        async_retry_delays: vec![Duration::from_millis(50), Duration::from_millis(100)],
        async_throttle_delay: Duration::from_millis(20),
        ..LambdaConfig::default()
    }
}

pub fn start(config: LambdaConfig) -> Arc<LambdaService> {
    LambdaService::start(config).expect("service starts")
}

pub async fn invoke(
    service: &LambdaService,
    function: &str,
    payload: Value,
) -> Result<InvokeResponse, InvokeError> {
    service
        .invoke(InvokeRequest::sync(function, payload.to_string(), "test"))
        .await
}

pub fn json(payload: &Bytes) -> Value {
    serde_json::from_slice(payload).unwrap_or_else(|e| panic!("not JSON ({e}): {payload:?}"))
}

pub fn is_running(pid: u32) -> bool {
    // A zombie is dead for our purposes; only a live process counts.
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|stat| {
            !stat
                .rsplit(')')
                .next()
                .unwrap_or("")
                .trim_start()
                .starts_with('Z')
        })
        .unwrap_or(false)
}

/// Polls `condition` for up to two seconds.
pub async fn eventually(mut condition: impl FnMut() -> bool) -> bool {
    for _ in 0..200 {
        if condition() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    condition()
}
