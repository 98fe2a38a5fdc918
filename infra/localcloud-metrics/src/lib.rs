//! The metrics contract: the document behind `GET /_localcloud/metrics`,
//! defined once. The local cloud's services fill in their sections, the admin
//! endpoint serialises [`MetricsDocument`], the bench and the cost model read it.
//!
//! One casing (snake_case), one version ([`VERSION`]); every field is required
//! and an unknown field is an error: a reader never prices a zero it did not
//! meter. Change a field, bump [`VERSION`].

pub mod api;
pub mod dynamodb;
pub mod esm;
pub mod lambda;
pub mod sqs;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use api::{ApiKind, ApiMetrics, ApiOutcome};
pub use dynamodb::{DynamoDbMetrics, TableMetrics};
pub use esm::EsmMetrics;
pub use lambda::{Architecture, CpuShareMetrics, CpuShareMode, FunctionMetrics, LambdaMetrics};
pub use sqs::{QueueMetrics, SqsMetrics};

/// Version of the document's shape; readers refuse any other.
/// 3: every API says its `kind` (HTTP API, REST API, function URL).
/// 4: every function says its named threads' CPU (`thread_cpu_ms`).
/// 5: the CPU share (`lambda.cpu_share`; per function `cpu_share_vcpus`,
/// `throttled_ms`, `run_queue_wait_ms`, `modeled_cpu_ms`).
pub const VERSION: u32 = 5;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricsDocument {
    pub version: u32,
    pub process: ProcessMetrics,
    pub dynamodb: DynamoDbMetrics,
    pub sqs: SqsMetrics,
    /// Empty when no application (template) is running.
    pub lambda: LambdaMetrics,
    /// HTTP APIs, REST APIs and function URLs (`{Function}Url`) by logical id,
    /// each with its [`ApiKind`].
    pub apis: BTreeMap<String, ApiMetrics>,
    pub event_source_mappings: Vec<EsmMetrics>,
}

/// The emulator's own CPU time (`None` where the OS does not tell).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProcessMetrics {
    // `deserialize_with` makes the fields required: `null`, never absent.
    #[serde(deserialize_with = "Option::deserialize")]
    pub cpu_user_seconds: Option<f64>,
    #[serde(deserialize_with = "Option::deserialize")]
    pub cpu_system_seconds: Option<f64>,
}

#[derive(Debug, thiserror::Error)]
pub enum MetricsError {
    #[error("the metrics document is version {found}, this reader understands version {VERSION}")]
    Version { found: u64 },
    #[error("not a metrics document (version {VERSION}): {0}")]
    Shape(#[from] serde_json::Error),
}

impl MetricsDocument {
    /// A document with every section empty, at this [`VERSION`].
    pub fn new() -> Self {
        Self {
            version: VERSION,
            ..Self::default()
        }
    }

    /// Parses and checks the version first, so that an older or newer
    /// document is named as such rather than as a missing field.
    pub fn from_json(text: &str) -> Result<Self, MetricsError> {
        Self::from_value(serde_json::from_str(text)?)
    }

    pub fn from_value(value: serde_json::Value) -> Result<Self, MetricsError> {
        let found = value.get("version").and_then(serde_json::Value::as_u64);
        match found {
            Some(v) if v == u64::from(VERSION) => Ok(serde_json::from_value(value)?),
            Some(v) => Err(MetricsError::Version { found: v }),
            None => Err(MetricsError::Version { found: 0 }),
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("the metrics document always serialises")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_document_round_trips() {
        let doc = MetricsDocument::new();
        assert_eq!(MetricsDocument::from_json(&doc.to_json()).unwrap(), doc);
    }

    #[test]
    fn a_functions_thread_cpu_round_trips_and_is_required() {
        // GIVEN a function whose argon2 thread used part of its CPU
        let mut doc = MetricsDocument::new();
        let function = FunctionMetrics {
            cpu_ms: 120.0,
            thread_cpu_ms: [
                ("argon2".to_string(), 80.0),
                ("tokio-runtime-w".to_string(), 30.0),
            ]
            .into(),
            ..FunctionMetrics::default()
        };
        doc.lambda.functions.insert("monolith".into(), function);
        // WHEN serialised, THEN the threads are by name and read back
        let mut value = serde_json::to_value(&doc).unwrap();
        let threads = &value["lambda"]["functions"]["monolith"]["thread_cpu_ms"];
        assert_eq!(threads["argon2"], 80.0);
        assert_eq!(MetricsDocument::from_value(value.clone()).unwrap(), doc);
        // AND a function without the field (an older document) is refused
        value["lambda"]["functions"]["monolith"]
            .as_object_mut()
            .unwrap()
            .remove("thread_cpu_ms");
        let err = MetricsDocument::from_value(value).unwrap_err();
        assert!(err.to_string().contains("thread_cpu_ms"), "{err}");
    }

    #[test]
    fn another_version_is_named_as_such() {
        let err = MetricsDocument::from_json(r#"{"version": 1}"#).unwrap_err();
        assert!(err.to_string().contains("version 1"), "{err}");
        let err = MetricsDocument::from_json("{}").unwrap_err();
        assert!(matches!(err, MetricsError::Version { found: 0 }));
    }

    #[test]
    fn a_missing_field_is_an_error_not_a_zero() {
        let mut value = serde_json::to_value(MetricsDocument::new()).unwrap();
        value.as_object_mut().unwrap().remove("sqs");
        let err = MetricsDocument::from_value(value).unwrap_err();
        assert!(err.to_string().contains("sqs"), "{err}");
    }

    #[test]
    fn an_unknown_cpu_is_null_not_absent() {
        let mut value = serde_json::to_value(MetricsDocument::new()).unwrap();
        assert!(MetricsDocument::from_value(value.clone()).is_ok());
        value["process"] = serde_json::json!({"cpu_user_seconds": 1.0});
        let err = MetricsDocument::from_value(value).unwrap_err();
        assert!(err.to_string().contains("cpu_system_seconds"), "{err}");
    }

    #[test]
    fn every_api_says_its_kind_and_one_without_is_refused() {
        // GIVEN a document with a REST API
        let mut doc = MetricsDocument::new();
        let rest = ApiMetrics::new(ApiKind::Rest, "OrdersDirectApi", "abc");
        doc.apis.insert("OrdersDirectApi".into(), rest);
        // WHEN serialised, THEN its kind is spelt out and read back
        let mut value = serde_json::to_value(&doc).unwrap();
        assert_eq!(value["apis"]["OrdersDirectApi"]["kind"], "rest");
        assert_eq!(MetricsDocument::from_value(value.clone()).unwrap(), doc);
        // AND a reader refuses an API that does not say its kind (an older
        // document would otherwise price a REST API at the HTTP price)
        value["apis"]["OrdersDirectApi"]
            .as_object_mut()
            .unwrap()
            .remove("kind");
        let err = MetricsDocument::from_value(value).unwrap_err();
        assert!(err.to_string().contains("kind"), "{err}");
        assert_eq!(ApiKind::FunctionUrl.to_string(), "function_url");
    }

    #[test]
    fn an_unknown_field_is_an_error() {
        let mut value = serde_json::to_value(MetricsDocument::new()).unwrap();
        value["lambda"]["log_bytes"] = 5.into();
        let err = MetricsDocument::from_value(value).unwrap_err();
        assert!(err.to_string().contains("log_bytes"), "{err}");
    }
}
