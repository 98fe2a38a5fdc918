//! Goose scenarios, one module per experiment. Transactions are named after
//! route templates so Goose's own metrics collapse parametrised URLs, and
//! every response is validated (status and shape): a wrong answer is a failure.

pub mod conduit;
pub mod orders;

use std::sync::Arc;
use std::time::Instant;

use goose::goose::{GooseMethod, GooseRequest, GooseResponse, GooseUser, TransactionError};
use serde_json::Value;

use crate::recorder::Recorder;

/// Judges a response: the parsed body when it is right, why not otherwise.
pub type Validator = fn(status: u16, body: &str) -> Result<Value, String>;

/// One HTTP call of a scenario.
pub struct Call<'a> {
    pub method: GooseMethod,
    pub path: &'a str,
    /// Route template: the name in Goose's metrics and in failure reasons.
    pub name: &'a str,
    pub token: Option<&'a str>,
    pub body: Option<Value>,
    pub validate: Validator,
}

/// Sends the call through Goose, times it to the end of the body, validates it
/// and records the outcome. `Ok(None)` is a recorded failure, not an error.
pub async fn send(
    user: &mut GooseUser,
    recorder: &Arc<Recorder>,
    call: Call<'_>,
) -> Result<Option<Value>, Box<TransactionError>> {
    let url = under(user.base_url.as_str(), call.path);
    let mut builder = user.get_request_builder(&call.method, &url)?;
    // No session (a failed login) means no header, as an anonymous client.
    if let Some(token) = call.token.filter(|t| !t.is_empty()) {
        builder = builder.header("Authorization", format!("Token {token}"));
    }
    if let Some(body) = &call.body {
        builder = builder.json(body);
    }
    let request = GooseRequest::builder()
        .method(call.method)
        .path(call.path)
        .name(call.name)
        .set_request_builder(builder)
        .build();
    let started = Instant::now();
    recorder.sending();
    let GooseResponse {
        mut request,
        response,
    } = user.request(request).await?;
    let (status, verdict) = match response {
        Ok(response) => {
            let status = response.status().as_u16();
            match response.text().await {
                Ok(text) => (status, (call.validate)(status, &text)),
                Err(_) => (status, Err("body cut short".to_string())),
            }
        }
        Err(e) if e.is_timeout() => (0, Err("client timeout".to_string())),
        Err(_) => (0, Err("no response".to_string())),
    };
    let latency_ms = started.elapsed().as_secs_f64() * 1000.0;
    match verdict {
        Ok(value) => {
            recorder.record(latency_ms, status, None);
            Ok(Some(value))
        }
        Err(reason) => {
            let reason = format!("{}: {reason}", call.name);
            // Goose counts the request as failed too; its Err only repeats that.
            let _ = user.set_failure(&reason, &mut request, None, None);
            recorder.record(latency_ms, status, Some(reason));
            Ok(None)
        }
    }
}

/// `path` under the base URL, keeping the base's own path: a REST API's stage
/// (`https://id.execute-api.../Prod` + `/orders/5`), which Goose's URL join
/// (RFC 3986: an absolute path replaces the base's) would drop.
pub fn under(base: &str, path: &str) -> String {
    format!("{}{path}", base.trim_end_matches('/'))
}

/// Parses a JSON body after checking the status, the common first step.
pub fn expect_json(status: u16, expected: &[u16], body: &str) -> Result<Value, String> {
    if !expected.contains(&status) {
        return Err(format!("status {status}"));
    }
    serde_json::from_str(body).map_err(|_| "body is not JSON".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_go_under_the_stage_of_a_rest_api() {
        assert_eq!(
            under("http://127.0.0.1:4001/Prod", "/orders/5"),
            "http://127.0.0.1:4001/Prod/orders/5"
        );
        assert_eq!(
            under("http://127.0.0.1:4001/", "/api/articles?limit=20"),
            "http://127.0.0.1:4001/api/articles?limit=20"
        );
    }

    #[test]
    fn unexpected_status_is_named_in_the_reason() {
        assert_eq!(
            expect_json(503, &[200], "{}").unwrap_err(),
            "status 503".to_string()
        );
        assert_eq!(
            expect_json(200, &[200], "<html>").unwrap_err(),
            "body is not JSON"
        );
        assert!(expect_json(201, &[200, 201], "[]").is_ok());
    }
}
