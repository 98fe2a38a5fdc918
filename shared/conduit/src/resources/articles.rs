//! Articles, the feed, favorites and tags.

use serde_json::json;

use crate::app::App;
use crate::auth::{AuthUser, MaybeAuthUser};
use crate::error::ApiError;
use crate::input::{envelope, page, query, Fields};
use crate::model::{
    slug_base, ArticleChanges, ArticleFilter, ArticlePage, Profile, Timestamp, User, UserId,
    ViewedArticle,
};
use crate::resources::Reply;
use crate::store::NewArticle;

/// The article, and whether `viewer` favorited it (read with it).
async fn find(app: &App, slug: &str, viewer: Option<&UserId>) -> Result<ViewedArticle, ApiError> {
    app.articles
        .by_slug(slug, viewer)
        .await?
        .ok_or(ApiError::NotFound("article"))
}

/// The article, if `caller` wrote it: 404 before 403.
async fn find_own(app: &App, slug: &str, caller: &UserId) -> Result<ViewedArticle, ApiError> {
    let found = find(app, slug, Some(caller)).await?;
    if &found.article.author_id != caller {
        return Err(ApiError::Forbidden("article"));
    }
    Ok(found)
}

/// `known`: users already read for this request (no second lookup of them).
async fn list_reply(
    app: &App,
    viewer: Option<&UserId>,
    page: ArticlePage,
    known: &[Profile],
) -> Result<Reply, ApiError> {
    let views = app
        .article_views(viewer, page.articles, &page.favorited, known)
        .await?;
    Ok(Reply::ok(
        json!({ "articles": views, "articlesCount": page.total }),
    ))
}

fn empty_list() -> Reply {
    Reply::ok(json!({ "articles": [], "articlesCount": 0 }))
}

/// Filters by `tag`, `author` and `favorited` (usernames), all of which must hold.
pub async fn list(
    app: &App,
    viewer: MaybeAuthUser,
    params: &[(String, String)],
) -> Result<Reply, ApiError> {
    let page = page(params)?;
    // Unknown usernames match nothing.
    let (author, fan) = match (
        user_param(app, params, "author").await?,
        user_param(app, params, "favorited").await?,
    ) {
        (Some(None), _) | (_, Some(None)) => return Ok(empty_list()),
        (author, fan) => (author.flatten(), fan.flatten()),
    };
    let tag = filter_param(params, "tag").map(str::to_owned);
    let id = |u: &Option<User>| u.as_ref().map(|u| u.id.clone());
    let filter = ArticleFilter::of(tag, id(&author), id(&fan));
    let found = app.articles.list(&filter, page, viewer.id()).await?;
    let known: Vec<Profile> = author.iter().chain(&fan).map(User::profile).collect();
    list_reply(app, viewer.id(), found, &known).await
}

/// A filter value; an empty one (`?tag=`) counts as absent.
fn filter_param<'a>(params: &'a [(String, String)], name: &str) -> Option<&'a str> {
    query(params, name).map(str::trim).filter(|v| !v.is_empty())
}

/// None: parameter absent; Some(None): unknown username; Some(Some(user)): that user.
async fn user_param(
    app: &App,
    params: &[(String, String)],
    name: &str,
) -> Result<Option<Option<User>>, ApiError> {
    match filter_param(params, name) {
        None => Ok(None),
        Some(username) => Ok(Some(app.users.by_username(username).await?)),
    }
}

/// Articles by the authors the caller follows, newest first.
pub async fn feed(
    app: &App,
    AuthUser(caller): AuthUser,
    params: &[(String, String)],
) -> Result<Reply, ApiError> {
    let page = page(params)?;
    let followees = app.follows.followees(&caller).await?;
    if followees.is_empty() {
        return Ok(empty_list());
    }
    let found = app
        .articles
        .list(&ArticleFilter::Authors(followees), page, Some(&caller))
        .await?;
    list_reply(app, Some(&caller), found, &[]).await
}

pub async fn get(app: &App, viewer: MaybeAuthUser, slug: &str) -> Result<Reply, ApiError> {
    let found = find(app, slug, viewer.id()).await?;
    let view = app
        .article_view(viewer.id(), found.article, found.favorited)
        .await?;
    Ok(Reply::ok(json!({ "article": view })))
}

pub async fn create(app: &App, AuthUser(caller): AuthUser, body: &[u8]) -> Result<Reply, ApiError> {
    let mut f = Fields::new(envelope(body, "article")?);
    let title = f.required("title");
    let description = f.required("description");
    let text = f.required("body");
    let tags = f.tag_list("tagList");
    f.finish()?;
    let (Some(title), Some(description), Some(text)) = (title, description, text) else {
        return Err(ApiError::internal("validated fields missing"));
    };
    let new = NewArticle {
        id: uuid::Uuid::new_v4().simple().to_string(),
        slug_base: slug_base(&title),
        title,
        description,
        body: text,
        tags: tags.unwrap_or_default(),
        author_id: caller.clone(),
        created_at: Timestamp::now(),
    };
    let article = app.articles.create(new).await?;
    // Nobody has favorited an article that did not exist a moment ago.
    let view = app.article_view(Some(&caller), article, false).await?;
    Ok(Reply::created(json!({ "article": view })))
}

/// Absent fields are kept; `tagList: []` clears the tags; a new title gets a new slug.
pub async fn update(
    app: &App,
    AuthUser(caller): AuthUser,
    slug: &str,
    body: &[u8],
) -> Result<Reply, ApiError> {
    let mut f = Fields::new(envelope(body, "article")?);
    let changes = ArticleChanges {
        title: f.optional("title"),
        description: f.optional("description"),
        body: f.optional("body"),
        tags: f.tag_list("tagList"),
    };
    f.finish()?;
    let ViewedArticle { article, favorited } = find_own(app, slug, &caller).await?;
    let article = if changes == ArticleChanges::default() {
        article
    } else {
        let changes = ArticleChanges {
            title: changes.title.filter(|t| t != &article.title),
            ..changes
        };
        app.articles
            .update(&article, changes, Timestamp::now())
            .await?
    };
    let view = app.article_view(Some(&caller), article, favorited).await?;
    Ok(Reply::ok(json!({ "article": view })))
}

/// Deletes the article, then its comments (an orphaned comment is unreachable anyway).
pub async fn delete(app: &App, AuthUser(caller): AuthUser, slug: &str) -> Result<Reply, ApiError> {
    let article = find_own(app, slug, &caller).await?.article;
    app.articles.delete(&article).await?;
    app.comments.delete_for_article(&article.id).await?;
    Ok(Reply::no_content())
}

pub async fn favorite(
    app: &App,
    AuthUser(caller): AuthUser,
    slug: &str,
    on: bool,
) -> Result<Reply, ApiError> {
    let article = find(app, slug, None).await?.article;
    let article = if on {
        app.articles.favorite(&article, &caller).await?
    } else {
        app.articles.unfavorite(&article, &caller).await?
    };
    // We know `favorited`; only the author needs a lookup.
    let view = app.article_view(Some(&caller), article, on).await?;
    Ok(Reply::ok(json!({ "article": view })))
}

pub async fn tags(app: &App) -> Result<Reply, ApiError> {
    Ok(Reply::ok(json!({ "tags": app.articles.tags().await? })))
}
