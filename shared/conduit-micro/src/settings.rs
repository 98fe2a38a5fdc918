//! A service's settings, read from its environment (set by `template.yaml`).
//!
//! - `JWT_SECRET`: the token key (read by `conduit::auth::Tokens`);
//! - the own table: `USERS_TABLE`, `FOLLOWS_TABLE`, `ARTICLES_TABLE` or `COMMENTS_TABLE`;
//! - how the owners it calls are reached, in the shared transport scheme
//!   ([`transport::settings`]), with the owners' names as callees
//!   (`USERS_FUNCTION`, `PROFILES_QUEUE_URL`...); not needed by users, which
//!   calls nobody.

use transport::settings::required;
pub use transport::settings::SettingsError;
use transport::TransportSettings;

use crate::service::Service;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    pub service: Service,
    pub table: String,
    /// `None` for a service that calls nobody.
    pub transport: Option<TransportSettings>,
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
        let owners: Vec<&str> = service.dependencies().iter().map(|s| s.name()).collect();
        let transport = if owners.is_empty() {
            None
        } else {
            Some(TransportSettings::from_lookup(&get, &owners)?)
        };
        Ok(Self {
            service,
            table,
            transport,
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

#[cfg(test)]
mod tests {
    use super::*;
    use transport::Via;

    use transport::settings::lookup_of as env;

    #[test]
    fn users_needs_only_its_table() {
        let settings = Settings::from_lookup(Service::Users, env(&[("USERS_TABLE", "u")])).unwrap();
        assert_eq!(settings.table, "u");
        assert_eq!(settings.transport, None);
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
            settings.transport.map(|t| t.via),
            Some(Via::Invoke {
                functions: vec![
                    ("users".into(), "fu".into()),
                    ("profiles".into(), "fp".into()),
                    ("articles".into(), "fa".into()),
                ],
                max_attempts: 1,
            })
        );
    }

    #[test]
    fn a_missing_queue_is_named_in_the_error() {
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
    }
}
