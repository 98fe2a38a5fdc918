//! Lambda: invocations, billed time and ingested log bytes per function.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::fields::field_names;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Architecture {
    #[default]
    #[serde(rename = "x86_64")]
    X86_64,
    #[serde(rename = "arm64")]
    Arm64,
}

impl Architecture {
    /// As Lambda spells it (`Architectures` in a template, the price table).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::X86_64 => "x86_64",
            Self::Arm64 => "arm64",
        }
    }
}

/// What produced the functions' durations: how each execution environment
/// got its share of the CPU (docs/architecture.md, "CPU as AWS gives it").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CpuShareMode {
    /// The kernel's CFS bandwidth control (cgroup v1 `cpu.cfs_quota_us`):
    /// each environment runs at its share, durations as measured.
    CgroupV1,
    /// The same through cgroup v2 (`cpu.max`).
    CgroupV2,
    /// Environments ran unthrottled; each invocation's duration was
    /// stretched from its measured CPU time as if it had run at its share.
    Model,
    /// Unthrottled, durations as measured on this machine's cores.
    #[default]
    Off,
}

impl CpuShareMode {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::CgroupV1 => "cgroup-v1",
            Self::CgroupV2 => "cgroup-v2",
            Self::Model => "model",
            Self::Off => "off",
        }
    }

    /// Whether durations stand for AWS's CPU share (cgroup or model).
    pub fn is_on(self) -> bool {
        self != Self::Off
    }
}

/// GB-seconds, the unit Lambda bills duration in: billed time in seconds
/// times the memory size in GB, 1,024 MB to the GB ("Total compute (GB-s) =
/// 3,000,000 * 512MB/1024" in <https://aws.amazon.com/lambda/pricing/>).
/// The emulator meters with it and the cost model prices with it.
pub fn gb_seconds(billed_ms: f64, memory_mb: f64) -> f64 {
    billed_ms * memory_mb / 1024.0 / 1000.0
}

/// How the CPU share was applied in this local cloud, and why not the
/// kernel's where it fell back to the model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CpuShareMetrics {
    pub mode: CpuShareMode,
    /// Why `--cpu-share aws` fell back to the model (no cgroup controller
    /// writable), `None` otherwise.
    #[serde(deserialize_with = "Option::deserialize")]
    pub fallback_reason: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LambdaMetrics {
    pub cpu_share: CpuShareMetrics,
    pub account_concurrency_limit: u32,
    /// Oldest invocation records dropped to stay within the emulator's cap.
    pub dropped_records: u64,
    pub concurrent_executions: u32,
    pub peak_concurrent_executions: u32,
    /// By function name.
    pub functions: BTreeMap<String, FunctionMetrics>,
    /// Lambda Managed Instances, by capacity provider name.
    pub capacity_providers: BTreeMap<String, CapacityProviderMetrics>,
}

/// A capacity provider's fleet: the EC2 instances its functions'
/// environments fill, which the user pays for busy or idle.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CapacityProviderMetrics {
    /// The instance type whose size the environments fill (see
    /// [`crate::instances`]).
    pub instance_type: String,
    pub instance_vcpus: u32,
    /// Instances running now (at least three).
    pub instances: u32,
    pub peak_instances: u32,
    /// Instances times seconds: what EC2 bills.
    pub instance_seconds: f64,
    /// Execution environments running now, of all its functions.
    pub environments: u32,
    /// Their vCPUs.
    pub vcpus_allocated: f64,
    /// Invocations of its functions throttled for want of a free slot in
    /// their environments (Lambda Managed Instances throttle rather than
    /// start an environment when invocations arrive).
    pub scaling_refusals: u64,
}

impl CapacityProviderMetrics {
    /// Its settings and levels (see [`crate::is_gauge`]); the rest are totals.
    pub const GAUGES: &'static [&'static str] = field_names!(CapacityProviderMetrics {
        instance_vcpus,
        instances,
        peak_instances,
        environments,
        vcpus_allocated,
    });
}

impl LambdaMetrics {
    /// Its level fields (see [`crate::is_gauge`]).
    pub const GAUGES: &'static [&'static str] = field_names!(LambdaMetrics {
        account_concurrency_limit,
        concurrent_executions,
        peak_concurrent_executions,
    });
}

/// Totals for one function since start or the last reset.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FunctionMetrics {
    pub memory_mb: u32,
    /// As configured; the binaries run on the host's architecture.
    pub architecture: Architecture,
    /// Invocations that ran (throttles excluded, as in CloudWatch).
    pub invocations: u64,
    /// Function errors, timeouts, crashes and init failures.
    pub errors: u64,
    pub throttles: u64,
    pub timeouts: u64,
    pub crashes: u64,
    pub cold_starts: u64,
    pub duration_ms: f64,
    /// `ceil(duration + init)` per invocation, summed.
    pub billed_ms: u64,
    pub init_ms: f64,
    /// Part of `billed_ms` spent waiting on callees or replies; the emulator
    /// cannot tell, so it reports 0 and the cost model shows no waiting line.
    pub waiting_ms: f64,
    /// [`gb_seconds`] of each invocation, summed.
    pub gb_seconds: f64,
    /// Log events CloudWatch would ingest: each stdout/stderr line and each
    /// platform line (START, END, REPORT, ...).
    pub log_events: u64,
    /// Their ingested size: UTF-8 message bytes plus 26 bytes per event.
    pub log_bytes: u64,
    /// User + system CPU time of the function's processes, live and exited.
    pub cpu_ms: f64,
    /// The part of `cpu_ms` spent on named threads, by thread name (Linux's
    /// `comm`, at most 15 bytes), threads of one name summed: e.g. `argon2`,
    /// the Conduit functions' password hashing thread. The main thread and
    /// threads that kept its name are in `cpu_ms` only. A thread that ends
    /// between two readings (taken after invocations and when an environment
    /// is retired) loses what it used since the last one.
    pub thread_cpu_ms: BTreeMap<String, f64>,
    /// The CPU share of each of its environments in vCPUs: `memory_mb` /
    /// 1,769, at most the vCPUs AWS shows at that size; 0 with the share off.
    pub cpu_share_vcpus: f64,
    /// Time its environments were held back by their CPU quota (cgroup
    /// `cpu.stat` throttled time): the quota at work, as on AWS.
    pub throttled_ms: f64,
    /// Time its processes' threads were runnable but waiting for a core
    /// (`/proc/<pid>/task/*/schedstat`): the quota's hold-backs plus this
    /// machine's contention.
    pub run_queue_wait_ms: f64,
    /// Part of `duration_ms` (and so of `billed_ms`) that the model added
    /// ([`CpuShareMode::Model`]); 0 otherwise.
    pub modeled_cpu_ms: f64,
    /// Its invocations as AWS would bill them: this machine's waits (contention and wake-ups),
    /// measured within each invocation, taken out. Absent (`None`) in
    /// documents of local clouds that did not measure it, whose readers fall
    /// back on `run_queue_wait_ms - throttled_ms` ([`Self::contention_ms`]).
    #[serde(default)]
    pub without_contention: Option<WithoutContention>,
    pub concurrent_executions: u32,
    pub peak_concurrent_executions: u32,
    /// Execution environments alive now (busy or warm).
    pub environments: usize,
    /// Lambda Managed Instances: the capacity provider its environments
    /// run on; `None` on-demand (then it bills duration, not instances).
    #[serde(deserialize_with = "Option::deserialize")]
    pub capacity_provider: Option<String>,
    /// Its part of the provider's `instance_seconds`: each moment's
    /// instances split by the vCPUs its environments held. 0 on-demand.
    pub instance_seconds: f64,
    /// Lambda Managed Instances: the invocations one of its environments
    /// serves at once (`AWS_LAMBDA_MAX_CONCURRENCY`): its
    /// `PerExecutionEnvironmentMaxConcurrency`, else the runtime's default
    /// ([`crate::instances::default_max_concurrency`]); `None` on-demand
    /// (one at a time).
    #[serde(deserialize_with = "Option::deserialize")]
    pub max_concurrency: Option<u32>,
    /// Lambda Managed Instances: its `ExecutionEnvironmentMemoryGiBPerVCpu`
    /// (2, 4 or 8): each environment has `memory_mb` / 1,024 / this vCPUs.
    /// `None` on-demand.
    #[serde(deserialize_with = "Option::deserialize")]
    pub memory_gib_per_vcpu: Option<f64>,
}

impl FunctionMetrics {
    /// Its settings and levels (see [`crate::is_gauge`]); the rest are totals.
    pub const GAUGES: &'static [&'static str] = field_names!(FunctionMetrics {
        memory_mb,
        cpu_share_vcpus,
        concurrent_executions,
        peak_concurrent_executions,
        environments,
        max_concurrency,
        memory_gib_per_vcpu,
    });

    /// Billed time that was this machine's contention rather than the
    /// quota: [`WithoutContention::contention_ms`], measured within each
    /// invocation. A document without it (an older local cloud) has the
    /// run-queue waits beyond the quota's hold-backs instead, summed over
    /// every thread, inside invocations and between them: several times the
    /// contention that lengthened the invocations.
    pub fn contention_ms(&self) -> f64 {
        match &self.without_contention {
            Some(without) => without.contention_ms,
            None => (self.run_queue_wait_ms - self.throttled_ms).max(0.0),
        }
    }
}

/// A function's invocations with this machine's contention taken out: the
/// durations and the bill AWS would give the same code, beside the measured
/// ones of [`FunctionMetrics`]. Its counters are running totals like theirs.
///
/// An invocation's machine waits are the time its environment's threads
/// waited for a core beyond what its CPU quota held back, within the
/// invocation (from the event handed to the runtime to its answer): per
/// invocation the largest growth of one thread's run-queue wait, less the
/// group's throttled time, clamped to [0, its duration]; a lower bound of
/// the time some thread waited for a reason other than the quota (the local
/// cloud's `contention` module says why). Of them, its contention is what
/// the threads waited beyond their time slices' wake-ups (cores busy with
/// other work); the rest is its wake-up (idle cores coming out of idle).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WithoutContention {
    /// The invocations' contention, summed.
    pub contention_ms: f64,
    /// The invocations' waits for idle cores to wake up, summed (0 in
    /// documents of local clouds that did not tell them apart).
    #[serde(default)]
    pub wake_up_ms: f64,
    /// Invocations whose contention was measured: those that answered, in
    /// an environment whose threads could be read; the others count none.
    pub measured_invocations: u64,
    /// `duration_ms` less each invocation's contention and wake-up.
    pub duration_ms: f64,
    /// `ceil(duration - contention - wake-up + init)` per invocation, summed: the
    /// billed duration re-rounded as Lambda rounds it, to the next ms
    /// (<https://aws.amazon.com/lambda/pricing/>: "rounded up to the nearest
    /// 1 ms").
    pub billed_ms: u64,
    /// [`gb_seconds`] of each invocation's `billed_ms`, summed.
    pub gb_seconds: f64,
}
