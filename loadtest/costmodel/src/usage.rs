//! Metered usage: the one contract between usage sources and the cost model.
//!
//! Every quantity is already in billed units (metered requests, billed milliseconds,
//! request units), summed over a run that served `public_requests` requests. Counts
//! are `f64` because what-if scenarios work with averages (0.1 invocations per request).

use serde::{Deserialize, Serialize};

use crate::error::{CostError, Result};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Usage {
    /// Names the variant in reports ("monolith", "orders-queue").
    pub label: String,
    /// Requests the clients made: the denominator of every per-request figure.
    pub public_requests: f64,
    pub api_gateway: ApiGatewayUsage,
    pub lambda: Vec<FunctionUsage>,
    pub sqs: Vec<QueueUsage>,
    pub dynamodb: Vec<TableUsage>,
    /// Bytes ingested by CloudWatch Logs (all functions): messages plus 26
    /// bytes per event.
    pub log_bytes: f64,
    /// Bytes of the responses sent to clients on the internet (status line,
    /// headers and body).
    pub data_transfer_out_bytes: f64,
}

/// Billed API Gateway requests (HTTP API: already counted per 512 KB).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ApiGatewayUsage {
    pub http_requests: f64,
    pub rest_requests: f64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FunctionUsage {
    pub name: String,
    /// `x86_64` or `arm64`, as Lambda spells it.
    pub architecture: String,
    pub memory_mb: f64,
    pub invocations: f64,
    /// Sum of billed durations as AWS bills them: each invocation rounded up, INIT
    /// included where it is billed (always for `provided.al2023`).
    pub billed_ms_total: f64,
    /// Part of `billed_ms_total` spent in INIT (cold starts).
    pub init_ms_total: f64,
    /// Part of `billed_ms_total` spent waiting on callees or replies.
    pub waiting_ms_total: f64,
    /// Billed GB-seconds as metered (the local cloud's `gb_seconds`); `None`
    /// where the source does not meter them (REPORT lines, what-if
    /// scenarios): then `billed_ms_total` at `memory_mb`, by the same
    /// function (`localcloud_metrics::gb_seconds`).
    pub gb_seconds: Option<f64>,
    /// On Lambda Managed Instances: its instances instead of duration
    /// (`None`: on-demand).
    pub managed: Option<ManagedUsage>,
}

/// A function's part of a capacity provider's EC2 instances: what it is
/// billed on Lambda Managed Instances besides its requests.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ManagedUsage {
    pub capacity_provider: String,
    /// One of `localcloud_metrics::instances::INSTANCE_SHAPES`.
    pub instance_type: String,
    /// Its share of the instances' running time (by the vCPUs its
    /// environments held), in instance-seconds.
    pub instance_seconds: f64,
    /// Invocations one of its environments served at once, as configured
    /// (`PerExecutionEnvironmentMaxConcurrency`, else the runtime's
    /// default); `None` where not recorded (results of local clouds before
    /// metrics version 8).
    pub max_concurrency: Option<u32>,
    /// Its `ExecutionEnvironmentMemoryGiBPerVCpu`; `None` where not recorded.
    pub memory_gib_per_vcpu: Option<f64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct QueueUsage {
    pub name: String,
    /// Every Send, Receive (empty ones and the event source mapping's polls included)
    /// and Delete, each payload counted per 64 KB chunk.
    pub billed_requests: f64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TableUsage {
    pub name: String,
    pub read_units: f64,
    pub write_units: f64,
}

impl Usage {
    /// Rejects what no AWS bill could contain: negative or non-finite quantities, a
    /// function without memory, or more INIT and waiting time than billed time.
    pub fn validate(&self) -> Result<()> {
        if !(self.public_requests.is_finite() && self.public_requests > 0.0) {
            return Err(invalid(format!(
                "`{}`: public_requests must be positive (it divides every per-request figure), got {}",
                self.label, self.public_requests
            )));
        }
        let mut quantities = vec![
            ("api_gateway.http_requests", self.api_gateway.http_requests),
            ("api_gateway.rest_requests", self.api_gateway.rest_requests),
            ("log_bytes", self.log_bytes),
            ("data_transfer_out_bytes", self.data_transfer_out_bytes),
        ];
        for queue in &self.sqs {
            quantities.push(("sqs billed_requests", queue.billed_requests));
        }
        for table in &self.dynamodb {
            quantities.push(("dynamodb read_units", table.read_units));
            quantities.push(("dynamodb write_units", table.write_units));
        }
        for (name, value) in quantities {
            check_quantity(name, value)?;
        }
        self.lambda.iter().try_for_each(FunctionUsage::validate)
    }

    /// Adds another run's usage (same label kept). Functions, queues and tables with
    /// the same name are merged.
    pub fn add(&mut self, other: &Usage) {
        self.public_requests += other.public_requests;
        self.api_gateway.http_requests += other.api_gateway.http_requests;
        self.api_gateway.rest_requests += other.api_gateway.rest_requests;
        self.log_bytes += other.log_bytes;
        self.data_transfer_out_bytes += other.data_transfer_out_bytes;
        for function in &other.lambda {
            match self.lambda.iter_mut().find(|f| {
                f.name == function.name
                    && f.architecture == function.architecture
                    && f.memory_mb == function.memory_mb
                    && f.managed.as_ref().map(|m| &m.instance_type)
                        == function.managed.as_ref().map(|m| &m.instance_type)
            }) {
                Some(mine) => mine.add(function),
                None => self.lambda.push(function.clone()),
            }
        }
        for queue in &other.sqs {
            match self.sqs.iter_mut().find(|q| q.name == queue.name) {
                Some(mine) => mine.billed_requests += queue.billed_requests,
                None => self.sqs.push(queue.clone()),
            }
        }
        for table in &other.dynamodb {
            match self.dynamodb.iter_mut().find(|t| t.name == table.name) {
                Some(mine) => {
                    mine.read_units += table.read_units;
                    mine.write_units += table.write_units;
                }
                None => self.dynamodb.push(table.clone()),
            }
        }
    }
}

impl Usage {
    /// The usage between two snapshots of cumulative counters (`self` taken after
    /// `before`), with this snapshot's label and the given public request count.
    /// Counters that went down mean a reset in between: an error, not a negative bill.
    pub fn since(&self, before: &Usage, public_requests: f64) -> Result<Usage> {
        let mut delta = self.clone();
        delta.public_requests = public_requests;
        let minus = |name: &str, after: f64, before: f64| {
            if after + 1e-9 < before {
                Err(invalid(format!(
                    "{name} went from {before} down to {after}: were the counters reset?"
                )))
            } else {
                Ok((after - before).max(0.0))
            }
        };
        let api = &before.api_gateway;
        delta.api_gateway.http_requests = minus(
            "http_requests",
            self.api_gateway.http_requests,
            api.http_requests,
        )?;
        delta.api_gateway.rest_requests = minus(
            "rest_requests",
            self.api_gateway.rest_requests,
            api.rest_requests,
        )?;
        delta.log_bytes = minus("log_bytes", self.log_bytes, before.log_bytes)?;
        delta.data_transfer_out_bytes = minus(
            "data_transfer_out_bytes",
            self.data_transfer_out_bytes,
            before.data_transfer_out_bytes,
        )?;
        for f in &mut delta.lambda {
            if let Some(b) = before.lambda.iter().find(|b| b.name == f.name) {
                let name = format!("function `{}`", f.name);
                f.invocations = minus(&name, f.invocations, b.invocations)?;
                f.billed_ms_total = minus(&name, f.billed_ms_total, b.billed_ms_total)?;
                f.init_ms_total = minus(&name, f.init_ms_total, b.init_ms_total)?;
                f.waiting_ms_total = minus(&name, f.waiting_ms_total, b.waiting_ms_total)?;
                f.gb_seconds = match (f.gb_seconds, b.gb_seconds) {
                    (Some(after), Some(before)) => Some(minus(&name, after, before)?),
                    _ => None,
                };
                if let (Some(after), Some(before)) = (&mut f.managed, &b.managed) {
                    after.instance_seconds =
                        minus(&name, after.instance_seconds, before.instance_seconds)?;
                }
            }
        }
        for q in &mut delta.sqs {
            if let Some(b) = before.sqs.iter().find(|b| b.name == q.name) {
                q.billed_requests = minus(&q.name, q.billed_requests, b.billed_requests)?;
            }
        }
        for t in &mut delta.dynamodb {
            if let Some(b) = before.dynamodb.iter().find(|b| b.name == t.name) {
                t.read_units = minus(&t.name, t.read_units, b.read_units)?;
                t.write_units = minus(&t.name, t.write_units, b.write_units)?;
            }
        }
        Ok(delta)
    }
}

impl FunctionUsage {
    pub fn add(&mut self, other: &FunctionUsage) {
        if let (Some(mine), Some(theirs)) = (&mut self.managed, &other.managed) {
            mine.instance_seconds += theirs.instance_seconds;
        }
        self.invocations += other.invocations;
        self.billed_ms_total += other.billed_ms_total;
        self.init_ms_total += other.init_ms_total;
        self.waiting_ms_total += other.waiting_ms_total;
        self.gb_seconds = match (self.gb_seconds, other.gb_seconds) {
            (Some(mine), Some(theirs)) => Some(mine + theirs),
            // One side unmetered: both are priced from their billed time.
            _ => None,
        };
    }

    fn validate(&self) -> Result<()> {
        let name = &self.name;
        if !(self.memory_mb.is_finite() && self.memory_mb > 0.0) {
            return Err(invalid(format!(
                "function `{name}`: memory_mb must be positive"
            )));
        }
        for (field, value) in [
            ("invocations", self.invocations),
            ("billed_ms_total", self.billed_ms_total),
            ("init_ms_total", self.init_ms_total),
            ("waiting_ms_total", self.waiting_ms_total),
            ("gb_seconds", self.gb_seconds.unwrap_or(0.0)),
            (
                "managed.instance_seconds",
                self.managed.as_ref().map_or(0.0, |m| m.instance_seconds),
            ),
        ] {
            check_quantity(&format!("function `{name}` {field}"), value)?;
        }
        if self
            .gb_seconds
            .is_some_and(|gb_s| (gb_s > 0.0) != (self.billed_ms_total > 0.0))
        {
            return Err(invalid(format!(
                "function `{name}`: gb_seconds ({}) and billed_ms_total ({}) disagree on whether anything was billed",
                self.gb_seconds.unwrap_or(0.0), self.billed_ms_total
            )));
        }
        // A little slack: INIT comes from fractional log figures, billed time is rounded.
        if self.init_ms_total + self.waiting_ms_total > self.billed_ms_total + 1e-6 {
            return Err(invalid(format!(
                "function `{name}`: init_ms_total ({}) + waiting_ms_total ({}) exceed billed_ms_total ({})",
                self.init_ms_total, self.waiting_ms_total, self.billed_ms_total
            )));
        }
        Ok(())
    }

    /// GB-seconds per billed millisecond: from the metered GB-seconds where
    /// there are some, else those of one millisecond at the memory size.
    pub fn gb_seconds_per_billed_ms(&self) -> f64 {
        match self.gb_seconds {
            Some(gb_seconds) if self.billed_ms_total > 0.0 => gb_seconds / self.billed_ms_total,
            _ => localcloud_metrics::gb_seconds(1.0, self.memory_mb),
        }
    }

    /// Billed milliseconds that were neither INIT nor waiting: the function's own work.
    pub fn working_ms_total(&self) -> f64 {
        (self.billed_ms_total - self.init_ms_total - self.waiting_ms_total).max(0.0)
    }
}

fn check_quantity(name: &str, value: f64) -> Result<()> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(invalid(format!(
            "{name} must be a non-negative number, got {value}"
        )))
    }
}

fn invalid(message: String) -> CostError {
    CostError::InvalidUsage(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn function(billed: f64, init: f64, waiting: f64) -> FunctionUsage {
        FunctionUsage {
            name: "api".into(),
            architecture: "arm64".into(),
            memory_mb: 128.0,
            invocations: 1.0,
            billed_ms_total: billed,
            init_ms_total: init,
            waiting_ms_total: waiting,
            gb_seconds: None,
            managed: None,
        }
    }

    fn usage(functions: Vec<FunctionUsage>) -> Usage {
        Usage {
            label: "t".into(),
            public_requests: 1.0,
            lambda: functions,
            ..Usage::default()
        }
    }

    #[test]
    fn usage_without_public_requests_is_rejected() {
        let error = Usage::default().validate().unwrap_err();
        assert!(error.to_string().contains("public_requests"), "{error}");
    }

    #[test]
    fn init_and_waiting_beyond_billed_time_is_rejected() {
        assert!(usage(vec![function(15.0, 12.9, 2.0)]).validate().is_ok());
        let error = usage(vec![function(15.0, 12.9, 3.0)])
            .validate()
            .unwrap_err();
        assert!(error.to_string().contains("`api`"), "{error}");
    }

    #[test]
    fn negative_or_nan_quantities_are_rejected() {
        let mut bad = usage(vec![]);
        bad.log_bytes = -1.0;
        assert!(bad.validate().is_err());
        let mut nan = usage(vec![function(f64::NAN, 0.0, 0.0)]);
        assert!(nan.validate().is_err());
        nan.lambda[0].billed_ms_total = 1.0;
        nan.lambda[0].memory_mb = 0.0;
        assert!(nan.validate().is_err());
    }

    #[test]
    fn adding_runs_merges_same_function_and_keeps_others_apart() {
        // GIVEN two runs sharing the function `api`
        let mut first = usage(vec![function(2.0, 0.0, 0.0)]);
        let mut other_fn = function(3.0, 0.0, 1.0);
        other_fn.name = "worker".into();
        let second = usage(vec![function(15.0, 12.0, 0.0), other_fn]);
        // WHEN added
        first.add(&second);
        // THEN `api` sums, `worker` is appended, public requests add up
        assert_eq!(first.public_requests, 2.0);
        assert_eq!(first.lambda.len(), 2);
        assert_eq!(first.lambda[0].billed_ms_total, 17.0);
        assert_eq!(first.lambda[0].invocations, 2.0);
        assert_eq!(first.lambda[1].name, "worker");
    }

    #[test]
    fn usage_since_a_snapshot_is_the_difference_of_the_counters() {
        // GIVEN counters before and after a run
        let mut before = usage(vec![function(10.0, 0.0, 0.0)]);
        before.sqs.push(QueueUsage {
            name: "q".into(),
            billed_requests: 5.0,
        });
        let mut after = usage(vec![function(25.0, 12.0, 0.0)]);
        after.lambda[0].invocations = 4.0;
        after.sqs.push(QueueUsage {
            name: "q".into(),
            billed_requests: 20.0,
        });
        // WHEN differenced
        let run = after.since(&before, 3.0).unwrap();
        // THEN only the run remains
        assert_eq!(run.public_requests, 3.0);
        assert_eq!(run.lambda[0].invocations, 3.0);
        assert_eq!(run.lambda[0].billed_ms_total, 15.0);
        assert_eq!(run.lambda[0].init_ms_total, 12.0);
        assert_eq!(run.sqs[0].billed_requests, 15.0);
        // AND counters that went down are an error
        assert!(before.since(&after, 1.0).is_err());
    }

    #[test]
    fn metered_gb_seconds_set_the_rate_and_must_agree_with_billed_time() {
        // GIVEN 2,000 billed ms metered as 0.25 GB-s (128 MB)
        let mut metered = function(2000.0, 0.0, 0.0);
        metered.gb_seconds = Some(0.25);
        // THEN the rate is the metered one, the same as the memory size's
        assert_eq!(metered.gb_seconds_per_billed_ms(), 0.25 / 2000.0);
        assert!((metered.gb_seconds_per_billed_ms() - 128.0 / 1024.0 / 1000.0).abs() < 1e-15);
        assert!(usage(vec![metered.clone()]).validate().is_ok());
        // AND billed time without metered GB-seconds is refused, not priced at zero
        metered.gb_seconds = Some(0.0);
        assert!(usage(vec![metered]).validate().is_err());
    }

    #[test]
    fn working_time_is_billed_time_minus_init_and_waiting() {
        assert_eq!(function(520.0, 13.0, 500.0).working_ms_total(), 7.0);
    }
}
