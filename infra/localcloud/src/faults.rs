//! `/_localcloud/faults`: kill execution environments while they hold
//! invocations (see `infra/localcloud-lambda/src/faults.rs` for what AWS does
//! then, which is what the local cloud does).
//!
//! - `GET` shows, per function, the kill rate, the kills so far and the
//!   invocations running;
//! - `POST {"function": F, "killRate": 0.1}` kills the environment of that
//!   share of F's invocations from now on (0 stops);
//! - `POST {"function": F, "kill": 3}` kills up to 3 of F's environments that
//!   hold an invocation now, and says how many.
//!
//! `F` is the function's name or its logical id in the template.

use http::StatusCode;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::Stack;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct FaultRequest {
    function: String,
    kill_rate: Option<f64>,
    kill: Option<usize>,
}

/// The function's deployed name, given its name or logical id.
pub fn function_name(stack: &Stack, id_or_name: &str) -> Option<String> {
    stack
        .app
        .functions
        .iter()
        .find(|f| f.name == id_or_name || f.logical_id == id_or_name)
        .map(|f| f.name.clone())
}

pub fn show(stack: Option<&Stack>) -> (StatusCode, Value) {
    let functions = stack.map(|s| json!(s.lambda.faults())).unwrap_or(json!({}));
    (StatusCode::OK, json!({ "functions": functions }))
}

pub fn inject(stack: Option<&Stack>, body: &[u8]) -> (StatusCode, Value) {
    let bad = |message: String| (StatusCode::BAD_REQUEST, json!({ "message": message }));
    let request: FaultRequest = match serde_json::from_slice(body) {
        Ok(request) => request,
        Err(e) => {
            return bad(format!(
                "expected {{\"function\": name, \"killRate\": 0..1}} or {{\"function\": name, \"kill\": n}}: {e}"
            ))
        }
    };
    let Some(stack) = stack else {
        return bad("no functions run here: start the local cloud with --template".into());
    };
    let Some(name) = function_name(stack, &request.function) else {
        return (
            StatusCode::NOT_FOUND,
            json!({ "message": format!("no function {} in the template", request.function) }),
        );
    };
    let mut answer = json!({ "function": name });
    if let Some(rate) = request.kill_rate {
        if let Err(message) = stack.lambda.set_kill_rate(&name, rate) {
            return bad(message);
        }
        answer["killRate"] = json!(rate);
    }
    if let Some(n) = request.kill {
        match stack.lambda.kill_busy(&name, n) {
            Ok(killed) => answer["killed"] = json!(killed),
            Err(message) => return bad(message),
        }
    }
    (StatusCode::OK, answer)
}

/// Parses `--kill-rate FUNCTION=RATE`.
pub fn parse_kill_rate(arg: &str) -> Result<(String, f64), String> {
    let (function, rate) = arg
        .split_once('=')
        .ok_or_else(|| format!("expected FUNCTION=RATE, got {arg:?}"))?;
    let rate: f64 = rate
        .parse()
        .map_err(|_| format!("the kill rate of {function} must be a number, got {rate:?}"))?;
    if !(0.0..=1.0).contains(&rate) {
        return Err(format!(
            "the kill rate of {function} must be between 0 and 1"
        ));
    }
    Ok((function.to_string(), rate))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kill_rates_are_function_equals_share() {
        assert_eq!(
            parse_kill_rate("OrdersWorkerFunction=0.25"),
            Ok(("OrdersWorkerFunction".into(), 0.25))
        );
        assert!(parse_kill_rate("f=2")
            .unwrap_err()
            .contains("between 0 and 1"));
        assert!(parse_kill_rate("f").unwrap_err().contains("FUNCTION=RATE"));
    }

    #[test]
    fn a_malformed_or_functionless_request_is_a_clear_400() {
        let (status, body) = inject(None, b"{\"kill\": 1}");
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert!(body["message"].as_str().unwrap().contains("function"));
        let (status, body) = inject(None, b"{\"function\": \"f\", \"kill\": 1}");
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert!(body["message"].as_str().unwrap().contains("--template"));
    }
}
