//! API Gateway and function URLs: what one API puts on the bill, and why
//! requests failed.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::fields::field_names;

/// Which front door an API is: it decides the price of its requests.
/// <https://aws.amazon.com/api-gateway/pricing/>: HTTP APIs per million
/// requests (metered per 512 KB), REST APIs per million requests at about
/// 3.5 times that; <https://aws.amazon.com/lambda/pricing/>: function URLs
/// have no charge of their own (the function's invocations are billed).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum ApiKind {
    /// API Gateway v2 HTTP API (payload 2.0).
    #[default]
    Http,
    /// API Gateway v1 REST API (payload 1.0), its stage in the URL path.
    Rest,
    /// A Lambda function URL.
    FunctionUrl,
}

impl ApiKind {
    /// As the metrics document and `results.json` spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Http => "http",
            Self::Rest => "rest",
            Self::FunctionUrl => "function_url",
        }
    }
}

impl std::fmt::Display for ApiKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApiMetrics {
    pub kind: ApiKind,
    pub api: String,
    pub api_id: String,
    /// Requests received, whatever their outcome (AWS bills 4xx/5xx too,
    /// except authorizer and throttling rejections, which we do not emulate).
    pub requests: u64,
    /// Requests as billed: HTTP APIs one per started 512 KB of request body,
    /// REST APIs one per request; function URLs count them, unpriced.
    pub metered_requests: u64,
    pub request_bytes: u64,
    /// Response bodies only.
    pub response_bytes: u64,
    /// Responses as they leave AWS for the internet: status line, headers
    /// and body (priced as data transfer out).
    pub data_transfer_out_bytes: u64,
    /// Lambda invocations attempted (throttled ones included).
    pub invocations: u64,
    pub function_errors: u64,
    pub malformed_responses: u64,
    pub throttled: u64,
    pub timeouts: u64,
    /// Response count per status code.
    pub statuses: BTreeMap<u16, u64>,
}

/// How one request ended, for the counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApiOutcome {
    /// Rejected before any invocation (no route, too large).
    Rejected,
    Responded,
    FunctionError,
    Malformed,
    Throttled,
    TimedOut,
    IntegrationFailed,
}

impl ApiMetrics {
    /// Its setting (see [`crate::is_gauge`]); the numbers are totals.
    pub const GAUGES: &'static [&'static str] = field_names!(ApiMetrics { api_id });

    pub fn new(kind: ApiKind, api: &str, api_id: &str) -> Self {
        Self {
            kind,
            api: api.to_string(),
            api_id: api_id.to_string(),
            ..Self::default()
        }
    }
}
