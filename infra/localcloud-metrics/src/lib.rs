//! The metrics contract: the document behind `GET /_localcloud/metrics`,
//! defined once. The local cloud's services fill in their sections, the admin
//! endpoint serialises [`MetricsDocument`], the bench and the cost model read it.
//! Beside it, [`iam`]: the document behind `GET /_localcloud/iam`.
//!
//! One casing (snake_case), one version ([`VERSION`]); every field is required
//! and an unknown field is an error: a reader never prices a zero it did not
//! meter. Change a field, bump [`VERSION`].

mod fields;

pub mod api;
pub mod dynamodb;
pub mod esm;
pub mod iam;
pub mod instances;
pub mod lambda;
pub mod sqs;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use fields::field_names;

pub use api::{ApiKind, ApiMetrics, ApiOutcome};
pub use dynamodb::{DynamoDbMetrics, TableMetrics};
pub use esm::EsmMetrics;
pub use lambda::{
    gb_seconds, Architecture, CapacityProviderMetrics, CpuShareMetrics, CpuShareMode,
    FunctionMetrics, LambdaMetrics,
};
pub use sqs::{QueueMetrics, SqsMetrics};

/// Version of the document's shape; readers refuse any other.
/// 3: every API says its `kind` (HTTP API, REST API, function URL).
/// 4: every function says its named threads' CPU (`thread_cpu_ms`).
/// 5: the CPU share (`lambda.cpu_share`; per function `cpu_share_vcpus`,
/// `throttled_ms`, `run_queue_wait_ms`, `modeled_cpu_ms`).
/// 6: Lambda Managed Instances' fleets (`lambda.capacity_providers`).
/// 7: each function's capacity provider and its part of the instances
/// (`capacity_provider`, `instance_seconds`).
/// 8: each managed function's environment settings (`max_concurrency`,
/// `memory_gib_per_vcpu`).
pub const VERSION: u32 = 8;

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

/// Fields that hold a level or a setting (a memory size, a concurrency
/// limit, a queue's depth, a name), each type's list by its name in any
/// section. Every other number of the document is a running total, so the
/// difference of two documents (the bench's metering of one run) keeps the
/// later value of these and subtracts the rest.
pub const GAUGES: [&[&str]; 7] = [
    MetricsDocument::GAUGES,
    LambdaMetrics::GAUGES,
    FunctionMetrics::GAUGES,
    CapacityProviderMetrics::GAUGES,
    QueueMetrics::GAUGES,
    EsmMetrics::GAUGES,
    ApiMetrics::GAUGES,
];

/// Whether a field of that name, in any section, is one of the [`GAUGES`].
pub fn is_gauge(field: &str) -> bool {
    GAUGES.iter().any(|fields| fields.contains(&field))
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
    /// Its level fields (see [`is_gauge`]).
    pub const GAUGES: &'static [&'static str] = field_names!(MetricsDocument { version });

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
    fn gb_seconds_are_seconds_times_gigabytes_of_1024_mb() {
        // AWS's example: 3M invocations of 1 s at 512 MB are 1,500,000 GB-s.
        assert_eq!(gb_seconds(3_000_000.0 * 1000.0, 512.0), 1_500_000.0);
        assert_eq!(gb_seconds(2031.0, 128.0), 2031.0 * 128.0 / 1024.0 / 1000.0);
        assert_eq!(gb_seconds(0.0, 1769.0), 0.0);
    }

    #[test]
    fn an_empty_document_round_trips() {
        let doc = MetricsDocument::new();
        assert_eq!(MetricsDocument::from_json(&doc.to_json()).unwrap(), doc);
    }

    #[test]
    fn a_functions_capacity_provider_is_required_and_null_on_demand() {
        // GIVEN a function on a capacity provider with its part of the instances
        let mut doc = MetricsDocument::new();
        let function = FunctionMetrics {
            capacity_provider: Some("fleet".into()),
            instance_seconds: 42.5,
            ..FunctionMetrics::default()
        };
        doc.lambda.functions.insert("f".into(), function);
        doc.lambda
            .functions
            .insert("g".into(), FunctionMetrics::default());
        // WHEN serialised, THEN it reads back, the on-demand one as null
        let mut value = serde_json::to_value(&doc).unwrap();
        assert_eq!(
            value["lambda"]["functions"]["g"]["capacity_provider"],
            serde_json::Value::Null
        );
        assert_eq!(MetricsDocument::from_value(value.clone()).unwrap(), doc);
        // AND a document without the field (version 6's shape) is refused
        value["lambda"]["functions"]["g"]
            .as_object_mut()
            .unwrap()
            .remove("capacity_provider");
        let err = MetricsDocument::from_value(value).unwrap_err();
        assert!(err.to_string().contains("capacity_provider"), "{err}");
    }

    #[test]
    fn a_managed_functions_environment_settings_are_gauges_required_and_null_on_demand() {
        // GIVEN a function on a capacity provider serving 64 at once per
        // environment of 2 GiB per vCPU, and an on-demand one
        let mut doc = MetricsDocument::new();
        let function = FunctionMetrics {
            capacity_provider: Some("fleet".into()),
            max_concurrency: Some(64),
            memory_gib_per_vcpu: Some(2.0),
            ..FunctionMetrics::default()
        };
        doc.lambda.functions.insert("f".into(), function);
        doc.lambda
            .functions
            .insert("g".into(), FunctionMetrics::default());
        // WHEN serialised, THEN they read back, the on-demand one's as null
        let mut value = serde_json::to_value(&doc).unwrap();
        assert_eq!(value["lambda"]["functions"]["f"]["max_concurrency"], 64);
        assert_eq!(
            value["lambda"]["functions"]["g"]["max_concurrency"],
            serde_json::Value::Null
        );
        assert_eq!(MetricsDocument::from_value(value.clone()).unwrap(), doc);
        // AND they are settings: a run's delta keeps them, not 0
        assert!(is_gauge("max_concurrency") && is_gauge("memory_gib_per_vcpu"));
        // AND a function without them (version 7's shape) is refused
        value["lambda"]["functions"]["f"]
            .as_object_mut()
            .unwrap()
            .remove("max_concurrency");
        let err = MetricsDocument::from_value(value).unwrap_err();
        assert!(err.to_string().contains("max_concurrency"), "{err}");
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
    fn a_capacity_providers_fleet_round_trips_with_its_levels_as_gauges() {
        // GIVEN a fleet of four instances that ran for 100 s
        let mut doc = MetricsDocument::new();
        let fleet = CapacityProviderMetrics {
            instance_type: "c7g.large".into(),
            instance_vcpus: 2,
            instances: 4,
            peak_instances: 5,
            instance_seconds: 400.0,
            environments: 7,
            vcpus_allocated: 7.0,
            scaling_refusals: 2,
        };
        doc.lambda.capacity_providers.insert("fleet".into(), fleet);
        // WHEN serialised, THEN it reads back by provider name
        let value = serde_json::to_value(&doc).unwrap();
        assert_eq!(
            value["lambda"]["capacity_providers"]["fleet"]["instances"],
            4
        );
        assert_eq!(MetricsDocument::from_value(value).unwrap(), doc);
        // AND its levels are gauges, its totals are not
        for level in [
            "instances",
            "peak_instances",
            "environments",
            "vcpus_allocated",
        ] {
            assert!(is_gauge(level), "{level}");
        }
        assert!(!is_gauge("instance_seconds") && !is_gauge("scaling_refusals"));
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
    fn every_gauge_is_a_key_of_its_section_in_the_json() {
        // GIVEN a document with one of each entry
        let mut doc = MetricsDocument::new();
        doc.lambda
            .functions
            .insert("f".into(), FunctionMetrics::default());
        doc.lambda
            .capacity_providers
            .insert("p".into(), CapacityProviderMetrics::default());
        doc.sqs.queues.insert("q".into(), QueueMetrics::default());
        doc.event_source_mappings.push(EsmMetrics::new("f", "q"));
        doc.apis
            .insert("a".into(), ApiMetrics::new(ApiKind::Http, "a", "id"));
        let value = serde_json::to_value(&doc).unwrap();
        // WHEN each type's gauges are looked up in its section
        let sections = [
            (&value, MetricsDocument::GAUGES),
            (&value["lambda"], LambdaMetrics::GAUGES),
            (&value["lambda"]["functions"]["f"], FunctionMetrics::GAUGES),
            (
                &value["lambda"]["capacity_providers"]["p"],
                CapacityProviderMetrics::GAUGES,
            ),
            (&value["sqs"]["queues"]["q"], QueueMetrics::GAUGES),
            (&value["event_source_mappings"][0], EsmMetrics::GAUGES),
            (&value["apis"]["a"], ApiMetrics::GAUGES),
        ];
        // THEN every one is there under that name (a serde rename would not be)
        for (section, gauges) in sections {
            for gauge in gauges {
                assert!(section.get(gauge).is_some(), "{gauge} in {section}");
                assert!(is_gauge(gauge));
            }
        }
        assert_eq!(sections.len(), GAUGES.len());
        assert!(!is_gauge("invocations") && !is_gauge("billed_ms"));
    }

    #[test]
    fn an_unknown_field_is_an_error() {
        let mut value = serde_json::to_value(MetricsDocument::new()).unwrap();
        value["lambda"]["log_bytes"] = 5.into();
        let err = MetricsDocument::from_value(value).unwrap_err();
        assert!(err.to_string().contains("log_bytes"), "{err}");
    }
}
