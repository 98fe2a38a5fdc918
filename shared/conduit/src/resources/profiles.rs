//! `GET /profiles/{username}`, `POST|DELETE /profiles/{username}/follow`.

use serde_json::json;

use crate::app::App;
use crate::auth::{AuthUser, MaybeAuthUser};
use crate::error::ApiError;
use crate::model::User;
use crate::resources::Reply;
use crate::views::ProfileView;

async fn find(app: &App, username: &str) -> Result<User, ApiError> {
    app.users
        .by_username(username)
        .await?
        .ok_or(ApiError::NotFound("profile"))
}

fn reply(user: &User, following: bool) -> Reply {
    Reply::ok(json!({ "profile": ProfileView::new(&user.profile(), following) }))
}

pub async fn get(app: &App, viewer: MaybeAuthUser, username: &str) -> Result<Reply, ApiError> {
    let user = find(app, username).await?;
    let following = match viewer.id() {
        Some(v) => !app
            .follows
            .followed_among(v, std::slice::from_ref(&user.id))
            .await?
            .is_empty(),
        None => false,
    };
    Ok(reply(&user, following))
}

pub async fn follow(
    app: &App,
    AuthUser(caller): AuthUser,
    username: &str,
) -> Result<Reply, ApiError> {
    let user = find(app, username).await?;
    app.follows.follow(&caller, &user.id).await?;
    Ok(reply(&user, true))
}

pub async fn unfollow(
    app: &App,
    AuthUser(caller): AuthUser,
    username: &str,
) -> Result<Reply, ApiError> {
    let user = find(app, username).await?;
    app.follows.unfollow(&caller, &user.id).await?;
    Ok(reply(&user, false))
}
