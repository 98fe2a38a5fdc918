//! `POST /users`, `POST /users/login`, `GET /user`, `PUT /user`.

use http::HeaderMap;
use serde_json::json;

use crate::app::App;
use crate::auth::{hash_password, verify_password};
use crate::error::ApiError;
use crate::http::input::{envelope, looks_like_email, Fields};
use crate::http::views::UserView;
use crate::http::Reply;
use crate::model::User;

fn user_reply(app: &App, user: User, created: bool) -> Result<Reply, ApiError> {
    let token = app.tokens.issue(&user.id)?;
    let body = json!({ "user": UserView::new(user, token) });
    Ok(if created {
        Reply::created(body)
    } else {
        Reply::ok(body)
    })
}

fn check_username(fields: &mut Fields, username: &Option<String>) {
    // The username is a path segment of /profiles/{username}.
    if let Some(name) = username {
        if name.contains('/') || name.chars().count() > 64 {
            fields.reject("username", "is invalid");
        }
    }
}

fn check_email(fields: &mut Fields, email: &Option<String>) {
    if matches!(email, Some(e) if !looks_like_email(e)) {
        fields.reject("email", "is invalid");
    }
}

/// Register (spec: CreateUser): 201, 409 on a taken username or email.
pub async fn register(app: &App, body: &[u8]) -> Result<Reply, ApiError> {
    let mut f = Fields::new(envelope(body, "user")?);
    let username = f.required("username");
    let email = f.required("email");
    let password = f.required("password");
    check_username(&mut f, &username);
    check_email(&mut f, &email);
    f.finish()?;
    let (Some(username), Some(email), Some(password)) = (username, email, password) else {
        return Err(ApiError::internal("validated fields missing"));
    };
    let user = User {
        id: uuid::Uuid::new_v4().to_string(),
        username,
        email: email.trim().to_owned(),
        password_hash: hash_password(&password)?,
        bio: None,
        image: None,
    };
    app.users.create(&user).await?;
    user_reply(app, user, true)
}

/// Login: 401 for an unknown email or a wrong password (indistinguishable on purpose).
pub async fn login(app: &App, body: &[u8]) -> Result<Reply, ApiError> {
    let mut f = Fields::new(envelope(body, "user")?);
    let email = f.required("email");
    let password = f.required("password");
    f.finish()?;
    let (Some(email), Some(password)) = (email, password) else {
        return Err(ApiError::internal("validated fields missing"));
    };
    let user = app.users.by_email(email.trim()).await?;
    match user {
        Some(user) if verify_password(&password, &user.password_hash) => {
            user_reply(app, user, false)
        }
        _ => Err(ApiError::invalid_credentials()),
    }
}

pub async fn current(app: &App, headers: &HeaderMap) -> Result<Reply, ApiError> {
    let user = app.caller_user(headers).await?;
    user_reply(app, user, false)
}

/// Update: any subset of fields, at least one; `bio`/`image` may be `null`.
pub async fn update(app: &App, headers: &HeaderMap, body: &[u8]) -> Result<Reply, ApiError> {
    let current = app.caller_user(headers).await?;
    let mut f = Fields::new(envelope(body, "user")?);
    if f.is_empty() {
        f.reject("user", "must have at least one field");
    }
    let username = f.optional("username");
    let email = f.optional("email");
    let password = f.optional("password");
    let bio = f.nullable("bio");
    let image = f.nullable("image");
    check_username(&mut f, &username);
    check_email(&mut f, &email);
    f.finish()?;
    let mut updated = current.clone();
    if let Some(username) = username {
        updated.username = username;
    }
    if let Some(email) = email {
        updated.email = email.trim().to_owned();
    }
    if let Some(password) = password {
        updated.password_hash = hash_password(&password)?;
    }
    if let Some(bio) = bio {
        updated.bio = bio;
    }
    if let Some(image) = image {
        updated.image = image;
    }
    if updated != current {
        app.users.update(&current, &updated).await?;
    }
    user_reply(app, updated, false)
}
