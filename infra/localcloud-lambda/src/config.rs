//! Plain configuration: what the template reader (or a test) hands the service.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

/// The whole Lambda service of one local cloud (one account, one region).
#[derive(Debug, Clone)]
pub struct LambdaConfig {
    /// Concurrent executions across all functions (AWS default: 1,000 per region).
    pub account_concurrency_limit: u32,
    /// A warm environment unused this long is shut down.
    pub idle_timeout: Duration,
    /// Where `<function>.log` files go; `None` discards function output.
    pub log_dir: Option<PathBuf>,
    /// `AWS_ENDPOINT_URL` for the functions, i.e. the local cloud's own endpoint.
    pub endpoint_url: Option<String>,
    pub region: String,
    pub account_id: String,
    /// Delays before each retry of a failed `Event` invocation; AWS retries twice,
    /// after about one and then two minutes.
    pub async_retry_delays: Vec<Duration>,
    /// How long an `Event` invocation throttled by concurrency waits before it is
    /// tried again (throttles do not use up retries, as on AWS).
    pub async_throttle_delay: Duration,
    /// How long a queued `Event` invocation may wait before it is dropped (AWS: 6 h).
    pub async_max_event_age: Duration,
    /// Limit for the init phase (AWS: 10 s).
    pub init_timeout: Duration,
    /// Invocation records kept for `records()`; older ones are dropped (the
    /// totals in `metrics()` still count them).
    pub max_records: usize,
    /// How each execution environment gets CPU: in proportion to its memory
    /// size as on AWS (the default), or unthrottled (`Off`).
    pub cpu_share: CpuShare,
    pub functions: Vec<FunctionConfig>,
}

impl Default for LambdaConfig {
    fn default() -> Self {
        Self {
            account_concurrency_limit: 1000,
            idle_timeout: Duration::from_secs(300),
            log_dir: None,
            endpoint_url: None,
            region: localcloud_core::context::DEFAULT_REGION.to_string(),
            account_id: localcloud_core::context::DEFAULT_ACCOUNT.to_string(),
            async_retry_delays: vec![Duration::from_secs(60), Duration::from_secs(120)],
            async_throttle_delay: Duration::from_secs(1),
            async_max_event_age: Duration::from_secs(6 * 3600),
            init_timeout: Duration::from_secs(10),
            max_records: 1_000_000,
            cpu_share: CpuShare::default(),
            functions: Vec::new(),
        }
    }
}

pub use crate::cpu_share::CpuShare;
pub use localcloud_metrics::Architecture;

/// One function: its binary plays the part of `bootstrap` in `provided.al2023`.
#[derive(Debug, Clone)]
pub struct FunctionConfig {
    pub name: String,
    pub binary: PathBuf,
    /// `_HANDLER`; Rust functions ignore it, SAM templates usually say `bootstrap`.
    pub handler: String,
    pub memory_mb: u32,
    pub timeout: Duration,
    pub environment: BTreeMap<String, String>,
    pub reserved_concurrency: Option<u32>,
    pub architecture: Architecture,
}

impl FunctionConfig {
    /// A function with AWS's defaults: 128 MB, 3 s, no reserved concurrency.
    pub fn new(name: impl Into<String>, binary: impl Into<PathBuf>) -> Self {
        Self {
            name: name.into(),
            binary: binary.into(),
            handler: "bootstrap".to_string(),
            memory_mb: 128,
            timeout: Duration::from_secs(3),
            environment: BTreeMap::new(),
            reserved_concurrency: None,
            architecture: Architecture::default(),
        }
    }
}
