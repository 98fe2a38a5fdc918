//! `POST /users`, `POST /users/login`, `GET /user`, `PUT /user`.

use serde_json::json;

use crate::app::App;
use crate::auth::AuthUser;
use crate::error::ApiError;
use crate::input::{envelope, looks_like_email, Fields};
use crate::model::User;
use crate::passwords::policy_violation;
use crate::resources::Reply;
use crate::views::UserView;

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

/// NIST SP 800-63B 5.1.1.2: length only, no composition rules.
fn check_password(fields: &mut Fields, password: &Option<String>) {
    if let Some(message) = password.as_deref().and_then(policy_violation) {
        fields.reject("password", &message);
    }
}

/// `bio` and `image`: absent keeps, `null` clears, and so does an empty
/// string (clients send `""` for a cleared form field).
fn profile_text(fields: &mut Fields, field: &str) -> Option<Option<String>> {
    fields
        .nullable(field)
        .map(|value| value.filter(|s| !s.trim().is_empty()))
}

async fn hash(app: &App, password: &str) -> Result<String, ApiError> {
    app.passwords
        .hash(password)
        .await
        .map_err(ApiError::internal)
}

/// Register (spec: CreateUser): 201, 409 on a taken username or email
/// (emails compare case-insensitively; the user sees the email as typed).
pub async fn register(app: &App, body: &[u8]) -> Result<Reply, ApiError> {
    let mut f = Fields::new(envelope(body, "user")?);
    let username = f.required("username");
    let email = f.required("email");
    let password = f.required("password");
    let bio = profile_text(&mut f, "bio");
    let image = profile_text(&mut f, "image");
    check_username(&mut f, &username);
    check_email(&mut f, &email);
    check_password(&mut f, &password);
    f.finish()?;
    let (Some(username), Some(email), Some(password)) = (username, email, password) else {
        return Err(ApiError::internal("validated fields missing"));
    };
    let user = User {
        id: uuid::Uuid::new_v4().to_string(),
        username,
        email: email.trim().to_owned(),
        password_hash: hash(app, &password).await?,
        bio: bio.flatten(),
        image: image.flatten(),
    };
    app.users.create(&user).await?;
    user_reply(app, user, true)
}

/// Login: 401 for an unknown email or a wrong password, indistinguishable on
/// purpose, in content and in time (an unknown email costs the same Argon2 work).
pub async fn login(app: &App, body: &[u8]) -> Result<Reply, ApiError> {
    let mut f = Fields::new(envelope(body, "user")?);
    let email = f.required("email");
    let password = f.required("password");
    f.finish()?;
    let (Some(email), Some(password)) = (email, password) else {
        return Err(ApiError::internal("validated fields missing"));
    };
    let user = app.users.by_email(email.trim()).await?;
    let stored = user.as_ref().map(|u| u.password_hash.as_str());
    let verified = app.passwords.verify(&password, stored).await;
    match user {
        Some(user) if verified => user_reply(app, user, false),
        _ => Err(ApiError::invalid_credentials()),
    }
}

pub async fn current(app: &App, caller: AuthUser) -> Result<Reply, ApiError> {
    let user = app.user_of(&caller).await?;
    user_reply(app, user, false)
}

/// Update: any subset of fields, at least one; `bio`/`image` may be `null` or `""`.
pub async fn update(app: &App, caller: AuthUser, body: &[u8]) -> Result<Reply, ApiError> {
    let current = app.user_of(&caller).await?;
    let mut f = Fields::new(envelope(body, "user")?);
    if f.is_empty() {
        f.reject("user", "must have at least one field");
    }
    let username = f.optional("username");
    let email = f.optional("email");
    let password = f.optional("password");
    let bio = profile_text(&mut f, "bio");
    let image = profile_text(&mut f, "image");
    check_username(&mut f, &username);
    check_email(&mut f, &email);
    check_password(&mut f, &password);
    f.finish()?;
    let mut updated = current.clone();
    if let Some(username) = username {
        updated.username = username;
    }
    if let Some(email) = email {
        updated.email = email.trim().to_owned();
    }
    if let Some(password) = password {
        updated.password_hash = hash(app, &password).await?;
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
