//! Every knob of the orders experiment, read from the function's environment
//! (set by `template.yaml`), with the defaults the experiment documents.

use std::time::Duration;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    #[error("{0} is not set")]
    Missing(&'static str),
    #[error("{name} must be {expected}, got {value:?}")]
    Invalid {
        name: &'static str,
        expected: &'static str,
        value: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Path {
    /// `orders-direct`: synchronous Invoke of `function`.
    Direct {
        function: String,
        max_attempts: u32,
        timeout: Duration,
    },
    /// `orders-queue`: request to `request_queue_url`, reply on a queue per environment.
    Queue {
        request_queue_url: String,
        reply_queue_prefix: String,
        wait_limit: Duration,
    },
}

/// The public API function's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiSettings {
    pub path: Path,
}

/// The back end's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackendSettings {
    pub table: String,
    /// "Healthy but slow": how long every request takes before reading.
    pub delay: Duration,
}

impl ApiSettings {
    pub fn from_env() -> Result<Self, SettingsError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// `ORDERS_PATH` = `direct` (with `BACKEND_FUNCTION`, `INVOKE_MAX_ATTEMPTS`
    /// default 1, `INVOKE_TIMEOUT_MS` default 25000) or `queue` (with
    /// `REQUEST_QUEUE_URL`, `REPLY_QUEUE_PREFIX`, `REPLY_WAIT_MS` default 25000).
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<Self, SettingsError> {
        let path = match get("ORDERS_PATH").as_deref() {
            Some("direct") => Path::Direct {
                function: required(&get, "BACKEND_FUNCTION")?,
                max_attempts: number(&get, "INVOKE_MAX_ATTEMPTS", 1)? as u32,
                timeout: Duration::from_millis(number(&get, "INVOKE_TIMEOUT_MS", 25_000)?),
            },
            Some("queue") => Path::Queue {
                request_queue_url: required(&get, "REQUEST_QUEUE_URL")?,
                reply_queue_prefix: required(&get, "REPLY_QUEUE_PREFIX")?,
                wait_limit: Duration::from_millis(number(&get, "REPLY_WAIT_MS", 25_000)?),
            },
            Some(other) => {
                return Err(SettingsError::Invalid {
                    name: "ORDERS_PATH",
                    expected: "direct or queue",
                    value: other.to_string(),
                })
            }
            None => return Err(SettingsError::Missing("ORDERS_PATH")),
        };
        Ok(Self { path })
    }
}

impl BackendSettings {
    pub fn from_env() -> Result<Self, SettingsError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// `ORDERS_TABLE`, and `ORDERS_DELAY_MS` (default 500).
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<Self, SettingsError> {
        Ok(Self {
            table: required(&get, "ORDERS_TABLE")?,
            delay: Duration::from_millis(number(&get, "ORDERS_DELAY_MS", 500)?),
        })
    }
}

fn required(
    get: &impl Fn(&str) -> Option<String>,
    name: &'static str,
) -> Result<String, SettingsError> {
    get(name)
        .filter(|v| !v.is_empty())
        .ok_or(SettingsError::Missing(name))
}

fn number(
    get: &impl Fn(&str) -> Option<String>,
    name: &'static str,
    default: u64,
) -> Result<u64, SettingsError> {
    match get(name) {
        None => Ok(default),
        Some(value) => value.parse().map_err(|_| SettingsError::Invalid {
            name,
            expected: "a whole number",
            value,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| map.get(name).cloned()
    }

    #[test]
    fn direct_path_defaults_to_one_attempt_so_throttles_surface() {
        let settings = ApiSettings::from_lookup(env(&[
            ("ORDERS_PATH", "direct"),
            ("BACKEND_FUNCTION", "backend"),
        ]))
        .unwrap();
        assert_eq!(
            settings.path,
            Path::Direct {
                function: "backend".into(),
                max_attempts: 1,
                timeout: Duration::from_secs(25)
            }
        );
    }

    #[test]
    fn queue_path_needs_its_queue_and_prefix() {
        let err = ApiSettings::from_lookup(env(&[
            ("ORDERS_PATH", "queue"),
            ("REPLY_QUEUE_PREFIX", "p-"),
        ]))
        .unwrap_err();
        assert_eq!(err, SettingsError::Missing("REQUEST_QUEUE_URL"));
        let ok = ApiSettings::from_lookup(env(&[
            ("ORDERS_PATH", "queue"),
            ("REQUEST_QUEUE_URL", "http://q"),
            ("REPLY_QUEUE_PREFIX", "p-"),
            ("REPLY_WAIT_MS", "1000"),
        ]))
        .unwrap();
        assert!(
            matches!(ok.path, Path::Queue { wait_limit, .. } if wait_limit == Duration::from_secs(1))
        );
    }

    #[test]
    fn unknown_path_and_bad_numbers_are_named_in_the_error() {
        let err = ApiSettings::from_lookup(env(&[("ORDERS_PATH", "carrier-pigeon")])).unwrap_err();
        assert!(
            err.to_string()
                .contains("ORDERS_PATH must be direct or queue"),
            "{err}"
        );
        let err = BackendSettings::from_lookup(env(&[
            ("ORDERS_TABLE", "t"),
            ("ORDERS_DELAY_MS", "slow"),
        ]))
        .unwrap_err();
        assert!(err.to_string().contains("ORDERS_DELAY_MS"), "{err}");
    }

    #[test]
    fn backend_delay_defaults_to_half_a_second() {
        let settings = BackendSettings::from_lookup(env(&[("ORDERS_TABLE", "orders")])).unwrap();
        assert_eq!(settings.delay, Duration::from_millis(500));
    }
}
