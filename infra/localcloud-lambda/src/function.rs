//! One deployed function: its configuration, its warm environments and the
//! CPU time its processes have used.

use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use tokio::sync::OwnedSemaphorePermit;

use crate::config::FunctionConfig;
use crate::cpu::{CpuAccount, CpuTotals};
use crate::environment::Environment;
use crate::faults::Faults;
use crate::logs::FunctionLog;
use crate::multi::MultiEnvironment;
use crate::versions::{CodeReader, Versions};
use localcloud_core::procstat;

const CPU_SAMPLE_PERIOD: Duration = Duration::from_millis(100);

pub struct Function {
    pub config: FunctionConfig,
    pub arn: String,
    pub log: FunctionLog,
    pub faults: Faults,
    /// Its published versions and aliases, which run in its environments.
    pub versions: Versions,
    /// Reads its binary for `CodeSha256` and version snapshots.
    pub code: CodeReader,
    /// Warm environments, most recently used last (reused first, as on AWS).
    idle: Mutex<Vec<Environment>>,
    /// Lambda Managed Instances: environments that serve many invocations
    /// at once, until the scaler retires them or the service stops.
    fleet: Mutex<Vec<Arc<MultiEnvironment>>>,
    /// What its invocations tell the scaler of its managed environments.
    pub scaler: crate::scaler::ScalerInbox,
    cpu: Mutex<CpuAccount>,
}

impl Function {
    pub fn new(
        config: FunctionConfig,
        arn: String,
        log: FunctionLog,
        versions: Versions,
        code: CodeReader,
    ) -> Self {
        Self {
            config,
            arn,
            log,
            faults: Faults::default(),
            versions,
            code,
            idle: Mutex::new(Vec::new()),
            fleet: Mutex::new(Vec::new()),
            scaler: crate::scaler::ScalerInbox::new(),
            cpu: Mutex::new(CpuAccount::default()),
        }
    }

    /// A warm environment whose process is still alive, if any; dead ones
    /// found on the way are returned for disposal.
    pub fn take_warm(&self) -> (Option<Environment>, Vec<Environment>) {
        let mut idle = self.idle.lock();
        let mut dead = Vec::new();
        while let Some(mut env) = idle.pop() {
            if env.has_exited() {
                dead.push(env);
            } else {
                return (Some(env), dead);
            }
        }
        (None, dead)
    }

    /// A live managed environment with a free slot, and the slot: first one
    /// whose CPU use is at most `cpu_target`, else any. "If Router attempts
    /// to send an invocation to an execution environment with high resource
    /// consumption, the Lambda Agent on that instance notifies it to retry on
    /// another" ("Scaling Lambda Managed Instances",
    /// https://docs.aws.amazon.com/lambda/latest/dg/lambda-managed-instances-scaling.html).
    pub fn reserve_managed(
        &self,
        cpu_target: f64,
    ) -> Option<(Arc<MultiEnvironment>, OwnedSemaphorePermit)> {
        let mut fleet = self.fleet.lock();
        fleet.retain(|env| env.is_alive());
        // Two passes rather than a sorted copy: this runs on every invocation.
        let calm = |env: &&Arc<MultiEnvironment>| env.cpu_busy() <= cpu_target;
        fleet
            .iter()
            .filter(calm)
            .chain(fleet.iter().filter(|env| !calm(env)))
            .find_map(|env| env.try_reserve().map(|slot| (env.clone(), slot)))
    }

    /// The live managed environments.
    pub fn managed_environments(&self) -> Vec<Arc<MultiEnvironment>> {
        let mut fleet = self.fleet.lock();
        fleet.retain(|env| env.is_alive());
        fleet.clone()
    }

    pub fn add_managed(&self, env: Arc<MultiEnvironment>) {
        self.fleet.lock().push(env);
    }

    /// Takes out of the fleet one environment idle for `after` as of `now`,
    /// the last started first; under the lock that reservations take, so
    /// none can be given a slot in it meanwhile. Its process stops once the
    /// handle is dropped.
    pub fn take_idle_managed(
        &self,
        after: Duration,
        now: Instant,
    ) -> Option<Arc<MultiEnvironment>> {
        let mut fleet = self.fleet.lock();
        let idle = fleet
            .iter()
            .rposition(|env| env.idle_for(now).is_some_and(|idle| idle >= after))?;
        Some(fleet.remove(idle))
    }

    /// Stops the managed environments (their drivers kill the processes).
    pub fn drop_fleet(&self) {
        self.fleet.lock().clear();
    }

    pub fn park(&self, mut env: Environment) {
        env.last_used = Instant::now();
        self.idle.lock().push(env);
    }

    /// Warm environments unused for `idle_timeout`, taken out of the pool.
    pub fn take_expired(&self, idle_timeout: Duration) -> Vec<Environment> {
        let mut idle = self.idle.lock();
        let (expired, kept) = idle
            .drain(..)
            .partition(|env| env.last_used.elapsed() >= idle_timeout);
        *idle = kept;
        expired
    }

    pub fn take_all_idle(&self) -> Vec<Environment> {
        std::mem::take(&mut *self.idle.lock())
    }

    /// A new environment's process; `throttles`, its cgroup's `cpu.stat`.
    pub fn started(&self, pid: u32, throttles: crate::cpu::ThrottleSource) {
        self.cpu.lock().started(pid, throttles);
    }

    /// Records the latest CPU reading of a live process (whole and by named
    /// thread), at most every [`CPU_SAMPLE_PERIOD`]: reading `/proc` after
    /// every invocation would cost more than a fast invocation. Live processes
    /// are read again when the totals are asked for and when they are retired,
    /// so only a process that dies on its own can lose up to one period of CPU
    /// time (and a thread that ends, what it used since the last reading).
    pub fn sample_cpu(&self, env: &mut Environment) {
        if env
            .last_cpu_sample
            .is_some_and(|at| at.elapsed() < CPU_SAMPLE_PERIOD)
        {
            return;
        }
        env.last_cpu_sample = Some(Instant::now());
        // Through the files the environment holds open: at a few requests
        // a second every invocation is sampled, and opening each thread's
        // files by path cost an open and a close apiece.
        if let Some((reading, throttled_ms)) = env.read_cpu_held() {
            self.cpu
                .lock()
                .record_throttled(env.pid, &reading, throttled_ms);
        }
    }

    /// Moves a process's last reading to the exited total; call before it is reaped.
    pub fn retire(&self, env: &Environment) {
        let latest = env.read_cpu();
        self.cpu.lock().retire(env.pid, latest.as_ref());
    }

    /// CPU milliseconds since start or the last reset, live processes included.
    pub fn cpu(&self) -> CpuTotals {
        self.cpu.lock().totals(procstat::read_cpu)
    }

    pub fn reset_cpu(&self) {
        let mut cpu = self.cpu.lock();
        let totals = cpu.totals(procstat::read_cpu);
        cpu.reset(&totals);
    }

    pub fn process_ids(&self) -> Vec<u32> {
        self.cpu.lock().process_ids()
    }
}
