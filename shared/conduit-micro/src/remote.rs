//! The conduit store traits implemented by calling the owner's internal API,
//! so the conduit logic runs unchanged in every service. Each remote store
//! offers only the operations other services need; the rest (writes to
//! another owner's data) fail as a backend error, which the API turns into a
//! generic 500: a route reaching them is a wiring bug, not a client error.

use std::collections::HashSet;
use std::sync::Arc;

use async_trait::async_trait;
use conduit::model::{
    Article, ArticleChanges, ArticleFilter, ArticleId, ArticlePage, Comment, Page, Profile,
    Timestamp, User, UserId, ViewedArticle,
};
use conduit::store::{
    ArticleStore, CommentStore, FollowStore, NewArticle, StoreError, StoreResult, UserStore,
};
use serde::de::DeserializeOwned;
use transport::{Transport, TransportError};

use crate::wire::InternalRequest;

/// Why a remote store call failed (kept as the source of `StoreError::Backend`).
#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    #[error("{op}: {source}")]
    Transport {
        op: &'static str,
        #[source]
        source: TransportError,
    },
    #[error("{op}: the owner's answer does not parse: {message}")]
    Answer { op: &'static str, message: String },
    #[error("{0} is not offered by the owner's internal API")]
    NotOffered(&'static str),
}

/// One owner's internal API over one transport.
pub struct Remote<T> {
    transport: Arc<T>,
}

impl<T> Clone for Remote<T> {
    fn clone(&self) -> Self {
        Self {
            transport: self.transport.clone(),
        }
    }
}

impl<T: Transport> Remote<T> {
    pub fn new(transport: Arc<T>) -> Self {
        Self { transport }
    }

    /// Sends `request` and parses the answer as `R`.
    pub async fn ask<R: DeserializeOwned>(&self, request: InternalRequest) -> StoreResult<R> {
        let op = request.op();
        let payload = serde_json::to_value(&request).map_err(StoreError::backend)?;
        let answer = self
            .transport
            .call(payload)
            .await
            .map_err(|source| StoreError::backend(RemoteError::Transport { op, source }))?;
        serde_json::from_value(answer).map_err(|e| {
            StoreError::backend(RemoteError::Answer {
                op,
                message: e.to_string(),
            })
        })
    }
}

fn not_offered<R>(op: &'static str) -> StoreResult<R> {
    Err(StoreError::backend(RemoteError::NotOffered(op)))
}

/// A user as other services know it: the private fields stay empty, since only
/// the users service reads them (login and account updates are its routes).
fn public_user(profile: Profile) -> User {
    User {
        id: profile.id,
        username: profile.username,
        email: String::new(),
        password_hash: String::new(),
        bio: profile.bio,
        image: profile.image,
    }
}

/// The users service, seen from the others: profiles only.
pub struct RemoteUsers<T>(pub Remote<T>);

#[async_trait]
impl<T: Transport + 'static> UserStore for RemoteUsers<T> {
    async fn create(&self, _: &User) -> StoreResult<()> {
        not_offered("users.create")
    }
    async fn by_id(&self, id: &UserId) -> StoreResult<Option<User>> {
        let profile: Option<Profile> = self
            .0
            .ask(InternalRequest::UserById { id: id.clone() })
            .await?;
        Ok(profile.map(public_user))
    }
    async fn by_username(&self, username: &str) -> StoreResult<Option<User>> {
        let profile: Option<Profile> = self
            .0
            .ask(InternalRequest::UserByUsername {
                username: username.to_owned(),
            })
            .await?;
        Ok(profile.map(public_user))
    }
    async fn by_email(&self, _: &str) -> StoreResult<Option<User>> {
        not_offered("users.byEmail")
    }
    async fn users_by_ids(&self, ids: &[UserId]) -> StoreResult<Vec<Profile>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        self.0
            .ask(InternalRequest::UsersByIds { ids: ids.to_vec() })
            .await
    }
    async fn update(&self, _: &User, _: &User) -> StoreResult<()> {
        not_offered("users.update")
    }
}

/// The profiles service (follows), seen from the others: read-only.
pub struct RemoteFollows<T>(pub Remote<T>);

#[async_trait]
impl<T: Transport + 'static> FollowStore for RemoteFollows<T> {
    async fn follow(&self, _: &UserId, _: &UserId) -> StoreResult<()> {
        not_offered("follows.follow")
    }
    async fn unfollow(&self, _: &UserId, _: &UserId) -> StoreResult<()> {
        not_offered("follows.unfollow")
    }
    async fn followed_among(
        &self,
        viewer: &UserId,
        candidates: &[UserId],
    ) -> StoreResult<HashSet<UserId>> {
        if candidates.is_empty() {
            return Ok(HashSet::new());
        }
        self.0
            .ask(InternalRequest::FollowedAmong {
                viewer: viewer.clone(),
                candidates: candidates.to_vec(),
            })
            .await
    }
    async fn followees(&self, viewer: &UserId) -> StoreResult<Vec<UserId>> {
        self.0
            .ask(InternalRequest::Followees {
                viewer: viewer.clone(),
            })
            .await
    }
}

/// The articles service, seen from comments: slug to id only.
pub struct RemoteArticles<T>(pub Remote<T>);

#[async_trait]
impl<T: Transport + 'static> ArticleStore for RemoteArticles<T> {
    async fn create(&self, _: NewArticle) -> StoreResult<Article> {
        not_offered("articles.create")
    }
    async fn by_slug(&self, _: &str, _: Option<&UserId>) -> StoreResult<Option<ViewedArticle>> {
        not_offered("articles.bySlug")
    }
    async fn id_by_slug(&self, slug: &str) -> StoreResult<Option<ArticleId>> {
        self.0
            .ask(InternalRequest::ArticleIdBySlug {
                slug: slug.to_owned(),
            })
            .await
    }
    async fn update(&self, _: &Article, _: ArticleChanges, _: Timestamp) -> StoreResult<Article> {
        not_offered("articles.update")
    }
    async fn delete(&self, _: &Article) -> StoreResult<()> {
        not_offered("articles.delete")
    }
    async fn list(
        &self,
        _: &ArticleFilter,
        _: Page,
        _: Option<&UserId>,
    ) -> StoreResult<ArticlePage> {
        not_offered("articles.list")
    }
    async fn favorite(&self, _: &Article, _: &UserId) -> StoreResult<Article> {
        not_offered("articles.favorite")
    }
    async fn unfavorite(&self, _: &Article, _: &UserId) -> StoreResult<Article> {
        not_offered("articles.unfavorite")
    }
    async fn tags(&self) -> StoreResult<Vec<String>> {
        not_offered("articles.tags")
    }
}

/// The comments service, seen from articles: clean-up after a delete only.
pub struct RemoteComments<T>(pub Remote<T>);

#[async_trait]
impl<T: Transport + 'static> CommentStore for RemoteComments<T> {
    async fn add(&self, _: &ArticleId, _: &UserId, _: &str, _: Timestamp) -> StoreResult<Comment> {
        not_offered("comments.add")
    }
    async fn for_article(&self, _: &ArticleId) -> StoreResult<Vec<Comment>> {
        not_offered("comments.forArticle")
    }
    async fn get(&self, _: &ArticleId, _: i64) -> StoreResult<Option<Comment>> {
        not_offered("comments.get")
    }
    async fn delete(&self, _: &ArticleId, _: i64) -> StoreResult<()> {
        not_offered("comments.delete")
    }
    async fn delete_for_article(&self, article: &ArticleId) -> StoreResult<()> {
        self.0
            .ask::<serde_json::Value>(InternalRequest::DeleteCommentsOf {
                article: article.clone(),
            })
            .await
            .map(drop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    /// Answers every call with the same JSON (or transport error), and keeps the requests.
    struct Canned {
        answer: Result<Value, fn() -> TransportError>,
        seen: parking_lot::Mutex<Vec<Value>>,
    }

    impl Transport for Canned {
        async fn call(&self, request: Value) -> Result<Value, TransportError> {
            self.seen.lock().push(request);
            self.answer.clone().map_err(|make| make())
        }
    }

    fn remote(answer: Result<Value, fn() -> TransportError>) -> (Remote<Canned>, Arc<Canned>) {
        let canned = Arc::new(Canned {
            answer,
            seen: parking_lot::Mutex::default(),
        });
        (Remote::new(canned.clone()), canned)
    }

    #[tokio::test]
    async fn a_batch_of_cards_is_one_call_and_empty_batches_are_no_call() {
        let (r, canned) = remote(Ok(
            json!([{"id": "1", "username": "jake", "bio": null, "image": null}]),
        ));
        let users = RemoteUsers(r);
        let found = users.users_by_ids(&["1".into(), "2".into()]).await.unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].username, "jake");
        assert!(users.users_by_ids(&[]).await.unwrap().is_empty());
        assert_eq!(
            *canned.seen.lock(),
            vec![json!({"op": "usersByIds", "ids": ["1", "2"]})]
        );
    }

    #[tokio::test]
    async fn an_answer_of_the_wrong_shape_is_a_backend_error_naming_the_op() {
        let (r, _) = remote(Ok(json!({"unexpected": true})));
        let error = RemoteFollows(r).followees(&"v".into()).await.unwrap_err();
        let StoreError::Backend(source) = error else {
            panic!("expected a backend error, got {error:?}");
        };
        assert!(source.to_string().starts_with("followees:"), "{source}");
    }

    #[tokio::test]
    async fn a_transport_failure_is_a_backend_error_keeping_its_source() {
        let (r, _) = remote(Err(|| TransportError::Timeout { waited_ms: 50 }));
        let error = RemoteArticles(r).id_by_slug("s").await.unwrap_err();
        let StoreError::Backend(source) = error else {
            panic!("expected a backend error, got {error:?}");
        };
        assert_eq!(
            source.to_string(),
            "articleIdBySlug: no answer within 50 ms"
        );
    }

    #[tokio::test]
    async fn writes_to_another_owners_data_are_refused_without_a_call() {
        let (r, canned) = remote(Ok(json!(null)));
        let follows = RemoteFollows(r);
        assert!(follows.follow(&"a".into(), &"b".into()).await.is_err());
        assert!(canned.seen.lock().is_empty());
    }
}
