//! Queue attributes a caller can set (CreateQueue / SetQueueAttributes): parsing,
//! validation with SQS's limits, and rendering back to the string map SQS returns.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::error;
use localcloud_core::AwsError;

pub const MAX_VISIBILITY_TIMEOUT: u32 = 43_200;
pub const DEFAULT_MAX_MESSAGE_SIZE: u32 = 1_048_576;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedrivePolicy {
    pub dead_letter_target_arn: String,
    pub max_receive_count: u32,
}

impl RedrivePolicy {
    pub fn to_json_string(&self) -> String {
        serde_json::json!({
            "deadLetterTargetArn": self.dead_letter_target_arn,
            "maxReceiveCount": self.max_receive_count,
        })
        .to_string()
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueSettings {
    pub fifo: bool,
    pub visibility_timeout: u32,
    pub message_retention_period: u32,
    pub delay_seconds: u32,
    pub receive_wait_time_seconds: u32,
    pub maximum_message_size: u32,
    pub redrive_policy: Option<RedrivePolicy>,
    pub content_based_deduplication: bool,
    /// Stored and echoed only: policies, encryption and FIFO throughput modes
    /// have no behaviour in the local cloud.
    pub passthrough: BTreeMap<String, String>,
}

impl QueueSettings {
    pub fn new(fifo: bool) -> Self {
        let mut passthrough = BTreeMap::new();
        passthrough.insert("SqsManagedSseEnabled".to_string(), "true".to_string());
        if fifo {
            passthrough.insert("DeduplicationScope".to_string(), "queue".to_string());
            passthrough.insert("FifoThroughputLimit".to_string(), "perQueue".to_string());
        }
        Self {
            fifo,
            visibility_timeout: 30,
            message_retention_period: 345_600,
            delay_seconds: 0,
            receive_wait_time_seconds: 0,
            maximum_message_size: DEFAULT_MAX_MESSAGE_SIZE,
            redrive_policy: None,
            content_based_deduplication: false,
            passthrough,
        }
    }

    /// Applies caller-given attributes. `FifoQueue` is only valid at creation
    /// (the caller strips it first). The dead-letter target is checked by
    /// the registry, which knows the other queues.
    pub fn apply(&mut self, attributes: &BTreeMap<String, String>) -> Result<(), AwsError> {
        for (name, value) in attributes {
            self.apply_one(name, value)?;
        }
        Ok(())
    }

    fn apply_one(&mut self, name: &str, value: &str) -> Result<(), AwsError> {
        match name {
            "VisibilityTimeout" => {
                self.visibility_timeout = int_in(name, value, 0, MAX_VISIBILITY_TIMEOUT)?
            }
            "MessageRetentionPeriod" => {
                self.message_retention_period = int_in(name, value, 60, 1_209_600)?
            }
            "DelaySeconds" => self.delay_seconds = int_in(name, value, 0, 900)?,
            "ReceiveMessageWaitTimeSeconds" => {
                self.receive_wait_time_seconds = int_in(name, value, 0, 20)?
            }
            "MaximumMessageSize" => {
                self.maximum_message_size = int_in(name, value, 1024, DEFAULT_MAX_MESSAGE_SIZE)?
            }
            "RedrivePolicy" => self.redrive_policy = parse_redrive_policy(value)?,
            "ContentBasedDeduplication" if self.fifo => {
                self.content_based_deduplication = boolean(name, value)?
            }
            "DeduplicationScope" if self.fifo => {
                self.passthrough_one(name, value, &["messageGroup", "queue"])?
            }
            "FifoThroughputLimit" if self.fifo => {
                self.passthrough_one(name, value, &["perQueue", "perMessageGroupId"])?
            }
            "SqsManagedSseEnabled" => {
                boolean(name, value)?;
                self.passthrough
                    .insert(name.into(), value.to_ascii_lowercase());
            }
            "Policy" | "RedriveAllowPolicy" | "KmsMasterKeyId" | "KmsDataKeyReusePeriodSeconds" => {
                if value.is_empty() {
                    self.passthrough.remove(name);
                } else {
                    self.passthrough.insert(name.into(), value.into());
                }
            }
            _ => return Err(error::invalid_attribute_name(name)),
        }
        Ok(())
    }

    fn passthrough_one(
        &mut self,
        name: &str,
        value: &str,
        allowed: &[&str],
    ) -> Result<(), AwsError> {
        if !allowed.contains(&value) {
            return Err(invalid_value(name, value));
        }
        self.passthrough.insert(name.into(), value.into());
        Ok(())
    }

    /// The settable attributes as GetQueueAttributes renders them.
    pub fn render(&self) -> BTreeMap<String, String> {
        let mut out = self.passthrough.clone();
        out.insert(
            "VisibilityTimeout".into(),
            self.visibility_timeout.to_string(),
        );
        out.insert(
            "MessageRetentionPeriod".into(),
            self.message_retention_period.to_string(),
        );
        out.insert("DelaySeconds".into(), self.delay_seconds.to_string());
        out.insert(
            "ReceiveMessageWaitTimeSeconds".into(),
            self.receive_wait_time_seconds.to_string(),
        );
        out.insert(
            "MaximumMessageSize".into(),
            self.maximum_message_size.to_string(),
        );
        if let Some(policy) = &self.redrive_policy {
            out.insert("RedrivePolicy".into(), policy.to_json_string());
        }
        if self.fifo {
            out.insert("FifoQueue".into(), "true".into());
            out.insert(
                "ContentBasedDeduplication".into(),
                self.content_based_deduplication.to_string(),
            );
        }
        out
    }

    /// True when every given attribute already has that value: CreateQueue on
    /// an existing queue is then idempotent.
    pub fn matches(&self, attributes: &BTreeMap<String, String>) -> Result<bool, AwsError> {
        let mut candidate = self.clone();
        candidate.apply(attributes)?;
        Ok(candidate == *self)
    }
}

/// Splits `FifoQueue` off a CreateQueue attribute map and checks it against
/// the queue name (`.fifo` suffix if and only if FIFO).
pub fn fifo_flag(name: &str, attributes: &mut BTreeMap<String, String>) -> Result<bool, AwsError> {
    let fifo = match attributes.remove("FifoQueue") {
        Some(v) => boolean("FifoQueue", &v)?,
        None => false,
    };
    if fifo != name.ends_with(".fifo") {
        return Err(error::invalid_parameter_value(
            "The name of a FIFO queue can only include alphanumeric characters, hyphens, or underscores, must end with .fifo suffix and be 1 to 80 in length.",
        ));
    }
    Ok(fifo)
}

/// 1 to 80 of `[A-Za-z0-9_-]`, the `.fifo` suffix included in the 80.
pub fn validate_queue_name(name: &str) -> Result<(), AwsError> {
    let stem = name.strip_suffix(".fifo").unwrap_or(name);
    let ok = !stem.is_empty()
        && name.len() <= 80
        && stem
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if ok {
        Ok(())
    } else {
        Err(error::invalid_parameter_value(
            "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length",
        ))
    }
}

fn invalid_value(name: &str, value: &str) -> AwsError {
    error::invalid_attribute_value(format!("Invalid value for the parameter {name}: {value}"))
}

fn int_in(name: &str, value: &str, min: u32, max: u32) -> Result<u32, AwsError> {
    value
        .trim()
        .parse::<u32>()
        .ok()
        .filter(|v| (min..=max).contains(v))
        .ok_or_else(|| invalid_value(name, value))
}

fn boolean(name: &str, value: &str) -> Result<bool, AwsError> {
    match value.to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(invalid_value(name, value)),
    }
}

/// `{"deadLetterTargetArn": "...", "maxReceiveCount": 5}`; the count may be a
/// string. An empty value removes the policy.
fn parse_redrive_policy(value: &str) -> Result<Option<RedrivePolicy>, AwsError> {
    if value.trim().is_empty() {
        return Ok(None);
    }
    let bad = |reason: &str| {
        error::invalid_parameter_value(format!(
            "Value {value} for parameter RedrivePolicy is invalid. Reason: {reason}"
        ))
    };
    let json: Value =
        serde_json::from_str(value).map_err(|_| bad("Redrive policy is not a valid JSON map."))?;
    let arn = json
        .get("deadLetterTargetArn")
        .and_then(Value::as_str)
        .ok_or_else(|| {
            bad("Redrive policy does not contain mandatory attribute: deadLetterTargetArn.")
        })?;
    let count = match json.get("maxReceiveCount") {
        Some(Value::Number(n)) => n.as_u64(),
        Some(Value::String(s)) => s.trim().parse::<u64>().ok(),
        _ => {
            return Err(bad(
                "Redrive policy does not contain mandatory attribute: maxReceiveCount.",
            ))
        }
    };
    let count = count.filter(|c| (1..=1000).contains(c)).ok_or_else(|| {
        bad("Invalid value for maxReceiveCount: must be an integer from 1 to 1000.")
    })?;
    Ok(Some(RedrivePolicy {
        dead_letter_target_arn: arn.to_string(),
        max_receive_count: count as u32,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn limits_are_enforced_with_invalid_attribute_value() {
        let mut s = QueueSettings::new(false);
        for (k, v) in [
            ("VisibilityTimeout", "43201"),
            ("MessageRetentionPeriod", "59"),
            ("DelaySeconds", "901"),
            ("ReceiveMessageWaitTimeSeconds", "21"),
            ("MaximumMessageSize", "1023"),
            ("VisibilityTimeout", "abc"),
        ] {
            let err = s.apply(&map(&[(k, v)])).unwrap_err();
            assert_eq!(err.code(), "InvalidAttributeValue", "{k}={v}");
        }
        s.apply(&map(&[("VisibilityTimeout", "0")])).unwrap();
        assert_eq!(s.visibility_timeout, 0);
    }

    #[test]
    fn fifo_only_attributes_are_unknown_on_standard_queues() {
        let err = QueueSettings::new(false)
            .apply(&map(&[("ContentBasedDeduplication", "true")]))
            .unwrap_err();
        assert_eq!(err.code(), "InvalidAttributeName");
        let mut fifo = QueueSettings::new(true);
        fifo.apply(&map(&[("ContentBasedDeduplication", "true")]))
            .unwrap();
        assert_eq!(fifo.render()["ContentBasedDeduplication"], "true");
    }

    #[test]
    fn redrive_policy_accepts_string_counts_and_renders_numbers() {
        let mut s = QueueSettings::new(false);
        s.apply(&map(&[(
            "RedrivePolicy",
            r#"{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:dlq","maxReceiveCount":"3"}"#,
        )]))
        .unwrap();
        assert_eq!(
            s.render()["RedrivePolicy"],
            r#"{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:dlq","maxReceiveCount":3}"#
        );
        let err = s
            .apply(&map(&[("RedrivePolicy", r#"{"maxReceiveCount":3}"#)]))
            .unwrap_err();
        assert_eq!(err.code(), "InvalidParameterValue");
    }

    #[test]
    fn matches_compares_only_given_attributes() {
        let mut s = QueueSettings::new(false);
        s.apply(&map(&[("VisibilityTimeout", "5")])).unwrap();
        assert!(s.matches(&map(&[])).unwrap());
        assert!(s.matches(&map(&[("VisibilityTimeout", "5")])).unwrap());
        assert!(!s.matches(&map(&[("VisibilityTimeout", "6")])).unwrap());
    }

    #[test]
    fn queue_names_follow_sqs_rules() {
        assert!(validate_queue_name("orders-1_a").is_ok());
        assert!(validate_queue_name("orders.fifo").is_ok());
        assert!(validate_queue_name("").is_err());
        assert!(validate_queue_name(".fifo").is_err());
        assert!(validate_queue_name("has space").is_err());
        assert!(validate_queue_name(&"a".repeat(81)).is_err());
        let mut attrs = map(&[("FifoQueue", "true")]);
        assert!(fifo_flag("plain", &mut attrs).is_err());
        let mut none = map(&[]);
        assert!(fifo_flag("x.fifo", &mut none).is_err());
    }
}
