//! In-memory stores for unit tests: same contracts as the DynamoDB adapters.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Mutex, MutexGuard};

use async_trait::async_trait;

use super::{
    new_comment_id, slug_suffix, ArticleStore, CommentStore, FollowStore, NewArticle, StoreError,
    StoreResult, UserStore,
};
use crate::model::{
    email_key, slug_base, slug_fits, Article, ArticleChanges, ArticleFilter, ArticleId,
    ArticlePage, Comment, NoBody, Page, Profile, Timestamp, User, UserId, ViewedArticle,
};

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panicking test thread must not poison the others.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[derive(Default)]
pub struct MemoryUsers {
    users: Mutex<HashMap<UserId, User>>,
}

impl MemoryUsers {
    fn check_unique(users: &HashMap<UserId, User>, candidate: &User) -> StoreResult<()> {
        for other in users.values().filter(|u| u.id != candidate.id) {
            if other.username == candidate.username {
                return Err(StoreError::Taken("username"));
            }
            if email_key(&other.email) == email_key(&candidate.email) {
                return Err(StoreError::Taken("email"));
            }
        }
        Ok(())
    }
}

#[async_trait]
impl UserStore for MemoryUsers {
    async fn create(&self, user: &User) -> StoreResult<()> {
        let mut users = lock(&self.users);
        Self::check_unique(&users, user)?;
        users.insert(user.id.clone(), user.clone());
        Ok(())
    }

    async fn by_id(&self, id: &UserId) -> StoreResult<Option<User>> {
        Ok(lock(&self.users).get(id).cloned())
    }

    async fn by_username(&self, username: &str) -> StoreResult<Option<User>> {
        Ok(lock(&self.users)
            .values()
            .find(|u| u.username == username)
            .cloned())
    }

    async fn by_email(&self, email: &str) -> StoreResult<Option<User>> {
        Ok(lock(&self.users)
            .values()
            .find(|u| email_key(&u.email) == email_key(email))
            .cloned())
    }

    async fn users_by_ids(&self, ids: &[UserId]) -> StoreResult<Vec<Profile>> {
        let users = lock(&self.users);
        Ok(ids
            .iter()
            .filter_map(|id| users.get(id).map(User::profile))
            .collect())
    }

    async fn update(&self, _old: &User, new: &User) -> StoreResult<()> {
        let mut users = lock(&self.users);
        Self::check_unique(&users, new)?;
        users.insert(new.id.clone(), new.clone());
        Ok(())
    }
}

#[derive(Default)]
pub struct MemoryFollows {
    edges: Mutex<HashSet<(UserId, UserId)>>,
}

#[async_trait]
impl FollowStore for MemoryFollows {
    async fn follow(&self, follower: &UserId, followee: &UserId) -> StoreResult<()> {
        lock(&self.edges).insert((follower.clone(), followee.clone()));
        Ok(())
    }

    async fn unfollow(&self, follower: &UserId, followee: &UserId) -> StoreResult<()> {
        lock(&self.edges).remove(&(follower.clone(), followee.clone()));
        Ok(())
    }

    async fn followed_among(
        &self,
        viewer: &UserId,
        candidates: &[UserId],
    ) -> StoreResult<HashSet<UserId>> {
        let edges = lock(&self.edges);
        Ok(candidates
            .iter()
            .filter(|c| edges.contains(&((*viewer).clone(), (*c).clone())))
            .cloned()
            .collect())
    }

    async fn followees(&self, viewer: &UserId) -> StoreResult<Vec<UserId>> {
        let edges = lock(&self.edges);
        Ok(edges
            .iter()
            .filter(|(f, _)| f == viewer)
            .map(|(_, e)| e.clone())
            .collect())
    }
}

#[derive(Default)]
struct ArticleState {
    by_id: HashMap<ArticleId, Article>,
    slugs: HashMap<String, ArticleId>,
    favorites: HashSet<(ArticleId, UserId)>,
}

impl ArticleState {
    fn claim_slug(&mut self, base: &str, id: &ArticleId) -> String {
        let mut slug = base.to_owned();
        while self.slugs.contains_key(&slug) {
            slug = format!("{base}-{}", slug_suffix());
        }
        self.slugs.insert(slug.clone(), id.clone());
        slug
    }

    fn favorited(&self, id: &ArticleId, user: &UserId) -> bool {
        self.favorites.contains(&(id.clone(), user.clone()))
    }

    fn matches(&self, article: &Article, filter: &ArticleFilter) -> bool {
        match filter {
            ArticleFilter::All => true,
            ArticleFilter::Tag(tag) => article.tags.contains(tag),
            ArticleFilter::Author(author) => &article.author_id == author,
            ArticleFilter::FavoritedBy(user) => self.favorited(&article.id, user),
            ArticleFilter::Authors(authors) => authors.contains(&article.author_id),
            ArticleFilter::Combined {
                tag,
                author,
                favorited_by,
            } => {
                let by_tag = tag.clone().map(ArticleFilter::Tag);
                let by_author = author.clone().map(ArticleFilter::Author);
                let by_fan = favorited_by.clone().map(ArticleFilter::FavoritedBy);
                [by_tag, by_author, by_fan]
                    .iter()
                    .flatten()
                    .all(|f| self.matches(article, f))
            }
        }
    }

    fn set_favorite(&mut self, id: &ArticleId, user: &UserId, on: bool) -> StoreResult<Article> {
        let article = self
            .by_id
            .get_mut(id)
            .ok_or(StoreError::NotFound("article"))?;
        let key = (id.clone(), user.clone());
        let changed = if on {
            self.favorites.insert(key)
        } else {
            self.favorites.remove(&key)
        };
        if changed {
            article.favorites_count += if on { 1 } else { -1 };
        }
        Ok(article.clone())
    }
}

#[derive(Default)]
pub struct MemoryArticles {
    state: Mutex<ArticleState>,
}

#[async_trait]
impl ArticleStore for MemoryArticles {
    async fn create(&self, new: NewArticle) -> StoreResult<Article> {
        let mut state = lock(&self.state);
        let slug = state.claim_slug(&new.slug_base, &new.id);
        let article = new.into_article(slug);
        state.by_id.insert(article.id.clone(), article.clone());
        Ok(article)
    }

    async fn by_slug(
        &self,
        slug: &str,
        viewer: Option<&UserId>,
    ) -> StoreResult<Option<ViewedArticle>> {
        let state = lock(&self.state);
        Ok(state
            .slugs
            .get(slug)
            .and_then(|id| state.by_id.get(id))
            .map(|article| ViewedArticle {
                article: article.clone(),
                favorited: viewer.is_some_and(|v| state.favorited(&article.id, v)),
            }))
    }

    async fn id_by_slug(&self, slug: &str) -> StoreResult<Option<ArticleId>> {
        Ok(lock(&self.state).slugs.get(slug).cloned())
    }

    async fn update(
        &self,
        current: &Article,
        changes: ArticleChanges,
        now: Timestamp,
    ) -> StoreResult<Article> {
        let mut state = lock(&self.state);
        let mut article = state
            .by_id
            .get(&current.id)
            .cloned()
            .ok_or(StoreError::NotFound("article"))?;
        if let Some(title) = changes.title {
            let base = slug_base(&title);
            if !slug_fits(&article.slug, &base) {
                state.slugs.remove(&article.slug);
                article.slug = state.claim_slug(&base, &article.id);
            }
            article.title = title;
        }
        article.description = changes.description.unwrap_or(article.description);
        article.body = changes.body.unwrap_or(article.body);
        article.tags = changes.tags.unwrap_or(article.tags);
        article.updated_at = now;
        state.by_id.insert(article.id.clone(), article.clone());
        Ok(article)
    }

    async fn delete(&self, article: &Article) -> StoreResult<()> {
        let mut state = lock(&self.state);
        state.by_id.remove(&article.id);
        state.slugs.retain(|_, id| id != &article.id);
        state.favorites.retain(|(id, _)| id != &article.id);
        Ok(())
    }

    async fn list(
        &self,
        filter: &ArticleFilter,
        page: Page,
        viewer: Option<&UserId>,
    ) -> StoreResult<ArticlePage> {
        let state = lock(&self.state);
        let mut matching: Vec<&Article> = state
            .by_id
            .values()
            .filter(|a| state.matches(a, filter))
            .collect();
        matching.sort_by(|a, b| (b.created_at, &b.id).cmp(&(a.created_at, &a.id)));
        let total = matching.len();
        let articles: Vec<_> = matching
            .into_iter()
            .skip(page.offset)
            .take(page.limit)
            .map(|a| a.clone().with_body(NoBody))
            .collect();
        let favorited = articles
            .iter()
            .filter(|a| viewer.is_some_and(|v| state.favorited(&a.id, v)))
            .map(|a| a.id.clone())
            .collect();
        Ok(ArticlePage {
            articles,
            total,
            favorited,
        })
    }

    async fn favorite(&self, article: &Article, user: &UserId) -> StoreResult<Article> {
        lock(&self.state).set_favorite(&article.id, user, true)
    }

    async fn unfavorite(&self, article: &Article, user: &UserId) -> StoreResult<Article> {
        lock(&self.state).set_favorite(&article.id, user, false)
    }

    async fn tags(&self) -> StoreResult<Vec<String>> {
        let state = lock(&self.state);
        let mut counts: HashMap<&str, usize> = HashMap::new();
        for tag in state.by_id.values().flat_map(|a| &a.tags) {
            *counts.entry(tag).or_default() += 1;
        }
        let mut tags: Vec<(&str, usize)> = counts.into_iter().collect();
        tags.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        Ok(tags.into_iter().map(|(t, _)| t.to_owned()).collect())
    }
}

#[derive(Default)]
pub struct MemoryComments {
    comments: Mutex<HashMap<ArticleId, BTreeMap<i64, Comment>>>,
}

#[async_trait]
impl CommentStore for MemoryComments {
    async fn add(
        &self,
        article: &ArticleId,
        author: &UserId,
        body: &str,
        now: Timestamp,
    ) -> StoreResult<Comment> {
        let mut comments = lock(&self.comments);
        let of_article = comments.entry(article.clone()).or_default();
        let mut id = new_comment_id(now);
        while of_article.contains_key(&id) {
            id = new_comment_id(now);
        }
        let comment = Comment {
            id,
            article_id: article.clone(),
            author_id: author.clone(),
            body: body.to_owned(),
            created_at: now,
            updated_at: now,
        };
        of_article.insert(id, comment.clone());
        Ok(comment)
    }

    async fn for_article(&self, article: &ArticleId) -> StoreResult<Vec<Comment>> {
        let comments = lock(&self.comments);
        Ok(comments
            .get(article)
            .map(|c| c.values().cloned().collect())
            .unwrap_or_default())
    }

    async fn get(&self, article: &ArticleId, id: i64) -> StoreResult<Option<Comment>> {
        Ok(lock(&self.comments)
            .get(article)
            .and_then(|c| c.get(&id))
            .cloned())
    }

    async fn delete(&self, article: &ArticleId, id: i64) -> StoreResult<()> {
        if let Some(c) = lock(&self.comments).get_mut(article) {
            c.remove(&id);
        }
        Ok(())
    }

    async fn delete_for_article(&self, article: &ArticleId) -> StoreResult<()> {
        lock(&self.comments).remove(article);
        Ok(())
    }
}
