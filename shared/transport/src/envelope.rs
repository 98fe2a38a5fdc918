//! The messages of the queue transport. The correlation id and the reply
//! queue travel in the body, so the worker needs nothing but the body.

use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Request {
    pub correlation_id: String,
    /// URL of the caller's reply queue.
    pub reply_to: String,
    /// Milliseconds since the epoch after which nobody waits for the answer;
    /// a worker may skip expired requests.
    pub expires_at_ms: u64,
    pub payload: Value,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Reply {
    pub correlation_id: String,
    pub outcome: ReplyOutcome,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "status")]
pub enum ReplyOutcome {
    Ok { payload: Value },
    Error { error_type: String, message: String },
}

pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reply_outcomes_are_tagged_by_status() {
        let ok = Reply {
            correlation_id: "c1".into(),
            outcome: ReplyOutcome::Ok {
                payload: serde_json::json!([1]),
            },
        };
        let text = serde_json::to_string(&ok).unwrap();
        assert_eq!(
            text,
            r#"{"correlationId":"c1","outcome":{"status":"ok","payload":[1]}}"#
        );
        let back: Reply = serde_json::from_str(&text).unwrap();
        assert_eq!(back, ok);
    }

    #[test]
    fn requests_round_trip_in_camel_case() {
        let request = Request {
            correlation_id: "c".into(),
            reply_to: "http://q".into(),
            expires_at_ms: 5,
            payload: serde_json::json!({"size": 5}),
        };
        let value = serde_json::to_value(&request).unwrap();
        assert_eq!(value["replyTo"], "http://q");
        assert_eq!(value["expiresAtMs"], 5);
        assert_eq!(serde_json::from_value::<Request>(value).unwrap(), request);
    }
}
