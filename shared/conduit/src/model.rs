//! Domain records as the stores keep them (not the wire format, see `views`).

use std::collections::HashSet;

use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Deserialize, Serialize};

/// Opaque, immutable user identifier (a UUID string); usernames may change.
pub type UserId = String;
/// Opaque, immutable article identifier; slugs may change with the title.
pub type ArticleId = String;

/// The form of an email that uniqueness and login compare: emails are one
/// account whatever their case (the user still sees the email as typed).
pub fn email_key(email: &str) -> String {
    email.trim().to_lowercase()
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    pub id: UserId,
    pub username: String,
    pub email: String,
    pub password_hash: String,
    pub bio: Option<String>,
    pub image: Option<String>,
}

impl User {
    /// What others may see of this user.
    pub fn profile(&self) -> Profile {
        Profile {
            id: self.id.clone(),
            username: self.username.clone(),
            bio: self.bio.clone(),
            image: self.image.clone(),
        }
    }
}

/// What anyone may see of a user (author cards, profiles): no email, no
/// password hash. Also the users service's internal answer for a user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Profile {
    pub id: UserId,
    pub username: String,
    pub bio: Option<String>,
    pub image: Option<String>,
}

/// An article; `Body` is its text, or [`NoBody`] where only lists need it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Article<Body = String> {
    pub id: ArticleId,
    pub slug: String,
    pub title: String,
    pub description: String,
    pub body: Body,
    /// Distinct tags in the order the author gave them.
    pub tags: Vec<String>,
    pub author_id: UserId,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub favorites_count: i64,
}

/// The body of a listed article: not read at all, since list items show none
/// (spec 2.0: `MultipleArticlesResponse` items have no `body`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoBody;

/// An article as a list shows it.
pub type ListedArticle = Article<NoBody>;

/// What an article's body is worth in a response: its text, or absent.
pub trait BodyText {
    fn into_text(self) -> Option<String>;
}

impl BodyText for String {
    fn into_text(self) -> Option<String> {
        Some(self)
    }
}

impl BodyText for NoBody {
    fn into_text(self) -> Option<String> {
        None
    }
}

impl<B> Article<B> {
    /// The same article with another body (e.g. `NoBody` for a list).
    pub fn with_body<C>(self, body: C) -> Article<C> {
        Article {
            id: self.id,
            slug: self.slug,
            title: self.title,
            description: self.description,
            body,
            tags: self.tags,
            author_id: self.author_id,
            created_at: self.created_at,
            updated_at: self.updated_at,
            favorites_count: self.favorites_count,
        }
    }
}

/// The fields an update may change; `None` keeps the current value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ArticleChanges {
    pub title: Option<String>,
    pub description: Option<String>,
    pub body: Option<String>,
    pub tags: Option<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comment {
    /// Time-ordered integer id, unique per article and below 2^53 (safe in JSON).
    pub id: i64,
    pub article_id: ArticleId,
    pub author_id: UserId,
    pub body: String,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// Which articles a listing selects; all variants are ordered newest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArticleFilter {
    All,
    Tag(String),
    Author(UserId),
    FavoritedBy(UserId),
    /// The feed: articles by any of these authors.
    Authors(Vec<UserId>),
    /// Several filters at once (all must hold); at least two are set.
    Combined {
        tag: Option<String>,
        author: Option<UserId>,
        favorited_by: Option<UserId>,
    },
}

impl ArticleFilter {
    /// The simplest variant for the given filters.
    pub fn of(tag: Option<String>, author: Option<UserId>, favorited_by: Option<UserId>) -> Self {
        match (tag, author, favorited_by) {
            (None, None, None) => Self::All,
            (Some(tag), None, None) => Self::Tag(tag),
            (None, Some(author), None) => Self::Author(author),
            (None, None, Some(user)) => Self::FavoritedBy(user),
            (tag, author, favorited_by) => Self::Combined {
                tag,
                author,
                favorited_by,
            },
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    pub offset: usize,
    pub limit: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArticlePage {
    pub articles: Vec<ListedArticle>,
    /// Total matching the filter, regardless of paging.
    pub total: usize,
    /// The page's articles that the viewer (if any) has favorited.
    pub favorited: HashSet<ArticleId>,
}

impl ArticlePage {
    pub fn empty() -> Self {
        Self {
            articles: Vec::new(),
            total: 0,
            favorited: HashSet::new(),
        }
    }
}

/// An article and whether its viewer has favorited it (false without a viewer).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewedArticle {
    pub article: Article,
    pub favorited: bool,
}

/// Millisecond-precision UTC instant; its string form sorts chronologically.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(pub i64);

impl Timestamp {
    pub fn now() -> Self {
        Self(Utc::now().timestamp_millis())
    }

    pub fn millis(self) -> i64 {
        self.0
    }

    /// ISO 8601 with milliseconds and `Z`, e.g. `2026-11-30T10:42:29.123Z`.
    pub fn to_rfc3339(self) -> String {
        DateTime::<Utc>::from_timestamp_millis(self.0)
            .unwrap_or_default()
            .to_rfc3339_opts(SecondsFormat::Millis, true)
    }

    pub fn parse(s: &str) -> Option<Self> {
        DateTime::parse_from_rfc3339(s)
            .ok()
            .map(|t| Self(t.with_timezone(&Utc).timestamp_millis()))
    }
}

/// URL-safe slug from a title: lowercase ASCII alphanumerics joined by `-`.
/// Non-ASCII letters are kept (they are valid in a path once percent-encoded).
pub fn slugify(title: &str) -> String {
    let mut slug = String::with_capacity(title.len());
    for c in title.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            slug.push(c);
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    while slug.ends_with('-') {
        slug.pop();
    }
    if slug.is_empty() {
        slug.push_str("article");
    }
    // Keep keys short: DynamoDB keys and URLs both prefer it.
    slug.chars()
        .take(80)
        .collect::<String>()
        .trim_end_matches('-')
        .to_owned()
}

/// The slug a title asks for; `feed` is a route of its own, so no article may take it.
pub fn slug_base(title: &str) -> String {
    match slugify(title) {
        s if s == "feed" => "feed-article".to_owned(),
        s => s,
    }
}

/// Whether `current` already is `base` or `base-<6 hex>` (so a retitle keeps it).
pub fn slug_fits(current: &str, base: &str) -> bool {
    match current.strip_prefix(base) {
        Some("") => true,
        Some(rest) => rest
            .strip_prefix('-')
            .is_some_and(|r| r.len() == 6 && r.chars().all(|c| c.is_ascii_hexdigit())),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slug_joins_words_with_single_dashes() {
        assert_eq!(
            slugify("How to  Train your Dragon!"),
            "how-to-train-your-dragon"
        );
    }

    #[test]
    fn slug_of_punctuation_only_title_is_not_empty() {
        assert_eq!(slugify("?!"), "article");
    }

    #[test]
    fn retitling_to_an_equivalent_title_keeps_the_slug() {
        assert!(slug_fits("old-title", "old-title"));
        assert!(slug_fits("old-title-0a1b2c", "old-title"));
        assert!(!slug_fits("old-title-and-more", "old-title"));
        assert_eq!(slug_base("Feed"), "feed-article");
    }

    #[test]
    fn timestamp_renders_milliseconds_and_z() {
        assert_eq!(Timestamp(0).to_rfc3339(), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            Timestamp::parse("1970-01-01T00:00:01.500Z"),
            Some(Timestamp(1500))
        );
    }
}
