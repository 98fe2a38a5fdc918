//! Keys and item shapes of the articles table (see the parent module's doc).

use aws_sdk_dynamodb::types::{AttributeValue, TransactWriteItem};

use super::super::items::{counter, delete, get_list_s, get_n, get_s, key, n, put, s, Item};
use crate::model::{Article, ListedArticle, NoBody, Timestamp};
use crate::store::StoreResult;

pub(super) fn article_pk(id: &str) -> String {
    format!("ARTICLE#{id}")
}

pub(super) fn slug_key(slug: &str) -> Item {
    key(&[("pk", s(format!("SLUG#{slug}"))), ("sk", s("SLUG"))])
}

pub(super) fn article_key(id: &str) -> Item {
    key(&[("pk", s(article_pk(id))), ("sk", s("ARTICLE"))])
}

pub(super) fn favorite_key(article: &str, user: &str) -> Item {
    key(&[
        ("pk", s(article_pk(article))),
        ("sk", s(format!("FAV#{user}"))),
    ])
}

/// Sort key of listing entries: zero-padded millis, so text order is time order.
pub(super) fn entry_sk(created: Timestamp, id: &str) -> String {
    format!("{:013}#{id}", created.millis())
}

/// The article id at the end of an entry's sort key.
pub(super) fn entry_article(sk: &str) -> Option<&str> {
    sk.split_once('#')
        .map(|(_, id)| id)
        .filter(|id| !id.is_empty())
}

pub(super) fn entry(list: &str, created: Timestamp, id: &str) -> Item {
    key(&[
        ("pk", s(list)),
        ("sk", s(entry_sk(created, id))),
        ("articleId", s(id)),
    ])
}

pub(super) fn entry_key(list: &str, created: Timestamp, id: &str) -> Item {
    key(&[("pk", s(list)), ("sk", s(entry_sk(created, id)))])
}

pub(super) fn tag_list(tag: &str) -> String {
    format!("LIST#TAG#{tag}")
}

pub(super) fn author_list(author: &str) -> String {
    format!("LIST#AUTHOR#{author}")
}

pub(super) fn fav_list(user: &str) -> String {
    format!("LIST#FAV#{user}")
}

pub(super) fn to_item(a: &Article) -> Item {
    let mut item = article_key(&a.id);
    item.extend(key(&[
        ("id", s(&a.id)),
        ("slug", s(&a.slug)),
        ("title", s(&a.title)),
        ("description", s(&a.description)),
        ("body", s(&a.body)),
        ("tags", tags_value(&a.tags)),
        ("authorId", s(&a.author_id)),
        ("createdAt", n(a.created_at.millis())),
        ("updatedAt", n(a.updated_at.millis())),
        ("favoritesCount", n(a.favorites_count)),
    ]));
    item
}

/// A list, not a string set: sets are unordered and cannot be empty.
pub(super) fn tags_value(tags: &[String]) -> AttributeValue {
    AttributeValue::L(tags.iter().map(s).collect())
}

pub(super) fn from_item(item: &Item) -> StoreResult<Article> {
    read(item, get_s(item, "body")?)
}

/// The attributes a listed article needs: all but `body` (1-2 KB a page item
/// would carry for nothing), read with [`listed_from_item`].
pub(super) const LISTED: &[&str] = &[
    "id",
    "slug",
    "title",
    "description",
    "tags",
    "authorId",
    "createdAt",
    "updatedAt",
    "favoritesCount",
];

pub(super) fn listed_from_item(item: &Item) -> StoreResult<ListedArticle> {
    read(item, NoBody)
}

fn read<B>(item: &Item, body: B) -> StoreResult<Article<B>> {
    Ok(Article {
        id: get_s(item, "id")?,
        slug: get_s(item, "slug")?,
        title: get_s(item, "title")?,
        description: get_s(item, "description")?,
        body,
        tags: get_list_s(item, "tags"),
        author_id: get_s(item, "authorId")?,
        created_at: Timestamp(get_n(item, "createdAt")?),
        updated_at: Timestamp(get_n(item, "updatedAt")?),
        favorites_count: get_n(item, "favoritesCount")?,
    })
}

/// The article, its slug and its listing entries, for bulk loading (counters apart).
pub fn items_for_new_article(a: &Article) -> Vec<Item> {
    let mut guard = slug_key(&a.slug);
    guard.insert("articleId".into(), s(&a.id));
    let mut items = vec![
        to_item(a),
        guard,
        entry("LIST#ALL", a.created_at, &a.id),
        entry(&author_list(&a.author_id), a.created_at, &a.id),
    ];
    items.extend(
        a.tags
            .iter()
            .map(|t| entry(&tag_list(t), a.created_at, &a.id)),
    );
    items
}

/// A favorite's marker and listing entry, for bulk loading (counters apart).
pub fn items_for_favorite(a: &Article, user: &str) -> Vec<Item> {
    vec![
        favorite_key(&a.id, user),
        entry(&fav_list(user), a.created_at, &a.id),
    ]
}

/// The key of a counter: `ALL`, `TAG#t`, `AUTHOR#u` or `FAV#u`.
pub(super) fn counter_key(name: &str) -> Item {
    key(&[("pk", s("COUNT")), ("sk", s(name))])
}

/// A counter with its final value: `ALL`, `TAG#t`, `AUTHOR#u` or `FAV#u`.
pub fn counter_item(name: &str, value: i64) -> Item {
    key(&[("pk", s("COUNT")), ("sk", s(name)), ("n", n(value))])
}

/// Index entries and counter moves for adding (+1) or removing (-1) tags.
pub(super) fn tag_actions(
    t: &str,
    a: &Article,
    tags: &[String],
    delta: i64,
) -> StoreResult<Vec<TransactWriteItem>> {
    let mut actions = Vec::with_capacity(tags.len() * 2);
    for tag in tags {
        actions.push(if delta > 0 {
            put(t, entry(&tag_list(tag), a.created_at, &a.id), None)?
        } else {
            delete(t, entry_key(&tag_list(tag), a.created_at, &a.id), None)?
        });
        actions.push(counter(t, "COUNT", &format!("TAG#{tag}"), delta)?);
    }
    Ok(actions)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_sort_key_names_its_article() {
        let sk = entry_sk(Timestamp(1_700_000_000_000), "seed-article-7");
        assert_eq!(sk, "1700000000000#seed-article-7");
        assert_eq!(entry_article(&sk), Some("seed-article-7"));
        assert_eq!(entry_article("1700000000000#"), None);
        assert_eq!(entry_article("1700000000000"), None);
    }
}
