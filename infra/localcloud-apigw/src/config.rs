//! How one HTTP API is declared: its routes, stage and integration timeout.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::cors::CorsConfig;

/// The stage every HTTP API gets unless told otherwise; it adds no path prefix.
pub const DEFAULT_STAGE: &str = "$default";

/// HTTP APIs cap integrations at 30 s (the default and the maximum).
pub const MAX_INTEGRATION_TIMEOUT: Duration = Duration::from_secs(30);

/// A function URL waits for the longest a function may run, 15 minutes
/// (and a second for the Lambda service to report the timeout).
pub const MAX_FUNCTION_URL_TIMEOUT: Duration = Duration::from_secs(901);

/// One `AWS::Serverless::HttpApi` (or `AWS::ApiGatewayV2::Api`) with Lambda
/// proxy integrations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HttpApiConfig {
    /// Logical id, e.g. `ConduitApi`; also seeds the api id.
    pub name: String,
    #[serde(default = "default_stage")]
    pub stage: String,
    pub routes: Vec<RouteConfig>,
    /// Only "2.0" is emulated.
    #[serde(default = "default_payload_format")]
    pub payload_format: String,
    #[serde(default = "default_timeout", with = "millis")]
    pub timeout: Duration,
    #[serde(default)]
    pub stage_variables: BTreeMap<String, String>,
    /// The id `Ref` gives in the template; derived from `name` when absent.
    #[serde(default)]
    pub api_id: Option<String>,
    /// `CorsConfiguration`: preflights answered by the gateway.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cors: Option<CorsConfig>,
    /// A function URL with `AuthType: AWS_IAM`: unsigned calls get 403.
    #[serde(default)]
    pub iam_auth: bool,
    /// A function URL rather than an HTTP API: it waits as long as the
    /// function may run (up to 15 minutes) instead of 30 s.
    #[serde(default)]
    pub function_url: bool,
}

/// `GET /api/articles/{slug}` -> function; method `ANY` matches every method;
/// path `$default` (with any method) is the catch-all route.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RouteConfig {
    pub method: String,
    pub path: String,
    pub function: String,
    /// The integration's `TimeoutInMillis`; the API's `timeout` when absent.
    #[serde(default, with = "opt_millis", skip_serializing_if = "Option::is_none")]
    pub timeout: Option<Duration>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("HTTP API {api}: payload format {format} is not supported (only 2.0)")]
    PayloadFormat { api: String, format: String },
    #[error("HTTP API {api}: timeout must be between 50 ms and 30 s")]
    Timeout { api: String },
    #[error("HTTP API {api}: invalid route {route}: {reason}")]
    Route {
        api: String,
        route: String,
        reason: String,
    },
    #[error("HTTP API {api}: duplicate route {route}")]
    DuplicateRoute { api: String, route: String },
    #[error("API {api}: stage name `{stage}` must be letters, digits, - or _")]
    Stage { api: String, stage: String },
    #[error("API {api}: throttling rate must not be negative")]
    Throttle { api: String },
}

impl HttpApiConfig {
    pub fn new(name: impl Into<String>, routes: Vec<RouteConfig>) -> Self {
        Self {
            name: name.into(),
            stage: default_stage(),
            routes,
            payload_format: default_payload_format(),
            timeout: default_timeout(),
            stage_variables: BTreeMap::new(),
            api_id: None,
            cors: None,
            iam_auth: false,
            function_url: false,
        }
    }

    /// The configured id, or the ten-character id AWS would assign, derived
    /// from the name so that a restarted local cloud keeps its identity.
    pub fn api_id(&self) -> String {
        match &self.api_id {
            Some(id) => id.clone(),
            None => derive_api_id(&self.name),
        }
    }
}

/// The ten-character id AWS would assign, derived from a name so that a
/// restarted local cloud keeps its identity.
pub fn derive_api_id(name: &str) -> String {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    // FNV-1a: stable across runs and Rust versions, unlike DefaultHasher.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in name.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    (0..10)
        .map(|_| {
            let c = ALPHABET[(hash % 36) as usize] as char;
            hash = (hash / 36) ^ hash.rotate_left(17);
            c
        })
        .collect()
}

impl RouteConfig {
    pub fn new(method: &str, path: &str, function: &str) -> Self {
        Self {
            method: method.to_string(),
            path: path.to_string(),
            function: function.to_string(),
            timeout: None,
        }
    }

    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// The route key as AWS prints it: `GET /pets/{id}` or `$default`.
    pub fn route_key(&self) -> String {
        if self.path == "$default" {
            "$default".to_string()
        } else {
            format!("{} {}", self.method.to_ascii_uppercase(), self.path)
        }
    }
}

fn default_stage() -> String {
    DEFAULT_STAGE.to_string()
}

fn default_payload_format() -> String {
    "2.0".to_string()
}

fn default_timeout() -> Duration {
    MAX_INTEGRATION_TIMEOUT
}

pub(crate) mod millis {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(d.as_millis() as u64)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        u64::deserialize(d).map(Duration::from_millis)
    }
}

mod opt_millis {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
        match d {
            Some(d) => s.serialize_some(&(d.as_millis() as u64)),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
        Option::<u64>::deserialize(d).map(|ms| ms.map(Duration::from_millis))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_ids_are_stable_ten_character_and_distinct_per_name() {
        let a = HttpApiConfig::new("ConduitApi", vec![]);
        let b = HttpApiConfig::new("OrdersApi", vec![]);
        assert_eq!(a.api_id(), a.clone().api_id());
        assert_eq!(a.api_id().len(), 10);
        assert!(a
            .api_id()
            .bytes()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()));
        assert_ne!(a.api_id(), b.api_id());
    }

    #[test]
    fn configured_api_id_wins_over_the_derived_one() {
        let mut config = HttpApiConfig::new("ConduitApi", vec![]);
        config.api_id = Some("abc123defg".into());
        assert_eq!(config.api_id(), "abc123defg");
    }

    #[test]
    fn route_keys_upper_case_the_method_and_keep_default_bare() {
        assert_eq!(
            RouteConfig::new("get", "/api/articles/{slug}", "f").route_key(),
            "GET /api/articles/{slug}"
        );
        assert_eq!(
            RouteConfig::new("ANY", "$default", "f").route_key(),
            "$default"
        );
    }

    #[test]
    fn config_defaults_match_aws() {
        let config: HttpApiConfig = serde_json::from_str(r#"{"name":"Api","routes":[]}"#).unwrap();
        assert_eq!(config.stage, "$default");
        assert_eq!(config.payload_format, "2.0");
        assert_eq!(config.timeout, Duration::from_secs(30));
    }
}
