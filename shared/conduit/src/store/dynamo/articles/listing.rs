//! Listing queries: one backwards Query on a listing partition (or one per followed
//! author for the feed, merged), then one BatchGetItem for the page's articles,
//! the counter that gives the total and the viewer's favorite markers.

use std::collections::{HashMap, HashSet};

use aws_sdk_dynamodb::Client;
use futures::{stream, StreamExt, TryStreamExt};

use super::super::items::{batch_get, get_n, get_s, n, query, s, take_s, Item, QuerySpec};
use super::layout::{
    article_key, author_list, counter_key, entry_article, fav_list, favorite_key, listed_from_item,
    tag_list, LISTED,
};
use crate::model::{ArticleFilter, ArticleId, ArticlePage, ListedArticle, Page, UserId};
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
                .ok_or_else(|| {
                    StoreError::backend(format!("listing entry {sk:?} names no article"))
                })?
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
    let keys = names.iter().map(|name| counter_key(name)).collect();
    let items = batch_get(client, table, keys, &["sk", "n"]).await?;
    items
        .iter()
        .map(|i| Ok((get_s(i, "sk")?, get_n(i, "n")?)))
        .collect()
}

pub async fn list(
    client: &Client,
    table: &str,
    filter: &ArticleFilter,
    page: Page,
    viewer: Option<&str>,
) -> StoreResult<ArticlePage> {
    let want = page.offset.saturating_add(page.limit);
    let (entries, counters) = match filter {
        ArticleFilter::Authors(authors) => (
            feed_entries(client, table, authors, want).await?,
            authors.iter().map(|a| format!("AUTHOR#{a}")).collect(),
        ),
        ArticleFilter::All => (
            entries(client, table, "LIST#ALL", want).await?,
            vec!["ALL".to_owned()],
        ),
        ArticleFilter::Tag(tag) => (
            entries(client, table, &tag_list(tag), want).await?,
            vec![format!("TAG#{tag}")],
        ),
        ArticleFilter::Author(a) => (
            entries(client, table, &author_list(a), want).await?,
            vec![format!("AUTHOR#{a}")],
        ),
        ArticleFilter::FavoritedBy(u) => (
            entries(client, table, &fav_list(u), want).await?,
            vec![format!("FAV#{u}")],
        ),
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
            return combined(client, table, filters, page, viewer).await;
        }
    };
    let page_ids: Vec<String> = entries
        .into_iter()
        .skip(page.offset)
        .map(|e| e.article_id)
        .collect();
    let fetched = fetch(client, table, &page_ids, &counters, viewer).await?;
    let total: i64 = fetched.counters.values().sum();
    Ok(ArticlePage {
        articles: fetched.articles,
        total: usize::try_from(total.max(0)).unwrap_or_default(),
        favorited: fetched.favorited,
    })
}

/// Feed: the newest `want` of each followed author, merged newest first.
async fn feed_entries(
    client: &Client,
    table: &str,
    authors: &[UserId],
    want: usize,
) -> StoreResult<Vec<Entry>> {
    let lists: Vec<String> = authors.iter().map(|a| author_list(a)).collect();
    let mut merged: Vec<Entry> = stream::iter(lists)
        .map(|list| async move { entries(client, table, &list, want).await })
        .buffer_unordered(FEED_PARALLELISM)
        .try_concat()
        .await?;
    merged.sort_by(|a, b| b.sk.cmp(&a.sk));
    merged.truncate(want);
    Ok(merged)
}

/// What one BatchGetItem brings back for a page.
#[derive(Default)]
struct Fetched {
    /// Listed articles in the order asked; those that vanished are skipped.
    articles: Vec<ListedArticle>,
    /// Counter values by name; a missing counter is absent (zero).
    counters: HashMap<String, i64>,
    /// The articles the viewer has favorited.
    favorited: HashSet<ArticleId>,
}

/// The page's articles (no body), the named counters and the viewer's favorite
/// markers of those articles: all in the articles table, so one BatchGetItem
/// (one round trip where there were three).
async fn fetch(
    client: &Client,
    table: &str,
    ids: &[String],
    counters: &[String],
    viewer: Option<&str>,
) -> StoreResult<Fetched> {
    let mut keys: Vec<Item> = ids.iter().map(|id| article_key(id)).collect();
    if let Some(viewer) = viewer {
        keys.extend(ids.iter().map(|id| favorite_key(id, viewer)));
    }
    keys.extend(counters.iter().map(|name| counter_key(name)));
    let mut fetched = Fetched::default();
    if keys.is_empty() {
        return Ok(fetched);
    }
    // Keys and a counter's value, beside what a listed article needs.
    let projection: Vec<&str> = ["pk", "sk", "n"]
        .into_iter()
        .chain(LISTED.iter().copied())
        .collect();
    let mut by_id: HashMap<String, ListedArticle> = HashMap::with_capacity(ids.len());
    for mut item in batch_get(client, table, keys, &projection).await? {
        let pk = take_s(&mut item, "pk")?;
        let sk = take_s(&mut item, "sk")?;
        if pk == "COUNT" {
            fetched.counters.insert(sk, get_n(&item, "n")?);
        } else if sk == "ARTICLE" {
            let article = listed_from_item(&item)?;
            by_id.insert(article.id.clone(), article);
        } else if let Some(id) = pk.strip_prefix("ARTICLE#") {
            // The only other keys asked for are the viewer's favorite markers.
            fetched.favorited.insert(id.to_owned());
        }
    }
    fetched.articles = ids.iter().filter_map(|id| by_id.remove(id)).collect();
    Ok(fetched)
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
    viewer: Option<&str>,
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
    // The viewer's markers are read for the page only, once it is known: the
    // candidates can be the whole of a long listing.
    let articles = fetch(client, table, &ids, &[], None).await?.articles;
    let fans_favorites = match f.fan {
        Some(user) => Some(favorite_markers(client, table, &ids, user).await?),
        None => None,
    };
    let matching: Vec<ListedArticle> = articles
        .into_iter()
        .filter(|a| f.tag.is_none_or(|t| a.tags.iter().any(|x| x == t)))
        .filter(|a| f.author.is_none_or(|x| a.author_id == x))
        .filter(|a| {
            fans_favorites
                .as_ref()
                .is_none_or(|set| set.contains(&a.id))
        })
        .collect();
    let total = matching.len();
    let articles: Vec<ListedArticle> = matching
        .into_iter()
        .skip(page.offset)
        .take(page.limit)
        .collect();
    let favorited = match viewer {
        Some(v) => {
            let page_ids: Vec<String> = articles.iter().map(|a| a.id.clone()).collect();
            favorite_markers(client, table, &page_ids, v).await?
        }
        None => HashSet::new(),
    };
    Ok(ArticlePage {
        articles,
        total,
        favorited,
    })
}

/// The articles among `ids` that `user` has favorited: one BatchGetItem of
/// their markers.
async fn favorite_markers(
    client: &Client,
    table: &str,
    ids: &[String],
    user: &str,
) -> StoreResult<HashSet<ArticleId>> {
    let keys = ids.iter().map(|id| favorite_key(id, user)).collect();
    let found = batch_get(client, table, keys, &["pk"]).await?;
    Ok(found
        .iter()
        .filter_map(|i| {
            get_s(i, "pk")
                .ok()?
                .strip_prefix("ARTICLE#")
                .map(str::to_owned)
        })
        .collect())
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
