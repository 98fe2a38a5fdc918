//! One service's conduit `App`: its own store, and remote stores over the
//! transports to the owners it calls.

use std::sync::Arc;

use conduit::auth::Tokens;
use conduit::passwords::Passwords;
use conduit::App;
use transport::{Transport, TransportError};

use crate::owner::Owned;
use crate::remote::{Remote, RemoteArticles, RemoteComments, RemoteFollows, RemoteUsers};
use crate::service::Service;

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
        (app.users, app.follows) = crate::prefetch::pair(app.users, app.follows);
    }
    app
}
