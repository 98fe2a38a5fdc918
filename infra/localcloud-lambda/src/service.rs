//! The Lambda service: its lifecycle (start, reaping idle environments,
//! shutdown), metrics, and the Invoke operation up to the point where an
//! attempt runs (see `invocation`).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use bytes::Bytes;
use localcloud_core::context::new_request_id;
use localcloud_core::{InvocationType, InvokeError, InvokeRequest, InvokeResponse, Invoker};
use tokio::task::JoinHandle;

use crate::concurrency::Concurrency;
use crate::config::LambdaConfig;
use crate::cpu_share::CpuController;
use crate::failures;
use crate::function::Function;
use crate::logs::FunctionLog;
use crate::metering::{FunctionMetrics, InvocationRecord, LambdaMetrics, Meter};
use crate::names;
use crate::state::Inner;
use crate::versions::{CodeReader, Invoked, Target, VersionError, Versions};

pub struct LambdaService {
    pub(crate) inner: Arc<Inner>,
    reaper: JoinHandle<()>,
}

impl LambdaService {
    /// Opens the log files and starts the idle reaper; environments start on
    /// demand. Must be called inside a Tokio runtime.
    pub fn start(config: LambdaConfig) -> std::io::Result<Arc<Self>> {
        let invalid =
            |message: String| std::io::Error::new(std::io::ErrorKind::InvalidInput, message);
        // They end up in ARNs and Runtime API headers.
        let header_safe =
            |v: &str| !v.is_empty() && v.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
        if !header_safe(&config.region) || !header_safe(&config.account_id) {
            return Err(invalid(format!(
                "region {:?} and account id {:?} must be letters, digits and '-'",
                config.region, config.account_id
            )));
        }
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
            let code = CodeReader::default();
            let managed = function.managed.is_some();
            let current = || code.snapshot(function);
            let versions = Versions::create(&arn, managed, &function.publish, current)
                .map_err(|e| invalid(format!("function {}: {e}", function.name)))?;
            let entry = Arc::new(Function::new(function.clone(), arn, log, versions, code));
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
        let meter = Meter::new(config.max_records);
        let cpu = CpuController::new(config.cpu_share);
        let fleets = crate::fleet::fleets_for(&config, Instant::now()).map_err(invalid)?;
        let inner = Arc::new(Inner::new(
            config,
            functions,
            Arc::new(concurrency),
            meter,
            cpu,
            fleets,
        ));
        for function in inner.functions.values() {
            if function.config.managed.is_some() {
                tokio::spawn(inner.clone().scale_managed(function.clone()));
            }
        }
        let reaper = tokio::spawn(reap_idle(inner.clone()));
        Ok(Arc::new(Self { inner, reaper }))
    }

    pub fn config(&self) -> &LambdaConfig {
        &self.inner.config
    }

    pub fn records(&self) -> Vec<InvocationRecord> {
        self.inner.meter.records()
    }

    /// The newest `last` records of `function` (every record without
    /// either), oldest first.
    pub fn newest_records(
        &self,
        function: Option<&str>,
        last: Option<usize>,
    ) -> Vec<InvocationRecord> {
        self.inner.meter.newest(function, last)
    }

    /// Records dropped to keep at most `max_records`.
    pub fn dropped_records(&self) -> u64 {
        self.inner.meter.dropped()
    }

    pub fn metrics(&self) -> LambdaMetrics {
        let inner = &self.inner;
        let account = inner.concurrency.account();
        let now = Instant::now();
        let shares: BTreeMap<&str, BTreeMap<String, f64>> = inner
            .fleets
            .iter()
            .map(|(name, fleet)| (name.as_str(), fleet.shares(now)))
            .collect();
        let functions = inner
            .functions
            .iter()
            .map(|(name, function)| {
                let usage = inner.concurrency.function(name);
                let (log_events, log_bytes) = function.log.ingested();
                let cpu = function.cpu();
                let totals = inner.meter.totals(name);
                let managed = function.config.managed.as_ref();
                let provider = managed.map(|m| m.provider.as_str());
                let metrics = FunctionMetrics {
                    log_events,
                    log_bytes,
                    memory_mb: function.config.memory_mb,
                    architecture: function.config.architecture,
                    cpu_ms: cpu.ms,
                    thread_cpu_ms: cpu.threads,
                    cpu_share_vcpus: if inner.cpu.mode().is_on() {
                        function.config.cpu_size().share_vcpus
                    } else {
                        0.0
                    },
                    throttled_ms: cpu.throttled_ms,
                    run_queue_wait_ms: cpu.run_queue_wait_ms,
                    concurrent_executions: usage.now,
                    peak_concurrent_executions: usage.peak,
                    environments: function.process_ids().len(),
                    // Present before the first invocation too: a reader
                    // takes a missing one for an older local cloud.
                    without_contention: Some(totals.without_contention.unwrap_or_default()),
                    capacity_provider: provider.map(str::to_string),
                    instance_seconds: provider
                        .and_then(|p| shares.get(p)?.get(name).copied())
                        .unwrap_or(0.0),
                    max_concurrency: function.config.max_concurrency(),
                    memory_gib_per_vcpu: managed.map(|m| f64::from(m.memory_gib_per_vcpu)),
                    ..totals
                };
                (name.clone(), metrics)
            })
            .collect();
        LambdaMetrics {
            cpu_share: inner.cpu.metrics(),
            account_concurrency_limit: inner.config.account_concurrency_limit,
            dropped_records: inner.meter.dropped(),
            concurrent_executions: account.now,
            peak_concurrent_executions: account.peak,
            functions,
            capacity_providers: inner
                .fleets
                .iter()
                .map(|(name, fleet)| (name.clone(), fleet.metrics(now)))
                .collect(),
        }
    }

    pub fn reset_metrics(&self) {
        self.inner.meter.reset();
        self.inner.concurrency.reset_peaks();
        for function in self.inner.functions.values() {
            function.reset_cpu();
            function.log.reset_metering();
        }
        for fleet in self.inner.fleets.values() {
            fleet.reset(Instant::now());
        }
    }

    /// Kills the environment of that share (0 to 1) of `function`'s
    /// invocations while they run (see the `faults` module).
    pub fn set_kill_rate(&self, function: &str, rate: f64) -> Result<(), String> {
        self.function(function)?.faults.set_kill_rate(rate)
    }

    /// Kills up to `n` of `function`'s environments that hold an invocation
    /// now; returns how many.
    pub fn kill_busy(&self, function: &str, n: usize) -> Result<usize, String> {
        Ok(self.function(function)?.faults.kill_busy(n))
    }

    /// Kill rate, kills so far and invocations running, per function.
    pub fn faults(&self) -> BTreeMap<String, crate::FaultStats> {
        self.inner
            .functions
            .iter()
            .map(|(name, f)| (name.clone(), f.faults.stats()))
            .collect()
    }

    fn function(&self, name: &str) -> Result<&Arc<Function>, String> {
        self.inner
            .functions
            .get(name)
            .ok_or_else(|| format!("no function named {name}"))
    }

    /// Each function's numbered versions, by name, for the next deployment
    /// of its stack.
    pub fn inheritable_versions(&self) -> BTreeMap<String, Vec<crate::InheritedVersion>> {
        self.inner
            .functions
            .iter()
            .map(|(name, f)| (name.clone(), f.versions.inheritable()))
            .collect()
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
        self.inner.signal_shutdown();
        self.reaper.abort();
        for function in self.inner.functions.values() {
            function.drop_fleet();
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
        self.inner.signal_shutdown();
        self.reaper.abort();
        for function in self.inner.functions.values() {
            // Dropping a process handle kills it (`kill_on_drop`).
            drop(function.take_all_idle());
            function.drop_fleet();
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
    /// The whole Invoke operation; `qualifier` is the Invoke API's parameter.
    pub async fn invoke(
        self: Arc<Self>,
        request: InvokeRequest,
        qualifier: Option<&str>,
    ) -> Result<InvokeResponse, InvokeError> {
        let resolved = self.resolve(&request.function, qualifier)?;
        self.invoke_resolved(resolved, request).await
    }

    /// The Invoke operation once the function and version are known.
    pub async fn invoke_resolved(
        self: Arc<Self>,
        resolved: Resolved,
        request: InvokeRequest,
    ) -> Result<InvokeResponse, InvokeError> {
        let invoked = resolved.invoked();
        let function = resolved.function;
        let payload = validate_payload(request.payload, request.invocation_type)?;
        let request_id = new_request_id();
        match request.invocation_type {
            InvocationType::DryRun => Ok(empty_response(request_id, 204)),
            InvocationType::Event => {
                crate::async_invoke::enqueue(
                    self,
                    function,
                    invoked,
                    payload,
                    request.caller,
                    request_id.clone(),
                );
                Ok(empty_response(request_id, 202))
            }
            InvocationType::RequestResponse => {
                // The invocation runs to its end even when the caller stops
                // waiting (an API Gateway timeout), as on AWS.
                let caller = request.caller;
                let task = tokio::spawn(async move {
                    let kind = "RequestResponse";
                    self.run(&function, &invoked, payload, &caller, kind, request_id)
                        .await
                });
                task.await.unwrap_or_else(|err| {
                    Err(InvokeError::Service {
                        status: 500,
                        code: "ServiceException".to_string(),
                        message: format!("The invocation was lost: {err}"),
                    })
                })
            }
        }
    }

    /// The function `reference` names and the version `qualifier` (or the
    /// reference's own qualifier) names.
    pub fn resolve(
        &self,
        reference: &str,
        qualifier: Option<&str>,
    ) -> Result<Resolved, InvokeError> {
        let (function, named) = self.lookup(reference)?;
        let qualifier = match (qualifier, named) {
            (Some(given), Some(named)) if given != named => {
                return Err(InvokeError::Service {
                    status: 400,
                    code: "InvalidParameterValueException".to_string(),
                    message: "The derived qualifier from the function name does not match the specified qualifier.".to_string(),
                })
            }
            (given, named) => given.map(str::to_string).or(named),
        };
        // A qualifier that names nothing: the same error as an unknown function.
        let target = function
            .versions
            .resolve(qualifier.as_deref())
            .map_err(|err| match (err, &qualifier) {
                (VersionError::NotFound(_), Some(q)) => InvokeError::FunctionNotFound {
                    function: names::qualified_arn(&function.arn, q),
                },
                (err, _) => err.into(),
            })?;
        Ok(Resolved {
            function,
            target,
            qualifier,
        })
    }

    /// The function `reference` (name, ARN or partial ARN) names, and the
    /// qualifier the reference carries, if any.
    pub fn lookup(&self, reference: &str) -> Result<(Arc<Function>, Option<String>), InvokeError> {
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
        let function = function.ok_or_else(|| not_found(arn))?;
        Ok((function.clone(), parsed.qualifier))
    }
}

/// A function and one of its versions.
pub struct Resolved {
    pub function: Arc<Function>,
    /// The version that runs.
    pub target: Target,
    /// The qualifier as given (an alias, a version or `$LATEST`).
    pub qualifier: Option<String>,
}

impl Resolved {
    pub fn invoked(&self) -> Invoked {
        Invoked {
            arn: match &self.qualifier {
                Some(q) => names::qualified_arn(&self.function.arn, q),
                None => self.function.arn.clone(),
            },
            version: self.target.version.clone(),
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
