//! Author cards and "following" in parallel. The conduit logic asks users for
//! the cards of a set of authors, then profiles which of them the viewer
//! follows: two dependent-looking calls that are in fact independent (both
//! only need the author ids). While a request is served, its viewer is known
//! (tokens are checked locally), so the users store asks both owners at once
//! and keeps the "following" answer for the follows store to return.
//! The memo lives for one request only: nothing is cached across requests.

use std::collections::HashSet;
use std::future::Future;
use std::sync::Arc;

use async_trait::async_trait;
use conduit::auth::Identity;
use conduit::model::{Profile, User, UserId};
use conduit::store::{FollowStore, StoreError, StoreResult, UserStore};
use conduit::{ApiRequest, ApiResponse, App};
use parking_lot::Mutex;

/// (viewer, candidates asked, those the viewer follows or why asking failed).
type Answer = (UserId, Vec<UserId>, Result<HashSet<UserId>, String>);

/// A prefetch that failed, reported when its answer is wanted.
#[derive(Debug, thiserror::Error)]
#[error("followedAmong (fetched beside the author cards): {0}")]
pub struct PrefetchFailed(String);

#[derive(Clone, Default)]
struct RequestScope {
    viewer: Option<UserId>,
    answers: Arc<Mutex<Vec<Answer>>>,
}

tokio::task_local! {
    static REQUEST: RequestScope;
}

/// Serves one public request; its viewer (if its token is valid) is known to
/// the stores while it runs.
pub async fn serve(app: &App, request: ApiRequest) -> ApiResponse {
    let identity = Identity::from_headers(&app.tokens, &request.headers);
    let viewer = identity.user_id().cloned();
    with_viewer(viewer, conduit::http::handle_as(app, &identity, request)).await
}

pub async fn with_viewer<F: Future>(viewer: Option<UserId>, work: F) -> F::Output {
    let scope = RequestScope {
        viewer,
        answers: Arc::default(),
    };
    REQUEST.scope(scope, work).await
}

fn current() -> Option<RequestScope> {
    REQUEST.try_with(Clone::clone).ok()
}

/// Wraps `users` so that a batch of cards also fetches "following" for the
/// request's viewer from `follows`, and `follows` so that it answers from it.
pub fn pair(
    users: Arc<dyn UserStore>,
    follows: Arc<dyn FollowStore>,
) -> (Arc<dyn UserStore>, Arc<dyn FollowStore>) {
    (
        Arc::new(PrefetchingUsers {
            users,
            follows: follows.clone(),
        }),
        Arc::new(PrefetchedFollows { follows }),
    )
}

struct PrefetchingUsers {
    users: Arc<dyn UserStore>,
    follows: Arc<dyn FollowStore>,
}

#[async_trait]
impl UserStore for PrefetchingUsers {
    async fn create(&self, user: &User) -> StoreResult<()> {
        self.users.create(user).await
    }
    /// The viewer's own card is wanted with "do I follow myself" (a new
    /// comment's author profile): both are asked at once.
    async fn by_id(&self, id: &UserId) -> StoreResult<Option<User>> {
        match current() {
            Some(scope) if scope.viewer.as_ref() == Some(id) => {
                let (user, followed) = futures::join!(
                    self.users.by_id(id),
                    self.follows.followed_among(id, std::slice::from_ref(id))
                );
                remember(&scope, id, std::slice::from_ref(id), followed);
                user
            }
            _ => self.users.by_id(id).await,
        }
    }
    async fn by_username(&self, username: &str) -> StoreResult<Option<User>> {
        self.users.by_username(username).await
    }
    async fn by_email(&self, email: &str) -> StoreResult<Option<User>> {
        self.users.by_email(email).await
    }
    async fn users_by_ids(&self, ids: &[UserId]) -> StoreResult<Vec<Profile>> {
        let scope = current();
        let viewer = scope.as_ref().and_then(|s| s.viewer.clone());
        let (Some(scope), Some(viewer)) = (scope, viewer) else {
            return self.users.users_by_ids(ids).await;
        };
        if ids.is_empty() {
            return self.users.users_by_ids(ids).await;
        }
        let (users, followed) = futures::join!(
            self.users.users_by_ids(ids),
            self.follows.followed_among(&viewer, ids)
        );
        remember(&scope, &viewer, ids, followed);
        users
    }
    async fn update(&self, old: &User, new: &User) -> StoreResult<()> {
        self.users.update(old, new).await
    }
}

struct PrefetchedFollows {
    follows: Arc<dyn FollowStore>,
}

#[async_trait]
impl FollowStore for PrefetchedFollows {
    async fn follow(&self, follower: &UserId, followee: &UserId) -> StoreResult<()> {
        self.follows.follow(follower, followee).await
    }
    async fn unfollow(&self, follower: &UserId, followee: &UserId) -> StoreResult<()> {
        self.follows.unfollow(follower, followee).await
    }
    async fn followed_among(
        &self,
        viewer: &UserId,
        candidates: &[UserId],
    ) -> StoreResult<HashSet<UserId>> {
        let Some(scope) = current() else {
            return self.follows.followed_among(viewer, candidates).await;
        };
        // Candidates the conduit logic already knew (not in the card batch)
        // are asked for on their own; the rest come from the prefetch.
        let (mut followed, rest) = answered(&scope, viewer, candidates)
            .map_err(|e| StoreError::backend(PrefetchFailed(e)))?;
        if !rest.is_empty() {
            followed.extend(self.follows.followed_among(viewer, &rest).await?);
        }
        Ok(followed)
    }
    async fn followees(&self, viewer: &UserId) -> StoreResult<Vec<UserId>> {
        self.follows.followees(viewer).await
    }
}

/// Keeps a prefetched answer for the rest of the request. A failure is kept
/// too, so that a timeout is not waited for twice.
fn remember(
    scope: &RequestScope,
    viewer: &UserId,
    asked: &[UserId],
    followed: StoreResult<HashSet<UserId>>,
) {
    let followed = followed.map_err(|e| format!("{e}: {:?}", std::error::Error::source(&e)));
    scope
        .answers
        .lock()
        .push((viewer.clone(), asked.to_vec(), followed));
}

/// From the prefetched answers: those of `candidates` the viewer follows,
/// and the candidates no prefetch asked about.
fn answered(
    scope: &RequestScope,
    viewer: &UserId,
    candidates: &[UserId],
) -> Result<(HashSet<UserId>, Vec<UserId>), String> {
    let answers = scope.answers.lock();
    let mut followed = HashSet::new();
    let mut rest = Vec::new();
    for candidate in candidates {
        let answer = answers
            .iter()
            .find(|(v, asked, _)| v == viewer && asked.contains(candidate));
        match answer {
            Some((_, _, Ok(set))) if set.contains(candidate) => {
                followed.insert(candidate.clone());
            }
            Some((_, _, Ok(_))) => {}
            Some((_, _, Err(e))) => return Err(e.clone()),
            None => rest.push(candidate.clone()),
        }
    }
    Ok((followed, rest))
}
