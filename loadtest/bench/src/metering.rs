//! What one run cost the local cloud: the difference of two
//! `GET /_localcloud/metrics` documents (robust to other activity before the
//! run, no reset needed), restricted to one variant's resources, as figures
//! for the report and as the cost model's [`costmodel::Usage`].

use std::collections::BTreeMap;

use localcloud_metrics::{CpuShareMetrics, MetricsDocument, MetricsError};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::variants::Variant;

#[derive(Debug, thiserror::Error)]
pub enum MeteringError {
    #[error("{path} went down from {before} to {after}: were the counters reset during the run?")]
    CounterWentDown {
        path: String,
        before: f64,
        after: f64,
    },
    #[error(transparent)]
    Contract(#[from] MetricsError),
}

/// `after - before` for every counter; objects and arrays recurse, gauges and
/// text keep the later value, counters new since `before` count from zero.
pub fn delta(before: &Value, after: &Value) -> Result<Value, MeteringError> {
    delta_at("", before, after)
}

fn delta_at(path: &str, before: &Value, after: &Value) -> Result<Value, MeteringError> {
    let key = path.rsplit('.').next().unwrap_or(path);
    Ok(match (before, after) {
        (Value::Object(b), Value::Object(a)) => {
            let mut out = Map::new();
            for (k, v) in a {
                let child = format!("{path}.{k}");
                let d = match b.get(k) {
                    Some(bv) => delta_at(&child, bv, v)?,
                    None => delta_at(&child, &zero_like(v), v)?,
                };
                out.insert(k.clone(), d);
            }
            Value::Object(out)
        }
        (Value::Array(b), Value::Array(a)) => {
            let mut out = Vec::with_capacity(a.len());
            for (i, v) in a.iter().enumerate() {
                let child = format!("{path}[{i}]");
                let base = b.get(i).cloned().unwrap_or_else(|| zero_like(v));
                out.push(delta_at(&child, &base, v)?);
            }
            Value::Array(out)
        }
        // The contract names its levels and settings (`localcloud_metrics::GAUGES`):
        // a setting taken for a counter would read as 0 after the delta.
        (Value::Number(b), Value::Number(a)) if !localcloud_metrics::is_gauge(key) => {
            // Integer counters stay integers: the contract types them so.
            if let (Some(b), Some(a)) = (b.as_u64(), a.as_u64()) {
                return match a.checked_sub(b) {
                    Some(d) => Ok(Value::from(d)),
                    None => Err(MeteringError::CounterWentDown {
                        path: path.trim_start_matches('.').to_string(),
                        before: b as f64,
                        after: a as f64,
                    }),
                };
            }
            let (b, a) = (b.as_f64().unwrap_or(0.0), a.as_f64().unwrap_or(0.0));
            if a + 1e-9 < b {
                return Err(MeteringError::CounterWentDown {
                    path: path.trim_start_matches('.').to_string(),
                    before: b,
                    after: a,
                });
            }
            serde_json::Number::from_f64(a - b).map_or(Value::Null, Value::Number)
        }
        _ => after.clone(),
    })
}

fn zero_like(v: &Value) -> Value {
    match v {
        Value::Object(_) => Value::Object(Map::new()),
        Value::Array(_) => Value::Array(Vec::new()),
        Value::Number(_) => Value::from(0),
        other => other.clone(),
    }
}

/// Per-function figures of one run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FunctionFigures {
    pub memory_mb: f64,
    pub invocations: f64,
    pub billed_ms: f64,
    pub cold_starts: f64,
    pub throttles: f64,
    pub errors: f64,
    pub timeouts: f64,
    pub cpu_ms: f64,
    /// The part of `cpu_ms` spent on named threads, by name (the metrics
    /// contract's `thread_cpu_ms`): `argon2` is password hashing.
    pub thread_cpu_ms: BTreeMap<String, f64>,
    pub peak_concurrent_executions: f64,
    /// Bytes CloudWatch Logs would ingest.
    pub log_bytes: f64,
    /// Each environment's CPU share in vCPUs (memory / 1,769), a setting;
    /// 0 with the share off.
    pub cpu_share_vcpus: f64,
    /// Time its environments were held back by their CPU quota: the quota
    /// at work, as on AWS.
    pub throttled_ms: f64,
    /// Time its threads were runnable but waiting for a core (the quota's
    /// hold-backs plus this machine's contention).
    pub run_queue_wait_ms: f64,
    /// This machine's contention, billed here but not on AWS
    /// (`FunctionMetrics::contention_ms`): measured within each invocation
    /// where `contention_measured` is set, else (older local clouds) the
    /// whole run's run-queue wait beyond the throttled time.
    pub contention_ms: f64,
    /// Whether `contention_ms` was measured within the invocations (and
    /// the `*_without_contention` figures are known).
    pub contention_measured: bool,
    /// This machine's other waits within the invocations, billed here but
    /// not on AWS: for idle cores to wake up (0 in results of local clouds
    /// that did not tell them from contention).
    pub wake_up_ms: f64,
    /// The invocations' durations as measured, summed.
    pub duration_ms: f64,
    /// `duration_ms` and `billed_ms` as AWS would bill them: each
    /// invocation's contention and wake-ups taken out, the billed ms rounded up again
    /// per invocation; `None` where the contention was not measured.
    pub duration_ms_without_contention: Option<f64>,
    pub billed_ms_without_contention: Option<f64>,
    /// Part of `billed_ms` the CPU share model added (mode `model`).
    pub modeled_cpu_ms: f64,
    /// On Lambda Managed Instances: its capacity provider, instance type and
    /// part of the instances, which it is billed instead of duration.
    pub managed: Option<costmodel::ManagedUsage>,
}

impl FunctionFigures {
    /// CPU spent on its Argon2id thread (`conduit::passwords`), if it had one.
    pub fn argon2_cpu_ms(&self) -> Option<f64> {
        self.thread_cpu_ms
            .get(conduit::passwords::THREAD_NAME)
            .copied()
    }

    /// Contention per invocation, in ms (`None` without invocations).
    pub fn contention_ms_per_invocation(&self) -> Option<f64> {
        (self.invocations > 0.0).then(|| self.contention_ms / self.invocations)
    }

    /// Billed ms as AWS would bill them: as measured where known, else
    /// (results of older local clouds) `billed_ms - contention_ms`, not
    /// rounded again.
    pub fn billed_ms_as_aws(&self) -> f64 {
        self.billed_ms_without_contention
            .unwrap_or((self.billed_ms - self.contention_ms).max(0.0))
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct QueueFigures {
    pub billed_requests: f64,
    pub messages_sent: f64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TableFigures {
    pub read_units: f64,
    pub write_units: f64,
}

/// The variant's share of a metrics delta.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RunMetering {
    pub functions: BTreeMap<String, FunctionFigures>,
    pub queues: BTreeMap<String, QueueFigures>,
    pub tables: BTreeMap<String, TableFigures>,
    /// Requests the variant's API counted as billed (an HTTP API per 512 KB,
    /// a REST API one each); the record's `api` says which price applies.
    pub api_requests: f64,
    /// Response bytes (headers included) the API sent to its clients.
    pub data_transfer_out_bytes: f64,
    /// CPU of the local cloud process over the run.
    pub localcloud_cpu_ms: f64,
    /// How the local cloud gave each environment its CPU share (what
    /// produced the billed durations), and why it fell back to the model if
    /// it did; `None` in results before schema 4.
    pub cpu_share: Option<CpuShareMetrics>,
}

impl RunMetering {
    pub fn functions_cpu_ms(&self) -> f64 {
        self.functions.values().map(|f| f.cpu_ms).sum()
    }

    /// The functions' CPU spent hashing and verifying passwords: their
    /// Argon2id threads' (see `conduit::passwords`).
    pub fn argon2_cpu_ms(&self) -> f64 {
        self.functions
            .values()
            .filter_map(FunctionFigures::argon2_cpu_ms)
            .sum()
    }

    pub fn throttles(&self) -> f64 {
        self.functions.values().map(|f| f.throttles).sum()
    }

    pub fn cold_starts(&self) -> f64 {
        self.functions.values().map(|f| f.cold_starts).sum()
    }

    /// This machine's contention as a share of the billed time: the
    /// functions' run-queue waits beyond their quota over their billed ms
    /// (`None` when nothing was billed).
    pub fn contention_share(&self) -> Option<f64> {
        let billed: f64 = self.functions.values().map(|f| f.billed_ms).sum();
        let contention: f64 = self.functions.values().map(|f| f.contention_ms).sum();
        (billed > 0.0).then(|| contention / billed)
    }

    /// This machine's waits for idle cores to wake up, summed over the
    /// functions, in ms.
    pub fn wake_up_ms(&self) -> f64 {
        self.functions.values().map(|f| f.wake_up_ms).sum()
    }

    /// Whether every function's contention was measured within its
    /// invocations (else it is the older whole-run figure).
    pub fn contention_measured(&self) -> bool {
        self.functions
            .values()
            .all(|f| f.contention_measured || f.invocations == 0.0)
    }

    /// The functions' billed ms, as measured and as AWS would bill them
    /// ([`FunctionFigures::billed_ms_as_aws`]).
    pub fn billed_ms(&self) -> (f64, f64) {
        let functions = self.functions.values();
        let measured = functions.clone().map(|f| f.billed_ms).sum();
        (
            measured,
            functions.map(FunctionFigures::billed_ms_as_aws).sum(),
        )
    }

    /// The dollars of a bill that were this machine's waits (contention and
    /// wake-ups): its Lambda duration line times the share of the billed
    /// GB-seconds that taking them out removes. Exact where the duration is
    /// priced per GB-s at one price (one architecture, a run far below the
    /// first volume tier's 6 billion GB-s); functions on Lambda Managed
    /// Instances bill no duration and are left out. `None` without a
    /// duration line or billed time.
    /// `duration_usd`: the bill's Lambda duration line (taken as a figure,
    /// not the bill, so that this module does not import `results`, which
    /// imports it).
    pub fn contention_usd(&self, duration_usd: f64) -> Option<f64> {
        let on_demand = || self.functions.values().filter(|f| f.managed.is_none());
        let gb_ms = |ms: f64, f: &FunctionFigures| ms * f.memory_mb;
        let billed: f64 = on_demand().map(|f| gb_ms(f.billed_ms, f)).sum();
        let as_aws: f64 = on_demand().map(|f| gb_ms(f.billed_ms_as_aws(), f)).sum();
        (billed > 0.0).then(|| duration_usd * (1.0 - as_aws / billed).max(0.0))
    }
}

/// Keeps only the variant's API, functions and queues (and every table with
/// traffic: tables are shared by a variant's functions) from a delta document.
pub fn restrict(delta: &Value, variant: &Variant) -> Value {
    let mut out = delta.clone();
    let keep = |section: &mut Value, wanted: &dyn Fn(&str) -> bool| {
        if let Some(map) = section.as_object_mut() {
            map.retain(|name, _| wanted(name));
        }
    };
    if let Some(apis) = out.get_mut("apis") {
        keep(apis, &|name| name == variant.api);
    }
    if let Some(functions) = out.pointer_mut("/lambda/functions") {
        keep(functions, &|name| variant.owns_function(name));
    }
    if let Some(queues) = out.pointer_mut("/sqs/queues") {
        keep(queues, &|arn| variant.owns_queue(arn));
    }
    if let Some(sqs) = out.get_mut("sqs").and_then(Value::as_object_mut) {
        // Calls naming no queue cannot be attributed to a variant.
        sqs.insert("unattributed_requests".into(), Value::from(0u64));
    }
    out
}

/// Figures of a restricted delta.
pub fn figures(restricted: &Value) -> Result<RunMetering, MeteringError> {
    let doc = MetricsDocument::from_value(restricted.clone())?;
    let functions = doc
        .lambda
        .functions
        .iter()
        .map(|(name, f)| {
            let figures = FunctionFigures {
                memory_mb: f64::from(f.memory_mb),
                invocations: f.invocations as f64,
                billed_ms: f.billed_ms as f64,
                cold_starts: f.cold_starts as f64,
                throttles: f.throttles as f64,
                errors: f.errors as f64,
                timeouts: f.timeouts as f64,
                cpu_ms: f.cpu_ms,
                thread_cpu_ms: f.thread_cpu_ms.clone(),
                peak_concurrent_executions: f64::from(f.peak_concurrent_executions),
                log_bytes: f.log_bytes as f64,
                cpu_share_vcpus: f.cpu_share_vcpus,
                throttled_ms: f.throttled_ms,
                run_queue_wait_ms: f.run_queue_wait_ms,
                // Of the run's waits: the delta's counters, so the run's own.
                contention_ms: f.contention_ms(),
                contention_measured: f.without_contention.is_some(),
                wake_up_ms: f.without_contention.as_ref().map_or(0.0, |w| w.wake_up_ms),
                duration_ms: f.duration_ms,
                duration_ms_without_contention: f
                    .without_contention
                    .as_ref()
                    .map(|w| w.duration_ms),
                billed_ms_without_contention: f
                    .without_contention
                    .as_ref()
                    .map(|w| w.billed_ms as f64),
                modeled_cpu_ms: f.modeled_cpu_ms,
                managed: costmodel::sources::localcloud::managed_usage(&doc, f),
            };
            (name.clone(), figures)
        })
        .collect();
    let queues = doc
        .sqs
        .queues
        .iter()
        .filter(|(_, q)| q.billed_requests > 0)
        .map(|(arn, q)| {
            let figures = QueueFigures {
                billed_requests: q.billed_requests as f64,
                messages_sent: q.messages_sent as f64,
            };
            (short_name(arn).to_string(), figures)
        })
        .collect();
    let tables = doc
        .dynamodb
        .tables
        .iter()
        .filter(|(_, t)| t.read_units + t.write_units > 0.0)
        .map(|(name, t)| {
            let figures = TableFigures {
                read_units: t.read_units,
                write_units: t.write_units,
            };
            (name.clone(), figures)
        })
        .collect();
    let cpu = &doc.process;
    Ok(RunMetering {
        functions,
        queues,
        tables,
        api_requests: doc.apis.values().map(|a| a.metered_requests as f64).sum(),
        data_transfer_out_bytes: doc
            .apis
            .values()
            .map(|a| a.data_transfer_out_bytes as f64)
            .sum(),
        localcloud_cpu_ms: (cpu.cpu_user_seconds.unwrap_or(0.0)
            + cpu.cpu_system_seconds.unwrap_or(0.0))
            * 1000.0,
        cpu_share: Some(doc.lambda.cpu_share.clone()),
    })
}

/// The cost model's input for a restricted delta.
pub fn usage(
    restricted: &Value,
    label: &str,
    public_requests: f64,
) -> Result<costmodel::Usage, MeteringError> {
    let doc = MetricsDocument::from_value(restricted.clone())?;
    Ok(costmodel::sources::localcloud::usage(
        &doc,
        label,
        public_requests,
    ))
}

/// The cost model's input for a restricted delta with the contention taken
/// out: each on-demand function billed as AWS would bill it (its
/// `without_contention` figures, where the local cloud measured them).
/// Priced like [`usage`], it is the bill AWS would send.
pub fn usage_without_contention(
    restricted: &Value,
    label: &str,
    public_requests: f64,
) -> Result<costmodel::Usage, MeteringError> {
    let doc = MetricsDocument::from_value(restricted.clone())?;
    let mut usage = costmodel::sources::localcloud::usage(&doc, label, public_requests);
    for function in usage.lambda.iter_mut().filter(|f| f.managed.is_none()) {
        let measured = doc.lambda.functions.get(&function.name);
        if let Some(without) = measured.and_then(|f| f.without_contention.as_ref()) {
            function.billed_ms_total = without.billed_ms as f64;
            function.gb_seconds = Some(without.gb_seconds);
        }
    }
    Ok(usage)
}

fn short_name(arn: &str) -> &str {
    costmodel::sources::localcloud::queue_name(arn)
}

#[cfg(test)]
#[path = "metering_tests.rs"]
mod tests;
