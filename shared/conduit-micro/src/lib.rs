//! Conduit as four microservices (issue 5). Each service owns one kind of
//! data and serves the public routes of its resource with the unchanged
//! conduit logic; where that logic reads another owner's data, a remote store
//! calls the owner's internal batch API over a [`transport::Transport`]
//! (synchronous Invoke or SQS request/reply, chosen per deployment).
//!
//! - [`wire`]: the internal requests and the records they answer with;
//! - [`remote`]: the conduit store traits over the internal API;
//! - [`owner`]: each owner answering internal requests from its store;
//! - [`prefetch`]: author cards and "following" fetched in parallel;
//! - [`cluster`] and [`loopback`]: the four services in one process, for tests;

//! - [`settings`] and [`lambda`]: one entry point per service for public HTTP
//!   events, internal invokes and SQS batches of internal requests.

pub mod cluster;
pub mod lambda;
pub mod loopback;
pub mod owner;
pub mod prefetch;

pub mod remote;
pub mod settings;
pub mod wire;

use std::sync::Arc;

use conduit::auth::Tokens;
use conduit::passwords::Passwords;
use conduit::App;
use transport::{Transport, TransportError};

use crate::owner::Owned;
use crate::remote::{Remote, RemoteArticles, RemoteComments, RemoteFollows, RemoteUsers};

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

/// The way to one owner: a transport, or none if this service never calls
/// it (then every call fails, so a wiring mistake is a clean 500, never a
/// silent read of the wrong data).
pub enum Link<T> {
    Connected(Arc<T>),
    NotConnected(Service),
}

impl<T: Transport> Transport for Link<T> {
    async fn call(&self, request: serde_json::Value) -> Result<serde_json::Value, TransportError> {
        match self {
            Link::Connected(transport) => transport.call(request).await,
            Link::NotConnected(owner) => Err(TransportError::Unavailable(format!(
                "this service is not connected to the {owner} service"
            ))),
        }
    }
}

/// The transports of one service to the owners it depends on.
pub struct Connections<T> {
    pub users: Option<Arc<T>>,
    pub profiles: Option<Arc<T>>,
    pub articles: Option<Arc<T>>,
    pub comments: Option<Arc<T>>,
}

impl<T> Default for Connections<T> {
    fn default() -> Self {
        Self {
            users: None,
            profiles: None,
            articles: None,
            comments: None,
        }
    }
}

impl<T> Connections<T> {
    /// `make(owner)` for every owner `service` depends on.
    pub fn for_service(service: Service, mut make: impl FnMut(Service) -> Arc<T>) -> Self {
        let mut connections = Self::default();
        for &owner in service.dependencies() {
            let transport = Some(make(owner));
            match owner {
                Service::Users => connections.users = transport,
                Service::Profiles => connections.profiles = transport,
                Service::Articles => connections.articles = transport,
                Service::Comments => connections.comments = transport,
            }
        }
        connections
    }
}

/// The conduit `App` of one service: its own store, and remote stores for
/// the owners it calls.
pub fn compose<T: Transport + 'static>(
    owned: &Owned,
    connections: &Connections<T>,
    tokens: Tokens,
) -> App {
    let link = |transport: &Option<Arc<T>>, owner| {
        Remote::new(Arc::new(match transport {
            Some(t) => Link::Connected(t.clone()),
            None => Link::NotConnected(owner),
        }))
    };
    let mut app = App {
        users: Arc::new(RemoteUsers(link(&connections.users, Service::Users))),
        follows: Arc::new(RemoteFollows(link(
            &connections.profiles,
            Service::Profiles,
        ))),
        articles: Arc::new(RemoteArticles(link(
            &connections.articles,
            Service::Articles,
        ))),
        comments: Arc::new(RemoteComments(link(
            &connections.comments,
            Service::Comments,
        ))),
        tokens,
        passwords: Passwords::default(),
    };
    match owned {
        Owned::Users(store) => app.users = store.clone(),
        Owned::Follows(store) => app.follows = store.clone(),
        Owned::Articles(store) => app.articles = store.clone(),
        Owned::Comments(store) => app.comments = store.clone(),
    }
    // Where both are remote, their calls for one set of authors run together.
    if matches!(owned, Owned::Articles(_) | Owned::Comments(_)) {
        (app.users, app.follows) = prefetch::pair(app.users, app.follows);
    }
    app
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
