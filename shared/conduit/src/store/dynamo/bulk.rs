//! Bulk loading into EMPTY tables with BatchWriteItem, in the exact layout the
//! adapters write (used by `conduit-seed`). Counters are computed here and written
//! with their final values, so loading twice into the same tables double-counts
//! nothing but also fixes nothing: start from empty tables.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::{PutRequest, WriteRequest};
use aws_sdk_dynamodb::Client;
use futures::{stream, StreamExt, TryStreamExt};

use super::items::{backend, batch_write, key, s, Item};
use super::{articles, comments, users, TableNames};
use crate::model::{Article, Comment, User, UserId};
use crate::store::StoreResult;

/// Items per BatchWriteItem call.
const BATCH: usize = 25;

pub struct BulkLoader {
    client: Client,
    tables: TableNames,
    concurrency: usize,
}

impl BulkLoader {
    /// `concurrency`: BatchWriteItem calls in flight.
    pub fn new(client: Client, tables: TableNames, concurrency: usize) -> Self {
        Self {
            client,
            tables,
            concurrency: concurrency.max(1),
        }
    }

    async fn write_all(&self, table: &str, items: Vec<Item>) -> StoreResult<usize> {
        let count = items.len();
        let requests = items
            .into_iter()
            .map(|item| {
                let put = PutRequest::builder()
                    .set_item(Some(item))
                    .build()
                    .map_err(backend)?;
                Ok(WriteRequest::builder().put_request(put).build())
            })
            .collect::<StoreResult<Vec<_>>>()?;
        let chunks: Vec<Vec<WriteRequest>> = requests.chunks(BATCH).map(<[_]>::to_vec).collect();
        stream::iter(chunks)
            .map(|chunk| batch_write(&self.client, table, chunk))
            .buffer_unordered(self.concurrency)
            .try_collect::<Vec<()>>()
            .await?;
        Ok(count)
    }

    /// Users with their username and email guards; returns items written.
    pub async fn users(&self, users: &[User]) -> StoreResult<usize> {
        let items = users.iter().flat_map(users::items_for_new_user).collect();
        self.write_all(&self.tables.users, items).await
    }

    pub async fn follows(&self, edges: &[(UserId, UserId)]) -> StoreResult<usize> {
        let items = edges
            .iter()
            .map(|(follower, followee)| {
                key(&[("follower", s(follower)), ("followee", s(followee))])
            })
            .collect();
        self.write_all(&self.tables.follows, items).await
    }

    /// Articles with their favorites (`(index into articles, user)`); sets each
    /// article's `favorites_count` and writes every counter.
    pub async fn articles(
        &self,
        articles: &[Article],
        favorites: &[(usize, UserId)],
    ) -> StoreResult<usize> {
        let mut fav_counts: HashMap<usize, i64> = HashMap::new();
        let mut counters: HashMap<String, i64> = HashMap::new();
        let mut items = Vec::new();
        for (index, user) in favorites {
            let Some(article) = articles.get(*index) else {
                continue;
            };
            *fav_counts.entry(*index).or_default() += 1;
            *counters.entry(format!("FAV#{user}")).or_default() += 1;
            items.extend(articles::items_for_favorite(article, user));
        }
        for (index, article) in articles.iter().enumerate() {
            let mut article = article.clone();
            article.favorites_count = fav_counts.get(&index).copied().unwrap_or_default();
            *counters.entry("ALL".into()).or_default() += 1;
            *counters
                .entry(format!("AUTHOR#{}", article.author_id))
                .or_default() += 1;
            for tag in &article.tags {
                *counters.entry(format!("TAG#{tag}")).or_default() += 1;
            }
            items.extend(articles::items_for_new_article(&article));
        }
        items.extend(
            counters
                .iter()
                .map(|(name, value)| articles::counter_item(name, *value)),
        );
        self.write_all(&self.tables.articles, items).await
    }

    pub async fn comments(&self, comments: &[Comment]) -> StoreResult<usize> {
        let items = comments.iter().map(comments::to_item).collect();
        self.write_all(&self.tables.comments, items).await
    }
}
