//! The what-if calculator: a described architecture and traffic into [`Usage`].
//!
//! A [`Scenario`] states, per public request, what each component does (invocations,
//! durations, messages, reads and writes); [`Scenario::usage`] meters one hour of it
//! at the stated rate with the price table's metering rules.

use serde::{Deserialize, Serialize};

use crate::error::{CostError, Result};
use crate::metering::{Metering, ReadConsistency, WriteKind};
use crate::usage::{FunctionUsage, QueueUsage, TableUsage, Usage};

/// Seconds of traffic a scenario's usage covers.
pub const SCENARIO_SECONDS: f64 = 3600.0;

/// An idle long poll returns after 20 s (the maximum `WaitTimeSeconds`).
const LONG_POLL_SECONDS: f64 = 20.0;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scenario {
    pub label: String,
    /// Steady public request rate.
    pub requests_per_second: f64,
    /// `None`: clients reach the function without API Gateway (function URL, direct).
    pub api: Option<ApiSpec>,
    pub functions: Vec<FunctionSpec>,
    #[serde(default)]
    pub queues: Vec<QueueSpec>,
    #[serde(default)]
    pub tables: Vec<TableSpec>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApiKind {
    Http,
    Rest,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApiSpec {
    pub kind: ApiKind,
    /// Request payload size (HTTP APIs meter per 512 KB).
    pub request_bytes: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionSpec {
    pub name: String,
    pub architecture: String,
    pub memory_mb: f64,
    pub trigger: Trigger,
    /// Average `Duration` of one invocation (REPORT's figure: waiting included), ms.
    pub duration_ms: f64,
    /// Part of `duration_ms` spent waiting on callees or replies.
    #[serde(default)]
    pub waiting_ms: f64,
    /// Fraction of invocations that start cold (0..=1).
    #[serde(default)]
    pub cold_start_ratio: f64,
    /// INIT duration of a cold start, ms (billed for `provided.al2023`).
    #[serde(default)]
    pub init_ms: f64,
    /// START/END/REPORT plus application lines, bytes per invocation.
    #[serde(default)]
    pub log_bytes_per_invocation: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Trigger {
    /// Invoked this many times per public request (API Gateway, a synchronous Invoke).
    PerRequest(f64),
    /// Invoked once per event source mapping batch of the named queue.
    QueueBatches(String),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueueSpec {
    pub name: String,
    pub messages_per_request: f64,
    pub message_bytes: u64,
    pub consumer: Consumer,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Consumer {
    /// A Lambda event source mapping: one ReceiveMessage and one DeleteMessageBatch
    /// per batch of `batch_size` messages (the average batch actually formed), and
    /// `pollers` long polls that keep asking while the queue is empty.
    EventSourceMapping { batch_size: f64, pollers: f64 },
    /// Application code (a caller waiting for its reply): receives and deletes per
    /// message, empty receives included in `receives_per_message`.
    Client {
        receives_per_message: f64,
        deletes_per_message: f64,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableSpec {
    pub name: String,
    #[serde(default)]
    pub reads: Vec<ReadSpec>,
    #[serde(default)]
    pub writes: Vec<WriteSpec>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReadSpec {
    pub per_request: f64,
    /// Bytes one read returns (a Query: all its items together).
    pub bytes: u64,
    pub consistency: ReadConsistency,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WriteSpec {
    pub per_request: f64,
    pub item_bytes: u64,
    pub kind: WriteKind,
}

impl Scenario {
    /// One hour of the scenario at its rate, metered.
    pub fn usage(&self, metering: &Metering) -> Result<Usage> {
        self.validate()?;
        let public = self.requests_per_second * SCENARIO_SECONDS;
        let mut usage = Usage {
            label: self.label.clone(),
            public_requests: public,
            ..Usage::default()
        };
        match &self.api {
            Some(ApiSpec {
                kind: ApiKind::Http,
                request_bytes,
            }) => {
                usage.api_gateway.http_requests =
                    public * metering.http_api_requests(*request_bytes)
            }
            Some(ApiSpec {
                kind: ApiKind::Rest,
                ..
            }) => usage.api_gateway.rest_requests = public,
            None => {}
        }
        for function in &self.functions {
            let invocations = self.invocations(function, public)?;
            usage
                .lambda
                .push(function_usage(function, invocations, metering));
            usage.log_bytes += invocations * function.log_bytes_per_invocation;
        }
        usage.sqs = self
            .queues
            .iter()
            .map(|q| queue_usage(q, public, metering))
            .collect();
        usage.dynamodb = self
            .tables
            .iter()
            .map(|t| table_usage(t, public, metering))
            .collect();
        Ok(usage)
    }

    fn invocations(&self, function: &FunctionSpec, public: f64) -> Result<f64> {
        match &function.trigger {
            Trigger::PerRequest(per_request) => Ok(per_request * public),
            Trigger::QueueBatches(queue) => {
                let spec = self.queues.iter().find(|q| &q.name == queue).ok_or_else(|| {
                    invalid(format!(
                        "function `{}` is triggered by queue `{queue}`, which the scenario does not define",
                        function.name
                    ))
                })?;
                match spec.consumer {
                    Consumer::EventSourceMapping { batch_size, .. } => {
                        Ok(spec.messages_per_request * public / batch_size)
                    }
                    Consumer::Client { .. } => Err(invalid(format!(
                        "function `{}` is triggered by queue `{queue}`, whose consumer is not an event source mapping",
                        function.name
                    ))),
                }
            }
        }
    }

    fn validate(&self) -> Result<()> {
        if !(self.requests_per_second.is_finite() && self.requests_per_second > 0.0) {
            return Err(invalid(format!(
                "`{}`: requests_per_second must be positive",
                self.label
            )));
        }
        for f in &self.functions {
            let ok = f.memory_mb > 0.0
                && f.duration_ms >= 0.0
                && (0.0..=f.duration_ms).contains(&f.waiting_ms)
                && (0.0..=1.0).contains(&f.cold_start_ratio)
                && f.init_ms >= 0.0
                && f.log_bytes_per_invocation >= 0.0
                && !matches!(f.trigger, Trigger::PerRequest(n) if !(n.is_finite() && n >= 0.0))
                && f.duration_ms.is_finite()
                && f.init_ms.is_finite();
            if !ok {
                return Err(invalid(format!(
                    "function `{}`: memory must be positive, durations and counts non-negative, waiting at most the duration, the cold start ratio within 0..=1",
                    f.name
                )));
            }
        }
        for q in &self.queues {
            let consumer_ok = match q.consumer {
                Consumer::EventSourceMapping {
                    batch_size,
                    pollers,
                } => batch_size >= 1.0 && pollers >= 0.0,
                Consumer::Client {
                    receives_per_message,
                    deletes_per_message,
                } => receives_per_message >= 0.0 && deletes_per_message >= 0.0,
            };
            if !(consumer_ok && q.messages_per_request >= 0.0) {
                return Err(invalid(format!(
                    "queue `{}`: counts must be non-negative and an event source mapping's batch size at least 1",
                    q.name
                )));
            }
        }
        Ok(())
    }
}

/// Cold invocations pay `ceil(duration + init)`, warm ones `ceil(duration)`.
fn function_usage(spec: &FunctionSpec, invocations: f64, metering: &Metering) -> FunctionUsage {
    let cold = spec.cold_start_ratio;
    let billed_each = (1.0 - cold) * metering.billed_ms(spec.duration_ms)
        + cold * metering.billed_ms(spec.duration_ms + spec.init_ms);
    FunctionUsage {
        name: spec.name.clone(),
        architecture: spec.architecture.clone(),
        memory_mb: spec.memory_mb,
        invocations,
        billed_ms_total: invocations * billed_each,
        init_ms_total: invocations * cold * spec.init_ms,
        waiting_ms_total: invocations * spec.waiting_ms,
        gb_seconds: None,
        managed: None,
    }
}

fn queue_usage(spec: &QueueSpec, public: f64, metering: &Metering) -> QueueUsage {
    let messages = spec.messages_per_request * public;
    let sends = messages * metering.sqs_requests(spec.message_bytes);
    let consumer = match spec.consumer {
        Consumer::EventSourceMapping {
            batch_size,
            pollers,
        } => {
            let batches = messages / batch_size;
            let batch_bytes = (batch_size.ceil() as u64).saturating_mul(spec.message_bytes);
            let receives = batches * metering.sqs_requests(batch_bytes);
            // Pollers keep long-polling; when traffic is too thin to return them early
            // they still ask once per 20 s each.
            let idle_floor = pollers * SCENARIO_SECONDS / LONG_POLL_SECONDS;
            receives.max(idle_floor) + batches
        }
        Consumer::Client {
            receives_per_message,
            deletes_per_message,
        } => {
            messages * receives_per_message * metering.sqs_requests(spec.message_bytes)
                + messages * deletes_per_message
        }
    };
    QueueUsage {
        name: spec.name.clone(),
        billed_requests: sends + consumer,
    }
}

fn table_usage(spec: &TableSpec, public: f64, metering: &Metering) -> TableUsage {
    let reads: f64 = spec
        .reads
        .iter()
        .map(|r| r.per_request * metering.read_units(r.bytes, r.consistency))
        .sum();
    let writes: f64 = spec
        .writes
        .iter()
        .map(|w| w.per_request * metering.write_units(w.item_bytes, w.kind))
        .sum();
    TableUsage {
        name: spec.name.clone(),
        read_units: reads * public,
        write_units: writes * public,
    }
}

fn invalid(message: String) -> CostError {
    CostError::InvalidUsage(message)
}

#[cfg(test)]
#[path = "whatif_tests.rs"]
mod tests;
