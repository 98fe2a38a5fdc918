//! API Gateway: what one API puts on the bill, and why requests failed.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApiMetrics {
    pub api: String,
    pub api_id: String,
    /// Requests received, whatever their outcome (AWS bills 4xx/5xx too,
    /// except authorizer and throttling rejections, which we do not emulate).
    pub requests: u64,
    /// Requests as billed: one per started 512 KB of request body.
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
    pub fn new(api: &str, api_id: &str) -> Self {
        Self {
            api: api.to_string(),
            api_id: api_id.to_string(),
            ..Self::default()
        }
    }
}
