//! How a usage is priced: the prices' date, the month, the logs' retention.

use serde::{Deserialize, Serialize};

/// The AWS Pricing Calculator's month.
pub const DEFAULT_HOURS_PER_MONTH: f64 = 730.0;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CostOptions {
    /// Steady public request rate used for the monthly figures; `None` = no monthly figures.
    pub requests_per_second: Option<f64>,
    /// Prices in effect on this date (YYYY-MM-DD); `None` = the newest lines.
    pub price_date: Option<String>,
    pub hours_per_month: f64,
    /// Days a log event is kept (the log groups' retention); `None` = kept
    /// forever, when storage grows without bound and is not priced.
    pub log_retention_days: Option<f64>,
}

/// The template's `LogRetentionInDays` default.
pub const DEFAULT_LOG_RETENTION_DAYS: f64 = 14.0;

impl Default for CostOptions {
    fn default() -> Self {
        Self {
            requests_per_second: None,
            price_date: None,
            hours_per_month: DEFAULT_HOURS_PER_MONTH,
            log_retention_days: Some(DEFAULT_LOG_RETENTION_DAYS),
        }
    }
}
