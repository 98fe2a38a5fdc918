//! CPU as AWS gives it: each execution environment gets CPU in proportion
//! to its function's memory size, 1,769 MB being one vCPU ("At 1,769 MB, a
//! function has the equivalent of one vCPU (one vCPU-second of credits per
//! second)": AWS Lambda Developer Guide, "Configure Lambda function memory",
//! https://docs.aws.amazon.com/lambda/latest/dg/configuration-memory.html).
//!
//! Three ways, chosen once per service ([`CpuShare`]):
//! - the kernel's CFS bandwidth control: one cgroup per environment, its
//!   quota the share (cgroup v1 `cpu.cfs_quota_us` / `cpu.cfs_period_us`, or
//!   v2 `cpu.max`); every thread of the process shares it, durations are
//!   measured as they fall;
//! - the model, where no cgroup can be written (no root, macOS): the process
//!   runs unthrottled and each invocation's duration is stretched from its
//!   measured CPU time ([`modeled_duration_ms`]);
//! - off: unthrottled, as measured on this machine's cores.
//!
//! The init phase runs at the vCPUs the environment sees, not at its share:
//! AWS documents no rule for it, and measurements on AWS find init code
//! running unthrottled up to 3,008 MB (bitesizedserverless.com, "Lambda
//! Cold Starts and Bootstrap Code", 2023; the Lambda Web Adapter's docs,
//! "Async Initialization": "up to 10 seconds for function initialization
//! with burst CPU"). The quota applies from the runtime's first `/next`.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

pub use localcloud_metrics::{CpuShareMetrics, CpuShareMode};

/// Memory size that buys one vCPU.
pub const MB_PER_VCPU: f64 = 1769.0;

/// CFS period of every environment's group. AWS does not document its own;
/// 20 ms keeps a 128 MB quota (1.45 ms) above the kernel's 1 ms minimum
/// while a throttled request waits at most one period for its next slice.
pub const PERIOD_US: u64 = 20_000;

/// `--cpu-share`: what the user asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CpuShare {
    /// The kernel's quota where it can be set, else the model.
    #[default]
    Aws,
    /// The model, even where the kernel could do it.
    Model,
    Off,
}

impl std::str::FromStr for CpuShare {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "aws" => Ok(Self::Aws),
            "model" => Ok(Self::Model),
            "off" => Ok(Self::Off),
            other => Err(format!(
                "unknown CPU share {other:?}: aws (the kernel's quota, else the model), model or off"
            )),
        }
    }
}

/// The vCPUs an environment of `memory_mb` sees (`nproc`): two up to 3,008
/// MB, then one more per 1,769 MB, six at 10,240 MB.
pub fn visible_vcpus(memory_mb: u32) -> u32 {
    (f64::from(memory_mb) / MB_PER_VCPU).ceil().clamp(2.0, 6.0) as u32
}

/// The CPU an environment of `memory_mb` may use, in vCPUs.
pub fn share_vcpus(memory_mb: u32) -> f64 {
    (f64::from(memory_mb) / MB_PER_VCPU).min(f64::from(visible_vcpus(memory_mb)))
}

/// The CPU of one environment: the share it may use and the vCPUs it sees.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EnvironmentSize {
    pub share_vcpus: f64,
    pub visible_vcpus: u32,
}

impl EnvironmentSize {
    /// On-demand Lambda: CPU in proportion to memory.
    pub fn on_demand(memory_mb: u32) -> Self {
        Self {
            share_vcpus: share_vcpus(memory_mb),
            visible_vcpus: visible_vcpus(memory_mb),
        }
    }

    /// Lambda Managed Instances: whole vCPUs of an EC2 instance, as many as
    /// the environment sees, with no fractional share.
    pub fn dedicated(vcpus: f64) -> Self {
        Self {
            share_vcpus: vcpus,
            visible_vcpus: (vcpus.ceil() as u32).max(1),
        }
    }
}

/// The model's duration of an invocation that took `wall_ms` unthrottled
/// and used `cpu_ms` of CPU over all its threads, at `vcpus`: its CPU at
/// the share, plus the time it was not on a CPU (waiting on calls). Work
/// spread over threads (CPU above wall time) is bound by the share too, and
/// a share above what it used changes nothing.
pub fn modeled_duration_ms(wall_ms: f64, cpu_ms: f64, vcpus: f64) -> f64 {
    if vcpus <= 0.0 {
        return wall_ms;
    }
    let off_cpu = (wall_ms - cpu_ms).max(0.0);
    wall_ms.max(cpu_ms / vcpus + off_cpu)
}

/// How a service hands out CPU, decided at its start.
pub struct CpuController {
    mode: CpuShareMode,
    fallback_reason: Option<String>,
    root: Option<GroupRoot>,
}

impl CpuController {
    pub fn new(setting: CpuShare) -> Self {
        match setting {
            CpuShare::Off => Self::without_groups(CpuShareMode::Off, None),
            CpuShare::Model => Self::without_groups(CpuShareMode::Model, None),
            CpuShare::Aws => match GroupRoot::create() {
                Ok(root) => Self {
                    mode: root.version.mode(),
                    fallback_reason: None,
                    root: Some(root),
                },
                Err(reason) => {
                    tracing::warn!(
                        "CPU share: {reason}; durations come from the model (each invocation's CPU time at its share)"
                    );
                    Self::without_groups(CpuShareMode::Model, Some(reason))
                }
            },
        }
    }

    fn without_groups(mode: CpuShareMode, fallback_reason: Option<String>) -> Self {
        Self {
            mode,
            fallback_reason,
            root: None,
        }
    }

    pub fn mode(&self) -> CpuShareMode {
        self.mode
    }

    pub fn metrics(&self) -> CpuShareMetrics {
        CpuShareMetrics {
            mode: self.mode,
            fallback_reason: self.fallback_reason.clone(),
        }
    }

    /// The share of one new environment: its own group in the cgroup modes.
    pub fn environment(&self, size: EnvironmentSize) -> io::Result<EnvironmentShare> {
        let group = match &self.root {
            Some(root) => Some(root.group(size.visible_vcpus)?),
            None => None,
        };
        Ok(EnvironmentShare {
            vcpus: if self.mode.is_on() {
                size.share_vcpus
            } else {
                0.0
            },
            mode: self.mode,
            group,
        })
    }
}

/// One environment's share, and its group when the kernel enforces it.
pub struct EnvironmentShare {
    pub vcpus: f64,
    pub mode: CpuShareMode,
    group: Option<Group>,
}

impl EnvironmentShare {
    /// The group's `cgroup.procs`, where [`attach`] moves a process (every
    /// thread it has and will have) into the group, at the init phase's
    /// allowance; `None` without a group.
    pub fn procs_file(&self) -> Option<PathBuf> {
        self.group.as_ref().map(|g| g.dir.join("cgroup.procs"))
    }

    /// The end of init: from now on the process runs at its share.
    pub fn init_done(&self) -> io::Result<()> {
        match &self.group {
            Some(group) => group.limit(self.vcpus),
            None => Ok(()),
        }
    }

    /// The group's `cpu.stat`, where its throttled time is read
    /// ([`read_throttled_ms`]).
    pub fn throttle_source(&self) -> Option<PathBuf> {
        self.group.as_ref().map(|g| g.dir.join("cpu.stat"))
    }

    /// Whether durations must be stretched by the model.
    pub fn is_modeled(&self) -> bool {
        self.mode == CpuShareMode::Model
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Version {
    V1,
    V2,
}

impl Version {
    fn mode(self) -> CpuShareMode {
        match self {
            Self::V1 => CpuShareMode::CgroupV1,
            Self::V2 => CpuShareMode::CgroupV2,
        }
    }
}

/// This service's directory of groups, removed with it.
struct GroupRoot {
    dir: PathBuf,
    version: Version,
    next: AtomicU64,
}

static SERVICES: AtomicU64 = AtomicU64::new(0);

impl GroupRoot {
    /// A directory for this service's environments under the cgroup of this
    /// process (v1's `cpu` hierarchy, else v2's with the `cpu` controller);
    /// the reason when neither can be written.
    fn create() -> Result<Self, String> {
        if !cfg!(target_os = "linux") {
            return Err("cgroups need Linux".into());
        }
        let own = std::fs::read_to_string("/proc/self/cgroup")
            .map_err(|e| format!("cannot read /proc/self/cgroup: {e}"))?;
        let service = format!(
            "localcloud-{}-{}",
            std::process::id(),
            SERVICES.fetch_add(1, Ordering::Relaxed)
        );
        let mut reasons = Vec::new();
        for (version, base) in candidates(&own) {
            match Self::create_in(&base, &service, version) {
                Ok(root) => return Ok(root),
                Err(e) => reasons.push(format!("{}: {e}", base.display())),
            }
        }
        if reasons.is_empty() {
            reasons.push("no cgroup v1 `cpu` hierarchy nor cgroup v2 mount".into());
        }
        Err(format!("no writable cgroup ({})", reasons.join("; ")))
    }

    fn create_in(base: &Path, service: &str, version: Version) -> io::Result<Self> {
        remove_stale_services(base);
        if version == Version::V2 {
            // v2 hands a controller to children only through the parent's
            // subtree_control.
            std::fs::write(base.join("cgroup.subtree_control"), "+cpu")?;
        }
        let dir = base.join(service);
        std::fs::create_dir(&dir)?;
        if version == Version::V2 {
            if let Err(e) = std::fs::write(dir.join("cgroup.subtree_control"), "+cpu") {
                let _ = std::fs::remove_dir(&dir);
                return Err(e);
            }
        }
        let root = Self {
            dir,
            version,
            next: AtomicU64::new(0),
        };
        // A quota that cannot be written is no quota: try it on a first group.
        root.group(visible_vcpus(128))?.limit(share_vcpus(128))?;
        Ok(root)
    }

    /// A group for one environment, at the `visible` vCPUs of its init phase.
    fn group(&self, visible: u32) -> io::Result<Group> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let dir = self.dir.join(format!("env-{id}"));
        std::fs::create_dir(&dir)?;
        let group = Group {
            dir,
            version: self.version,
        };
        group.limit(f64::from(visible))?;
        Ok(group)
    }
}

impl Drop for GroupRoot {
    fn drop(&mut self) {
        // Environments' groups go with their processes; whatever is left is empty.
        if let Ok(entries) = std::fs::read_dir(&self.dir) {
            for entry in entries.flatten() {
                if entry.path().is_dir() {
                    let _ = std::fs::remove_dir(entry.path());
                }
            }
        }
        let _ = std::fs::remove_dir(&self.dir);
    }
}

/// Where this process may make groups: its own cgroup in v1's `cpu`
/// hierarchy, then in the v2 hierarchy.
fn candidates(proc_self_cgroup: &str) -> Vec<(Version, PathBuf)> {
    let mut found = Vec::new();
    for line in proc_self_cgroup.lines() {
        let mut fields = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) =
            (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let relative = path.trim_start_matches('/');
        if controllers.split(',').any(|c| c == "cpu") {
            let mount = Path::new("/sys/fs/cgroup/cpu");
            if mount.join("cpu.cfs_quota_us").exists() {
                found.insert(0, (Version::V1, mount.join(relative)));
            }
        } else if controllers.is_empty() {
            for mount in ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"] {
                let mount = Path::new(mount);
                let offers_cpu = std::fs::read_to_string(mount.join("cgroup.controllers"))
                    .is_ok_and(|c| c.split_whitespace().any(|c| c == "cpu"));
                if offers_cpu {
                    found.push((Version::V2, mount.join(relative)));
                    break;
                }
            }
        }
    }
    found
}

/// Groups left by local clouds that were killed: their processes are gone,
/// and so are the processes of their environments (killed with them).
fn remove_stale_services(base: &Path) {
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix("localcloud-"))
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if Path::new(&format!("/proc/{pid}")).exists() {
            continue;
        }
        if let Ok(groups) = std::fs::read_dir(entry.path()) {
            for group in groups.flatten().filter(|g| g.path().is_dir()) {
                let _ = std::fs::remove_dir(group.path());
            }
        }
        let _ = std::fs::remove_dir(entry.path());
    }
}

/// One environment's group, removed when the environment is dropped (its
/// process is gone by then: a group with a process in it cannot be removed).
struct Group {
    dir: PathBuf,
    version: Version,
}

/// Moves process `pid` into the group of `procs` (its `cgroup.procs`).
///
/// It blocks for a while: the kernel moves a process between cgroups under
/// the global `cgroup_threadgroup_rwsem`, whose writer waits for an RCU
/// grace period (measured here, cgroup v1 on kernel 6.18: 12-20 ms per
/// move, against 0.2-0.4 ms for the group's directory and limits). Call it
/// off the async workers, and not within a duration the environment bills.
pub fn attach(procs: &Path, pid: u32) -> io::Result<()> {
    std::fs::write(procs, pid.to_string())
}

impl Group {
    fn limit(&self, vcpus: f64) -> io::Result<()> {
        let quota_us = quota_us(vcpus);
        match self.version {
            Version::V1 => {
                // The period first: a quota is checked against the period in force.
                std::fs::write(self.dir.join("cpu.cfs_period_us"), PERIOD_US.to_string())?;
                std::fs::write(self.dir.join("cpu.cfs_quota_us"), quota_us.to_string())
            }
            Version::V2 => {
                std::fs::write(self.dir.join("cpu.max"), format!("{quota_us} {PERIOD_US}"))
            }
        }
    }
}

/// Milliseconds a group has been held back by its quota, from its `cpu.stat`.
pub fn read_throttled_ms(cpu_stat: &Path) -> Option<f64> {
    throttled_ms_of(&std::fs::read_to_string(cpu_stat).ok()?)
}

/// A group's throttled time, read again and again through its `cpu.stat`
/// kept open (a read at offset 0 renders the file afresh): it is read at
/// both ends of every invocation.
pub struct ThrottleReader {
    cpu_stat: std::fs::File,
    buffer: [u8; 1024],
}

impl ThrottleReader {
    /// `None` if the group is gone or never was.
    pub fn open(cpu_stat: &Path) -> Option<Self> {
        Some(Self {
            cpu_stat: std::fs::File::open(cpu_stat).ok()?,
            buffer: [0; 1024],
        })
    }

    /// Milliseconds the group has been held back so far.
    pub fn read_ms(&mut self) -> Option<f64> {
        use std::os::unix::fs::FileExt;
        let read = self.cpu_stat.read_at(&mut self.buffer, 0).ok()?;
        throttled_ms_of(std::str::from_utf8(&self.buffer[..read]).ok()?)
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        // The kernel may take a moment to let go of a process just reaped.
        for _ in 0..20 {
            match std::fs::remove_dir(&self.dir) {
                Err(e) if e.raw_os_error() == Some(16) => {
                    std::thread::sleep(std::time::Duration::from_millis(5))
                }
                _ => return,
            }
        }
    }
}

/// Microseconds of CPU per period for `vcpus`, at least the kernel's 1 ms.
fn quota_us(vcpus: f64) -> u64 {
    ((vcpus * PERIOD_US as f64).round() as u64).max(1000)
}

/// Throttled time from a `cpu.stat`: v1 `throttled_time` (ns), v2
/// `throttled_usec`.
fn throttled_ms_of(stat: &str) -> Option<f64> {
    stat.lines().find_map(|line| {
        let (key, value) = line.split_once(' ')?;
        let value: f64 = value.trim().parse().ok()?;
        match key {
            "throttled_time" => Some(value / 1e6),
            "throttled_usec" => Some(value / 1e3),
            _ => None,
        }
    })
}

/// A process's CPU clock (all its threads, nanoseconds): read before and
/// after each invocation, it is that invocation's CPU time. `/proc`'s tick
/// counts are 10 ms coarse, too coarse for one invocation.
pub struct ProcessCpuClock(libc::clockid_t);

impl ProcessCpuClock {
    pub fn of(pid: u32) -> Option<Self> {
        let mut clock: libc::clockid_t = 0;
        // SAFETY: `clock` is a valid place for the result; the call only
        // computes the clock id of `pid`.
        let status = unsafe { libc::clock_getcpuclockid(pid as libc::pid_t, &mut clock) };
        (status == 0).then_some(Self(clock))
    }

    /// Milliseconds of CPU so far; `None` once the process is gone.
    pub fn read_ms(&self) -> Option<f64> {
        let mut time = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `time` is a valid timespec to write into.
        let status = unsafe { libc::clock_gettime(self.0, &mut time) };
        (status == 0).then(|| time.tv_sec as f64 * 1000.0 + time.tv_nsec as f64 / 1e6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_share_is_linear_in_memory_and_capped_at_the_visible_vcpus() {
        assert!((share_vcpus(1769) - 1.0).abs() < 1e-9);
        assert!((share_vcpus(128) - 128.0 / 1769.0).abs() < 1e-9);
        assert!((share_vcpus(3538) - 2.0).abs() < 1e-9);
        assert_eq!(visible_vcpus(128), 2);
        assert_eq!(visible_vcpus(3008), 2);
        assert_eq!(visible_vcpus(3539), 3);
        assert_eq!(visible_vcpus(10_240), 6);
        assert!(share_vcpus(10_240) <= 6.0);
    }

    #[test]
    fn the_model_stretches_cpu_only() {
        // One thread, CPU-bound: 10 ms at a seventh of a vCPU takes 70 ms.
        assert!((modeled_duration_ms(10.0, 10.0, 1.0 / 7.0) - 70.0).abs() < 1e-9);
        // Waiting on calls is not stretched: 1 ms of CPU in 20 ms.
        assert!((modeled_duration_ms(20.0, 1.0, 0.5) - 21.0).abs() < 1e-9);
        // Two threads' 20 ms of CPU in 10 ms: 20 ms at one vCPU, 10 at two.
        assert!((modeled_duration_ms(10.0, 20.0, 1.0) - 20.0).abs() < 1e-9);
        assert!((modeled_duration_ms(10.0, 20.0, 2.0) - 10.0).abs() < 1e-9);
        // More share than used: as measured; off: as measured.
        assert_eq!(modeled_duration_ms(10.0, 5.0, 3.0), 10.0);
        assert_eq!(modeled_duration_ms(10.0, 5.0, 0.0), 10.0);
    }

    #[test]
    fn quotas_keep_the_kernel_minimum() {
        assert_eq!(quota_us(1.0), PERIOD_US);
        assert_eq!(quota_us(128.0 / 1769.0), 1447);
        assert_eq!(quota_us(0.01), 1000);
    }

    #[test]
    fn throttled_time_is_read_from_either_version() {
        let v1 = "nr_periods 10\nnr_throttled 4\nthrottled_time 2500000\n";
        assert_eq!(throttled_ms_of(v1), Some(2.5));
        let v2 = "usage_usec 9\nnr_throttled 1\nthrottled_usec 1500\n";
        assert_eq!(throttled_ms_of(v2), Some(1.5));
        assert_eq!(throttled_ms_of("usage_usec 9\n"), None);
    }

    #[test]
    fn a_held_cpu_stat_is_read_afresh_each_time() {
        // GIVEN a group's cpu.stat, held open
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cpu.stat");
        std::fs::write(
            &path,
            "nr_periods 10\nnr_throttled 4\nthrottled_time 2500000\n",
        )
        .unwrap();
        let mut reader = ThrottleReader::open(&path).unwrap();
        assert_eq!(reader.read_ms(), Some(2.5));
        // WHEN the kernel's figures grow
        std::fs::write(
            &path,
            "nr_periods 12\nnr_throttled 6\nthrottled_time 4000000\n",
        )
        .unwrap();
        // THEN the held file reads the new ones
        assert_eq!(reader.read_ms(), Some(4.0));
        assert!(ThrottleReader::open(&dir.path().join("missing")).is_none());
    }

    #[test]
    fn groups_go_under_this_process_s_own_cgroup() {
        let hybrid = "4:memory:/x\n1:cpu:/jobs/a\n0::/jobs/a\n";
        let found = candidates(hybrid);
        if Path::new("/sys/fs/cgroup/cpu/cpu.cfs_quota_us").exists() {
            assert_eq!(
                found[0],
                (Version::V1, PathBuf::from("/sys/fs/cgroup/cpu/jobs/a"))
            );
        }
        assert!(
            found.iter().all(|(_, p)| p.ends_with("jobs/a")),
            "{found:?}"
        );
    }

    #[test]
    fn settings_parse_and_an_unknown_one_is_named() {
        assert_eq!("aws".parse(), Ok(CpuShare::Aws));
        assert_eq!("model".parse(), Ok(CpuShare::Model));
        assert_eq!("off".parse(), Ok(CpuShare::Off));
        let error = "on".parse::<CpuShare>().unwrap_err();
        assert!(error.contains("\"on\""), "{error}");
    }

    /// This thread's CPU time, in ms (the kernel's, not the clock under test).
    fn thread_cpu_ms() -> f64 {
        let mut time = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `time` is a valid timespec to write into.
        let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut time) };
        assert_eq!(status, 0);
        time.tv_sec as f64 * 1000.0 + time.tv_nsec as f64 / 1e6
    }

    #[test]
    fn this_process_s_cpu_clock_counts_its_work() {
        let clock = ProcessCpuClock::of(std::process::id()).expect("own clock");
        let before = clock.read_ms().unwrap();
        let thread_before = thread_cpu_ms();
        // Burn 20 ms of this thread's CPU, however long a loaded machine
        // takes to give it (a wall-clock spin failed under load).
        let mut x = 0u64;
        while thread_cpu_ms() - thread_before < 20.0 {
            for _ in 0..10_000 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
            }
        }
        std::hint::black_box(x);
        let used = clock.read_ms().unwrap() - before;
        // The process clock counts at least this thread's 20 ms.
        assert!(used >= 19.9, "{used} ms");
    }
}
