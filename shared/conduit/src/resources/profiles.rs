//! `GET /profiles/{username}`, `POST|DELETE /profiles/{username}/follow`.

use http::HeaderMap;
use serde_json::json;

use crate::app::App;
use crate::error::ApiError;
use crate::http::views::ProfileView;
use crate::http::Reply;
use crate::model::User;

async fn find(app: &App, username: &str) -> Result<User, ApiError> {
    app.users
        .by_username(username)
        .await?
        .ok_or(ApiError::NotFound("profile"))
}

fn reply(user: &User, following: bool) -> Reply {
    Reply::ok(json!({ "profile": ProfileView::new(user, following) }))
}

/// Auth optional; a bad token is still a 401.
pub async fn get(app: &App, headers: &HeaderMap, username: &str) -> Result<Reply, ApiError> {
    let viewer = app.viewer(headers)?;
    let user = find(app, username).await?;
    let following = match &viewer {
        Some(v) => !app
            .follows
            .followed_among(v, std::slice::from_ref(&user.id))
            .await?
            .is_empty(),
        None => false,
    };
    Ok(reply(&user, following))
}

pub async fn follow(app: &App, headers: &HeaderMap, username: &str) -> Result<Reply, ApiError> {
    let caller = app.caller(headers)?;
    let user = find(app, username).await?;
    app.follows.follow(&caller, &user.id).await?;
    Ok(reply(&user, true))
}

pub async fn unfollow(app: &App, headers: &HeaderMap, username: &str) -> Result<Reply, ApiError> {
    let caller = app.caller(headers)?;
    let user = find(app, username).await?;
    app.follows.unfollow(&caller, &user.id).await?;
    Ok(reply(&user, false))
}
