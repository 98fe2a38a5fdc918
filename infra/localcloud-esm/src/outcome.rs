//! What happens to a batch after the invocation: which messages to delete.

use std::collections::HashSet;

use serde_json::Value;

/// The messages of a batch that are done with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Settlement {
    DeleteAll,
    /// Partial batch response: delete all but these message ids.
    DeleteAllBut(HashSet<String>),
    /// The batch failed: every message returns after its visibility timeout.
    DeleteNone,
}

/// Reads a `ReportBatchItemFailures` response. As AWS documents it: an
/// empty or null `batchItemFailures` (or an empty or null response) is a
/// complete success; invalid JSON, or an item whose `itemIdentifier` is
/// missing, empty, or not a message of the batch, fails the whole batch.
pub fn partial_batch_response(payload: &[u8], batch_ids: &HashSet<&str>) -> Settlement {
    if payload.iter().all(u8::is_ascii_whitespace) {
        return Settlement::DeleteAll;
    }
    let Ok(response) = serde_json::from_slice::<Value>(payload) else {
        return Settlement::DeleteNone;
    };
    let failures = match response.get("batchItemFailures") {
        None | Some(Value::Null) => return Settlement::DeleteAll,
        Some(Value::Array(items)) => items,
        Some(_) => return Settlement::DeleteNone,
    };
    let mut failed = HashSet::new();
    for item in failures {
        match item.get("itemIdentifier").and_then(Value::as_str) {
            Some(id) if batch_ids.contains(id) => failed.insert(id.to_string()),
            _ => return Settlement::DeleteNone,
        };
    }
    if failed.is_empty() {
        Settlement::DeleteAll
    } else {
        Settlement::DeleteAllBut(failed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settle(payload: &str) -> Settlement {
        let ids: HashSet<&str> = ["m1", "m2", "m3"].into_iter().collect();
        partial_batch_response(payload.as_bytes(), &ids)
    }

    #[test]
    fn empty_or_null_responses_are_complete_successes() {
        for payload in [
            "",
            "null",
            "{}",
            r#"{"batchItemFailures":[]}"#,
            r#"{"batchItemFailures":null}"#,
        ] {
            assert_eq!(settle(payload), Settlement::DeleteAll, "{payload:?}");
        }
    }

    #[test]
    fn reported_items_are_kept_and_the_rest_deleted() {
        let settlement =
            settle(r#"{"batchItemFailures":[{"itemIdentifier":"m2"},{"itemIdentifier":"m3"}]}"#);
        let kept: HashSet<String> = ["m2".to_string(), "m3".to_string()].into();
        assert_eq!(settlement, Settlement::DeleteAllBut(kept));
    }

    #[test]
    fn invalid_responses_fail_the_whole_batch() {
        for payload in [
            "not json",
            r#"{"batchItemFailures":[{"itemIdentifier":"m9"}]}"#,
            r#"{"batchItemFailures":[{"itemIdentifier":""}]}"#,
            r#"{"batchItemFailures":[{"itemIdentifier":null}]}"#,
            r#"{"batchItemFailures":[{"id":"m1"}]}"#,
            r#"{"batchItemFailures":"m1"}"#,
        ] {
            assert_eq!(settle(payload), Settlement::DeleteNone, "{payload}");
        }
    }
}
