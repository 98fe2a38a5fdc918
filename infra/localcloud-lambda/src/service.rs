//! The Lambda service: resolves functions, enforces concurrency, runs each
//! invocation in a warm or new environment and meters it.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use bytes::Bytes;
use chrono::Utc;
use localcloud_core::context::new_request_id;
use localcloud_core::{InvocationType, InvokeError, InvokeRequest, InvokeResponse, Invoker};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::concurrency::Concurrency;
use crate::config::LambdaConfig;
use crate::environment::{self, Completion, Environment, InitFailure};
use crate::failures;
use crate::function::Function;
use crate::logs::FunctionLog;
use crate::metering::{
    billed_ms, FunctionMetrics, InvocationRecord, LambdaMetrics, Meter, Outcome,
};
use crate::names::{self, LATEST};
use crate::runtime_api::Invocation;

pub struct LambdaService {
    pub(crate) inner: Arc<Inner>,
    reaper: JoinHandle<()>,
}

pub(crate) struct Inner {
    pub config: LambdaConfig,
    pub functions: BTreeMap<String, Arc<Function>>,
    pub concurrency: Arc<Concurrency>,
    pub meter: Meter,
    shutdown: watch::Sender<bool>,
}

impl LambdaService {
    /// Opens the log files and starts the idle reaper; environments start on
    /// demand. Must be called inside a Tokio runtime.
    pub fn start(config: LambdaConfig) -> std::io::Result<Arc<Self>> {
        let invalid =
            |message: String| std::io::Error::new(std::io::ErrorKind::InvalidInput, message);
        let mut functions = BTreeMap::new();
        for function in &config.functions {
            if !names::is_valid_name(&function.name) {
                return Err(invalid(format!(
                    "function name {:?} must be 1-64 letters, digits, '-' or '_'",
                    function.name
                )));
            }
            let log = FunctionLog::open(config.log_dir.as_deref(), &function.name)?;
            let arn = names::function_arn(&config.region, &config.account_id, &function.name);
            let entry = Arc::new(Function::new(function.clone(), arn, log));
            if functions.insert(function.name.clone(), entry).is_some() {
                return Err(invalid(format!(
                    "function {} is configured twice",
                    function.name
                )));
            }
        }
        let concurrency = Concurrency::new(
            config.account_concurrency_limit,
            config
                .functions
                .iter()
                .map(|f| (f.name.as_str(), f.reserved_concurrency)),
        );
        let inner = Arc::new(Inner {
            config,
            functions,
            concurrency: Arc::new(concurrency),
            meter: Meter::default(),
            shutdown: watch::Sender::new(false),
        });
        let reaper = tokio::spawn(reap_idle(inner.clone()));
        Ok(Arc::new(Self { inner, reaper }))
    }

    pub fn config(&self) -> &LambdaConfig {
        &self.inner.config
    }

    pub fn records(&self) -> Vec<InvocationRecord> {
        self.inner.meter.records()
    }

    pub fn metrics(&self) -> LambdaMetrics {
        let inner = &self.inner;
        let account = inner.concurrency.account();
        let functions = inner
            .functions
            .iter()
            .map(|(name, function)| {
                let usage = inner.concurrency.function(name);
                let metrics = FunctionMetrics {
                    memory_mb: function.config.memory_mb,
                    architecture: function.config.architecture,
                    cpu_ms: function.cpu_ms(),
                    concurrent_executions: usage.now,
                    peak_concurrent_executions: usage.peak,
                    environments: function.process_ids().len(),
                    ..inner.meter.totals(name)
                };
                (name.clone(), metrics)
            })
            .collect();
        LambdaMetrics {
            account_concurrency_limit: inner.config.account_concurrency_limit,
            concurrent_executions: account.now,
            peak_concurrent_executions: account.peak,
            functions,
        }
    }

    pub fn reset_metrics(&self) {
        self.inner.meter.reset();
        self.inner.concurrency.reset_peaks();
        for function in self.inner.functions.values() {
            function.reset_cpu();
        }
    }

    /// Process ids of every live execution environment.
    pub fn process_ids(&self) -> Vec<u32> {
        self.inner
            .functions
            .values()
            .flat_map(|f| f.process_ids())
            .collect()
    }

    /// Stops every environment and waits (up to 5 s) for running invocations
    /// to give theirs up; later invocations fail.
    pub async fn shutdown(&self) {
        let _ = self.inner.shutdown.send(true);
        self.reaper.abort();
        for function in self.inner.functions.values() {
            for env in function.take_all_idle() {
                function.retire(&env);
                env.kill().await;
            }
        }
        let deadline = Instant::now() + Duration::from_secs(5);
        while self.inner.concurrency.account().now > 0 && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
}

impl Drop for LambdaService {
    /// Without an orderly shutdown, idle processes are killed here and busy
    /// ones by their invocations, which see the shutdown signal.
    fn drop(&mut self) {
        let _ = self.inner.shutdown.send(true);
        self.reaper.abort();
        for function in self.inner.functions.values() {
            // Dropping a process handle kills it (`kill_on_drop`).
            drop(function.take_all_idle());
        }
    }
}

#[async_trait]
impl Invoker for LambdaService {
    async fn invoke(&self, request: InvokeRequest) -> Result<InvokeResponse, InvokeError> {
        self.inner.clone().invoke(request, None).await
    }
}

impl Inner {
    pub fn is_shutting_down(&self) -> bool {
        *self.shutdown.borrow()
    }

    pub fn shutdown_signal(&self) -> watch::Receiver<bool> {
        self.shutdown.subscribe()
    }

    /// The whole Invoke operation; `qualifier` is the Invoke API's parameter.
    pub async fn invoke(
        self: Arc<Self>,
        request: InvokeRequest,
        qualifier: Option<&str>,
    ) -> Result<InvokeResponse, InvokeError> {
        let function = self.resolve(&request.function, qualifier)?;
        let payload = validate_payload(request.payload, request.invocation_type)?;
        let request_id = new_request_id();
        match request.invocation_type {
            InvocationType::DryRun => Ok(empty_response(request_id, 204)),
            InvocationType::Event => {
                crate::async_invoke::enqueue(
                    self,
                    function,
                    payload,
                    request.caller,
                    request_id.clone(),
                );
                Ok(empty_response(request_id, 202))
            }
            InvocationType::RequestResponse => {
                self.run(
                    &function,
                    payload,
                    &request.caller,
                    "RequestResponse",
                    request_id,
                )
                .await
            }
        }
    }

    pub fn resolve(
        &self,
        reference: &str,
        qualifier: Option<&str>,
    ) -> Result<Arc<Function>, InvokeError> {
        let not_found = |function: String| InvokeError::FunctionNotFound { function };
        let parsed = names::parse(reference).ok_or_else(|| not_found(reference.to_string()))?;
        let arn = names::function_arn(&self.config.region, &self.config.account_id, &parsed.name);
        let foreign = parsed
            .account
            .as_ref()
            .is_some_and(|a| *a != self.config.account_id)
            || parsed
                .region
                .as_ref()
                .is_some_and(|r| *r != self.config.region);
        let function = self.functions.get(&parsed.name).filter(|_| !foreign);
        let function = function.ok_or_else(|| not_found(arn.clone()))?;
        match qualifier.map(str::to_string).or(parsed.qualifier) {
            Some(q) if q != LATEST => Err(not_found(format!("{arn}:{q}"))),
            _ => Ok(function.clone()),
        }
    }

    /// One attempt of one invocation: a slot, an environment, the answer.
    pub async fn run(
        &self,
        function: &Arc<Function>,
        payload: Bytes,
        caller: &str,
        invocation_type: &str,
        request_id: String,
    ) -> Result<InvokeResponse, InvokeError> {
        let mut attempt = Attempt {
            function,
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
                &function.log,
                &mut shutdown,
            )
            .await
            {
                Ok((env, init)) => {
                    function.started(env.pid);
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
        function
            .log
            .line(&format!("START RequestId: {request_id} Version: {LATEST}"));
        let invocation = Invocation {
            request_id: request_id.clone(),
            payload,
            deadline_ms: (Utc::now().timestamp_millis().max(0) as u64) + timeout.as_millis() as u64,
            function_arn: function.arn.clone(),
            trace_id: environment::trace_id(),
        };
        // A process that dies mid-invocation leaves only its earlier peak.
        let memory_before = env.max_memory_used_mb();
        let dispatched = Instant::now();
        let completion = env.invoke(invocation, timeout, shutdown).await;
        let duration_ms = dispatched.elapsed().as_secs_f64() * 1000.0;
        let memory = env.max_memory_used_mb().or(memory_before);
        function.sample_cpu(&env);
        let (outcome, payload, keep) = match completion {
            Completion::Response(body) if body.len() > failures::MAX_SYNC_PAYLOAD => {
                (Outcome::FunctionError, failures::response_too_large(), true)
            }
            Completion::Response(body) => (Outcome::Success, body, true),
            Completion::Error(body) => (Outcome::FunctionError, body, true),
            Completion::TimedOut => {
                function
                    .log
                    .line(&failures::timeout_log_line(request_id, timeout));
                (
                    Outcome::Timeout,
                    failures::timeout(request_id, timeout),
                    false,
                )
            }
            Completion::Exited(status) => {
                function
                    .log
                    .line(&failures::exit_message(request_id, status));
                function.log.line(failures::EXIT_ERROR);
                (Outcome::Crash, failures::exited(request_id, status), false)
            }
            Completion::ShuttingDown => {
                function.retire(&env);
                env.kill().await;
                return Err(shutting_down());
            }
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
        let record = attempt.record(outcome, duration_ms, init_ms, memory, error_type);
        function.log.line(&format!("END RequestId: {request_id}"));
        function.log.line(&record.report_line());
        self.meter.record(record);
        Ok(InvokeResponse {
            request_id: request_id.clone(),
            payload,
            function_error: (outcome != Outcome::Success).then(|| "Unhandled".to_string()),
            status: 200,
        })
    }

    /// An environment that never became ready fails its invocation as an
    /// unhandled function error, as Lambda reports init failures.
    fn init_failed(
        &self,
        attempt: &mut Attempt<'_>,
        failure: InitFailure,
        slot: crate::concurrency::Slot,
    ) -> Result<InvokeResponse, InvokeError> {
        let function = attempt.function;
        let request_id = attempt.request_id.clone();
        let timeout = function.config.timeout;
        let (outcome, payload) = match failure {
            InitFailure::ShuttingDown => return Err(shutting_down()),
            InitFailure::Spawn(err) => (
                Outcome::InitError,
                failures::not_startable(&request_id, &function.config.binary, &err),
            ),
            InitFailure::Exited(status) => {
                (Outcome::InitError, failures::exited(&request_id, status))
            }
            InitFailure::Reported(body) => (Outcome::InitError, body),
            InitFailure::TimedOut => (Outcome::Timeout, failures::timeout(&request_id, timeout)),
        };
        drop(slot);
        let error_type = failures::error_type(&payload);
        function
            .log
            .line(&format!("START RequestId: {request_id} Version: {LATEST}"));
        if let Some(error_type) = &error_type {
            function.log.line(&format!(
                "INIT_REPORT Status: error\tError Type: {error_type}"
            ));
        }
        function.log.line(&format!("END RequestId: {request_id}"));
        let record = attempt.record(outcome, 0.0, None, None, error_type);
        function.log.line(&record.report_line());
        self.meter.record(record);
        Ok(InvokeResponse {
            request_id,
            payload,
            function_error: Some("Unhandled".to_string()),
            status: 200,
        })
    }
}

/// What one attempt needs to describe itself in a record.
struct Attempt<'a> {
    function: &'a Function,
    request_id: String,
    caller: &'a str,
    invocation_type: &'a str,
    start: chrono::DateTime<Utc>,
}

impl Attempt<'_> {
    fn record(
        &self,
        outcome: Outcome,
        duration_ms: f64,
        init_duration_ms: Option<f64>,
        max_memory_used_mb: Option<u64>,
        error_type: Option<String>,
    ) -> InvocationRecord {
        let billed = if outcome == Outcome::Throttled {
            0
        } else {
            billed_ms(duration_ms, init_duration_ms)
        };
        InvocationRecord {
            function: self.function.config.name.clone(),
            request_id: self.request_id.clone(),
            caller: self.caller.to_string(),
            invocation_type: self.invocation_type.to_string(),
            start: self.start,
            duration_ms,
            billed_ms: billed,
            memory_mb: self.function.config.memory_mb,
            max_memory_used_mb,
            init_duration_ms,
            outcome,
            error_type,
        }
    }
}

/// Event payloads up to 1 MB, synchronous ones up to 6 MB; the payload must
/// be JSON, and an empty one stands for `{}`.
fn validate_payload(payload: Bytes, invocation_type: InvocationType) -> Result<Bytes, InvokeError> {
    let (limit, kind) = match invocation_type {
        InvocationType::Event => (failures::MAX_ASYNC_PAYLOAD, "Event"),
        _ => (failures::MAX_SYNC_PAYLOAD, "RequestResponse"),
    };
    if payload.len() > limit {
        return Err(InvokeError::RequestTooLarge { limit, kind });
    }
    if payload.iter().all(u8::is_ascii_whitespace) {
        return Ok(Bytes::from_static(b"{}"));
    }
    if let Err(err) = serde_json::from_slice::<serde::de::IgnoredAny>(&payload) {
        return Err(InvokeError::Service {
            status: 400,
            code: "InvalidRequestContentException".to_string(),
            message: format!(
                "Could not parse request body into json: Could not parse payload into json: {err}"
            ),
        });
    }
    Ok(payload)
}

fn empty_response(request_id: String, status: u16) -> InvokeResponse {
    InvokeResponse {
        request_id,
        payload: Bytes::new(),
        function_error: None,
        status,
    }
}

fn shutting_down() -> InvokeError {
    InvokeError::Service {
        status: 503,
        code: "ServiceException".to_string(),
        message: "The local cloud's Lambda service is shutting down".to_string(),
    }
}

/// Shuts down environments left idle longer than the configured period.
async fn reap_idle(inner: Arc<Inner>) {
    let period =
        (inner.config.idle_timeout / 4).clamp(Duration::from_millis(10), Duration::from_secs(10));
    let mut shutdown = inner.shutdown_signal();
    loop {
        tokio::select! {
            _ = tokio::time::sleep(period) => {}
            _ = shutdown.wait_for(|stop| *stop) => return,
        }
        for function in inner.functions.values() {
            for env in function.take_expired(inner.config.idle_timeout) {
                function.retire(&env);
                env.kill().await;
            }
        }
    }
}
