//! A service's settings, read from its environment (set by `template.yaml`).
//!
//! - `JWT_SECRET`: the token key (read by `conduit::auth::Tokens`);
//! - the own table: `USERS_TABLE`, `FOLLOWS_TABLE`, `ARTICLES_TABLE` or `COMMENTS_TABLE`;
//! - `TRANSPORT` = `invoke` or `queue` (not needed by users, which calls nobody);
//! - invoke: `<OWNER>_FUNCTION` per owner called, `INVOKE_MAX_ATTEMPTS` (default 1);
//! - queue: `<OWNER>_QUEUE_URL` per owner called, `REPLY_QUEUE_PREFIX`
//!   (the reply queue to owner X is named `<prefix><x>-<random>`);
//! - `CALL_TIMEOUT_MS` (default 5000): how long one internal call may take.

use std::time::Duration;

use crate::Service;

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
pub enum TransportSettings {
    /// Synchronous Invoke of each owner's function.
    Invoke {
        /// (owner, function name) for every owner called.
        functions: Vec<(Service, String)>,
        max_attempts: u32,
    },
    /// Request/reply over each owner's request queue.
    Queue {
        /// (owner, request queue URL) for every owner called.
        queues: Vec<(Service, String)>,
        reply_queue_prefix: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    pub service: Service,
    pub table: String,
    /// `None` for a service that calls nobody.
    pub transport: Option<TransportSettings>,
    pub call_timeout: Duration,
}

impl Settings {
    pub fn from_env(service: Service) -> Result<Self, SettingsError> {
        Self::from_lookup(service, |name| std::env::var(name).ok())
    }

    pub fn from_lookup(
        service: Service,
        get: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, SettingsError> {
        let table = required(&get, table_variable(service))?;
        let call_timeout = Duration::from_millis(number(&get, "CALL_TIMEOUT_MS", 5_000)?);
        let owners = service.dependencies();
        let transport = if owners.is_empty() {
            None
        } else {
            Some(transport(&get, owners)?)
        };
        Ok(Self {
            service,
            table,
            transport,
            call_timeout,
        })
    }
}

/// The environment variable naming `service`'s own table.
pub fn table_variable(service: Service) -> &'static str {
    match service {
        Service::Users => "USERS_TABLE",
        Service::Profiles => "FOLLOWS_TABLE",
        Service::Articles => "ARTICLES_TABLE",
        Service::Comments => "COMMENTS_TABLE",
    }
}

fn transport(
    get: &impl Fn(&str) -> Option<String>,
    owners: &[Service],
) -> Result<TransportSettings, SettingsError> {
    let per_owner = |suffix: &str| -> Result<Vec<(Service, String)>, SettingsError> {
        owners
            .iter()
            .map(|&owner| {
                let name = format!("{}_{suffix}", owner.name().to_uppercase());
                required(get, &name).map(|value| (owner, value))
            })
            .collect()
    };
    match get("TRANSPORT").as_deref() {
        Some("invoke") => Ok(TransportSettings::Invoke {
            functions: per_owner("FUNCTION")?,
            max_attempts: number(get, "INVOKE_MAX_ATTEMPTS", 1)?.max(1) as u32,
        }),
        Some("queue") => Ok(TransportSettings::Queue {
            queues: per_owner("QUEUE_URL")?,
            reply_queue_prefix: required(get, "REPLY_QUEUE_PREFIX")?,
        }),
        Some(other) => Err(SettingsError::Invalid {
            name: "TRANSPORT".into(),
            expected: "invoke or queue",
            value: other.into(),
        }),
        None => Err(SettingsError::Missing("TRANSPORT".into())),
    }
}

fn required(get: &impl Fn(&str) -> Option<String>, name: &str) -> Result<String, SettingsError> {
    get(name)
        .filter(|v| !v.is_empty())
        .ok_or_else(|| SettingsError::Missing(name.into()))
}

fn number(
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
    fn users_needs_only_its_table() {
        let settings = Settings::from_lookup(Service::Users, env(&[("USERS_TABLE", "u")])).unwrap();
        assert_eq!(settings.table, "u");
        assert_eq!(settings.transport, None);
        assert_eq!(settings.call_timeout, Duration::from_secs(5));
    }

    #[test]
    fn invoke_names_one_function_per_owner_called() {
        let settings = Settings::from_lookup(
            Service::Comments,
            env(&[
                ("COMMENTS_TABLE", "c"),
                ("TRANSPORT", "invoke"),
                ("USERS_FUNCTION", "fu"),
                ("PROFILES_FUNCTION", "fp"),
                ("ARTICLES_FUNCTION", "fa"),
            ]),
        )
        .unwrap();
        assert_eq!(
            settings.transport,
            Some(TransportSettings::Invoke {
                functions: vec![
                    (Service::Users, "fu".into()),
                    (Service::Profiles, "fp".into()),
                    (Service::Articles, "fa".into()),
                ],
                max_attempts: 1,
            })
        );
    }

    #[test]
    fn a_missing_queue_or_unknown_transport_is_named_in_the_error() {
        let err = Settings::from_lookup(
            Service::Profiles,
            env(&[
                ("FOLLOWS_TABLE", "f"),
                ("TRANSPORT", "queue"),
                ("REPLY_QUEUE_PREFIX", "p-"),
            ]),
        )
        .unwrap_err();
        assert_eq!(err, SettingsError::Missing("USERS_QUEUE_URL".into()));
        let err = Settings::from_lookup(
            Service::Profiles,
            env(&[("FOLLOWS_TABLE", "f"), ("TRANSPORT", "pigeon")]),
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .contains("TRANSPORT must be invoke or queue"),
            "{err}"
        );
    }
}
