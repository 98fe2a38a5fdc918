//! The four services and their names.

/// The four services, each named after the data it owns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Service {
    /// Table `users`; routes `/users`, `/users/login`, `/user`.
    Users,
    /// Table `follows`; routes `/profiles/{username}[/follow]`.
    Profiles,
    /// Table `articles` (articles, tags, favorites); `/articles...`, `/tags`.
    Articles,
    /// Table `comments`; `/articles/{slug}/comments...`.
    Comments,
}

impl Service {
    pub const ALL: [Service; 4] = [
        Service::Users,
        Service::Profiles,
        Service::Articles,
        Service::Comments,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Service::Users => "users",
            Service::Profiles => "profiles",
            Service::Articles => "articles",
            Service::Comments => "comments",
        }
    }

    /// The owners whose internal API this service calls.
    pub fn dependencies(self) -> &'static [Service] {
        match self {
            Service::Users => &[],
            Service::Profiles => &[Service::Users],
            Service::Articles => &[Service::Users, Service::Profiles, Service::Comments],
            Service::Comments => &[Service::Users, Service::Profiles, Service::Articles],
        }
    }
}

/// `CONDUIT_SERVICE` is missing or names no service.
#[derive(Debug, thiserror::Error)]
#[error("CONDUIT_SERVICE must be one of users, profiles, articles, comments (got {0:?})")]
pub struct UnknownService(pub Option<String>);

impl std::str::FromStr for Service {
    type Err = UnknownService;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Service::ALL
            .into_iter()
            .find(|s| s.name() == name)
            .ok_or_else(|| UnknownService(Some(name.to_owned())))
    }
}

impl Service {
    /// The role of a function of the one `conduit-service` binary, from its
    /// `CONDUIT_SERVICE` environment variable (set per function by the template).
    pub fn from_env() -> Result<Self, UnknownService> {
        std::env::var("CONDUIT_SERVICE")
            .map_err(|_| UnknownService(None))?
            .parse()
    }
}

impl std::fmt::Display for Service {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_service_parses_from_its_name_and_nothing_else_does() {
        for service in Service::ALL {
            assert_eq!(service.name().parse::<Service>().unwrap(), service);
        }
        let err = "Users".parse::<Service>().unwrap_err();
        assert!(err
            .to_string()
            .contains("users, profiles, articles, comments"));
        assert!(err.to_string().contains("\"Users\""));
    }
}
