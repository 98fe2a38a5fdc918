//! One execution environment: a function process and the Runtime API it polls.
//! On demand it runs one invocation at a time and is thrown away after a
//! timeout or crash; on Lambda Managed Instances `multi` drives it.

use std::collections::BTreeMap;
use std::process::{ExitStatus, Stdio};
use std::time::{Duration, Instant};

use bytes::Bytes;
use tokio::process::{Child, Command};
use tokio::sync::watch;

use crate::config::{FunctionConfig, LambdaConfig};
use crate::contention::{ContentionProbe, WindowWaits};
use crate::cpu_share::{CpuController, EnvironmentShare, ProcessCpuClock};
use crate::faults::Kill;
use crate::logs::FunctionLog;
use crate::names::LATEST;
use crate::runtime_api::{Invocation, RuntimeApi, RuntimeEvent};
use localcloud_core::procstat;

/// Why an environment did not become ready.
#[derive(Debug)]
pub enum InitFailure {
    /// The binary could not be started at all.
    Spawn(std::io::Error),
    Exited(ExitStatus),
    /// The runtime posted to `/runtime/init/error`; the posted error document.
    Reported(Bytes),
    TimedOut,
    ShuttingDown,
}

/// How one invocation ended.
#[derive(Debug)]
pub enum Completion {
    Response(Bytes),
    /// The error document posted to `/invocation/{id}/error`.
    Error(Bytes),
    TimedOut,
    Exited(ExitStatus),
    /// The process's peak memory passed the function's memory size.
    OutOfMemory,
    ShuttingDown,
}

/// See [`Environment::next_happening`].
pub enum Happening {
    Runtime(Option<RuntimeEvent>),
    Exited(std::io::Result<ExitStatus>),
}

/// What one invocation may use.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub timeout: Duration,
    pub memory_mb: u32,
}

/// The wait after a check that followed one of `period`.
fn following_period(period: Duration) -> Duration {
    (period * 2).min(MEMORY_CHECK_LONGEST)
}

/// The first check of a running invocation's memory against its limit.
const MEMORY_CHECK_FIRST: Duration = Duration::from_millis(20);
/// The longest wait between two checks.
const MEMORY_CHECK_LONGEST: Duration = Duration::from_millis(640);

/// When a running invocation's memory is compared with its limit: 20 ms
/// after it starts, then at doubling intervals up to 640 ms. Lambda's cgroup
/// acts at once; here the check at each invocation's end catches every
/// excess, and these catch one that would run on. Every 20 ms, reading
/// `/proc/<pid>/status` was 28 % of the local cloud's CPU in orders' 500 ms
/// invocations (docs/benchmarks.md, "A quiet emulator").
pub struct MemoryCheck {
    timer: std::pin::Pin<Box<tokio::time::Sleep>>,
    period: Duration,
}

impl MemoryCheck {
    pub fn start() -> Self {
        Self {
            timer: Box::pin(tokio::time::sleep(MEMORY_CHECK_FIRST)),
            period: MEMORY_CHECK_FIRST,
        }
    }

    /// Resolves when the next check is due and schedules the one after it;
    /// cancel-safe (nothing changes until the timer has fired).
    pub async fn due(&mut self) {
        (&mut self.timer).await;
        self.period = following_period(self.period);
        let next = tokio::time::Instant::now() + self.period;
        self.timer.as_mut().reset(next);
    }

    /// New work arrived: check within the first period again.
    pub fn hasten(&mut self) {
        if self.period > MEMORY_CHECK_FIRST {
            self.period = MEMORY_CHECK_FIRST;
            let next = tokio::time::Instant::now() + MEMORY_CHECK_FIRST;
            self.timer.as_mut().reset(next);
        }
    }
}

pub struct Environment {
    child: Child,
    pub pid: u32,
    runtime: RuntimeApi,
    pub last_used: Instant,
    /// The last peak-memory reading: peak RSS only grows, so it stands for a
    /// process that died before it could be read again.
    peak_memory_mb: Option<u64>,
    /// The process's `/proc/<pid>/status`, kept open: it is read once per invocation.
    memory: Option<procstat::PeakRssReader>,
    resident: Option<procstat::ResidentReader>,
    /// When the function last sampled this process's CPU time.
    pub last_cpu_sample: Option<Instant>,
    /// Its CPU share; its cgroup, if any, goes when the environment does.
    pub share: EnvironmentShare,
    cpu_clock: Option<ProcessCpuClock>,
    /// Its threads' waits and its group's throttled time at both ends of
    /// each invocation (opened at the end of init).
    probe: Option<ContentionProbe>,
    /// The last invocation's waits, until taken.
    window: Option<WindowWaits>,
}

impl Environment {
    /// Spawns the function's process and waits for its first poll (the end of
    /// init); returns the environment and its init duration: from the spawn
    /// to the first poll, as in `off` mode whatever the CPU share. The
    /// cgroup's directory and limits are written before the clock starts;
    /// the move into it (an RCU grace period, see [`cpu_share::attach`])
    /// runs beside the init on a blocking thread, and the share is set
    /// after the clock stops, before the first event.
    ///
    /// [`cpu_share::attach`]: crate::cpu_share::attach
    pub async fn start(
        function: &FunctionConfig,
        service: &LambdaConfig,
        cpu: &CpuController,
        log: &FunctionLog,
        shutdown: &mut watch::Receiver<bool>,
    ) -> Result<(Self, Duration), InitFailure> {
        let runtime = RuntimeApi::bind().await.map_err(InitFailure::Spawn)?;
        let share = cpu
            .environment(function.cpu_size())
            .map_err(|e| InitFailure::Spawn(cpu_group_error(e)))?;
        let started = Instant::now();
        let mut command = command(function, service, &runtime.address);
        let mut child =
            crate::scheduling::spawn_normal(|| command.spawn()).map_err(InitFailure::Spawn)?;
        if let Some(stdout) = child.stdout.take() {
            log.pipe(stdout);
        }
        if let Some(stderr) = child.stderr.take() {
            log.pipe(stderr);
        }
        let pid = child.id().unwrap_or_default();
        // Init runs at the vCPUs the environment sees (cpu_share's docs):
        // moving it into its group a moment after the spawn changes nothing.
        // Written from this task, the move held it for the grace period and
        // counted that in the init (11.5-16.4 ms against 3.7-5.8 ms `off`).
        let attaching = share.procs_file().map(|procs| {
            tokio::task::spawn_blocking(move || crate::cpu_share::attach(&procs, pid))
        });
        let mut env = Self {
            child,
            pid,
            runtime,
            last_used: Instant::now(),
            peak_memory_mb: None,
            memory: procstat::PeakRssReader::open(pid),
            resident: procstat::ResidentReader::open(pid),
            last_cpu_sample: None,
            share,
            cpu_clock: ProcessCpuClock::of(pid),
            probe: None,
            window: None,
        };
        let ready = env.await_ready(service.init_timeout, shutdown).await;
        let init = started.elapsed();
        // Whatever the init's end, the move is over before the environment
        // runs at its share or goes (a group is removed once empty).
        let attached = match attaching {
            Some(attaching) => attaching
                .await
                .unwrap_or_else(|e| Err(std::io::Error::other(e))),
            None => Ok(()),
        };
        let ready = ready.and_then(|()| {
            attached
                .and_then(|()| env.share.init_done())
                .map_err(|e| InitFailure::Spawn(cpu_group_error(e)))
        });
        match ready {
            Ok(()) => {
                env.probe = ContentionProbe::open(pid, env.share.throttle_source().as_deref());
                // A first reading, for a process that dies in its first invocation.
                env.read_peak_memory_mb();
                Ok((env, init))
            }
            Err(failure) => {
                env.kill().await;
                Err(failure)
            }
        }
    }

    async fn await_ready(
        &mut self,
        limit: Duration,
        shutdown: &mut watch::Receiver<bool>,
    ) -> Result<(), InitFailure> {
        let deadline = tokio::time::sleep(limit);
        tokio::pin!(deadline);
        loop {
            tokio::select! {
                biased;
                event = self.runtime.events.recv() => match event {
                    Some(RuntimeEvent::Next) => return Ok(()),
                    Some(RuntimeEvent::InitError { body }) => return Err(InitFailure::Reported(body)),
                    Some(_) => continue,
                    None => return Err(InitFailure::ShuttingDown),
                },
                status = self.child.wait() => {
                    return Err(match status {
                        Ok(status) => InitFailure::Exited(status),
                        Err(err) => InitFailure::Spawn(err),
                    });
                }
                _ = &mut deadline => return Err(InitFailure::TimedOut),
                _ = shutdown.wait_for(|stop| *stop) => return Err(InitFailure::ShuttingDown),
            }
        }
    }

    /// Hands `invocation` to the runtime and waits for its answer, its exit or
    /// the timeout, whichever comes first.
    pub async fn invoke(
        &mut self,
        invocation: Invocation,
        limits: Limits,
        shutdown: &mut watch::Receiver<bool>,
        kill: &mut Kill,
    ) -> Completion {
        let request_id = invocation.request_id.clone();
        let deadline = tokio::time::sleep(limits.timeout);
        tokio::pin!(deadline);
        // Fast invocations are checked once, by the caller, at their end.
        let mut memory_check = MemoryCheck::start();
        self.window = None;
        if let Some(probe) = &mut self.probe {
            probe.begin();
        }
        if !self.runtime.dispatch(invocation) {
            return Completion::ShuttingDown;
        }
        let kill_at = tokio::time::sleep_until(kill.at.unwrap_or_else(tokio::time::Instant::now));
        tokio::pin!(kill_at);
        let (mut kill_at_armed, mut kill_now_armed) = (kill.at.is_some(), true);
        loop {
            tokio::select! {
                // A response posted just before the process exits still counts.
                biased;
                event = self.runtime.events.recv() => match event {
                    Some(RuntimeEvent::Response { request_id: id, body }) if id == request_id => {
                        self.close_window();
                        return Completion::Response(body);
                    }
                    Some(RuntimeEvent::Error { request_id: id, body }) if id == request_id => {
                        self.close_window();
                        return Completion::Error(body);
                    }
                    Some(_) => continue,
                    None => return Completion::ShuttingDown,
                },
                status = self.child.wait() => {
                    return match status {
                        Ok(status) => Completion::Exited(status),
                        Err(_) => Completion::ShuttingDown,
                    };
                }
                _ = &mut deadline => return Completion::TimedOut,
                _ = shutdown.wait_for(|stop| *stop) => return Completion::ShuttingDown,
                _ = &mut kill_at, if kill_at_armed => {
                    kill_at_armed = false;
                    kill.fired |= self.child.start_kill().is_ok();
                }
                told = &mut kill.now, if kill_now_armed => {
                    kill_now_armed = false;
                    if told.is_ok() {
                        kill.fired |= self.child.start_kill().is_ok();
                    }
                }
                _ = memory_check.due() => {
                    if self.read_resident_memory_mb().is_some_and(|mb| mb > u64::from(limits.memory_mb)) {
                        return Completion::OutOfMemory;
                    }
                }
            }
        }
    }

    /// The end of an answered invocation's window: what its threads and
    /// the local cloud's waited (see the `contention` module). Invocations
    /// that did not answer have none.
    fn close_window(&mut self) {
        self.window = self.probe.as_mut().and_then(ContentionProbe::end);
    }

    /// The last invocation's waits, once; `None` if it did not answer or
    /// its threads could not be read.
    pub fn take_window(&mut self) -> Option<WindowWaits> {
        self.window.take()
    }

    /// The process's CPU by thread, through the files the contention probe
    /// holds, with its group's throttled time (`None`: read it from the
    /// group's `cpu.stat`); by path where there is no probe.
    pub fn read_cpu_held(&mut self) -> Option<(procstat::CpuReading, Option<f64>)> {
        match &mut self.probe {
            Some(probe) => probe.read_cpu(),
            None => self.read_cpu().map(|reading| (reading, None)),
        }
    }

    /// Queues an invocation for the runtime's workers; false if the API is closed.
    pub fn dispatch(&self, invocation: Invocation) -> bool {
        self.runtime.dispatch(invocation)
    }

    /// What happens next in the environment: the runtime reports (`None`
    /// once its API is gone) or the process exits.
    pub async fn next_happening(&mut self) -> Happening {
        tokio::select! {
            biased;
            event = self.runtime.events.recv() => Happening::Runtime(event),
            status = self.child.wait() => Happening::Exited(status),
        }
    }

    /// True once the process has exited (e.g. crashed while idle).
    pub fn has_exited(&mut self) -> bool {
        !matches!(self.child.try_wait(), Ok(None))
    }

    /// The process's CPU time, whole and by named thread.
    pub fn read_cpu(&self) -> Option<procstat::CpuReading> {
        procstat::read_cpu(self.pid)
    }

    /// The process's CPU time so far from its CPU clock (nanosecond
    /// resolution, all threads), for one invocation's CPU.
    pub fn cpu_clock_ms(&self) -> Option<f64> {
        self.cpu_clock.as_ref().and_then(ProcessCpuClock::read_ms)
    }

    /// Peak memory of the process so far, read from `/proc`; the last reading
    /// when the process is gone.
    /// The process's resident memory now, for the checks while it runs
    /// (the peak is read at each invocation's end); it raises the last
    /// peak, so a process that dies mid-invocation leaves at least it.
    pub fn read_resident_memory_mb(&mut self) -> Option<u64> {
        let mb = self.resident.as_mut()?.read_kb()?.div_ceil(1024);
        self.peak_memory_mb = Some(self.peak_memory_mb.map_or(mb, |last| last.max(mb)));
        Some(mb)
    }

    pub fn read_peak_memory_mb(&mut self) -> Option<u64> {
        let reading = self.memory.as_mut().and_then(|status| status.read_kb());
        if let Some(mb) = reading.map(|kb| kb.div_ceil(1024)) {
            self.peak_memory_mb = Some(self.peak_memory_mb.map_or(mb, |last| last.max(mb)));
        }
        self.peak_memory_mb
    }

    /// Stops the process and its Runtime API and reaps the process.
    pub async fn kill(mut self) {
        self.runtime.close();
        let _ = self.child.start_kill();
        let _ = tokio::time::timeout(Duration::from_secs(5), self.child.wait()).await;
    }
}

/// A cgroup the CPU share needs but could not get: the environment cannot
/// run at its share, so it does not run.
fn cpu_group_error(e: std::io::Error) -> std::io::Error {
    std::io::Error::new(
        e.kind(),
        format!("cannot give the environment its CPU share (cgroup): {e}"),
    )
}

fn command(function: &FunctionConfig, service: &LambdaConfig, runtime_api: &str) -> Command {
    // The process runs in the binary's directory (LAMBDA_TASK_ROOT), so a
    // relative path is resolved against ours first.
    let binary = std::fs::canonicalize(&function.binary)
        .or_else(|_| std::path::absolute(&function.binary))
        .unwrap_or_else(|_| function.binary.clone());
    let mut command = Command::new(&binary);
    let task_root = binary
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map(|p| p.to_path_buf())
        .unwrap_or_else(|| ".".into());
    command
        .env_clear()
        .envs(variables(
            function,
            service,
            runtime_api,
            &task_root.to_string_lossy(),
        ))
        .current_dir(&task_root)
        .stdin(Stdio::null())
        .kill_on_drop(true);
    // Always piped: every line is metered as CloudWatch would ingest it.
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    command
}

/// The environment AWS gives a `provided.al2023` function: credentials and
/// endpoint first, the function's own variables over them, and the reserved
/// runtime variables last so a function cannot override them.
pub fn variables(
    function: &FunctionConfig,
    service: &LambdaConfig,
    runtime_api: &str,
    task_root: &str,
) -> BTreeMap<String, String> {
    let path = std::env::var("PATH").unwrap_or_else(|_| "/usr/local/bin:/usr/bin:/bin".into());
    let mut vars: BTreeMap<String, String> = [
        ("PATH", path),
        ("LANG", "en_US.UTF-8".into()),
        ("TZ", ":UTC".into()),
        ("AWS_ACCESS_KEY_ID", "test".into()),
        ("AWS_SECRET_ACCESS_KEY", "test".into()),
        ("AWS_SESSION_TOKEN", "test".into()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    if let Some(endpoint) = &service.endpoint_url {
        vars.insert("AWS_ENDPOINT_URL".into(), endpoint.clone());
    }
    if let Some(role) = service.credentials.get(&function.name) {
        vars.extend(role.clone());
    }
    vars.extend(function.environment.clone());
    let reserved = [
        ("AWS_REGION", service.region.clone()),
        ("AWS_DEFAULT_REGION", service.region.clone()),
        ("AWS_LAMBDA_FUNCTION_NAME", function.name.clone()),
        (
            "AWS_LAMBDA_FUNCTION_MEMORY_SIZE",
            function.memory_mb.to_string(),
        ),
        ("AWS_LAMBDA_FUNCTION_VERSION", LATEST.to_string()),
        ("AWS_LAMBDA_INITIALIZATION_TYPE", "on-demand".to_string()),
        (
            "AWS_LAMBDA_LOG_GROUP_NAME",
            format!("/aws/lambda/{}", function.name),
        ),
        ("AWS_LAMBDA_LOG_STREAM_NAME", log_stream_name()),
        ("AWS_LAMBDA_RUNTIME_API", runtime_api.to_string()),
        ("_HANDLER", function.handler.clone()),
        ("LAMBDA_TASK_ROOT", task_root.to_string()),
        ("LAMBDA_RUNTIME_DIR", task_root.to_string()),
    ];
    vars.extend(reserved.into_iter().map(|(k, v)| (k.to_string(), v)));
    // How many workers poll `/next` on Lambda Managed Instances
    // (https://docs.aws.amazon.com/lambda/latest/dg/lambda-managed-instances-rust.html).
    if let Some(max) = function.max_concurrency() {
        vars.insert("AWS_LAMBDA_MAX_CONCURRENCY".into(), max.to_string());
    }
    vars
}

/// `2026/11/30/[$LATEST]<32 hex digits>`, one stream per environment.
fn log_stream_name() -> String {
    let id = localcloud_core::context::new_request_id().replace('-', "");
    format!("{}/[{LATEST}]{id}", chrono::Utc::now().format("%Y/%m/%d"))
}

/// An X-Ray trace header as Lambda passes it: `Root=1-<time>-<24 hex>;...`.
pub fn trace_id() -> String {
    let random = localcloud_core::context::new_request_id().replace('-', "");
    let parent = localcloud_core::context::new_request_id().replace('-', "");
    format!(
        "Root=1-{:08x}-{};Parent={};Sampled=0",
        chrono::Utc::now().timestamp(),
        &random[..24],
        &parent[..16]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value<'a>(vars: &'a BTreeMap<String, String>, key: &str) -> Option<&'a str> {
        vars.get(key).map(String::as_str)
    }

    #[test]
    fn memory_checks_thin_out_as_an_invocation_runs_on() {
        // GIVEN the checks' schedule from an invocation's start
        let mut at = MEMORY_CHECK_FIRST;
        let mut period = MEMORY_CHECK_FIRST;
        let mut checks = Vec::new();
        while at <= Duration::from_secs(3) {
            checks.push(at.as_millis());
            period = following_period(period);
            at += period;
        }
        // THEN they double from 20 ms and then hold at 640 ms: four in a
        // 500 ms invocation (25 at a fixed 20 ms)
        assert_eq!(checks, [20, 60, 140, 300, 620, 1260, 1900, 2540]);
        assert_eq!(checks.iter().filter(|&&ms| ms <= 500).count(), 4);
    }

    #[test]
    fn function_variables_cannot_override_runtime_ones() {
        let mut function = FunctionConfig::new("orders", "/opt/fns/orders");
        function.environment.insert("TABLE".into(), "Orders".into());
        function
            .environment
            .insert("AWS_LAMBDA_RUNTIME_API".into(), "evil:1".into());
        function
            .environment
            .insert("AWS_ACCESS_KEY_ID".into(), "mine".into());
        let service = LambdaConfig {
            endpoint_url: Some("http://127.0.0.1:4566".into()),
            ..LambdaConfig::default()
        };
        let vars = variables(&function, &service, "127.0.0.1:9001", "/opt/fns");
        assert_eq!(value(&vars, "TABLE"), Some("Orders"));
        assert_eq!(
            value(&vars, "AWS_LAMBDA_RUNTIME_API"),
            Some("127.0.0.1:9001")
        );
        assert_eq!(value(&vars, "AWS_ACCESS_KEY_ID"), Some("mine"));
        assert_eq!(
            value(&vars, "AWS_ENDPOINT_URL"),
            Some("http://127.0.0.1:4566")
        );
        assert_eq!(
            value(&vars, "AWS_LAMBDA_LOG_GROUP_NAME"),
            Some("/aws/lambda/orders")
        );
        assert_eq!(value(&vars, "AWS_LAMBDA_FUNCTION_VERSION"), Some("$LATEST"));
        assert_eq!(value(&vars, "AWS_LAMBDA_MAX_CONCURRENCY"), None);
    }

    #[test]
    fn managed_functions_are_told_their_concurrency() {
        let mut function = FunctionConfig::new("orders", "/opt/fns/orders");
        function.memory_mb = 4096;
        function.managed = Some(crate::config::ManagedInstances {
            provider: "fleet".into(),
            memory_gib_per_vcpu: 2,
            max_concurrency: Some(32),
            scaling: Default::default(),
        });
        function
            .environment
            .insert("AWS_LAMBDA_MAX_CONCURRENCY".into(), "1".into());
        let vars = variables(&function, &LambdaConfig::default(), "127.0.0.1:9001", "/");
        assert_eq!(value(&vars, "AWS_LAMBDA_MAX_CONCURRENCY"), Some("32"));
    }

    #[test]
    fn trace_ids_have_the_xray_shape() {
        let id = trace_id();
        assert!(id.starts_with("Root=1-"), "{id}");
        let root = id.split(';').next().unwrap();
        assert_eq!(root.len(), "Root=1-".len() + 8 + 1 + 24);
    }
}
