//! The clean-up of reply queues, off the request path. Every environment of a
//! queue-path caller owns a reply queue tagged with a heartbeat
//! ([`crate::reply::HEARTBEAT_TAG`]); an environment that is gone leaves its
//! queue behind. Scheduled sweeper functions (`functions/reply-sweeper`:
//! `OrdersReplySweeperFunction` and `ConduitMicroQueueReplySweeperFunction` in
//! template.yaml) delete the queues whose heartbeat is older than
//! [`STALE_AFTER`], so that no request lists queues or reads their tags, and
//! the clean-up costs the same however many environments start.

use std::time::Duration;

use aws_sdk_sqs::Client;

use crate::call::TransportError;
use crate::envelope::now_ms;
use crate::reply::HEARTBEAT_TAG;
use crate::settings::{number, required, SettingsError};

/// Reply queues not refreshed for this long belong to environments that are
/// gone (a live one refreshes its heartbeat at least every
/// [`crate::reply::HEARTBEAT_EVERY`] while it calls).
pub const STALE_AFTER: Duration = Duration::from_secs(3600);

/// What one sweep did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Swept {
    /// Reply queues seen, over every prefix.
    pub seen: usize,
    /// URLs of the queues deleted.
    pub deleted: Vec<String>,
}

/// Deletes the queues of each prefix whose heartbeat is older than
/// `stale_after` (a queue without a heartbeat counts as stale). A queue that
/// cannot be read or deleted is skipped (another sweep will see it); a
/// listing that fails is an error.
pub async fn delete_stale_reply_queues(
    sqs: &Client,
    prefixes: &[String],
    stale_after: Duration,
) -> Result<Swept, TransportError> {
    let stale_before = now_ms().saturating_sub(stale_after.as_millis() as u64);
    let mut swept = Swept::default();
    for prefix in prefixes {
        for url in list_queues(sqs, prefix).await? {
            swept.seen += 1;
            let Ok(tags) = sqs.list_queue_tags().queue_url(&url).send().await else {
                continue;
            };
            let heartbeat = tags
                .tags
                .as_ref()
                .and_then(|t| t.get(HEARTBEAT_TAG))
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap_or(0);
            if heartbeat < stale_before && sqs.delete_queue().queue_url(&url).send().await.is_ok() {
                tracing::info!(queue = url, "deleted a stale reply queue");
                swept.deleted.push(url);
            }
        }
    }
    Ok(swept)
}

/// Every queue URL with `prefix`, page by page (ListQueues returns at most
/// 1,000 per call).
async fn list_queues(sqs: &Client, prefix: &str) -> Result<Vec<String>, TransportError> {
    let mut urls = Vec::new();
    let mut next_token = None;
    loop {
        let page = sqs
            .list_queues()
            .queue_name_prefix(prefix)
            .max_results(1000)
            .set_next_token(next_token)
            .send()
            .await
            .map_err(|e| {
                TransportError::Unavailable(format!(
                    "ListQueues: {}",
                    aws_sdk_sqs::error::DisplayErrorContext(e)
                ))
            })?;
        urls.extend(page.queue_urls.unwrap_or_default());
        next_token = page.next_token;
        if next_token.is_none() {
            return Ok(urls);
        }
    }
}

/// The sweeper function's settings: `REPLY_QUEUE_PREFIXES`, the callers'
/// reply queue prefixes separated by commas, and `STALE_AFTER_S` (default
/// [`STALE_AFTER`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SweeperSettings {
    pub prefixes: Vec<String>,
    pub stale_after: Duration,
}

impl SweeperSettings {
    pub fn from_env() -> Result<Self, SettingsError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<Self, SettingsError> {
        let raw = required(&get, "REPLY_QUEUE_PREFIXES")?;
        let prefixes: Vec<String> = raw
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(String::from)
            .collect();
        if prefixes.is_empty() {
            return Err(SettingsError::Invalid {
                name: "REPLY_QUEUE_PREFIXES".into(),
                expected: "queue name prefixes separated by commas",
                value: raw,
            });
        }
        let stale_after = number(&get, "STALE_AFTER_S", STALE_AFTER.as_secs())?;
        Ok(Self {
            prefixes,
            stale_after: Duration::from_secs(stale_after),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &'static [(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn prefixes_are_read_from_a_comma_separated_list_with_an_hour_by_default() {
        let settings = SweeperSettings::from_lookup(env(&[(
            "REPLY_QUEUE_PREFIXES",
            "s-orders-reply-, s-cr-",
        )]))
        .unwrap();
        assert_eq!(settings.prefixes, ["s-orders-reply-", "s-cr-"]);
        assert_eq!(settings.stale_after, Duration::from_secs(3600));
    }

    #[test]
    fn missing_or_empty_prefixes_and_bad_numbers_are_named() {
        let missing = SweeperSettings::from_lookup(env(&[])).unwrap_err();
        assert_eq!(
            missing,
            SettingsError::Missing("REPLY_QUEUE_PREFIXES".into())
        );
        let empty = SweeperSettings::from_lookup(env(&[("REPLY_QUEUE_PREFIXES", " , ")]));
        assert!(empty
            .unwrap_err()
            .to_string()
            .contains("REPLY_QUEUE_PREFIXES"));
        let bad = SweeperSettings::from_lookup(env(&[
            ("REPLY_QUEUE_PREFIXES", "p-"),
            ("STALE_AFTER_S", "soon"),
        ]));
        assert!(bad.unwrap_err().to_string().contains("STALE_AFTER_S"));
    }
}
