//! Every knob of the orders experiment, read from the function's environment
//! (set by `template.yaml`), with the defaults the experiment documents. How
//! the API reaches the back end is the shared transport scheme
//! ([`transport::settings`]) with one callee, `backend`.

use std::time::Duration;

pub use transport::settings::SettingsError;
use transport::settings::{number, required};
use transport::TransportSettings;

/// The name the API gives the back end: `BACKEND_FUNCTION`, `BACKEND_QUEUE_URL`.
pub const BACKEND: &str = "backend";

/// The public API function's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiSettings {
    pub transport: TransportSettings,
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

    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<Self, SettingsError> {
        Ok(Self {
            transport: TransportSettings::from_lookup(&get, &[BACKEND])?,
        })
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

#[cfg(test)]
mod tests {
    use super::*;
    use transport::Via;

    use transport::settings::lookup_of as env;

    #[test]
    fn the_api_calls_the_back_end_by_its_function_name() {
        let settings = ApiSettings::from_lookup(env(&[
            ("TRANSPORT", "invoke"),
            ("BACKEND_FUNCTION", "backend-fn"),
        ]))
        .unwrap();
        assert_eq!(
            settings.transport.via,
            Via::Invoke {
                functions: vec![(BACKEND.into(), "backend-fn".into())],
                max_attempts: 1,
            }
        );
    }

    #[test]
    fn bad_numbers_are_named_in_the_error() {
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
