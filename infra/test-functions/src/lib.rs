//! Tiny Lambda functions for the local cloud's tests, one binary each under
//! `src/bin/`: `echo`, `sleep`, `crash`, `init-exit`, `slow-init`, `fail`,
//! `thread-burn` (CPU on a named thread), `cpu-burn` (a fixed amount of CPU
//! work over one or more threads), and `http-echo` (on `lambda_http`,
//! for API Gateway and function URL tests).
//! They speak the real Runtime API through `lambda_runtime`, so a test that
//! runs them exercises the same path a deployed Rust function takes.
//!
//! Build them with `cargo build -p test-functions --bins`; they land in
//! `target/debug/` beside the test binaries of other crates.

use lambda_runtime::{Context, LambdaEvent};
use serde_json::{json, Value};

/// Variables the Lambda service must set, echoed so tests can check them.
pub const ECHOED_ENV: &[&str] = &[
    "AWS_LAMBDA_FUNCTION_NAME",
    "AWS_LAMBDA_FUNCTION_MEMORY_SIZE",
    "AWS_LAMBDA_FUNCTION_VERSION",
    "AWS_LAMBDA_LOG_GROUP_NAME",
    "AWS_LAMBDA_LOG_STREAM_NAME",
    "AWS_LAMBDA_RUNTIME_API",
    "AWS_LAMBDA_INITIALIZATION_TYPE",
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_ENDPOINT_URL",
    "_HANDLER",
    "LAMBDA_TASK_ROOT",
    "TZ",
    "GREETING",
];

/// The event, the invocation context and the Lambda environment, as JSON.
pub fn describe(event: LambdaEvent<Value>) -> Value {
    let LambdaEvent { payload, context } = event;
    json!({
        "event": payload,
        "context": context_json(&context),
        "env": env_json(),
        "pid": std::process::id(),
    })
}

fn context_json(context: &Context) -> Value {
    json!({
        "request_id": context.request_id,
        "deadline_ms": context.deadline,
        "invoked_function_arn": context.invoked_function_arn,
        "xray_trace_id": context.xray_trace_id,
        "function_name": context.env_config.function_name,
        "memory": context.env_config.memory,
        "version": context.env_config.version,
    })
}

fn env_json() -> Value {
    let vars = ECHOED_ENV
        .iter()
        .filter_map(|name| Some((name.to_string(), Value::String(std::env::var(name).ok()?))))
        .collect();
    Value::Object(vars)
}

/// A number of milliseconds from `event[key]`, or `default`.
pub fn millis(event: &Value, key: &str, default: u64) -> u64 {
    event.get(key).and_then(Value::as_u64).unwrap_or(default)
}
