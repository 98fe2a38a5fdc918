//! Plain configuration: what the template reader (or a test) hands the service.

use std::collections::BTreeMap;
use std::path::Path;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use std::time::SystemTime;

use base64::Engine;
use parking_lot::Mutex;
use sha2::{Digest, Sha256};

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
    /// The execution role's temporary credentials each function's
    /// environments get (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
    /// `AWS_SESSION_TOKEN`), by function name; without, `test` ones.
    pub credentials: BTreeMap<String, BTreeMap<String, String>>,
    /// Lambda Managed Instances' capacity providers; a managed function whose
    /// provider is not here gets a fleet of its own of the default type.
    pub capacity_providers: Vec<CapacityProvider>,
    /// The mean CPU utilisation of a managed function's environments (0-1 of
    /// their vCPUs) above which the scaler adds one, and above which the
    /// router sends an invocation to another environment where it can.
    pub managed_cpu_target: f64,
    /// How long a managed environment has had no invocation before the
    /// scaler may retire it (above the function's minimum).
    pub managed_scale_in_after: Duration,
}

/// A capacity provider: the EC2 instances its functions' environments fill.
#[derive(Debug, Clone, PartialEq)]
pub struct CapacityProvider {
    pub name: String,
    /// A type of [`localcloud_metrics::instances::INSTANCE_SHAPES`].
    pub instance_type: String,
    /// `MaxVCpuCount`: the fleet's vCPUs at most.
    pub max_vcpu_count: Option<u32>,
    /// The CPU utilisation (0-1) its fleet scales to; `None`:
    /// [`LambdaConfig::managed_cpu_target`].
    pub target_cpu_utilisation: Option<f64>,
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
            credentials: BTreeMap::new(),
            capacity_providers: Vec::new(),
            managed_cpu_target: localcloud_metrics::instances::DEFAULT_TARGET_CPU_UTILISATION,
            managed_scale_in_after: crate::scaler::SCALE_IN_AFTER,
        }
    }
}

pub use crate::cpu_share::CpuShare;
use crate::cpu_share::EnvironmentSize;
pub use localcloud_metrics::Architecture;

/// One function: its binary plays the part of `bootstrap` in `provided.al2023`.
#[derive(Debug, Clone, PartialEq)]
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
    /// Lambda Managed Instances (`CapacityProviderConfig`): environments
    /// that serve many invocations at once; `None` for on-demand.
    pub managed: Option<ManagedInstances>,
    /// Versions and aliases its stack creates with it.
    pub publish: Publication,
}

/// What a stack creates along with a function: `AWS::Lambda::Version`
/// resources (SAM's `AutoPublishAlias` makes one) and `AWS::Lambda::Alias`
/// resources. The function cannot change while the service runs, so a stack
/// publishes one version, as `PublishVersion` answers when nothing changed
/// since the last version.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Publication {
    /// Publish a version at start: the next after `inherited`, or the last
    /// of them when the function did not change.
    pub version: bool,
    pub aliases: Vec<AliasConfig>,
    /// The versions the stack's previous deployment published.
    pub inherited: Vec<InheritedVersion>,
}

/// An alias a stack creates: `FunctionVersion` is `$LATEST`, a version
/// number or `$LATEST.PUBLISHED`.
#[derive(Debug, Clone, PartialEq)]
pub struct AliasConfig {
    pub name: String,
    pub function_version: String,
    pub description: String,
}

/// How a function on Lambda Managed Instances sizes its execution
/// environments (https://docs.aws.amazon.com/lambda/latest/dg/lambda-managed-instances-execution-environment.html).
#[derive(Debug, Clone, PartialEq)]
pub struct ManagedInstances {
    /// The capacity provider's name (the last part of its ARN).
    pub provider: String,
    /// `ExecutionEnvironmentMemoryGiBPerVCpu`: 2, 4 or 8.
    pub memory_gib_per_vcpu: u32,
    /// `PerExecutionEnvironmentMaxConcurrency`; `None` for the runtime's default.
    pub max_concurrency: Option<u32>,
    /// `FunctionScalingConfig`: the environments it keeps at least and may
    /// have at most.
    pub scaling: ScalingBounds,
}

pub use crate::scaler::ScalingBounds;

impl ManagedInstances {
    /// The environment's vCPUs: its memory at the memory-to-vCPU ratio
    /// (a 4,096 MB function at 2 GiB per vCPU has two).
    pub fn vcpus(&self, memory_mb: u32) -> f64 {
        f64::from(memory_mb) / 1024.0 / f64::from(self.memory_gib_per_vcpu.max(1))
    }

    /// Invocations one environment serves at once (`AWS_LAMBDA_MAX_CONCURRENCY`).
    pub fn concurrency(&self, memory_mb: u32) -> u32 {
        self.max_concurrency.unwrap_or_else(|| {
            localcloud_metrics::instances::default_max_concurrency(self.vcpus(memory_mb))
        })
    }
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
            managed: None,
            publish: Publication::default(),
        }
    }

    /// The CPU each of its environments gets.
    pub fn cpu_size(&self) -> EnvironmentSize {
        match &self.managed {
            Some(managed) => EnvironmentSize::dedicated(managed.vcpus(self.memory_mb)),
            None => EnvironmentSize::on_demand(self.memory_mb),
        }
    }

    /// `AWS_LAMBDA_MAX_CONCURRENCY` of a managed function's environments.
    pub fn max_concurrency(&self) -> Option<u32> {
        self.managed.as_ref().map(|m| m.concurrency(self.memory_mb))
    }
}

// The code and configuration a version keeps: here, beside the
// configuration they snapshot (`versions` publishes them).

/// The function's code and configuration at one moment.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    /// The configuration; `publish` is left out (it is the stack's, not the version's).
    pub config: FunctionConfig,
    pub code: Code,
    /// `LastModified`, in Lambda's format.
    pub last_modified: String,
}

/// A function's binary as a snapshot saw it: its size and modification
/// time at once, its SHA-256 (`CodeSha256`) when first asked, since binaries
/// run to a hundred megabytes and a stack of Managed Instances functions
/// snapshots each at start. A binary rebuilt before its hash was first asked
/// for gives the new one.
#[derive(Debug, Clone)]
pub struct Code(Arc<CodeFile>);

#[derive(Debug)]
struct CodeFile {
    path: PathBuf,
    size: u64,
    modified: Option<SystemTime>,
    sha256: OnceLock<String>,
}

impl Code {
    pub(crate) fn read(path: &Path) -> Self {
        let metadata = std::fs::metadata(path).ok();
        Self(Arc::new(CodeFile {
            path: path.to_path_buf(),
            size: metadata.as_ref().map_or(0, |m| m.len()),
            modified: metadata.and_then(|m| m.modified().ok()),
            sha256: OnceLock::new(),
        }))
    }

    /// Code whose hash is known, for tests.
    #[cfg(test)]
    pub(crate) fn known(sha256: &str, size: u64) -> Self {
        let code = Self(Arc::new(CodeFile {
            path: PathBuf::new(),
            size,
            modified: None,
            sha256: OnceLock::new(),
        }));
        let _ = code.0.sha256.set(sha256.to_string());
        code
    }

    pub fn size(&self) -> u64 {
        self.0.size
    }

    /// `CodeSha256`: the binary's SHA-256, base64-encoded as Lambda gives it.
    pub fn sha256(&self) -> &str {
        self.0.sha256.get_or_init(|| sha256_base64(&self.0.path))
    }

    /// Still the same file: path, size and modification time unchanged.
    fn unchanged(&self, path: &Path) -> bool {
        let now = Self::read(path);
        self.0.path == now.0.path && self.0.size == now.0.size && self.0.modified == now.0.modified
    }
}

/// The same code: the same bytes, wherever they lie.
impl PartialEq for Code {
    fn eq(&self, other: &Self) -> bool {
        self.size() == other.size() && self.sha256() == other.sha256()
    }
}

impl Snapshot {
    /// The function's code and configuration now.
    pub fn read(config: &FunctionConfig) -> Self {
        CodeReader::default().snapshot(config)
    }

    /// Same code and configuration: what decides whether `PublishVersion`
    /// makes a new version. The code is compared by its hash, wherever the
    /// binary lies (a deployment unpacks its package afresh).
    pub(crate) fn same_function(&self, other: &Snapshot) -> bool {
        let settings = |s: &Snapshot| FunctionConfig {
            binary: std::path::PathBuf::new(),
            ..s.config.clone()
        };
        settings(self) == settings(other) && self.code == other.code
    }
}

/// A numbered version from a stack's previous deployment, which the next
/// deployment keeps (SAM keeps the versions `AutoPublishAlias` published).
#[derive(Debug, Clone, PartialEq)]
pub struct InheritedVersion {
    pub number: u64,
    pub snapshot: Snapshot,
    pub description: String,
}

/// Reads a function's binary for its snapshots, keeping the last reading
/// (and its hash, once computed) while the file is unchanged.
#[derive(Default)]
pub struct CodeReader {
    cached: Mutex<Option<Code>>,
}

impl CodeReader {
    pub fn snapshot(&self, config: &FunctionConfig) -> Snapshot {
        let code = {
            let mut cached = self.cached.lock();
            match cached.as_ref() {
                Some(code) if code.unchanged(&config.binary) => code.clone(),
                _ => {
                    let code = Code::read(&config.binary);
                    *cached = Some(code.clone());
                    code
                }
            }
        };
        let last_modified = code
            .0
            .modified
            .map(chrono::DateTime::<chrono::Utc>::from)
            .unwrap_or_else(chrono::Utc::now);
        Snapshot {
            config: FunctionConfig {
                publish: Publication::default(),
                ..config.clone()
            },
            code,
            last_modified: last_modified
                .format("%Y-%m-%dT%H:%M:%S%.3f+0000")
                .to_string(),
        }
    }
}

fn sha256_base64(path: &Path) -> String {
    let digest = std::fs::read(path)
        .map(|bytes| Sha256::digest(&bytes))
        .unwrap_or_else(|_| Sha256::digest(b""));
    base64::engine::general_purpose::STANDARD.encode(digest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn managed(memory_mb: u32, ratio: u32, max: Option<u32>) -> FunctionConfig {
        FunctionConfig {
            memory_mb,
            managed: Some(ManagedInstances {
                provider: "fleet".into(),
                memory_gib_per_vcpu: ratio,
                max_concurrency: max,
                scaling: ScalingBounds::default(),
            }),
            ..FunctionConfig::new("f", "/bin/f")
        }
    }

    #[test]
    fn managed_environments_get_memory_over_ratio_vcpus_and_8_workers_each() {
        let f = managed(4096, 2, None);
        assert_eq!(f.cpu_size(), EnvironmentSize::dedicated(2.0));
        assert_eq!(f.cpu_size().visible_vcpus, 2);
        assert_eq!(f.max_concurrency(), Some(16));
        let f = managed(8192, 4, Some(100));
        assert_eq!(f.cpu_size().share_vcpus, 2.0);
        assert_eq!(f.max_concurrency(), Some(100));
        let on_demand = FunctionConfig::new("g", "/bin/g");
        assert_eq!(on_demand.max_concurrency(), None);
        assert_eq!(on_demand.cpu_size(), EnvironmentSize::on_demand(128));
    }
}
