//! How one REST API (API Gateway v1) with Lambda proxy integrations is
//! declared: its resources and methods, stage, binary media types, CORS and
//! throttling.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::config::{derive_api_id, ConfigError, RouteConfig};
use crate::rest::cors::RestCors;

/// REST APIs cap integrations at 29 s (the default and, without a quota
/// increase, the maximum), with a 50 ms minimum:
/// <https://docs.aws.amazon.com/apigateway/latest/developerguide/limits.html>.
pub const MAX_REST_INTEGRATION_TIMEOUT: Duration = Duration::from_secs(29);

/// The stage SAM gives the implicit `ServerlessRestApi`.
pub const IMPLICIT_STAGE: &str = "Prod";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RestApiConfig {
    /// Logical id, e.g. `ServerlessRestApi`; also seeds the api id.
    pub name: String,
    /// Every REST API call names its stage first: `/{stage}/pets`.
    pub stage: String,
    /// Resources and methods; `ANY` matches every method, `{proxy+}` the
    /// rest of the path. There is no `$default` route in REST APIs.
    pub routes: Vec<RouteConfig>,
    #[serde(default = "default_timeout", with = "crate::config::millis")]
    pub timeout: Duration,
    #[serde(default)]
    pub stage_variables: BTreeMap<String, String>,
    #[serde(default)]
    pub api_id: Option<String>,
    /// `BinaryMediaTypes`: `image/png`, `image/*`, `*/*`.
    #[serde(default)]
    pub binary_media_types: Vec<String>,
    /// SAM's `Cors`: an `OPTIONS` method on every resource.
    #[serde(default)]
    pub cors: Option<RestCors>,
    #[serde(default)]
    pub throttle: Throttle,
}

/// Stage throttling (`MethodSettings` `ThrottlingRateLimit` and
/// `ThrottlingBurstLimit`); by default the account level of 10,000 requests
/// per second with a burst of 5,000:
/// <https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-request-throttling.html>.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Throttle {
    pub rate_limit: f64,
    pub burst_limit: u32,
}

impl Default for Throttle {
    fn default() -> Self {
        Self {
            rate_limit: 10_000.0,
            burst_limit: 5_000,
        }
    }
}

impl RestApiConfig {
    pub fn new(name: impl Into<String>, stage: &str, routes: Vec<RouteConfig>) -> Self {
        Self {
            name: name.into(),
            stage: stage.to_string(),
            routes,
            timeout: default_timeout(),
            stage_variables: BTreeMap::new(),
            api_id: None,
            binary_media_types: Vec::new(),
            cors: None,
            throttle: Throttle::default(),
        }
    }

    pub fn api_id(&self) -> String {
        match &self.api_id {
            Some(id) => id.clone(),
            None => derive_api_id(&self.name),
        }
    }

    /// What AWS rejects when the API is created or deployed.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let invalid = |route: &RouteConfig, reason: &str| ConfigError::Route {
            api: self.name.clone(),
            route: route.route_key(),
            reason: reason.to_string(),
        };
        let stage_ok = !self.stage.is_empty()
            && self
                .stage
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !stage_ok {
            return Err(ConfigError::Stage {
                api: self.name.clone(),
                stage: self.stage.clone(),
            });
        }
        let timeouts =
            std::iter::once(self.timeout).chain(self.routes.iter().filter_map(|r| r.timeout));
        for timeout in timeouts {
            if timeout < Duration::from_millis(50) || timeout > MAX_REST_INTEGRATION_TIMEOUT {
                return Err(ConfigError::Timeout {
                    api: self.name.clone(),
                });
            }
        }
        if let Some(route) = self.routes.iter().find(|r| r.path == "$default") {
            return Err(invalid(route, "REST APIs have no $default route"));
        }
        if self.throttle.rate_limit < 0.0 {
            return Err(ConfigError::Throttle {
                api: self.name.clone(),
            });
        }
        Ok(())
    }
}

fn default_timeout() -> Duration {
    MAX_REST_INTEGRATION_TIMEOUT
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_aws_limits() {
        let config = RestApiConfig::new("Api", "Prod", vec![]);
        assert_eq!(config.timeout, Duration::from_secs(29));
        assert_eq!(config.throttle.burst_limit, 5_000);
        assert_eq!(config.api_id().len(), 10);
        assert!(config.validate().is_ok());
    }

    #[test]
    fn invalid_stage_timeout_and_default_route_are_rejected() {
        let mut config = RestApiConfig::new("Api", "Pro d", vec![]);
        assert!(config.validate().is_err());
        config.stage = "Prod".into();
        config.timeout = Duration::from_secs(30);
        assert!(config.validate().is_err());
        config.timeout = Duration::from_secs(29);
        config.routes = vec![RouteConfig::new("ANY", "$default", "f")];
        assert!(config.validate().is_err());
    }
}
