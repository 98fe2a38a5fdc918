//! Listing queries: one backwards Query on a listing partition (or one per followed
//! author for the feed, merged), a counter read for the total, then one
//! BatchGetItem for the page's articles.

use std::collections::HashMap;

use aws_sdk_dynamodb::Client;
use futures::{stream, StreamExt, TryStreamExt};

use super::super::items::{batch_get, get_n, get_s, key, n, query, s, Item, QuerySpec};
use super::{article_key, author_list, fav_list, from_item, tag_list};
use crate::model::{ArticleFilter, ArticlePage, Page, UserId};
use crate::store::StoreResult;

/// Followed authors queried at once for the feed.
const FEED_PARALLELISM: usize = 16;

/// A listing entry: its sort key (time order) and article id.
struct Entry {
    sk: String,
    article_id: String,
}

/// The newest `want` entries of one listing partition.
async fn entries(client: &Client, table: &str, list: &str, want: usize) -> StoreResult<Vec<Entry>> {
    let items = query(
        client,
        QuerySpec {
            table,
            key_condition: "#pk = :pk",
            names: &[("#pk", "pk")],
            values: vec![(":pk", s(list))],
            filter: None,
            projection: &["sk", "articleId"],
            newest_first: true,
            want: Some(want),
        },
    )
    .await?;
    items
        .iter()
        .map(|i| {
            Ok(Entry {
                sk: get_s(i, "sk")?,
                article_id: get_s(i, "articleId")?,
            })
        })
        .collect()
}

/// Counter values (missing counters are zero), one BatchGetItem.
async fn counters(client: &Client, table: &str, names: &[String]) -> StoreResult<i64> {
    let keys = names
        .iter()
        .map(|sk| key(&[("pk", s("COUNT")), ("sk", s(sk))]))
        .collect();
    let items = batch_get(client, table, keys, &["n"]).await?;
    Ok(items.iter().filter_map(|i| get_n(i, "n").ok()).sum())
}

pub async fn list(
    client: &Client,
    table: &str,
    filter: &ArticleFilter,
    page: Page,
) -> StoreResult<ArticlePage> {
    let want = page.offset + page.limit;
    let (entries, total) = match filter {
        ArticleFilter::Authors(authors) => feed_entries(client, table, authors, want).await?,
        ArticleFilter::All => single(client, table, "LIST#ALL".into(), "ALL".into(), want).await?,
        ArticleFilter::Tag(tag) => {
            single(client, table, tag_list(tag), format!("TAG#{tag}"), want).await?
        }
        ArticleFilter::Author(a) => {
            single(client, table, author_list(a), format!("AUTHOR#{a}"), want).await?
        }
        ArticleFilter::FavoritedBy(u) => {
            single(client, table, fav_list(u), format!("FAV#{u}"), want).await?
        }
    };
    let page_ids: Vec<String> = entries
        .into_iter()
        .skip(page.offset)
        .map(|e| e.article_id)
        .collect();
    let articles = hydrate(client, table, &page_ids).await?;
    Ok(ArticlePage {
        articles,
        total: usize::try_from(total.max(0)).unwrap_or_default(),
    })
}

/// One listing partition and its counter, read in parallel.
async fn single(
    client: &Client,
    table: &str,
    list: String,
    count: String,
    want: usize,
) -> StoreResult<(Vec<Entry>, i64)> {
    let count = [count];
    futures::try_join!(
        entries(client, table, &list, want),
        counters(client, table, &count)
    )
}

/// Feed: the newest `want` of each followed author, merged newest first.
async fn feed_entries(
    client: &Client,
    table: &str,
    authors: &[UserId],
    want: usize,
) -> StoreResult<(Vec<Entry>, i64)> {
    let count_names: Vec<String> = authors.iter().map(|a| format!("AUTHOR#{a}")).collect();
    let lists: Vec<String> = authors.iter().map(|a| author_list(a)).collect();
    let per_author = stream::iter(lists)
        .map(|list| async move { entries(client, table, &list, want).await })
        .buffer_unordered(FEED_PARALLELISM)
        .try_concat();
    let (mut merged, total) =
        futures::try_join!(per_author, counters(client, table, &count_names))?;
    merged.sort_by(|a, b| b.sk.cmp(&a.sk));
    merged.truncate(want);
    Ok((merged, total))
}

/// Articles by id in the given order; ids whose article vanished are skipped.
async fn hydrate(
    client: &Client,
    table: &str,
    ids: &[String],
) -> StoreResult<Vec<crate::model::Article>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let keys = ids.iter().map(|id| article_key(id)).collect();
    let items = batch_get(client, table, keys, &[]).await?;
    let mut by_id: HashMap<String, Item> = HashMap::new();
    for item in items {
        by_id.insert(get_s(&item, "id")?, item);
    }
    ids.iter()
        .filter_map(|id| by_id.remove(id))
        .map(|item| from_item(&item))
        .collect()
}

/// Tags with a positive counter, most used first: one Query on the counter partition.
pub async fn tags(client: &Client, table: &str) -> StoreResult<Vec<String>> {
    let items = query(
        client,
        QuerySpec {
            table,
            key_condition: "#pk = :pk AND begins_with(#sk, :tag)",
            names: &[("#pk", "pk"), ("#sk", "sk"), ("#n", "n")],
            values: vec![(":pk", s("COUNT")), (":tag", s("TAG#")), (":zero", n(0))],
            filter: Some("#n > :zero"),
            projection: &[],
            newest_first: false,
            want: None,
        },
    )
    .await?;
    let mut tags: Vec<(String, i64)> = items
        .iter()
        .filter_map(|i| {
            Some((
                get_s(i, "sk").ok()?.strip_prefix("TAG#")?.to_owned(),
                get_n(i, "n").ok()?,
            ))
        })
        .collect();
    tags.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Ok(tags.into_iter().map(|(t, _)| t).collect())
}
