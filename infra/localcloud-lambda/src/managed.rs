//! One attempt of an invocation of a function on Lambda Managed Instances:
//! a free slot in one of its multi-concurrent environments (see `multi`),
//! the event, the answer, the record; and the scaler that adds and retires
//! those environments in the background.
//!
//! "Lambda Managed Instances does not scale when invocations arrive and
//! does not support cold starts" ("Scaling Lambda Managed Instances",
//! https://docs.aws.amazon.com/lambda/latest/dg/lambda-managed-instances-scaling.html):
//! an invocation that finds every slot busy is throttled at once (429:
//! "Lambda Managed Instances might reject new invokes to protect invokes
//! that are already in flight", LMI troubleshooting,
//! https://docs.aws.amazon.com/lambda/latest/dg/lambda-managed-instances-troubleshooting.html)
//! and wakes the scaler, which decides (see `scaler`) from saturation and
//! CPU whether to start environments (as far as the fleet allows, see
//! `fleet`) or to retire an idle one. No invocation waits for an init, but
//! those that arrive before the function's minimum environments have
//! started: until then the function is not active, and on AWS its
//! deployment would not have finished.

use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use chrono::Utc;
use localcloud_core::{InvokeError, InvokeResponse};
use tokio::sync::OwnedSemaphorePermit;

use crate::attempt::{settle, shutting_down, Attempt};
use crate::concurrency::Slot;
use crate::environment::{Environment, InitFailure};
use crate::failures;
use crate::fleet::Footprint;
use crate::function::Function;
use crate::metering::Outcome;
use crate::multi::{Hooks, MultiEnvironment};
use crate::scaler::{self, Signals, Step, SCALE_PERIOD};
use crate::state::Inner;

/// The throttle reason of an invocation that found no free slot. AWS's
/// LMI pages name the causes of these throttles only as metrics
/// (`ConcurrencyThrottles`, `CPUThrottles`, `MemoryThrottles`,
/// `DiskThrottles`), not the Invoke API's `Reason`; this is the nearest of
/// the API's `ThrottleReason` values, for a concurrency throttle.
pub const SCALING_THROTTLE_REASON: &str = "ConcurrentInvocationLimitExceeded";

/// Why no environment could be started: the fleet had no room for it
/// (the doubling bound, `MaxVCpuCount`), or its init failed.
enum NoEnvironment {
    Refused,
    Init(InitFailure),
}

impl Inner {
    pub(crate) async fn run_managed(
        &self,
        function: &Arc<Function>,
        attempt: &mut Attempt<'_>,
        payload: Bytes,
        slot: Slot,
    ) -> Result<InvokeResponse, InvokeError> {
        let Some((env, env_slot)) = self.slot_in_fleet(function).await else {
            drop(slot);
            return Err(self.throttle_managed(function, attempt));
        };
        attempt.start = Utc::now();
        let request_id = attempt.request_id.clone();
        let timeout = function.config.timeout;
        let invocation = attempt.begin(payload);
        let dispatched = Instant::now();
        let completion = env.invoke(invocation, timeout, env_slot).await;
        let duration_ms = dispatched.elapsed().as_secs_f64() * 1000.0;
        drop(slot);
        // Only the process's peak is known: invocations share it.
        let memory = env.peak_memory_mb();
        let Some((outcome, payload, _)) = settle(function, &request_id, completion, timeout) else {
            return Err(shutting_down());
        };
        let error_type = (outcome != Outcome::Success)
            .then(|| failures::error_type(&payload))
            .flatten();
        // No init: the environment was running before the invocation came.
        let record = attempt.record(outcome, duration_ms, None, memory, error_type);
        function.log.line(&format!(
            "END RequestId: {request_id}\n{}",
            record.report_line()
        ));
        self.meter.record(record);
        Ok(InvokeResponse {
            request_id,
            payload,
            function_error: (outcome != Outcome::Success).then(|| "Unhandled".to_string()),
            status: 200,
        })
    }

    /// A free slot in a running environment; before the function is active
    /// (its minimum environments started), one once it is.
    async fn slot_in_fleet(
        &self,
        function: &Function,
    ) -> Option<(Arc<MultiEnvironment>, OwnedSemaphorePermit)> {
        let target = self.cpu_target(function);
        if let Some(reserved) = function.reserve_managed(target) {
            return Some(reserved);
        }
        let mut active = function.scaler.active.subscribe();
        if *active.borrow() {
            return None;
        }
        let mut shutdown = self.shutdown_signal();
        tokio::select! {
            _ = active.wait_for(|active| *active) => function.reserve_managed(target),
            _ = shutdown.wait_for(|stop| *stop) => None,
        }
    }

    /// Records and answers an invocation that found no free slot, and tells
    /// the scaler.
    fn throttle_managed(&self, function: &Function, attempt: &mut Attempt<'_>) -> InvokeError {
        self.meter
            .record(attempt.record(Outcome::Throttled, 0.0, None, None, None));
        function.scaler.throttled();
        if let Some(fleet) = self.fleet(function) {
            fleet.throttled();
        }
        InvokeError::Throttled {
            reason: SCALING_THROTTLE_REASON.to_string(),
        }
    }

    /// Lambda's scaler for a managed function, until the service stops:
    /// it starts the minimum environments (then the function is active),
    /// and looks again every [`SCALE_PERIOD`] (reading the environments'
    /// CPU) and whenever an invocation is throttled.
    pub(crate) async fn scale_managed(self: Arc<Self>, function: Arc<Function>) {
        let mut shutdown = self.shutdown_signal();
        let mut tick = tokio::time::interval(SCALE_PERIOD);
        // A look that took long (starting environments) is not made up for.
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let read_cpu = tokio::select! {
                _ = shutdown.wait_for(|stop| *stop) => return,
                _ = tick.tick() => true,
                _ = function.scaler.wake.notified() => false,
            };
            let scaled = self.scale_once(&function, read_cpu).await;
            // Invocations that waited for the minimum go on, whether or
            // not it could be started (a failure is in the function's log).
            function.scaler.activate();
            if scaled.is_break() {
                return;
            }
        }
    }

    /// One look of the scaler: signals, decision, action. `Break` when the
    /// service is stopping.
    async fn scale_once(&self, function: &Arc<Function>, read_cpu: bool) -> ControlFlow<()> {
        let Some(managed) = &function.config.managed else {
            return ControlFlow::Break(());
        };
        let now = Instant::now();
        let after = self.config.managed_scale_in_after;
        let (signals, idle) = {
            let envs = function.managed_environments();
            let vcpus = managed.vcpus(function.config.memory_mb);
            let cpu: Vec<f64> = if read_cpu {
                envs.iter()
                    .filter_map(|env| env.measure_cpu(vcpus, now))
                    .collect()
            } else {
                Vec::new()
            };
            let idle = envs
                .iter()
                .filter(|env| env.idle_for(now).is_some_and(|idle| idle >= after))
                .count();
            let signals = Signals {
                environments: envs.len() as u32,
                slots_per_environment: function.config.max_concurrency().unwrap_or(1),
                in_flight: envs.iter().map(|env| env.in_flight()).sum(),
                throttled: function.scaler.take_throttled(),
                cpu_busy: (!cpu.is_empty()).then(|| cpu.iter().sum::<f64>() / cpu.len() as f64),
                cpu_target: self.cpu_target(function),
            };
            (signals, idle as u32)
        };
        match scaler::step(&signals, &managed.scaling, idle) {
            Step::Add(n) => self.add_environments(function, n).await,
            Step::RetireOne => {
                // Dropping the last handle stops its process; the fleet
                // hears of it from the driver.
                drop(function.take_idle_managed(after, now));
                ControlFlow::Continue(())
            }
            Step::Hold => ControlFlow::Continue(()),
        }
    }

    /// Starts up to `n` environments of `function`, fewer when the fleet
    /// refuses one (the next look tries again) or one fails its init
    /// (written to the function's log).
    async fn add_environments(&self, function: &Arc<Function>, n: u32) -> ControlFlow<()> {
        for _ in 0..n {
            match self.start_managed(function).await {
                Ok(()) => {}
                Err(NoEnvironment::Init(InitFailure::ShuttingDown)) => {
                    return ControlFlow::Break(())
                }
                Err(NoEnvironment::Init(failure)) => {
                    let why = init_failure_text(&failure);
                    function
                        .log
                        .line(&format!("could not start an environment: {why}"));
                    break;
                }
                Err(NoEnvironment::Refused) => break,
            }
        }
        ControlFlow::Continue(())
    }

    /// A new environment of `function`, if its fleet has room for it.
    async fn start_managed(&self, function: &Arc<Function>) -> Result<(), NoEnvironment> {
        let fleet = self.fleet(function).cloned();
        if let (Some(fleet), Some(managed)) = (&fleet, &function.config.managed) {
            let size = Footprint::of(managed, function.config.memory_mb);
            let floor = managed.scaling.min;
            fleet
                .grow(&function.config.name, size, Instant::now(), floor)
                .map_err(|_| NoEnvironment::Refused)?;
        }
        let mut shutdown = self.shutdown_signal();
        let started = Environment::start(
            &function.config,
            &self.config,
            &self.cpu,
            &function.log,
            &mut shutdown,
        )
        .await;
        let env = match started {
            Ok((env, _init)) => env,
            Err(failure) => {
                if let Some(fleet) = &fleet {
                    fleet.remove(&function.config.name, Instant::now());
                }
                return Err(NoEnvironment::Init(failure));
            }
        };
        function.started(env.pid, env.share.throttle_source());
        let max = function.config.max_concurrency().unwrap_or(1);
        let env = MultiEnvironment::spawn(
            env,
            max,
            function.config.memory_mb,
            hooks(function, fleet),
            shutdown,
        );
        function.add_managed(env);
        Ok(())
    }

    /// The CPU utilisation `function`'s fleet scales to: its provider's
    /// target, else the configuration's.
    fn cpu_target(&self, function: &Function) -> f64 {
        self.fleet(function)
            .and_then(|fleet| fleet.cpu_target())
            .unwrap_or(self.config.managed_cpu_target)
    }
}

/// Why an environment did not start, for the function's log.
fn init_failure_text(failure: &InitFailure) -> String {
    match failure {
        InitFailure::Spawn(err) => err.to_string(),
        InitFailure::Exited(status) => format!("the runtime exited ({status})"),
        InitFailure::Reported(_) => "the runtime reported an init error".into(),
        InitFailure::TimedOut => "the init phase timed out".into(),
        InitFailure::ShuttingDown => "the service is stopping".into(),
    }
}

/// CPU readings of the environment go to its function; its end, to the
/// function and its fleet.
fn hooks(function: &Arc<Function>, fleet: Option<Arc<crate::fleet::Fleet>>) -> Hooks {
    let sampler = function.clone();
    let retirer = function.clone();
    Hooks {
        sample: Box::new(move |env| sampler.sample_cpu(env)),
        retire: Box::new(move |env| {
            retirer.retire(env);
            if let Some(fleet) = fleet {
                fleet.remove(&retirer.config.name, Instant::now());
            }
        }),
    }
}
