//! One attempt of an invocation of a function on Lambda Managed Instances:
//! a free slot in one of its multi-concurrent environments (see `multi`),
//! the event, the answer, the record.
//!
//! Each function starts its minimum environments with the service (Lambda
//! starts three before the function is active). Where every environment is
//! full, another starts at once, standing in for Lambda's scaler, which
//! adds environments from CPU use and concurrency saturation rather than per
//! request, as long as the fleet allows it (see `fleet`: at most double
//! within five minutes, `MaxVCpuCount`); otherwise the invocation is
//! throttled ("Scaling Lambda Managed Instances",
//! https://docs.aws.amazon.com/lambda/latest/dg/lambda-managed-instances-scaling.html).
//! Invocations that arrive while one starts wait for its slots.

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
        let (env, env_slot, init) = match function.reserve_managed() {
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
        if let Some((env, slot)) = function.reserve_managed() {
            return Ok((env, slot, None));
        }
        let (env, init) = self.start_managed(function).await?;
        let slot = env
            .try_reserve()
            .ok_or(NoEnvironment::Init(InitFailure::ShuttingDown))?;
        Ok((env, slot, Some(init)))
    }

    /// A new environment of `function`, if its fleet has room for it.
    async fn start_managed(
        &self,
        function: &Arc<Function>,
    ) -> Result<(Arc<MultiEnvironment>, Duration), NoEnvironment> {
        let fleet = self.fleet(function).cloned();
        if let (Some(fleet), Some(managed)) = (&fleet, &function.config.managed) {
            let size = Footprint::of(managed, function.config.memory_mb);
            fleet
                .add(&function.config.name, size, Instant::now())
                .map_err(NoEnvironment::Refused)?;
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
            match self.start_managed(&function).await {
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
