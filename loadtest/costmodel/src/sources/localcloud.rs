//! The local cloud's metering (`GET /_localcloud/metrics`) into [`Usage`].
//!
//! The input mirrors that document: `lambda` (`LambdaMetrics`, functions by name),
//! `apis` (`ApiMetrics` by logical id), `sqs` (`SqsMetrics`, queues by ARN) and
//! `dynamodb` (`DynamoDbMetrics`, tables by name). Fields we do not price are ignored,
//! missing sections count as zero. Only this file follows the document; [`Usage`] is
//! the contract.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::usage::{FunctionUsage, QueueUsage, TableUsage, Usage};

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct LocalCloudMetering {
    /// HTTP APIs by logical id.
    pub apis: BTreeMap<String, ApiMeter>,
    pub lambda: LambdaMeter,
    pub sqs: SqsMeter,
    pub dynamodb: DynamoDbMeter,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct ApiMeter {
    /// Requests as billed (one per started 512 KB).
    #[serde(alias = "meteredRequests")]
    pub metered_requests: f64,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct LambdaMeter {
    pub functions: BTreeMap<String, FunctionMeter>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct FunctionMeter {
    pub architecture: String,
    pub memory_mb: f64,
    pub invocations: f64,
    /// `ceil(duration + init)` per invocation, summed.
    pub billed_ms: f64,
    pub init_ms: f64,
    /// Time spent waiting on callees or replies, when the emulator can tell.
    pub waiting_ms: f64,
    /// Bytes the function's invocations wrote to the log (with START/END/REPORT).
    pub log_bytes: f64,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct SqsMeter {
    /// Calls that named no existing queue; billed all the same.
    pub unattributed_requests: f64,
    /// By queue ARN (or name).
    pub queues: BTreeMap<String, QueueMeter>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct QueueMeter {
    pub billed_requests: f64,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct DynamoDbMeter {
    pub tables: BTreeMap<String, TableMeter>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct TableMeter {
    pub read_units: f64,
    pub write_units: f64,
}

impl LocalCloudMetering {
    /// `public_requests` comes from the load generator: the emulator cannot tell a
    /// client's request from an internal one.
    pub fn into_usage(self, label: &str, public_requests: f64) -> Usage {
        let lambda = self
            .lambda
            .functions
            .iter()
            .map(|(name, f)| FunctionUsage {
                name: name.clone(),
                architecture: f.architecture.clone(),
                memory_mb: f.memory_mb,
                invocations: f.invocations,
                billed_ms_total: f.billed_ms,
                init_ms_total: f.init_ms,
                waiting_ms_total: f.waiting_ms,
            })
            .collect();
        let mut sqs: Vec<QueueUsage> = self
            .sqs
            .queues
            .iter()
            .map(|(arn, q)| QueueUsage {
                name: queue_name(arn).to_string(),
                billed_requests: q.billed_requests,
            })
            .collect();
        if self.sqs.unattributed_requests > 0.0 {
            sqs.push(QueueUsage {
                name: "(no queue)".into(),
                billed_requests: self.sqs.unattributed_requests,
            });
        }
        let dynamodb = self
            .dynamodb
            .tables
            .into_iter()
            .map(|(name, t)| TableUsage {
                name,
                read_units: t.read_units,
                write_units: t.write_units,
            })
            .collect();
        let mut usage = Usage {
            label: label.to_string(),
            public_requests,
            lambda,
            sqs,
            dynamodb,
            log_bytes: self.lambda.functions.values().map(|f| f.log_bytes).sum(),
            ..Usage::default()
        };
        usage.api_gateway.http_requests = self.apis.values().map(|a| a.metered_requests).sum();
        usage
    }
}

/// `arn:aws:sqs:us-east-1:000000000000:orders` -> `orders`.
fn queue_name(arn_or_name: &str) -> &str {
    arn_or_name.rsplit(':').next().unwrap_or(arn_or_name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_document_becomes_usage() {
        // GIVEN a metrics document as the emulator's crates serialise their counters
        let json = r#"{
          "apis": {"ConduitApi": {"api": "ConduitApi", "apiId": "abc", "requests": 1000, "meteredRequests": 1002}},
          "eventSourceMappings": [], "process": {"cpu_ms": 1234},
          "lambda": {"account_concurrency_limit": 1000, "functions": {
            "conduit": {"memory_mb": 128, "architecture": "arm64", "invocations": 1000,
                        "errors": 0, "cold_starts": 2, "duration_ms": 1800.5,
                        "billed_ms": 2031, "init_ms": 26.1, "gb_seconds": 0.25}}},
          "sqs": {"billed_requests": 31, "unattributed_requests": 1, "queues": {
            "arn:aws:sqs:us-east-1:000000000000:orders": {"exists": true, "billed_requests": 30}}},
          "dynamodb": {"tables": {"articles": {"read_units": 750.5, "write_units": 12}}}
        }"#;
        // WHEN converted
        let metering: LocalCloudMetering = serde_json::from_str(json).unwrap();
        let usage = metering.into_usage("monolith", 1000.0);
        // THEN every billed counter lands in the Usage contract
        assert_eq!(usage.api_gateway.http_requests, 1002.0);
        let f = &usage.lambda[0];
        assert_eq!(
            (f.name.as_str(), f.architecture.as_str(), f.memory_mb),
            ("conduit", "arm64", 128.0)
        );
        assert_eq!(
            (f.invocations, f.billed_ms_total, f.init_ms_total),
            (1000.0, 2031.0, 26.1)
        );
        assert_eq!(usage.sqs[0].name, "orders");
        assert_eq!(usage.sqs[0].billed_requests, 30.0);
        assert_eq!(usage.sqs[1].billed_requests, 1.0);
        assert_eq!(usage.dynamodb[0].read_units, 750.5);
        assert_eq!(usage.public_requests, 1000.0);
        assert!(usage.validate().is_ok());
    }

    #[test]
    fn missing_sections_count_as_zero() {
        let metering: LocalCloudMetering = serde_json::from_str("{}").unwrap();
        let usage = metering.into_usage("empty", 1.0);
        assert!(usage.lambda.is_empty() && usage.sqs.is_empty());
        assert_eq!(usage.api_gateway.http_requests, 0.0);
    }

    #[test]
    fn wrong_types_are_rejected_not_guessed() {
        let bad = r#"{"lambda": {"functions": {"f": {"billed_ms": "lots"}}}}"#;
        assert!(serde_json::from_str::<LocalCloudMetering>(bad).is_err());
    }
}
