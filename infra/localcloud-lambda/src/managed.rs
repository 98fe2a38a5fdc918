//! One attempt of an invocation of a function on Lambda Managed Instances:
//! a free slot in one of its multi-concurrent environments (see `multi`),
//! the event, the answer, the record.
//!
//! Where every environment is full, another starts at once, standing in for
//! Lambda's scaler, which adds environments from CPU use rather than per
//! request ("Scaling Lambda Managed Instances",
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
                Err(failure) => return self.init_failed(attempt, failure, slot),
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
    async fn reserve_or_start(&self, function: &Arc<Function>) -> Result<Reserved, InitFailure> {
        let _starting = function.fleet_start.lock().await;
        if let Some((env, slot)) = function.reserve_managed() {
            return Ok((env, slot, None));
        }
        let mut shutdown = self.shutdown_signal();
        let (env, init) = Environment::start(
            &function.config,
            &self.config,
            &self.cpu,
            &function.log,
            &mut shutdown,
        )
        .await?;
        function.started(env.pid, env.share.throttle_source());
        let max = function.config.max_concurrency().unwrap_or(1);
        let env = MultiEnvironment::spawn(
            env,
            max,
            function.config.memory_mb,
            hooks(function),
            shutdown,
        );
        function.add_managed(env.clone());
        let slot = env.try_reserve().ok_or(InitFailure::ShuttingDown)?;
        Ok((env, slot, Some(init)))
    }
}

/// CPU readings of the environment go to its function.
fn hooks(function: &Arc<Function>) -> Hooks {
    let sampler = function.clone();
    let retirer = function.clone();
    Hooks {
        sample: Box::new(move |env| sampler.sample_cpu(env)),
        retire: Box::new(move |env| retirer.retire(env)),
    }
}
