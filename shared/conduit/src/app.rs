//! The application: its stores and token keys, plus the joins every resource
//! needs (author profiles, `following`, `favorited`), each one batched call per store.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use aws_sdk_dynamodb::Client;

use crate::auth::{AuthUser, Tokens};
use crate::error::ApiError;
use crate::model::{Article, ArticleId, BodyText, Profile, User, UserId};
use crate::passwords::Passwords;
use crate::store::dynamo::{
    DynamoArticles, DynamoComments, DynamoFollows, DynamoUsers, TableNames,
};
use crate::store::memory::{MemoryArticles, MemoryComments, MemoryFollows, MemoryUsers};
use crate::store::{ArticleStore, CommentStore, FollowStore, UserStore};
use crate::views::{ArticleView, ProfileView};

#[derive(Clone)]
pub struct App {
    pub users: Arc<dyn UserStore>,
    pub follows: Arc<dyn FollowStore>,
    pub articles: Arc<dyn ArticleStore>,
    pub comments: Arc<dyn CommentStore>,
    pub tokens: Tokens,
    pub passwords: Passwords,
}

impl App {
    /// Everything in memory: for unit tests and local experiments.
    pub fn in_memory(tokens: Tokens) -> Self {
        Self {
            users: Arc::new(MemoryUsers::default()),
            follows: Arc::new(MemoryFollows::default()),
            articles: Arc::new(MemoryArticles::default()),
            comments: Arc::new(MemoryComments::default()),
            tokens,
            passwords: Passwords::default(),
        }
    }

    /// All four stores on DynamoDB (the monolith).
    pub fn dynamo(client: Client, tables: &TableNames, tokens: Tokens) -> Self {
        Self {
            users: Arc::new(DynamoUsers::new(client.clone(), &tables.users)),
            follows: Arc::new(DynamoFollows::new(client.clone(), &tables.follows)),
            articles: Arc::new(DynamoArticles::new(client.clone(), &tables.articles)),
            comments: Arc::new(DynamoComments::new(client, &tables.comments)),
            tokens,
            passwords: Passwords::default(),
        }
    }

    /// The caller's user record; a valid token for a user that no longer exists is a 401.
    pub async fn user_of(&self, caller: &AuthUser) -> Result<User, ApiError> {
        self.users
            .by_id(&caller.0)
            .await?
            .ok_or_else(ApiError::invalid_token)
    }

    /// Profiles of `users` as seen by `viewer`: one `followed_among` call for all.
    pub async fn profiles(
        &self,
        viewer: Option<&UserId>,
        users: &[Profile],
    ) -> Result<HashMap<UserId, ProfileView>, ApiError> {
        let followed = match viewer {
            Some(viewer) if !users.is_empty() => {
                let ids: Vec<UserId> = users.iter().map(|u| u.id.clone()).collect();
                self.follows.followed_among(viewer, &ids).await?
            }
            _ => HashSet::new(),
        };
        Ok(users
            .iter()
            .map(|u| (u.id.clone(), ProfileView::new(u, followed.contains(&u.id))))
            .collect())
    }

    /// Author profiles for a set of author ids: one `users_by_ids` for those not in
    /// `known` (none if all are), and one `followed_among`.
    pub async fn author_profiles(
        &self,
        viewer: Option<&UserId>,
        author_ids: &[UserId],
        known: &[Profile],
    ) -> Result<HashMap<UserId, ProfileView>, ApiError> {
        let mut missing: Vec<UserId> = author_ids
            .iter()
            .filter(|id| !known.iter().any(|u| &u.id == *id))
            .cloned()
            .collect();
        missing.sort();
        missing.dedup();
        let mut users: Vec<Profile> = known
            .iter()
            .filter(|u| author_ids.contains(&u.id))
            .cloned()
            .collect();
        if !missing.is_empty() {
            users.extend(self.users.users_by_ids(&missing).await?);
        }
        self.profiles(viewer, &users).await
    }

    /// Article views (with the body if the articles carry one); authors (beyond
    /// `known` users) fetched in one batch, `favorited` as the store read it.
    pub async fn article_views<B: BodyText>(
        &self,
        viewer: Option<&UserId>,
        articles: Vec<Article<B>>,
        favorited: &HashSet<ArticleId>,
        known: &[Profile],
    ) -> Result<Vec<ArticleView>, ApiError> {
        let author_ids: Vec<UserId> = articles.iter().map(|a| a.author_id.clone()).collect();
        let authors = self.author_profiles(viewer, &author_ids, known).await?;
        articles
            .into_iter()
            .map(|article| {
                let author = authors.get(&article.author_id).cloned().ok_or_else(|| {
                    ApiError::internal(format!("author of {} missing", article.id))
                })?;
                let fav = favorited.contains(&article.id);
                Ok(ArticleView::new(article, fav, author))
            })
            .collect()
    }

    pub async fn article_view(
        &self,
        viewer: Option<&UserId>,
        article: Article,
        favorited: bool,
    ) -> Result<ArticleView, ApiError> {
        let favorites: HashSet<ArticleId> =
            favorited.then(|| article.id.clone()).into_iter().collect();
        let mut views = self
            .article_views(viewer, vec![article], &favorites, &[])
            .await?;
        views
            .pop()
            .ok_or_else(|| ApiError::internal("article view missing"))
    }
}
