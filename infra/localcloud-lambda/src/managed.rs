//! One attempt of an invocation of a function on Lambda Managed Instances:
//! a free slot in one of its multi-concurrent environments (see `multi`),
//! the event, the answer, the record.
//!
//! Each function starts its minimum environments with the service (Lambda
//! starts three before the function is active). Lambda "scales
//! asynchronously based on CPU resource utilization and multi-concurrency
//! saturation" ("Scaling Lambda Managed Instances",
//! https://docs.aws.amazon.com/lambda/latest/dg/lambda-managed-instances-scaling.html):
//! - CPU: every [`SCALE_PERIOD`] the scaler reads each environment's CPU,
//!   and adds one environment when their mean use of their vCPUs is above
//!   the target (the capacity provider's `AverageCPUUtilization`, else
//!   `LambdaConfig::managed_cpu_target`); invocations go first to
//!   environments under it;
//! - saturation: where every environment is full, another starts at once;
//!
//! both as long as the fleet allows it (see `fleet`: at most double within
//! five minutes, `MaxVCpuCount`); otherwise a saturated invocation is
//! throttled. Invocations that arrive while one starts wait for its slots.
//! Environments are not scaled in: a run is billed its peak fleet from then
//! on (AWS scales in "as traffic decreases", at a pace it does not give).

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use chrono::Utc;
use localcloud_core::{InvokeError, InvokeResponse};
use tokio::sync::OwnedSemaphorePermit;

use crate::attempt::{settle, shutting_down, Attempt};
use crate::concurrency::Slot;
use crate::environment::{Environment, InitFailure};
use crate::failures;
use crate::fleet::{Footprint, ScaleRefusal, MIN_ENVIRONMENTS};
use crate::function::Function;
use crate::metering::Outcome;
use crate::multi::{Hooks, MultiEnvironment};
use crate::state::Inner;

/// An environment, a slot in it, and its init duration if it just started.
type Reserved = (
    Arc<MultiEnvironment>,
    OwnedSemaphorePermit,
    Option<Duration>,
);

/// The throttle reason of an invocation the fleet has no room for. AWS
/// documents these throttles (HTTP 429) but not their reason; this is the
/// nearest of the Invoke API's `ThrottleReason` values.
pub const SCALING_THROTTLE_REASON: &str = "ConcurrentInvocationLimitExceeded";

/// Why no environment could be had.
pub(crate) enum NoEnvironment {
    Refused(ScaleRefusal),
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
        let (env, env_slot, init) = match function.reserve_managed(self.cpu_target(function)) {
            Some((env, env_slot)) => (env, env_slot, None),
            None => match self.reserve_or_start(function).await {
                Ok(reserved) => reserved,
                Err(NoEnvironment::Init(failure)) => {
                    return self.init_failed(attempt, failure, slot)
                }
                Err(NoEnvironment::Refused(_)) => {
                    drop(slot);
                    let record = attempt.record(Outcome::Throttled, 0.0, None, None, None);
                    self.meter.record(record);
                    return Err(InvokeError::Throttled {
                        reason: SCALING_THROTTLE_REASON.to_string(),
                    });
                }
            },
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
        let init_ms = init.map(|d| d.as_secs_f64() * 1000.0);
        let error_type = (outcome != Outcome::Success)
            .then(|| failures::error_type(&payload))
            .flatten();
        let record = attempt.record(outcome, duration_ms, init_ms, memory, error_type);
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

    /// A slot in an environment started meanwhile by another invocation, or
    /// in a new one (with its init duration).
    async fn reserve_or_start(&self, function: &Arc<Function>) -> Result<Reserved, NoEnvironment> {
        let _starting = function.fleet_start.lock().await;
        if let Some((env, slot)) = function.reserve_managed(self.cpu_target(function)) {
            return Ok((env, slot, None));
        }
        let (env, init) = self.start_managed(function, Demand::Invocation).await?;
        let slot = env
            .try_reserve()
            .ok_or(NoEnvironment::Init(InitFailure::ShuttingDown))?;
        Ok((env, slot, Some(init)))
    }

    /// A new environment of `function`, if its fleet has room for it.
    async fn start_managed(
        &self,
        function: &Arc<Function>,
        demand: Demand,
    ) -> Result<(Arc<MultiEnvironment>, Duration), NoEnvironment> {
        let fleet = self.fleet(function).cloned();
        if let (Some(fleet), Some(managed)) = (&fleet, &function.config.managed) {
            let size = Footprint::of(managed, function.config.memory_mb);
            let (name, now) = (&function.config.name, Instant::now());
            let room = match demand {
                Demand::Invocation => fleet.add(name, size, now),
                Demand::Scaler => fleet.grow(name, size, now),
            };
            room.map_err(NoEnvironment::Refused)?;
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
        let (env, init) = match started {
            Ok(started) => started,
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
        function.add_managed(env.clone());
        Ok((env, init))
    }

    /// The environments Lambda starts before a function is active; a
    /// failure is written to the function's log (invocations then start
    /// environments as they need them).
    pub(crate) async fn start_minimum(self: Arc<Self>, function: Arc<Function>) {
        let _starting = function.fleet_start.lock().await;
        for _ in 0..MIN_ENVIRONMENTS {
            match self.start_managed(&function, Demand::Invocation).await {
                Ok(_) => {}
                Err(NoEnvironment::Init(InitFailure::ShuttingDown)) => return,
                Err(NoEnvironment::Init(failure)) => {
                    let why = match failure {
                        InitFailure::Spawn(err) => err.to_string(),
                        InitFailure::Exited(status) => format!("the runtime exited ({status})"),
                        InitFailure::Reported(_) => "the runtime reported an init error".into(),
                        InitFailure::TimedOut => "the init phase timed out".into(),
                        InitFailure::ShuttingDown => "the service is stopping".into(),
                    };
                    let m = format!("could not start the minimum environments: {why}");
                    function.log.line(&m);
                    return;
                }
                Err(NoEnvironment::Refused(refusal)) => {
                    let m = format!("could not start the minimum environments: {refusal:?}");
                    function.log.line(&m);
                    return;
                }
            }
        }
    }

    /// The CPU utilisation `function`'s fleet scales to: its provider's
    /// target, else the configuration's.
    fn cpu_target(&self, function: &Function) -> f64 {
        self.fleet(function)
            .and_then(|fleet| fleet.cpu_target())
            .unwrap_or(self.config.managed_cpu_target)
    }

    /// Lambda's scaler for `function`: every [`SCALE_PERIOD`], one more
    /// environment when its environments' mean CPU use is above the target
    /// (and the fleet has room), until the service stops.
    pub(crate) async fn scale_on_cpu(self: Arc<Self>, function: Arc<Function>) {
        let Some(managed) = function.config.managed.clone() else {
            return;
        };
        let vcpus = managed.vcpus(function.config.memory_mb);
        let mut shutdown = self.shutdown_signal();
        let mut tick = tokio::time::interval(SCALE_PERIOD);
        loop {
            tokio::select! {
                _ = shutdown.wait_for(|stop| *stop) => return,
                _ = tick.tick() => {}
            }
            let now = Instant::now();
            let busy: Vec<f64> = function
                .managed_environments()
                .iter()
                .filter_map(|env| env.measure_cpu(vcpus, now))
                .collect();
            if !over_target(&busy, self.cpu_target(&function)) {
                continue;
            }
            let _starting = function.fleet_start.lock().await;
            if let Err(NoEnvironment::Init(InitFailure::ShuttingDown)) =
                self.start_managed(&function, Demand::Scaler).await
            {
                return;
            }
            // A refusal (the doubling bound, MaxVCpuCount) or a failed init:
            // the next period tries again.
        }
    }
}

/// How often the scaler reads the environments' CPU: AWS's scaler acts on
/// resource signals "asynchronously", at a pace it does not give.
pub const SCALE_PERIOD: Duration = Duration::from_secs(2);

/// Who asks for an environment: an invocation that found every slot busy
/// (a refusal throttles it and is counted) or the scaler (not counted).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Demand {
    Invocation,
    Scaler,
}

/// Whether the environments' mean CPU use (each a share of its vCPUs) is
/// above `target`.
fn over_target(busy: &[f64], target: f64) -> bool {
    !busy.is_empty() && busy.iter().sum::<f64>() / busy.len() as f64 > target
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

#[cfg(test)]
mod tests {
    use super::over_target;

    #[test]
    fn the_scaler_acts_on_the_mean_cpu_use_above_the_target() {
        assert!(!over_target(&[], 0.5), "no reading yet");
        assert!(!over_target(&[0.9, 0.1, 0.2], 0.5), "one busy, mean 0.4");
        assert!(!over_target(&[0.5, 0.5], 0.5), "at the target");
        assert!(over_target(&[0.9, 0.3, 0.4], 0.5), "mean 0.53");
    }
}
