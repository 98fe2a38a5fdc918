//! The error documents Lambda itself returns when a function cannot answer:
//! timeouts, process exits, init failures, oversized responses.

use std::process::ExitStatus;
use std::time::Duration;

use bytes::Bytes;
use serde_json::json;

/// Largest synchronous request or response payload (6 MB).
pub const MAX_SYNC_PAYLOAD: usize = 6 * 1024 * 1024;
/// Largest asynchronous (`Event`) payload (1 MB since 2025).
pub const MAX_ASYNC_PAYLOAD: usize = 1024 * 1024;

pub fn document(error_type: &str, message: &str) -> Bytes {
    Bytes::from(json!({ "errorType": error_type, "errorMessage": message }).to_string())
}

/// What current runtimes (`provided.al2023` included) return on a timeout.
pub fn timeout(request_id: &str, limit: Duration) -> Bytes {
    document(
        "Sandbox.Timedout",
        &format!(
            "RequestId: {request_id} Error: Task timed out after {:.2} seconds",
            limit.as_secs_f64()
        ),
    )
}

/// The line Lambda adds to the function's log on a timeout.
pub fn timeout_log_line(request_id: &str, limit: Duration) -> String {
    format!(
        "{} {request_id} Task timed out after {:.2} seconds",
        chrono::Utc::now().format("%Y-%m-%dT%H:%M:%S%.3fZ"),
        limit.as_secs_f64()
    )
}

pub const EXIT_ERROR: &str = "Runtime.ExitError";

/// The runtime's process ended while it owed an answer.
pub fn exited(request_id: &str, status: ExitStatus) -> Bytes {
    document(EXIT_ERROR, &exit_message(request_id, status))
}

pub fn exit_message(request_id: &str, status: ExitStatus) -> String {
    match describe_exit(status) {
        Some(reason) => {
            format!("RequestId: {request_id} Error: Runtime exited with error: {reason}")
        }
        None => format!("RequestId: {request_id} Error: Runtime exited without providing a reason"),
    }
}

/// Go's wording, which Lambda's messages use: `exit status 3`, `signal: killed`.
fn describe_exit(status: ExitStatus) -> Option<String> {
    use std::os::unix::process::ExitStatusExt;
    if let Some(code) = status.code() {
        return (code != 0).then(|| format!("exit status {code}"));
    }
    let signal = status.signal()?;
    let name = match signal {
        6 => "aborted".to_string(),
        9 => "killed".to_string(),
        11 => "segmentation fault".to_string(),
        15 => "terminated".to_string(),
        other => format!("signal {other}"),
    };
    Some(format!("signal: {name}"))
}

pub const OUT_OF_MEMORY: &str = "Runtime.OutOfMemory";

/// The process used more than the function's memory size and was killed.
pub fn out_of_memory(request_id: &str) -> Bytes {
    document(OUT_OF_MEMORY, &killed_message(request_id))
}

pub fn killed_message(request_id: &str) -> String {
    format!("RequestId: {request_id} Error: Runtime exited with error: signal: killed")
}

pub const INVALID_ENTRYPOINT: &str = "Runtime.InvalidEntrypoint";

pub fn not_startable(request_id: &str, binary: &std::path::Path, err: &std::io::Error) -> Bytes {
    document(
        INVALID_ENTRYPOINT,
        &format!(
            "RequestId: {request_id} Error: Couldn't start bootstrap {}: {err}",
            binary.display()
        ),
    )
}

pub fn response_too_large() -> Bytes {
    document(
        "Function.ResponseSizeTooLarge",
        &format!("Response payload size exceeded maximum allowed payload size ({MAX_SYNC_PAYLOAD} bytes)."),
    )
}

/// `errorType` of an error document, if it has one.
pub fn error_type(document: &[u8]) -> Option<String> {
    let value: serde_json::Value = serde_json::from_slice(document).ok()?;
    value.get("errorType")?.as_str().map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::ExitStatusExt;

    #[test]
    fn timeout_document_names_the_limit_with_two_decimals() {
        let doc: serde_json::Value =
            serde_json::from_slice(&timeout("abc", Duration::from_secs(3))).unwrap();
        assert_eq!(doc["errorType"], "Sandbox.Timedout");
        assert_eq!(
            doc["errorMessage"],
            "RequestId: abc Error: Task timed out after 3.00 seconds"
        );
    }

    #[test]
    fn exits_are_worded_like_lambda() {
        assert_eq!(
            exit_message("r", ExitStatus::from_raw(3 << 8)),
            "RequestId: r Error: Runtime exited with error: exit status 3"
        );
        assert_eq!(
            exit_message("r", ExitStatus::from_raw(9)),
            "RequestId: r Error: Runtime exited with error: signal: killed"
        );
        assert_eq!(
            exit_message("r", ExitStatus::from_raw(0)),
            "RequestId: r Error: Runtime exited without providing a reason"
        );
    }

    #[test]
    fn error_type_is_read_from_documents() {
        assert_eq!(
            error_type(br#"{"errorType":"OrderRejected","errorMessage":"x"}"#).as_deref(),
            Some("OrderRejected")
        );
        assert_eq!(error_type(b"not json"), None);
    }
}
