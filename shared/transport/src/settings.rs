//! How a function reaches the functions it calls, read from its environment
//! (set by `template.yaml`). One scheme for every caller:
//!
//! - `TRANSPORT` = `invoke` or `queue`;
//! - invoke: `<CALLEE>_FUNCTION` per callee, `INVOKE_MAX_ATTEMPTS` (default 1,
//!   so that a throttle reaches the caller at once);
//! - queue: `<CALLEE>_QUEUE_URL` per callee, `REPLY_QUEUE_PREFIX` (the reply
//!   queue for callee `x` is named `<prefix><x>-<random>`);
//! - `CALL_TIMEOUT_MS` (default 5000): how long one call may take.
//!
//! [`required`] and [`number`] read the callers' other variables, so that every
//! setting error of every function has the same shape.

use std::collections::HashMap;
use std::time::Duration;

use crate::any::AnyTransport;
use crate::invoke::InvokeTransport;
use crate::reply::{RequestReply, RequestReplyConfig};

pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(5);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    #[error("{0} is not set")]
    Missing(String),
    #[error("{name} must be {expected}, got {value:?}")]
    Invalid {
        name: String,
        expected: &'static str,
        value: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Via {
    /// Synchronous Invoke of each callee's function.
    Invoke {
        /// (callee, function name) for every callee.
        functions: Vec<(String, String)>,
        max_attempts: u32,
    },
    /// Request/reply over each callee's request queue.
    Queue {
        /// (callee, request queue URL) for every callee.
        queues: Vec<(String, String)>,
        reply_queue_prefix: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransportSettings {
    pub via: Via,
    pub call_timeout: Duration,
}

impl TransportSettings {
    /// The settings for calling `callees` (lower-case names, e.g. `users`).
    pub fn from_env(callees: &[&str]) -> Result<Self, SettingsError> {
        Self::from_lookup(&|name| std::env::var(name).ok(), callees)
    }

    pub fn from_lookup(
        get: &impl Fn(&str) -> Option<String>,
        callees: &[&str],
    ) -> Result<Self, SettingsError> {
        let per_callee = |suffix: &str| -> Result<Vec<(String, String)>, SettingsError> {
            callees
                .iter()
                .map(|callee| {
                    let name = format!("{}_{suffix}", callee.to_uppercase());
                    required(get, &name).map(|value| (callee.to_string(), value))
                })
                .collect()
        };
        let via = match get("TRANSPORT").as_deref() {
            Some("invoke") => Via::Invoke {
                functions: per_callee("FUNCTION")?,
                max_attempts: number(get, "INVOKE_MAX_ATTEMPTS", 1)?.max(1) as u32,
            },
            Some("queue") => Via::Queue {
                queues: per_callee("QUEUE_URL")?,
                reply_queue_prefix: required(get, "REPLY_QUEUE_PREFIX")?,
            },
            Some(other) => {
                return Err(SettingsError::Invalid {
                    name: "TRANSPORT".into(),
                    expected: "invoke or queue",
                    value: other.into(),
                })
            }
            None => return Err(SettingsError::Missing("TRANSPORT".into())),
        };
        let call_timeout = Duration::from_millis(number(
            get,
            "CALL_TIMEOUT_MS",
            DEFAULT_CALL_TIMEOUT.as_millis() as u64,
        )?);
        Ok(Self { via, call_timeout })
    }

    /// One transport per callee, built once per execution environment (the
    /// Invoke transports share one Lambda client).
    pub fn transports(&self, config: &aws_config::SdkConfig) -> HashMap<String, AnyTransport> {
        match &self.via {
            Via::Invoke {
                functions,
                max_attempts,
            } => {
                let client = InvokeTransport::client(config, *max_attempts, self.call_timeout);
                functions
                    .iter()
                    .map(|(callee, function)| {
                        let transport = InvokeTransport::new(client.clone(), function.clone());
                        (callee.clone(), AnyTransport::Invoke(transport))
                    })
                    .collect()
            }
            Via::Queue {
                queues,
                reply_queue_prefix,
            } => {
                let sqs = aws_sdk_sqs::Client::new(config);
                queues
                    .iter()
                    .map(|(callee, url)| {
                        let config = RequestReplyConfig {
                            request_queue_url: url.clone(),
                            reply_queue_prefix: format!("{reply_queue_prefix}{callee}-"),
                            wait_limit: self.call_timeout,
                        };
                        let transport = RequestReply::new(sqs.clone(), config);
                        (callee.clone(), AnyTransport::Queue(transport))
                    })
                    .collect()
            }
        }
    }
}

/// A variable that must be set and not empty.
pub fn required(
    get: &impl Fn(&str) -> Option<String>,
    name: &str,
) -> Result<String, SettingsError> {
    get(name)
        .filter(|v| !v.is_empty())
        .ok_or_else(|| SettingsError::Missing(name.into()))
}

/// A whole number, `default` when the variable is not set.
pub fn number(
    get: &impl Fn(&str) -> Option<String>,
    name: &str,
    default: u64,
) -> Result<u64, SettingsError> {
    match get(name) {
        None => Ok(default),
        Some(value) => value.parse().map_err(|_| SettingsError::Invalid {
            name: name.into(),
            expected: "a whole number",
            value,
        }),
    }
}

/// A `from_lookup` environment made of fixed pairs (tests, tools).
pub fn lookup_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |name| map.get(name).cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::lookup_of as env;

    #[test]
    fn invoke_names_one_function_per_callee_and_defaults_to_one_attempt() {
        // GIVEN an invoke deployment calling two callees
        let get = env(&[
            ("TRANSPORT", "invoke"),
            ("USERS_FUNCTION", "fu"),
            ("PROFILES_FUNCTION", "fp"),
        ]);
        // WHEN its settings are read
        let settings = TransportSettings::from_lookup(&get, &["users", "profiles"]).unwrap();
        // THEN each callee has its function, one attempt, the default timeout
        assert_eq!(
            settings,
            TransportSettings {
                via: Via::Invoke {
                    functions: vec![
                        ("users".into(), "fu".into()),
                        ("profiles".into(), "fp".into())
                    ],
                    max_attempts: 1,
                },
                call_timeout: DEFAULT_CALL_TIMEOUT,
            }
        );
    }

    #[test]
    fn queue_needs_a_queue_per_callee_and_a_reply_prefix() {
        let get = env(&[("TRANSPORT", "queue"), ("REPLY_QUEUE_PREFIX", "p-")]);
        let err = TransportSettings::from_lookup(&get, &["backend"]).unwrap_err();
        assert_eq!(err, SettingsError::Missing("BACKEND_QUEUE_URL".into()));

        let get = env(&[
            ("TRANSPORT", "queue"),
            ("BACKEND_QUEUE_URL", "http://q"),
            ("REPLY_QUEUE_PREFIX", "p-"),
            ("CALL_TIMEOUT_MS", "1000"),
        ]);
        let settings = TransportSettings::from_lookup(&get, &["backend"]).unwrap();
        assert_eq!(settings.call_timeout, Duration::from_secs(1));
        assert!(matches!(settings.via, Via::Queue { ref queues, .. } if queues[0].1 == "http://q"));
    }

    #[test]
    fn unknown_transport_and_bad_numbers_are_named_in_the_error() {
        let err = TransportSettings::from_lookup(&env(&[("TRANSPORT", "pigeon")]), &["users"])
            .unwrap_err();
        assert!(
            err.to_string()
                .contains("TRANSPORT must be invoke or queue"),
            "{err}"
        );
        let get = env(&[
            ("TRANSPORT", "invoke"),
            ("USERS_FUNCTION", "f"),
            ("CALL_TIMEOUT_MS", "soon"),
        ]);
        let err = TransportSettings::from_lookup(&get, &["users"]).unwrap_err();
        assert!(err.to_string().contains("CALL_TIMEOUT_MS"), "{err}");
    }

    #[test]
    fn each_callee_gets_its_own_reply_queue_prefix() {
        // GIVEN a queue deployment with two callees
        let get = env(&[
            ("TRANSPORT", "queue"),
            ("USERS_QUEUE_URL", "http://u"),
            ("ARTICLES_QUEUE_URL", "http://a"),
            ("REPLY_QUEUE_PREFIX", "stack-cr-comments-"),
        ]);
        let settings = TransportSettings::from_lookup(&get, &["users", "articles"]).unwrap();
        // WHEN the transports are built
        let config = aws_config::SdkConfig::builder()
            .behavior_version(aws_config::BehaviorVersion::latest())
            .build();
        let transports = settings.transports(&config);
        // THEN each callee's reply queues are named after it
        assert_eq!(transports.len(), 2);
        let prefix = |callee: &str| match &transports[callee] {
            AnyTransport::Queue(t) => t.config().reply_queue_prefix.clone(),
            AnyTransport::Invoke(_) => panic!("{callee} should be reached by queue"),
        };
        assert_eq!(prefix("users"), "stack-cr-comments-users-");
        assert_eq!(prefix("articles"), "stack-cr-comments-articles-");
    }
}
