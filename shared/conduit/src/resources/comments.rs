//! `GET|POST /articles/{slug}/comments`, `DELETE /articles/{slug}/comments/{id}`.

use serde_json::json;

use crate::app::App;
use crate::auth::{AuthUser, MaybeAuthUser};
use crate::error::ApiError;
use crate::input::{envelope, Fields};
use crate::model::{ArticleId, Timestamp};
use crate::resources::Reply;
use crate::views::CommentView;

/// Comments need only the article's id: one read of the slug.
async fn article(app: &App, slug: &str) -> Result<ArticleId, ApiError> {
    app.articles
        .id_by_slug(slug)
        .await?
        .ok_or(ApiError::NotFound("article"))
}

/// Auth optional: `following` of each author depends on the viewer.
pub async fn list(app: &App, viewer: MaybeAuthUser, slug: &str) -> Result<Reply, ApiError> {
    let article_id = article(app, slug).await?;
    let comments = app.comments.for_article(&article_id).await?;
    let author_ids: Vec<String> = comments.iter().map(|c| c.author_id.clone()).collect();
    let authors = app.author_profiles(viewer.id(), &author_ids, &[]).await?;
    let views = comments
        .into_iter()
        // A comment whose author vanished is skipped rather than failing the page.
        .filter_map(|c| {
            authors
                .get(&c.author_id)
                .cloned()
                .map(|a| CommentView::new(c, a))
        })
        .collect::<Vec<_>>();
    Ok(Reply::ok(json!({ "comments": views })))
}

pub async fn add(app: &App, caller: AuthUser, slug: &str, body: &[u8]) -> Result<Reply, ApiError> {
    let caller = app.user_of(&caller).await?;
    let mut f = Fields::new(envelope(body, "comment")?);
    let text = f.required("body");
    f.finish()?;
    let Some(text) = text else {
        return Err(ApiError::internal("validated fields missing"));
    };
    let article_id = article(app, slug).await?;
    let comment = app
        .comments
        .add(&article_id, &caller.id, &text, Timestamp::now())
        .await?;
    // Nobody follows themselves through this API's eyes: look it up all the same.
    let mut profiles = app.profiles(Some(&caller.id), &[caller.profile()]).await?;
    let author = profiles
        .remove(&caller.id)
        .ok_or_else(|| ApiError::internal("author missing"))?;
    Ok(Reply::created(
        json!({ "comment": CommentView::new(comment, author) }),
    ))
}

/// Only the comment's author may delete it; an id that is not an integer names nothing.
pub async fn delete(
    app: &App,
    AuthUser(caller): AuthUser,
    slug: &str,
    id: &str,
) -> Result<Reply, ApiError> {
    let article_id = article(app, slug).await?;
    let id: i64 = id.parse().map_err(|_| ApiError::NotFound("comment"))?;
    let comment = app
        .comments
        .get(&article_id, id)
        .await?
        .ok_or(ApiError::NotFound("comment"))?;
    if comment.author_id != caller {
        return Err(ApiError::Forbidden("comment"));
    }
    app.comments.delete(&article_id, id).await?;
    Ok(Reply::no_content())
}
