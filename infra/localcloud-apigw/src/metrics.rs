//! What one HTTP API would put on the bill, and why requests failed.

use std::collections::BTreeMap;

use serde::Serialize;

/// HTTP APIs meter requests in 512 KB increments: a 1.2 MB request counts 3.
pub const METERING_INCREMENT_BYTES: u64 = 512 * 1024;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiMetrics {
    pub api: String,
    pub api_id: String,
    /// Requests received, whatever their outcome (AWS bills 4xx/5xx too,
    /// except authorizer and throttling rejections, which we do not emulate).
    pub requests: u64,
    /// Requests as billed: one per started 512 KB of request body.
    pub metered_requests: u64,
    pub request_bytes: u64,
    pub response_bytes: u64,
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
pub enum Outcome {
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

    pub fn record(
        &mut self,
        request_bytes: usize,
        response_bytes: usize,
        status: u16,
        outcome: Outcome,
    ) {
        let request_bytes = request_bytes as u64;
        self.requests += 1;
        self.metered_requests += request_bytes.div_ceil(METERING_INCREMENT_BYTES).max(1);
        self.request_bytes += request_bytes;
        self.response_bytes += response_bytes as u64;
        *self.statuses.entry(status).or_default() += 1;
        if outcome != Outcome::Rejected {
            self.invocations += 1;
        }
        match outcome {
            Outcome::FunctionError => self.function_errors += 1,
            Outcome::Malformed => self.malformed_responses += 1,
            Outcome::Throttled => self.throttled += 1,
            Outcome::TimedOut => self.timeouts += 1,
            _ => {}
        }
    }

    /// A REST API request: billed as one request whatever its size (REST
    /// APIs have no 512 KB metering increments).
    pub fn record_per_request(
        &mut self,
        request_bytes: usize,
        response_bytes: usize,
        status: u16,
        outcome: Outcome,
    ) {
        let before = self.metered_requests;
        self.record(request_bytes, response_bytes, status, outcome);
        self.metered_requests = before + 1;
    }

    /// A request the gateway throttled: answered, counted, not billed.
    pub fn record_unbilled(&mut self, response_bytes: usize, status: u16) {
        self.requests += 1;
        self.response_bytes += response_bytes as u64;
        *self.statuses.entry(status).or_default() += 1;
    }

    pub fn reset(&mut self) {
        *self = Self::new(&self.api, &self.api_id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_requests_are_metered_per_started_512_kb() {
        let mut m = ApiMetrics::new("Api", "abc");
        m.record(0, 10, 200, Outcome::Responded);
        m.record(512 * 1024, 10, 200, Outcome::Responded);
        m.record(512 * 1024 + 1, 10, 200, Outcome::Responded);
        assert_eq!(m.requests, 3);
        assert_eq!(m.metered_requests, 1 + 1 + 2);
        assert_eq!(m.response_bytes, 30);
    }

    #[test]
    fn rejected_requests_count_but_invoke_nothing() {
        let mut m = ApiMetrics::new("Api", "abc");
        m.record(5, 23, 404, Outcome::Rejected);
        m.record(5, 35, 503, Outcome::TimedOut);
        assert_eq!(m.requests, 2);
        assert_eq!(m.invocations, 1);
        assert_eq!(m.timeouts, 1);
        assert_eq!(m.statuses[&404], 1);
        m.reset();
        assert_eq!(m, ApiMetrics::new("Api", "abc"));
    }
}
