//! Storage capabilities, one small batch-oriented trait per owner (users, follows,
//! articles, comments), so a microservice can swap one for a remote client.
//! Methods taking a slice answer for all its items in one call: callers never loop.

use std::collections::HashSet;

use async_trait::async_trait;

use crate::model::{
    Article, ArticleChanges, ArticleFilter, ArticleId, ArticlePage, Comment, Page, Profile,
    Timestamp, User, UserId, ViewedArticle,
};

pub mod dynamo;
pub mod memory;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A unique field (`username`, `email`) belongs to someone else.
    #[error("{0} has already been taken")]
    Taken(&'static str),
    /// The item vanished between our read and our write (e.g. a concurrent delete).
    #[error("{0} not found")]
    NotFound(&'static str),
    #[error("storage backend failed")]
    Backend(#[source] Box<dyn std::error::Error + Send + Sync>),
}

impl StoreError {
    pub fn backend(source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Self::Backend(source.into())
    }
}

pub type StoreResult<T> = Result<T, StoreError>;

#[async_trait]
pub trait UserStore: Send + Sync {
    /// Fails with `Taken` if the username or the email (case-insensitive) is in use.
    async fn create(&self, user: &User) -> StoreResult<()>;
    async fn by_id(&self, id: &UserId) -> StoreResult<Option<User>>;
    async fn by_username(&self, username: &str) -> StoreResult<Option<User>>;
    async fn by_email(&self, email: &str) -> StoreResult<Option<User>>;
    /// The profiles of the users that exist among `ids`, in no particular order.
    async fn users_by_ids(&self, ids: &[UserId]) -> StoreResult<Vec<Profile>>;
    /// Replaces `old` by `new` (same id), moving the uniqueness claims if needed.
    async fn update(&self, old: &User, new: &User) -> StoreResult<()>;
}

#[async_trait]
pub trait FollowStore: Send + Sync {
    /// Idempotent.
    async fn follow(&self, follower: &UserId, followee: &UserId) -> StoreResult<()>;
    /// Idempotent.
    async fn unfollow(&self, follower: &UserId, followee: &UserId) -> StoreResult<()>;
    /// The subset of `candidates` that `viewer` follows.
    async fn followed_among(
        &self,
        viewer: &UserId,
        candidates: &[UserId],
    ) -> StoreResult<HashSet<UserId>>;
    /// Everyone `viewer` follows.
    async fn followees(&self, viewer: &UserId) -> StoreResult<Vec<UserId>>;
}

/// What a new article needs; the store picks a unique slug from `slug_base`.
#[derive(Debug, Clone)]
pub struct NewArticle {
    pub id: ArticleId,
    pub slug_base: String,
    pub title: String,
    pub description: String,
    pub body: String,
    pub tags: Vec<String>,
    pub author_id: UserId,
    pub created_at: Timestamp,
}

impl NewArticle {
    /// The article as first stored under `slug`: not yet updated, no favorites.
    pub fn into_article(self, slug: String) -> Article {
        Article {
            id: self.id,
            slug,
            title: self.title,
            description: self.description,
            body: self.body,
            tags: self.tags,
            author_id: self.author_id,
            created_at: self.created_at,
            updated_at: self.created_at,
            favorites_count: 0,
        }
    }
}

#[async_trait]
pub trait ArticleStore: Send + Sync {
    /// Stores the article under `slug_base`, or `slug_base-<suffix>` if taken.
    async fn create(&self, new: NewArticle) -> StoreResult<Article>;
    /// The article with this slug, read together with whether `viewer` favorited it.
    async fn by_slug(
        &self,
        slug: &str,
        viewer: Option<&UserId>,
    ) -> StoreResult<Option<ViewedArticle>>;
    /// The id of the article with this slug: one read, for routes that need no more.
    async fn id_by_slug(&self, slug: &str) -> StoreResult<Option<ArticleId>>;
    /// Applies `changes` (a new title gets a new unique slug); `NotFound` if deleted meanwhile.
    async fn update(
        &self,
        current: &Article,
        changes: ArticleChanges,
        now: Timestamp,
    ) -> StoreResult<Article>;
    async fn delete(&self, article: &Article) -> StoreResult<()>;
    /// One page, with `viewer`'s favorites among it read in the same batch.
    async fn list(
        &self,
        filter: &ArticleFilter,
        page: Page,
        viewer: Option<&UserId>,
    ) -> StoreResult<ArticlePage>;
    /// Idempotent; returns the article with its current count.
    async fn favorite(&self, article: &Article, user: &UserId) -> StoreResult<Article>;
    /// Idempotent; returns the article with its current count.
    async fn unfavorite(&self, article: &Article, user: &UserId) -> StoreResult<Article>;
    /// Tags used by at least one article, most used first.
    async fn tags(&self) -> StoreResult<Vec<String>>;
}

#[async_trait]
pub trait CommentStore: Send + Sync {
    /// Assigns the id; `body`, author and article come from the arguments.
    async fn add(
        &self,
        article: &ArticleId,
        author: &UserId,
        body: &str,
        now: Timestamp,
    ) -> StoreResult<Comment>;
    /// Comments of one article, oldest first.
    async fn for_article(&self, article: &ArticleId) -> StoreResult<Vec<Comment>>;
    async fn get(&self, article: &ArticleId, id: i64) -> StoreResult<Option<Comment>>;
    async fn delete(&self, article: &ArticleId, id: i64) -> StoreResult<()>;
    /// Removes every comment of a deleted article.
    async fn delete_for_article(&self, article: &ArticleId) -> StoreResult<()>;
}

/// Time-ordered comment id below 2^53: milliseconds * 1000 + a random 0..999.
pub fn new_comment_id(now: Timestamp) -> i64 {
    now.millis() * 1000 + rand::random_range(0..1000)
}

/// A short random suffix that makes a taken slug unique.
pub fn slug_suffix() -> String {
    format!("{:06x}", rand::random_range(0..0x100_0000u32))
}
