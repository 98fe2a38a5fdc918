//! One attempt of one invocation: take a concurrency slot, find a warm
//! environment or start one, hand it the event, and meter what happened.

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use chrono::Utc;
use localcloud_core::{InvokeError, InvokeResponse};
use tokio::sync::watch;

use crate::attempt::{settle, shutting_down, Attempt};
use crate::contention::invocation_waits;
use crate::cpu_share::modeled_duration_ms;
use crate::environment::{self, Completion, Environment};
use crate::failures;
use crate::function::Function;
use crate::metering::Outcome;
use crate::state::Inner;
use crate::versions::Invoked;

impl Inner {
    /// One attempt of one invocation: a slot, an environment, the answer.
    pub async fn run(
        &self,
        function: &Arc<Function>,
        invoked: &Invoked,
        payload: Bytes,
        caller: &str,
        invocation_type: &str,
        request_id: String,
    ) -> Result<InvokeResponse, InvokeError> {
        let mut attempt = Attempt {
            function,
            invoked,
            request_id,
            caller,
            invocation_type,
            start: Utc::now(),
        };
        let slot = match self.concurrency.acquire(&function.config.name) {
            Ok(slot) => slot,
            Err(reason) => {
                self.meter
                    .record(attempt.record(Outcome::Throttled, 0.0, None, None, None));
                return Err(InvokeError::Throttled {
                    reason: reason.to_string(),
                });
            }
        };
        if function.config.managed.is_some() {
            return self
                .run_managed(function, &mut attempt, payload, slot)
                .await;
        }
        let mut shutdown = self.shutdown_signal();
        let (warm, dead) = function.take_warm();
        for env in dead {
            function.retire(&env);
            env.kill().await;
        }
        let (env, init) = match warm {
            Some(env) => (env, None),
            None => match Environment::start(
                &function.config,
                &self.config,
                &self.cpu,
                &function.log,
                &mut shutdown,
            )
            .await
            {
                Ok((env, init)) => {
                    function.started(env.pid, env.share.throttle_source());
                    (env, Some(init))
                }
                Err(failure) => return self.init_failed(&mut attempt, failure, slot),
            },
        };
        attempt.start = Utc::now();
        let result = self
            .run_in(&attempt, env, payload, init, &mut shutdown)
            .await;
        drop(slot);
        result
    }

    async fn run_in(
        &self,
        attempt: &Attempt<'_>,
        mut env: Environment,
        payload: Bytes,
        init: Option<Duration>,
        shutdown: &mut watch::Receiver<bool>,
    ) -> Result<InvokeResponse, InvokeError> {
        let function = attempt.function;
        let timeout = function.config.timeout;
        let request_id = &attempt.request_id;
        let invocation = attempt.begin(payload);
        let dispatched = Instant::now();
        let limits = environment::Limits {
            timeout,
            memory_mb: function.config.memory_mb,
        };
        let (busy, mut kill) = function.faults.arm(dispatched.into());
        let cpu_before = env.cpu_clock_ms();
        let mut completion = env.invoke(invocation, limits, shutdown, &mut kill).await;
        drop(busy);
        function.faults.settle(&kill, dispatched.elapsed());
        let wall_ms = dispatched.elapsed().as_secs_f64() * 1000.0;
        let cpu_ms = cpu_before
            .zip(env.cpu_clock_ms())
            .map(|(before, after)| (after - before).max(0.0));
        let stretch = model_stretch(&env, &mut completion, wall_ms, cpu_ms, timeout);
        if stretch > 0.0 {
            // The caller waits as long as the environment would have run.
            tokio::time::sleep(Duration::from_secs_f64(stretch / 1000.0)).await;
        }
        let duration_ms = wall_ms + stretch;
        let machine_waits = env
            .take_window()
            .map(|waits| invocation_waits(waits, wall_ms, cpu_ms));
        // A process that died mid-invocation leaves its last reading.
        let memory = env.read_peak_memory_mb();
        if memory.is_some_and(|mb| mb > u64::from(limits.memory_mb)) {
            completion = Completion::OutOfMemory;
        }
        function.sample_cpu(&mut env);
        let Some((outcome, payload, keep)) = settle(function, request_id, completion, timeout)
        else {
            function.retire(&env);
            env.kill().await;
            return Err(shutting_down());
        };
        if keep {
            function.park(env);
        } else {
            function.retire(&env);
            env.kill().await;
        }
        let init_ms = init.map(|d| d.as_secs_f64() * 1000.0);
        let error_type = (outcome != Outcome::Success)
            .then(|| failures::error_type(&payload))
            .flatten();
        let mut record = attempt.record(outcome, duration_ms, init_ms, memory, error_type);
        record.cpu_ms = cpu_ms;
        record.modeled_cpu_ms = stretch;
        record.contention_ms = machine_waits.map(|w| w.contention_ms);
        record.wake_up_ms = machine_waits.map(|w| w.wake_up_ms);
        // One write for both lines: this runs once per invocation.
        function.log.line(&format!(
            "END RequestId: {request_id}\n{}",
            record.report_line()
        ));
        self.meter.record(record);
        Ok(InvokeResponse {
            request_id: request_id.clone(),
            payload,
            function_error: (outcome != Outcome::Success).then(|| "Unhandled".to_string()),
            status: 200,
        })
    }
}

/// Milliseconds the CPU-share model adds to an invocation that ran
/// unthrottled (0 unless the environment is modeled): its CPU at the
/// environment's share. One that would have outlasted its timeout at that
/// share becomes a timeout, at the timeout.
fn model_stretch(
    env: &Environment,
    completion: &mut Completion,
    wall_ms: f64,
    cpu_ms: Option<f64>,
    timeout: Duration,
) -> f64 {
    let (true, Some(cpu_ms)) = (env.share.is_modeled(), cpu_ms) else {
        return 0.0;
    };
    if !matches!(completion, Completion::Response(_) | Completion::Error(_)) {
        return 0.0;
    }
    let modeled = modeled_duration_ms(wall_ms, cpu_ms, env.share.vcpus);
    let timeout_ms = timeout.as_secs_f64() * 1000.0;
    if modeled > timeout_ms {
        *completion = Completion::TimedOut;
        return (timeout_ms - wall_ms).max(0.0);
    }
    modeled - wall_ms
}
