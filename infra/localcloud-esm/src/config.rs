//! One `AWS::Lambda::EventSourceMapping` for an SQS queue, checked against
//! the limits AWS enforces when the mapping is created.

use std::time::Duration;

use serde::{Deserialize, Serialize};

pub const MAX_BATCH_SIZE: u32 = 10_000;
pub const MAX_BATCHING_WINDOW: Duration = Duration::from_secs(300);

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EsmConfig {
    /// Function name or ARN, as the Invoke API accepts it.
    pub function: String,
    pub queue_arn: String,
    #[serde(default = "default_batch_size")]
    pub batch_size: u32,
    /// `MaximumBatchingWindowInSeconds`; sub-second values are allowed
    /// locally so tests can run fast.
    #[serde(default, with = "millis")]
    pub maximum_batching_window: Duration,
    /// `ScalingConfig.MaximumConcurrency` (2-1000).
    #[serde(default)]
    pub maximum_concurrency: Option<u32>,
    /// `FunctionResponseTypes: [ReportBatchItemFailures]`.
    #[serde(default)]
    pub report_batch_item_failures: bool,
    #[serde(default = "enabled")]
    pub enabled: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("InvalidParameterValueException: {0}")]
pub struct ConfigError(pub String);

impl EsmConfig {
    pub fn new(function: impl Into<String>, queue_arn: impl Into<String>) -> Self {
        Self {
            function: function.into(),
            queue_arn: queue_arn.into(),
            batch_size: default_batch_size(),
            maximum_batching_window: Duration::ZERO,
            maximum_concurrency: None,
            report_batch_item_failures: false,
            enabled: true,
        }
    }

    /// The checks `CreateEventSourceMapping` makes, with its messages.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.batch_size == 0 || self.batch_size > MAX_BATCH_SIZE {
            return Err(ConfigError(format!(
                "BatchSize must be between 1 and {MAX_BATCH_SIZE}"
            )));
        }
        if self.maximum_batching_window > MAX_BATCHING_WINDOW {
            return Err(ConfigError(
                "MaximumBatchingWindowInSeconds must be between 0 and 300".into(),
            ));
        }
        if self.is_fifo() && self.batch_size > 10 {
            return Err(ConfigError(
                "BatchSize for a FIFO queue must be between 1 and 10".into(),
            ));
        }
        if self.is_fifo() && !self.maximum_batching_window.is_zero() {
            return Err(ConfigError(
                "Batching window is not supported for FIFO queues".into(),
            ));
        }
        if self.batch_size > 10 && self.maximum_batching_window.is_zero() {
            return Err(ConfigError(
                "Maximum batch window in seconds must be greater than 0 if maximum batch size is greater than 10".into(),
            ));
        }
        if let Some(max) = self.maximum_concurrency {
            if !(2..=1000).contains(&max) {
                return Err(ConfigError(
                    "ScalingConfig.MaximumConcurrency must be between 2 and 1000".into(),
                ));
            }
        }
        if region_of(&self.queue_arn).is_none() {
            return Err(ConfigError(format!(
                "{} is not an SQS queue ARN",
                self.queue_arn
            )));
        }
        Ok(())
    }

    pub fn is_fifo(&self) -> bool {
        self.queue_arn.ends_with(".fifo")
    }

    pub fn region(&self) -> &str {
        region_of(&self.queue_arn).unwrap_or("us-east-1")
    }
}

/// `arn:aws:sqs:<region>:<account>:<name>` -> region.
fn region_of(arn: &str) -> Option<&str> {
    let parts: Vec<&str> = arn.split(':').collect();
    match parts.as_slice() {
        ["arn", _, "sqs", region, _, name] if !region.is_empty() && !name.is_empty() => {
            Some(region)
        }
        _ => None,
    }
}

fn default_batch_size() -> u32 {
    10
}

fn enabled() -> bool {
    true
}

mod millis {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(d.as_millis() as u64)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        u64::deserialize(d).map(Duration::from_millis)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ARN: &str = "arn:aws:sqs:eu-west-1:000000000000:orders";

    #[test]
    fn defaults_are_valid_and_match_aws() {
        let config = EsmConfig::new("worker", ARN);
        assert_eq!(config.batch_size, 10);
        assert!(config.enabled);
        assert_eq!(config.validate(), Ok(()));
        assert_eq!(config.region(), "eu-west-1");
    }

    #[test]
    fn out_of_range_settings_are_rejected() {
        let cases: [fn(&mut EsmConfig); 7] = [
            |c| c.batch_size = 0,
            |c| c.batch_size = 10_001,
            |c| c.batch_size = 11,
            |c| c.maximum_batching_window = Duration::from_secs(301),
            |c| c.maximum_concurrency = Some(1),
            |c| c.maximum_concurrency = Some(1001),
            |c| c.queue_arn = "orders".into(),
        ];
        for (i, tweak) in cases.iter().enumerate() {
            let mut config = EsmConfig::new("worker", ARN);
            tweak(&mut config);
            assert!(config.validate().is_err(), "case {i} should be rejected");
        }
    }

    #[test]
    fn fifo_queues_take_at_most_10_and_no_window() {
        let mut config = EsmConfig::new("worker", "arn:aws:sqs:us-east-1:000000000000:orders.fifo");
        assert_eq!(config.validate(), Ok(()));
        config.maximum_batching_window = Duration::from_secs(1);
        assert!(config.validate().is_err());
        config.batch_size = 20;
        assert!(config.validate().is_err());
    }

    #[test]
    fn large_batches_are_valid_with_a_window() {
        let mut config = EsmConfig::new("worker", ARN);
        config.batch_size = 10_000;
        config.maximum_batching_window = Duration::from_secs(1);
        config.maximum_concurrency = Some(2);
        assert_eq!(config.validate(), Ok(()));
    }
}
