//! Listing queries: one backwards Query on a listing partition (or one per followed
//! author for the feed, merged), a counter read for the total, then one
//! BatchGetItem for the page's articles.

use std::collections::{HashMap, HashSet};

use aws_sdk_dynamodb::Client;
use futures::{stream, StreamExt, TryStreamExt};

use super::super::items::{batch_get, get_n, get_s, key, n, query, s, take_s, QuerySpec};
use super::layout::{
    article_key, author_list, entry_article, fav_list, favorite_key, listed_from_item, tag_list,
    LISTED,
};
use crate::model::{ArticleFilter, ArticlePage, ListedArticle, Page, UserId};
use crate::store::{StoreError, StoreResult};

/// Followed authors queried at once for the feed.
const FEED_PARALLELISM: usize = 16;

/// A listing entry: its sort key (time order) and article id.
struct Entry {
    sk: String,
    article_id: String,
}

/// The newest `want` entries of one listing partition. Only the sort key is
/// read (it ends with the article id): a page at offset 200 reads 220 entries.
async fn entries(client: &Client, table: &str, list: &str, want: usize) -> StoreResult<Vec<Entry>> {
    let items = query(
        client,
        QuerySpec {
            table,
            key_condition: "#pk = :pk",
            names: &[("#pk", "pk")],
            values: vec![(":pk", s(list))],
            filter: None,
            projection: &["sk"],
            newest_first: true,
            want: Some(want),
        },
    )
    .await?;
    items
        .into_iter()
        .map(|mut i| {
            let sk = take_s(&mut i, "sk")?;
            let article_id = entry_article(&sk)
                .ok_or_else(|| StoreError::backend(format!("listing entry {sk:?} names no article")))?
                .to_owned();
            Ok(Entry { sk, article_id })
        })
        .collect()
}

/// Counter values by name (a missing counter is zero), one BatchGetItem.
async fn counter_values(
    client: &Client,
    table: &str,
    names: &[String],
) -> StoreResult<HashMap<String, i64>> {
    let keys = names
        .iter()
        .map(|sk| key(&[("pk", s("COUNT")), ("sk", s(sk))]))
        .collect();
    let items = batch_get(client, table, keys, &["sk", "n"]).await?;
    items
        .iter()
        .map(|i| Ok((get_s(i, "sk")?, get_n(i, "n")?)))
        .collect()
}

/// Sum of the named counters.
async fn counters(client: &Client, table: &str, names: &[String]) -> StoreResult<i64> {
    Ok(counter_values(client, table, names).await?.values().sum())
}

pub async fn list(
    client: &Client,
    table: &str,
    filter: &ArticleFilter,
    page: Page,
) -> StoreResult<ArticlePage> {
    let want = page.offset.saturating_add(page.limit);
    let (entries, total) = match filter {
        ArticleFilter::Authors(authors) => feed_entries(client, table, authors, want).await?,
        ArticleFilter::All => single(client, table, "LIST#ALL".into(), "ALL".into(), want).await?,
        ArticleFilter::Tag(tag) => {
            single(client, table, tag_list(tag), format!("TAG#{tag}"), want).await?
        }
        ArticleFilter::Author(a) => {
            single(client, table, author_list(a), format!("AUTHOR#{a}"), want).await?
        }
        ArticleFilter::Combined {
            tag,
            author,
            favorited_by,
        } => {
            let filters = Combined {
                tag: tag.as_deref(),
                author: author.as_deref(),
                fan: favorited_by.as_deref(),
            };
            return combined(client, table, filters, page).await;
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

#[derive(Clone, Copy)]
struct Combined<'a> {
    tag: Option<&'a str>,
    author: Option<&'a str>,
    fan: Option<&'a str>,
}

/// Several filters: read the smallest matching listing whole (by its counter),
/// check the others on the articles, then page in memory. Cost grows with that
/// smallest listing, never with the table.
async fn combined(
    client: &Client,
    table: &str,
    f: Combined<'_>,
    page: Page,
) -> StoreResult<ArticlePage> {
    let mut sources: Vec<(String, String)> = Vec::new();
    if let Some(t) = f.tag {
        sources.push((tag_list(t), format!("TAG#{t}")));
    }
    if let Some(a) = f.author {
        sources.push((author_list(a), format!("AUTHOR#{a}")));
    }
    if let Some(u) = f.fan {
        sources.push((fav_list(u), format!("FAV#{u}")));
    }
    let names: Vec<String> = sources.iter().map(|(_, c)| c.clone()).collect();
    let sizes = counter_values(client, table, &names).await?;
    let Some((list, _)) = sources
        .iter()
        .min_by_key(|(_, c)| sizes.get(c).copied().unwrap_or(0))
    else {
        return Ok(ArticlePage::empty());
    };
    let ids: Vec<String> = entries(client, table, list, usize::MAX)
        .await?
        .into_iter()
        .map(|e| e.article_id)
        .collect();
    let articles = hydrate(client, table, &ids).await?;
    let favorited: Option<HashSet<String>> = match f.fan {
        Some(user) => {
            let keys = ids.iter().map(|id| favorite_key(id, user)).collect();
            let found = batch_get(client, table, keys, &["pk"]).await?;
            Some(
                found
                    .iter()
                    .filter_map(|i| {
                        get_s(i, "pk")
                            .ok()?
                            .strip_prefix("ARTICLE#")
                            .map(str::to_owned)
                    })
                    .collect(),
            )
        }
        None => None,
    };
    let matching: Vec<ListedArticle> = articles
        .into_iter()
        .filter(|a| f.tag.is_none_or(|t| a.tags.iter().any(|x| x == t)))
        .filter(|a| f.author.is_none_or(|x| a.author_id == x))
        .filter(|a| favorited.as_ref().is_none_or(|set| set.contains(&a.id)))
        .collect();
    let total = matching.len();
    let articles = matching
        .into_iter()
        .skip(page.offset)
        .take(page.limit)
        .collect();
    Ok(ArticlePage { articles, total })
}

/// Listed articles (no body) by id in the given order; ids whose article vanished
/// are skipped.
async fn hydrate(client: &Client, table: &str, ids: &[String]) -> StoreResult<Vec<ListedArticle>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let keys = ids.iter().map(|id| article_key(id)).collect();
    let items = batch_get(client, table, keys, LISTED).await?;
    let mut by_id: HashMap<String, ListedArticle> = HashMap::with_capacity(items.len());
    for item in items {
        let article = listed_from_item(&item)?;
        by_id.insert(article.id.clone(), article);
    }
    Ok(ids.iter().filter_map(|id| by_id.remove(id)).collect())
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
