//! Articles table (`pk`, `sk`), everything the articles owner keeps:
//! - `ARTICLE#<id>` / `ARTICLE`: the article; `ARTICLE#<id>` / `FAV#<user>`: a favorite
//! - `SLUG#<slug>` / `SLUG`: slug -> article id (unique through a condition)
//! - `LIST#ALL`, `LIST#TAG#<tag>`, `LIST#AUTHOR#<user>`, `LIST#FAV#<user>` /
//!   `<createdAt>#<id>`: listing entries, newest first with a backwards Query
//! - `COUNT` / `ALL`, `TAG#<tag>`, `AUTHOR#<user>`, `FAV#<user>`: counters `n`
//!
//! Entries and counters change in the same transaction as the article, so consistent
//! Queries see a write at once (a GSI would lag).

use async_trait::async_trait;
use aws_sdk_dynamodb::Client;

use super::items::{
    backend, batch_get, counter, delete, delete_when, get_s, hit, key, n, put, query, s, transact,
    update, Item, QuerySpec, TxOutcome,
};
use crate::model::{
    slug_base, slug_fits, Article, ArticleChanges, ArticleFilter, ArticleId, ArticlePage, Page,
    Timestamp, UserId, ViewedArticle,
};
use crate::store::{slug_suffix, ArticleStore, NewArticle, StoreError, StoreResult};

mod layout;
mod listing;

use layout::{
    article_key, article_pk, author_list, entry, entry_key, fav_list, favorite_key, from_item,
    slug_key, tag_actions, tags_value, to_item,
};
// The bulk loader writes articles as this store does; `layout` is private,
// so this re-export is as far as they reach.
pub(super) use layout::{counter_item, items_for_favorite, items_for_new_article};

const NOT_EXISTS: &str = "attribute_not_exists(#pk)";
const EXISTS: &str = "attribute_exists(#pk)";
/// Attempts at a free slug (`base`, then `base-<random>`).
const SLUG_ATTEMPTS: usize = 5;
/// Favorites removed per transaction when an article is deleted (3 actions each).
const FAVORITES_PER_TX: usize = 33;
/// Re-reads allowed when an update or delete finds a newer version than it read.
const VERSION_ATTEMPTS: usize = 5;

pub struct DynamoArticles {
    client: Client,
    table: String,
}

impl DynamoArticles {
    pub fn new(client: Client, table: &str) -> Self {
        Self {
            client,
            table: table.to_owned(),
        }
    }

    async fn get(&self, key: Item) -> StoreResult<Option<Item>> {
        let out = self
            .client
            .get_item()
            .table_name(&self.table)
            .set_key(Some(key))
            .consistent_read(true)
            .send()
            .await
            .map_err(backend)?;
        Ok(out.item)
    }

    async fn by_id(&self, id: &str) -> StoreResult<Option<Article>> {
        self.get(article_key(id))
            .await?
            .as_ref()
            .map(from_item)
            .transpose()
    }

    /// Candidate slugs: the base first, then random suffixes.
    fn slug_candidate(base: &str, attempt: usize) -> String {
        if attempt == 0 {
            base.to_owned()
        } else {
            format!("{base}-{}", slug_suffix())
        }
    }

    /// Favorite markers, listing entries and counters of a deleted article, in batches.
    async fn drop_favorites(&self, article: &Article) -> StoreResult<()> {
        let t = &self.table;
        let markers = query(
            &self.client,
            QuerySpec {
                table: t,
                key_condition: "#pk = :pk AND begins_with(#sk, :fav)",
                names: &[("#pk", "pk"), ("#sk", "sk")],
                values: vec![(":pk", s(article_pk(&article.id))), (":fav", s("FAV#"))],
                filter: None,
                projection: &["sk"],
                newest_first: false,
                want: None,
            },
        )
        .await?;
        let users: Vec<String> = markers
            .iter()
            .filter_map(|m| get_s(m, "sk").ok()?.strip_prefix("FAV#").map(str::to_owned))
            .collect();
        for chunk in users.chunks(FAVORITES_PER_TX) {
            let mut actions = Vec::with_capacity(chunk.len() * 3);
            for user in chunk {
                actions.push(delete(t, favorite_key(&article.id, user), None)?);
                actions.push(delete(
                    t,
                    entry_key(&fav_list(user), article.created_at, &article.id),
                    None,
                )?);
                actions.push(counter(t, "COUNT", &format!("FAV#{user}"), -1)?);
            }
            transact(&self.client, actions).await?;
        }
        Ok(())
    }

    /// One optimistic attempt: `None` when `current` is no longer the stored version
    /// (changed or deleted meanwhile), so the caller re-reads and retries.
    async fn try_update(
        &self,
        current: &Article,
        changes: &ArticleChanges,
        now: Timestamp,
    ) -> StoreResult<Option<Article>> {
        let t = &self.table;
        let mut next = current.clone();
        next.description = changes.description.clone().unwrap_or(next.description);
        next.body = changes.body.clone().unwrap_or(next.body);
        next.tags = changes.tags.clone().unwrap_or(next.tags);
        next.updated_at = now;
        if let Some(title) = &changes.title {
            next.title = title.clone();
        }
        let added: Vec<String> = next
            .tags
            .iter()
            .filter(|t| !current.tags.contains(t))
            .cloned()
            .collect();
        let removed: Vec<String> = current
            .tags
            .iter()
            .filter(|t| !next.tags.contains(t))
            .cloned()
            .collect();
        let base = slug_base(&next.title);
        let slug_changes = changes.title.is_some() && !slug_fits(&current.slug, &base);
        let attempts = if slug_changes { SLUG_ATTEMPTS } else { 1 };
        for attempt in 0..attempts {
            let mut actions = Vec::new();
            if slug_changes {
                next.slug = Self::slug_candidate(&base, attempt);
                let mut guard = slug_key(&next.slug);
                guard.insert("articleId".into(), s(&next.id));
                actions.push(put(t, guard, Some(NOT_EXISTS))?);
                actions.push(delete(t, slug_key(&current.slug), None)?);
            }
            // Only the fields we own: the favorites count moves concurrently.
            actions.push(update(
                t,
                article_key(&next.id),
                "SET #slug = :slug, #title = :title, #desc = :desc, #body = :body, #tags = :tags, #upd = :upd",
                Some("attribute_exists(#pk) AND #upd = :seen"),
                &[
                    ("#slug", "slug"),
                    ("#title", "title"),
                    ("#desc", "description"),
                    ("#body", "body"),
                    ("#tags", "tags"),
                    ("#upd", "updatedAt"),
                    ("#pk", "pk"),
                ],
                vec![
                    (":slug", s(&next.slug)),
                    (":title", s(&next.title)),
                    (":desc", s(&next.description)),
                    (":body", s(&next.body)),
                    (":tags", tags_value(&next.tags)),
                    (":upd", n(now.millis())),
                    (":seen", n(current.updated_at.millis())),
                ],
            )?);
            let article_action = actions.len() - 1;
            actions.extend(tag_actions(t, &next, &added, 1)?);
            actions.extend(tag_actions(t, &next, &removed, -1)?);
            match transact(&self.client, actions).await? {
                TxOutcome::Done => return self.by_id(&next.id).await,
                TxOutcome::ConditionFailed(failed) if hit(&failed, article_action) => {
                    return Ok(None)
                }
                TxOutcome::ConditionFailed(_) => continue,
            }
        }
        Err(StoreError::backend("no free slug found"))
    }

    /// One attempt; false when `article` is no longer the stored version.
    async fn try_delete(&self, article: &Article) -> StoreResult<bool> {
        let t = &self.table;
        let (id, created) = (&article.id, article.created_at);
        let mut actions = vec![
            delete_when(
                t,
                article_key(id),
                "attribute_exists(#pk) AND #upd = :seen",
                &[("#pk", "pk"), ("#upd", "updatedAt")],
                vec![(":seen", n(article.updated_at.millis()))],
            )?,
            delete(t, slug_key(&article.slug), None)?,
            delete(t, entry_key("LIST#ALL", created, id), None)?,
            delete(
                t,
                entry_key(&author_list(&article.author_id), created, id),
                None,
            )?,
            counter(t, "COUNT", "ALL", -1)?,
            counter(t, "COUNT", &format!("AUTHOR#{}", article.author_id), -1)?,
        ];
        actions.extend(tag_actions(t, article, &article.tags, -1)?);
        Ok(matches!(
            transact(&self.client, actions).await?,
            TxOutcome::Done
        ))
    }

    /// The favorite transaction, both ways; returns the article as stored afterwards.
    async fn set_favorite(
        &self,
        article: &Article,
        user: &UserId,
        on: bool,
    ) -> StoreResult<Article> {
        let t = &self.table;
        let delta = if on { 1 } else { -1 };
        let marker = if on {
            put(
                t,
                key(&[
                    ("pk", s(article_pk(&article.id))),
                    ("sk", s(format!("FAV#{user}"))),
                ]),
                Some(NOT_EXISTS),
            )?
        } else {
            delete(t, favorite_key(&article.id, user), Some(EXISTS))?
        };
        let listing = if on {
            put(
                t,
                entry(&fav_list(user), article.created_at, &article.id),
                None,
            )?
        } else {
            delete(
                t,
                entry_key(&fav_list(user), article.created_at, &article.id),
                None,
            )?
        };
        let actions = vec![
            marker,
            update(
                t,
                article_key(&article.id),
                "ADD #c :d",
                Some("attribute_exists(#pk)"),
                &[("#c", "favoritesCount"), ("#pk", "pk")],
                vec![(":d", n(delta))],
            )?,
            listing,
            counter(t, "COUNT", &format!("FAV#{user}"), delta)?,
        ];
        match transact(&self.client, actions).await? {
            TxOutcome::ConditionFailed(failed) if hit(&failed, 1) => {
                return Err(StoreError::NotFound("article"))
            }
            // Already in the requested state: nothing changed, which is fine.
            TxOutcome::ConditionFailed(_) | TxOutcome::Done => {}
        }
        self.by_id(&article.id)
            .await?
            .ok_or(StoreError::NotFound("article"))
    }
}

#[async_trait]
impl ArticleStore for DynamoArticles {
    async fn create(&self, new: NewArticle) -> StoreResult<Article> {
        let t = &self.table;
        let slug_base = new.slug_base.clone();
        let mut article = new.into_article(String::new());
        for attempt in 0..SLUG_ATTEMPTS {
            article.slug = Self::slug_candidate(&slug_base, attempt);
            let mut slug_guard = slug_key(&article.slug);
            slug_guard.insert("articleId".into(), s(&article.id));
            let mut actions = vec![
                put(t, slug_guard, Some(NOT_EXISTS))?,
                put(t, to_item(&article), Some(NOT_EXISTS))?,
                put(t, entry("LIST#ALL", article.created_at, &article.id), None)?,
                put(
                    t,
                    entry(
                        &author_list(&article.author_id),
                        article.created_at,
                        &article.id,
                    ),
                    None,
                )?,
                counter(t, "COUNT", "ALL", 1)?,
                counter(t, "COUNT", &format!("AUTHOR#{}", article.author_id), 1)?,
            ];
            actions.extend(tag_actions(t, &article, &article.tags, 1)?);
            match transact(&self.client, actions).await? {
                TxOutcome::Done => return Ok(article),
                TxOutcome::ConditionFailed(failed) if hit(&failed, 0) => continue,
                TxOutcome::ConditionFailed(_) => {
                    return Err(StoreError::backend("article id collision"))
                }
            }
        }
        Err(StoreError::backend("no free slug found"))
    }

    /// The slug guard, then the article and the viewer's favorite marker in one
    /// BatchGetItem (a guard exists exactly as long as its article: same transactions).
    async fn by_slug(
        &self,
        slug: &str,
        viewer: Option<&UserId>,
    ) -> StoreResult<Option<ViewedArticle>> {
        let Some(id) = self.id_by_slug(slug).await? else {
            return Ok(None);
        };
        let Some(viewer) = viewer else {
            let found = self.by_id(&id).await?;
            return Ok(found.map(|article| ViewedArticle {
                article,
                favorited: false,
            }));
        };
        let keys = vec![article_key(&id), favorite_key(&id, viewer)];
        let mut article = None;
        let mut favorited = false;
        for item in batch_get(&self.client, &self.table, keys, &[]).await? {
            if get_s(&item, "sk")? == "ARTICLE" {
                article = Some(from_item(&item)?);
            } else {
                favorited = true;
            }
        }
        Ok(article.map(|article| ViewedArticle { article, favorited }))
    }

    async fn id_by_slug(&self, slug: &str) -> StoreResult<Option<ArticleId>> {
        self.get(slug_key(slug))
            .await?
            .map(|guard| get_s(&guard, "articleId"))
            .transpose()
    }

    /// Optimistic: the write is conditional on the version read (`updatedAt`), so tag
    /// entries and counters are moved from the tags really stored.
    async fn update(
        &self,
        current: &Article,
        changes: ArticleChanges,
        now: Timestamp,
    ) -> StoreResult<Article> {
        let mut current = current.clone();
        for _ in 0..VERSION_ATTEMPTS {
            if let Some(updated) = self.try_update(&current, &changes, now).await? {
                return Ok(updated);
            }
            current = self
                .by_id(&current.id)
                .await?
                .ok_or(StoreError::NotFound("article"))?;
        }
        Err(StoreError::backend(
            "article kept changing during the update",
        ))
    }

    /// Optimistic like `update`: the entries removed are those of the stored version.
    async fn delete(&self, article: &Article) -> StoreResult<()> {
        let mut current = article.clone();
        for _ in 0..VERSION_ATTEMPTS {
            if self.try_delete(&current).await? {
                return self.drop_favorites(&current).await;
            }
            current = self
                .by_id(&current.id)
                .await?
                .ok_or(StoreError::NotFound("article"))?;
        }
        Err(StoreError::backend(
            "article kept changing during the delete",
        ))
    }

    async fn list(
        &self,
        filter: &ArticleFilter,
        page: Page,
        viewer: Option<&UserId>,
    ) -> StoreResult<ArticlePage> {
        let viewer = viewer.map(String::as_str);
        listing::list(&self.client, &self.table, filter, page, viewer).await
    }

    async fn favorite(&self, article: &Article, user: &UserId) -> StoreResult<Article> {
        self.set_favorite(article, user, true).await
    }

    async fn unfavorite(&self, article: &Article, user: &UserId) -> StoreResult<Article> {
        self.set_favorite(article, user, false).await
    }

    async fn tags(&self) -> StoreResult<Vec<String>> {
        listing::tags(&self.client, &self.table).await
    }
}
