//! Which service owns which public route, and the four services in one
//! process over in-memory stores and [`Loopback`] transports: the whole
//! microservice variant without a network, for tests and experiments.

use std::collections::BTreeMap;
use std::sync::Arc;

use conduit::auth::Tokens;
use conduit::http::routes::{route, Route};
use conduit::store::memory::{MemoryArticles, MemoryComments, MemoryFollows, MemoryUsers};
use conduit::{ApiRequest, ApiResponse, App};

use crate::app::{compose, Connections};
use crate::loopback::{CallLog, Loopback};
use crate::owner::Owned;
use crate::service::Service;

/// The service that serves `route` (the routes of `template.yaml`).
pub fn service_of(route: &Route) -> Service {
    use Route as R;
    match route {
        R::Register | R::Login | R::CurrentUser | R::UpdateUser => Service::Users,
        R::Profile(_) | R::Follow(_) | R::Unfollow(_) => Service::Profiles,
        R::ListComments(_) | R::AddComment(_) | R::DeleteComment(..) => Service::Comments,
        R::ListArticles
        | R::Feed
        | R::CreateArticle
        | R::GetArticle(_)
        | R::UpdateArticle(_)
        | R::DeleteArticle(_)
        | R::Favorite(_)
        | R::Unfavorite(_)
        | R::Tags => Service::Articles,
    }
}

pub struct Cluster {
    pub apps: BTreeMap<Service, App>,
    /// The store each service owns.
    pub owned: BTreeMap<Service, Owned>,
    /// The transport to each owner, shared by all its callers.
    pub owners: BTreeMap<Service, Arc<Loopback>>,
    pub log: Arc<CallLog>,
}

impl Cluster {
    pub fn in_memory(tokens: Tokens) -> Self {
        let log = Arc::new(CallLog::default());
        let stores = [
            Owned::Users(Arc::new(MemoryUsers::default())),
            Owned::Follows(Arc::new(MemoryFollows::default())),
            Owned::Articles(Arc::new(MemoryArticles::default())),
            Owned::Comments(Arc::new(MemoryComments::default())),
        ];
        let owners: BTreeMap<Service, Arc<Loopback>> = stores
            .iter()
            .map(|owned| {
                let loopback = Loopback::new(owned.clone(), log.clone());
                (owned.service(), Arc::new(loopback))
            })
            .collect();
        let apps = stores
            .iter()
            .map(|owned| {
                let connections =
                    Connections::for_service(owned.service(), |owner| owners[&owner].clone());
                (
                    owned.service(),
                    compose(owned, &connections, tokens.clone()),
                )
            })
            .collect();
        let owned = stores.into_iter().map(|o| (o.service(), o)).collect();
        Self {
            apps,
            owned,
            owners,
            log,
        }
    }

    /// The service API Gateway would send `request` to: its owner, or users
    /// (the catch-all route) for paths and methods no service serves.
    pub fn service_for(request: &ApiRequest) -> Service {
        route(&request.method, &request.path)
            .map(|r| service_of(&r))
            .unwrap_or(Service::Users)
    }

    pub async fn handle(&self, request: ApiRequest) -> ApiResponse {
        let app = &self.apps[&Self::service_for(&request)];
        crate::prefetch::serve(app, request).await
    }
}
