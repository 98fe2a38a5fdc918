//! The owner's side of the internal API: each service answers the requests
//! about the data it owns from its own store, and refuses the others.

use std::sync::Arc;

use conduit::model::User;
use conduit::store::{ArticleStore, CommentStore, FollowStore, StoreError, UserStore};
use serde_json::{json, Value};

use crate::service::Service;
use crate::wire::InternalRequest;

/// Why an internal request got no answer. `error_type()` travels back to the
/// caller (function error type, or the queue reply's error type).
#[derive(Debug, thiserror::Error)]
pub enum OwnerError {
    #[error("malformed internal request: {0}")]
    BadRequest(String),
    #[error("{op} is answered by the {owner} service, not by {this}")]
    WrongOwner {
        op: &'static str,
        owner: Service,
        this: Service,
    },
    #[error("{op} failed in the owner's store")]
    Store {
        op: &'static str,
        #[source]
        source: StoreError,
    },
}

impl OwnerError {
    pub fn error_type(&self) -> &'static str {
        match self {
            Self::BadRequest(_) | Self::WrongOwner { .. } => "BadRequest",
            Self::Store { .. } => "OwnerFailure",
        }
    }
}

/// The store one service owns.
#[derive(Clone)]
pub enum Owned {
    Users(Arc<dyn UserStore>),
    Follows(Arc<dyn FollowStore>),
    Articles(Arc<dyn ArticleStore>),
    Comments(Arc<dyn CommentStore>),
}

impl Owned {
    pub fn service(&self) -> Service {
        match self {
            Self::Users(_) => Service::Users,
            Self::Follows(_) => Service::Profiles,
            Self::Articles(_) => Service::Articles,
            Self::Comments(_) => Service::Comments,
        }
    }

    /// Parses and answers one internal request (the JSON of an Invoke or a queue request).
    pub async fn answer_json(&self, payload: Value) -> Result<Value, OwnerError> {
        let request: InternalRequest =
            serde_json::from_value(payload).map_err(|e| OwnerError::BadRequest(e.to_string()))?;
        self.answer(request).await
    }

    pub async fn answer(&self, request: InternalRequest) -> Result<Value, OwnerError> {
        let op = request.op();
        let store_failed = |source| OwnerError::Store { op, source };
        use InternalRequest as R;
        let answer = match (self, request) {
            (Self::Users(users), R::UsersByIds { ids }) => {
                json!(users.users_by_ids(&ids).await.map_err(store_failed)?)
            }
            (Self::Users(users), R::UserByUsername { username }) => {
                let found = users.by_username(&username).await.map_err(store_failed)?;
                json!(found.as_ref().map(User::profile))
            }
            (Self::Users(users), R::UserById { id }) => {
                let found = users.by_id(&id).await.map_err(store_failed)?;
                json!(found.as_ref().map(User::profile))
            }
            (Self::Follows(follows), R::FollowedAmong { viewer, candidates }) => {
                let found = follows
                    .followed_among(&viewer, &candidates)
                    .await
                    .map_err(store_failed)?;
                let mut found: Vec<_> = found.into_iter().collect();
                found.sort();
                json!(found)
            }
            (Self::Follows(follows), R::Followees { viewer }) => {
                json!(follows.followees(&viewer).await.map_err(store_failed)?)
            }
            (Self::Articles(articles), R::ArticleIdBySlug { slug }) => {
                json!(articles.id_by_slug(&slug).await.map_err(store_failed)?)
            }
            (Self::Comments(comments), R::DeleteCommentsOf { article }) => {
                comments
                    .delete_for_article(&article)
                    .await
                    .map_err(store_failed)?;
                json!({})
            }
            (_, request) => {
                return Err(OwnerError::WrongOwner {
                    op,
                    owner: request.owner(),
                    this: self.service(),
                })
            }
        };
        Ok(answer)
    }
}
