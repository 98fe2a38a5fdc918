//! What every attempt of an invocation shares, on demand or on Lambda
//! Managed Instances: its record, what its end means, and init failures.

use std::time::Duration;

use bytes::Bytes;
use chrono::Utc;
use localcloud_core::{InvokeError, InvokeResponse};

use crate::concurrency::Slot;
use crate::environment::{self, Completion, InitFailure};
use crate::failures;
use crate::function::Function;
use crate::metering::{billed_ms, InvocationRecord, Outcome};
use crate::runtime_api::Invocation;
use crate::state::Inner;
use crate::versions::Invoked;

impl Inner {
    /// An environment that never became ready fails its invocation as an
    /// unhandled function error, as Lambda reports init failures.
    pub(crate) fn init_failed(
        &self,
        attempt: &mut Attempt<'_>,
        failure: InitFailure,
        slot: Slot,
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
        let version = &attempt.invoked.version;
        function
            .log
            .line(&format!("START RequestId: {request_id} Version: {version}"));
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

/// What an invocation's end means: its outcome, the payload the caller gets,
/// and whether the environment may serve again. `None` when the service is
/// shutting down. Failures Lambda itself reports are logged here.
pub(crate) fn settle(
    function: &Function,
    request_id: &str,
    completion: Completion,
    timeout: Duration,
) -> Option<(Outcome, Bytes, bool)> {
    let log = &function.log;
    Some(match completion {
        Completion::Response(body) if body.len() > failures::MAX_SYNC_PAYLOAD => {
            (Outcome::FunctionError, failures::response_too_large(), true)
        }
        Completion::Response(body) => (Outcome::Success, body, true),
        Completion::Error(body) => (Outcome::FunctionError, body, true),
        Completion::TimedOut => {
            log.line(&failures::timeout_log_line(request_id, timeout));
            (
                Outcome::Timeout,
                failures::timeout(request_id, timeout),
                false,
            )
        }
        Completion::Exited(status) => {
            log.line(&failures::exit_message(request_id, status));
            log.line(failures::EXIT_ERROR);
            (Outcome::Crash, failures::exited(request_id, status), false)
        }
        Completion::OutOfMemory => {
            log.line(&failures::killed_message(request_id));
            log.line(failures::OUT_OF_MEMORY);
            (Outcome::Crash, failures::out_of_memory(request_id), false)
        }
        Completion::ShuttingDown => return None,
    })
}

/// What one attempt needs to describe itself in a record.
pub(crate) struct Attempt<'a> {
    pub function: &'a Function,
    pub invoked: &'a Invoked,
    pub request_id: String,
    pub caller: &'a str,
    pub invocation_type: &'a str,
    pub start: chrono::DateTime<Utc>,
}

impl Attempt<'_> {
    /// Writes the START line and builds the event the runtime's `/next`
    /// hands out, with its deadline from the function's timeout.
    pub fn begin(&self, payload: Bytes) -> Invocation {
        let function = self.function;
        let request_id = &self.request_id;
        function.log.line(&format!(
            "START RequestId: {request_id} Version: {}",
            self.invoked.version
        ));
        Invocation {
            request_id: request_id.clone(),
            payload,
            deadline_ms: (Utc::now().timestamp_millis().max(0) as u64)
                + function.config.timeout.as_millis() as u64,
            function_arn: self.invoked.arn.clone(),
            trace_id: environment::trace_id(),
        }
    }

    pub fn record(
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
            cpu_ms: None,
            modeled_cpu_ms: 0.0,
            contention_ms: None,
            wake_up_ms: None,
        }
    }
}

pub(crate) fn shutting_down() -> InvokeError {
    InvokeError::Service {
        status: 503,
        code: "ServiceException".to_string(),
        message: "The local cloud's Lambda service is shutting down".to_string(),
    }
}
