//! What one API would put on the bill, and why requests failed. The
//! counters are the metrics contract's [`ApiMetrics`]; the rules that fill
//! them are here.

use http::header::{CONTENT_LENGTH, DATE};
use localcloud_core::HttpResponse;
pub use localcloud_metrics::{ApiKind, ApiMetrics, ApiOutcome as Outcome};

/// HTTP APIs meter requests in 512 KB increments: a 1.2 MB request counts 3.
pub const METERING_INCREMENT_BYTES: u64 = 512 * 1024;

/// `date: Tue, 01 Dec 2026 17:00:00 GMT\r\n`: the server adds it on the way out.
const DATE_HEADER_BYTES: u64 = "date: ".len() as u64 + 29 + 2;

/// The rules that fill an API's counters.
pub trait Meter {
    fn record(&mut self, request_bytes: usize, response: &HttpResponse, outcome: Outcome);
    fn record_per_request(
        &mut self,
        request_bytes: usize,
        response: &HttpResponse,
        outcome: Outcome,
    );
    fn record_unbilled(&mut self, response: &HttpResponse);
    fn reset(&mut self);
}

impl Meter for ApiMetrics {
    fn record(&mut self, request_bytes: usize, response: &HttpResponse, outcome: Outcome) {
        let request_bytes = request_bytes as u64;
        self.requests += 1;
        self.metered_requests += request_bytes.div_ceil(METERING_INCREMENT_BYTES).max(1);
        self.request_bytes += request_bytes;
        self.response_bytes += response.body().len() as u64;
        self.data_transfer_out_bytes += wire_bytes(response);
        *self.statuses.entry(response.status().as_u16()).or_default() += 1;
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
    fn record_per_request(
        &mut self,
        request_bytes: usize,
        response: &HttpResponse,
        outcome: Outcome,
    ) {
        let before = self.metered_requests;
        self.record(request_bytes, response, outcome);
        self.metered_requests = before + 1;
    }

    /// A request the gateway throttled: answered, counted, not billed.
    fn record_unbilled(&mut self, response: &HttpResponse) {
        self.requests += 1;
        self.response_bytes += response.body().len() as u64;
        self.data_transfer_out_bytes += wire_bytes(response);
        *self.statuses.entry(response.status().as_u16()).or_default() += 1;
    }

    fn reset(&mut self) {
        *self = Self::new(self.kind, &self.api, &self.api_id);
    }
}

/// Bytes of a response as HTTP/1.1 puts it on the wire: status line, headers
/// (with the `content-length` and `date` the server adds), blank line, body.
/// API Gateway bills data transfer out at EC2 rates on what leaves AWS
/// (https://aws.amazon.com/api-gateway/pricing/); TLS framing is not counted.
pub fn wire_bytes(response: &HttpResponse) -> u64 {
    let status = response.status();
    let reason = status.canonical_reason().unwrap_or("");
    // "HTTP/1.1 200 OK\r\n"
    let mut bytes = ("HTTP/1.1 ".len() + 3 + 1 + reason.len() + 2) as u64;
    for (name, value) in response.headers() {
        bytes += (name.as_str().len() + 2 + value.len() + 2) as u64;
    }
    let body = response.body().len() as u64;
    if !response.headers().contains_key(CONTENT_LENGTH) {
        bytes += ("content-length: ".len() + body.to_string().len() + 2) as u64;
    }
    if !response.headers().contains_key(DATE) {
        bytes += DATE_HEADER_BYTES;
    }
    bytes + 2 + body
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;

    fn response(status: u16, body: &'static str) -> HttpResponse {
        http::Response::builder()
            .status(status)
            .header("content-type", "application/json")
            .body(Bytes::from_static(body.as_bytes()))
            .unwrap()
    }

    #[test]
    fn large_requests_are_metered_per_started_512_kb() {
        let mut m = ApiMetrics::new(ApiKind::Http, "Api", "abc");
        let ok = response(200, "0123456789");
        m.record(0, &ok, Outcome::Responded);
        m.record(512 * 1024, &ok, Outcome::Responded);
        m.record(512 * 1024 + 1, &ok, Outcome::Responded);
        assert_eq!(m.requests, 3);
        assert_eq!(m.metered_requests, 1 + 1 + 2);
        assert_eq!(m.response_bytes, 30);
    }

    #[test]
    fn rejected_requests_count_but_invoke_nothing() {
        let mut m = ApiMetrics::new(ApiKind::Http, "Api", "abc");
        m.record(5, &response(404, "{}"), Outcome::Rejected);
        m.record(5, &response(503, "{}"), Outcome::TimedOut);
        assert_eq!(m.requests, 2);
        assert_eq!(m.invocations, 1);
        assert_eq!(m.timeouts, 1);
        assert_eq!(m.statuses[&404], 1);
        m.reset();
        assert_eq!(m, ApiMetrics::new(ApiKind::Http, "Api", "abc"));
    }

    #[test]
    fn a_reset_keeps_what_kind_of_api_it_is() {
        // GIVEN a REST API's counters with a request
        let mut m = ApiMetrics::new(ApiKind::Rest, "Api", "abc");
        m.record_per_request(5, &response(200, "{}"), Outcome::Responded);
        // WHEN reset, THEN it is still priced as a REST API
        m.reset();
        assert_eq!(m, ApiMetrics::new(ApiKind::Rest, "Api", "abc"));
    }

    #[test]
    fn data_transfer_out_counts_status_line_headers_and_body() {
        // GIVEN a 10-byte JSON response
        let ok = response(200, "0123456789");
        // WHEN it is metered
        let mut m = ApiMetrics::new(ApiKind::Http, "Api", "abc");
        m.record(0, &ok, Outcome::Responded);
        // THEN it counts every byte the client receives, written out by hand
        let wire = "HTTP/1.1 200 OK\r\n\
                    content-type: application/json\r\n\
                    content-length: 10\r\n\
                    date: Tue, 01 Dec 2026 17:00:00 GMT\r\n\
                    \r\n\
                    0123456789";
        assert_eq!(m.data_transfer_out_bytes, wire.len() as u64);
        assert_eq!(wire.len(), 118);
    }
}
