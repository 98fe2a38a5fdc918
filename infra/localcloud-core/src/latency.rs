//! The latency profile: per-call latency injected before a service handles a
//! request, so that billed durations measured locally approximate AWS, where
//! every DynamoDB, SQS or Invoke call crosses a network. Off by default.
//!
//! A profile is JSON: service -> operation (or `*`) -> `{"p50_ms", "p99_ms"}`:
//!
//! ```json
//! {"dynamodb": {"GetItem": {"p50_ms": 3.0, "p99_ms": 8.0}, "*": {"p50_ms": 4.0, "p99_ms": 12.0}},
//!  "sqs": {"*": {"p50_ms": 5.0, "p99_ms": 15.0}},
//!  "lambda": {"Invoke": {"p50_ms": 12.0, "p99_ms": 35.0}}}
//! ```
//!
//! Keys starting with `_` are comments. Each call's delay is drawn from the log-normal distribution with that
//! median and 99th percentile (latencies are right-skewed; p99 = p50 gives a
//! constant delay).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde::Deserialize;

/// z-score of the 99th percentile of the standard normal distribution.
const Z99: f64 = 2.326_347_874;

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct Percentiles {
    pub p50_ms: f64,
    pub p99_ms: f64,
}

#[derive(Debug, Default)]
pub struct LatencyProfile {
    services: BTreeMap<String, BTreeMap<String, Percentiles>>,
    rng: AtomicU64,
}

#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    #[error(
        "latency profile is not valid JSON of service -> operation -> {{p50_ms, p99_ms}}: {0}"
    )]
    Format(#[from] serde_json::Error),
    #[error("latency profile {service}.{operation}: need 0 <= p50_ms <= p99_ms, got p50 {p50} and p99 {p99}")]
    Range {
        service: String,
        operation: String,
        p50: f64,
        p99: f64,
    },
}

impl LatencyProfile {
    pub fn from_json(text: &str) -> Result<Self, ProfileError> {
        // Keys starting with `_` are comments (sources, dates), at either level.
        let raw: BTreeMap<String, serde_json::Value> = serde_json::from_str(text)?;
        let mut services: BTreeMap<String, BTreeMap<String, Percentiles>> = BTreeMap::new();
        for (service, operations) in raw.into_iter().filter(|(k, _)| !k.starts_with('_')) {
            let operations: BTreeMap<String, serde_json::Value> =
                serde_json::from_value(operations)?;
            let mut parsed = BTreeMap::new();
            for (operation, p) in operations.into_iter().filter(|(k, _)| !k.starts_with('_')) {
                parsed.insert(operation, serde_json::from_value::<Percentiles>(p)?);
            }
            services.insert(service, parsed);
        }
        for (service, operations) in &services {
            for (operation, p) in operations {
                let valid = p.p50_ms.is_finite()
                    && p.p99_ms.is_finite()
                    && 0.0 <= p.p50_ms
                    && p.p50_ms <= p.p99_ms;
                if !valid {
                    return Err(ProfileError::Range {
                        service: service.clone(),
                        operation: operation.clone(),
                        p50: p.p50_ms,
                        p99: p.p99_ms,
                    });
                }
            }
        }
        Ok(Self {
            services,
            rng: AtomicU64::new(0x853c_49e6_748f_ea9b),
        })
    }

    /// The percentiles for one call: the operation's own, else the service's `*`.
    pub fn percentiles(&self, service: &str, operation: &str) -> Option<Percentiles> {
        let operations = self.services.get(service)?;
        operations
            .get(operation)
            .or_else(|| operations.get("*"))
            .copied()
    }

    /// A delay for one call, or `None` when the profile says nothing of it.
    pub fn sample(&self, service: &str, operation: &str) -> Option<Duration> {
        let p = self.percentiles(service, operation)?;
        if p.p50_ms <= 0.0 {
            return Some(Duration::ZERO);
        }
        let sigma = (p.p99_ms / p.p50_ms).ln() / Z99;
        let ms = p.p50_ms * (sigma * self.standard_normal()).exp();
        Some(Duration::from_secs_f64(ms / 1000.0))
    }

    /// Box-Muller over a splitmix64 stream: no dependency, good enough for delays.
    fn standard_normal(&self) -> f64 {
        let u1 = self.uniform().max(f64::MIN_POSITIVE);
        let u2 = self.uniform();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    fn uniform(&self) -> f64 {
        let mut z = self.rng.fetch_add(0x9e37_79b9_7f4a_7c15, Ordering::Relaxed);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operation_rules_win_over_the_service_default_and_unknown_services_get_none() {
        let profile = LatencyProfile::from_json(
            r#"{"dynamodb": {"GetItem": {"p50_ms": 3, "p99_ms": 8}, "*": {"p50_ms": 4, "p99_ms": 12}}}"#,
        )
        .unwrap();
        assert_eq!(
            profile.percentiles("dynamodb", "GetItem").unwrap().p50_ms,
            3.0
        );
        assert_eq!(
            profile.percentiles("dynamodb", "Query").unwrap().p50_ms,
            4.0
        );
        assert!(profile.sample("sqs", "SendMessage").is_none());
    }

    #[test]
    fn samples_have_the_profiles_median_and_99th_percentile() {
        let profile =
            LatencyProfile::from_json(r#"{"sqs": {"*": {"p50_ms": 5, "p99_ms": 20}}}"#).unwrap();
        let mut ms: Vec<f64> = (0..20_000)
            .map(|_| profile.sample("sqs", "SendMessage").unwrap().as_secs_f64() * 1000.0)
            .collect();
        ms.sort_by(f64::total_cmp);
        let p50 = ms[ms.len() / 2];
        let p99 = ms[ms.len() * 99 / 100];
        assert!((4.6..5.4).contains(&p50), "p50 {p50}");
        assert!((17.0..23.0).contains(&p99), "p99 {p99}");
    }

    #[test]
    fn equal_percentiles_give_a_constant_delay() {
        let profile =
            LatencyProfile::from_json(r#"{"lambda": {"Invoke": {"p50_ms": 7, "p99_ms": 7}}}"#)
                .unwrap();
        for _ in 0..100 {
            let d = profile.sample("lambda", "Invoke").unwrap();
            assert!((d.as_secs_f64() * 1000.0 - 7.0).abs() < 1e-6, "{d:?}");
        }
    }

    #[test]
    fn every_figure_of_the_shipped_profile_names_its_source() {
        // GIVEN the profile the bench injects by default, with its `_sources` comment
        let text = include_str!("../../localcloud/profiles/aws-us-east-1.json");
        let profile = LatencyProfile::from_json(text).expect("the shipped profile parses");
        let raw: serde_json::Value = serde_json::from_str(text).unwrap();
        let sources = raw["_sources"].as_object().expect("a _sources object");
        // THEN each injected figure has an entry with its value, source and date
        for (service, operations) in &profile.services {
            for operation in operations.keys() {
                let key = format!("{service}.{operation}");
                let entry = sources
                    .get(&key)
                    .unwrap_or_else(|| panic!("{key}: no source"));
                for field in ["value", "source", "date"] {
                    let said = entry[field].as_str().unwrap_or_default();
                    assert!(!said.is_empty(), "{key}: no {field}");
                }
            }
        }
        // AND the measured medians are the sources' (shinyaz.com, Mar 2026)
        for (operation, median) in [
            ("GetItem", 2.9),
            ("PutItem", 3.6),
            ("Query", 2.6),
            ("BatchWriteItem", 6.0),
        ] {
            let p = profile.percentiles("dynamodb", operation).unwrap();
            assert_eq!(p.p50_ms, median, "{operation}");
        }
    }

    #[test]
    fn bad_profiles_are_rejected_with_the_place_named() {
        let err =
            LatencyProfile::from_json(r#"{"dynamodb": {"GetItem": {"p50_ms": 9, "p99_ms": 3}}}"#)
                .unwrap_err();
        assert!(err.to_string().contains("dynamodb.GetItem"), "{err}");
        assert!(LatencyProfile::from_json("[1, 2]").is_err());
        assert!(LatencyProfile::from_json(r#"{"sqs": {"*": {"p50_ms": 1}}}"#).is_err());
        let commented =
            r#"{"_source": "a note", "sqs": {"_why": "x", "*": {"p50_ms": 1, "p99_ms": 2}}}"#;
        assert!(LatencyProfile::from_json(commented)
            .unwrap()
            .sample("sqs", "X")
            .is_some());
    }
}
