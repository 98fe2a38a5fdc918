//! The HTTP face of the API, independent of Lambda: `handle(app, request) -> response`.

pub mod routes;

use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Method, StatusCode};

use crate::app::App;
use crate::auth::Identity;
use crate::error::ApiError;
use crate::resources::{articles, comments, profiles, users, Reply};
use routes::Route;

#[derive(Debug, Clone)]
pub struct ApiRequest {
    pub method: Method,
    /// Raw (percent-encoded) path, e.g. `/api/profiles/jake`.
    pub path: String,
    /// Decoded query parameters in order.
    pub query: Vec<(String, String)>,
    pub headers: HeaderMap,
    pub body: Bytes,
}

#[derive(Debug, Clone)]
pub struct ApiResponse {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

impl ApiResponse {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or(serde_json::Value::Null)
    }
}

pub async fn handle(app: &App, req: ApiRequest) -> ApiResponse {
    let identity = Identity::from_headers(&app.tokens, &req.headers);
    handle_as(app, &identity, req).await
}

/// [`handle`] for a caller whose identity was already read from the request.
pub async fn handle_as(app: &App, identity: &Identity, req: ApiRequest) -> ApiResponse {
    match dispatch(app, identity, &req).await {
        Ok(reply) => respond(reply.status, reply.body),
        Err(err) => {
            if let ApiError::Internal(source) = &err {
                tracing::error!(error = %source, source = ?source, method = %req.method, path = %req.path, "request failed");
            }
            let mut response = respond(err.status_code(), Some(err.body()));
            if err.status_code() == StatusCode::UNAUTHORIZED {
                response.headers.insert(
                    http::header::WWW_AUTHENTICATE,
                    HeaderValue::from_static("Token"),
                );
            }
            response
        }
    }
}

fn respond(status: StatusCode, body: Option<serde_json::Value>) -> ApiResponse {
    let mut headers = HeaderMap::new();
    let body = match body {
        Some(json) => {
            headers.insert(
                http::header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            serde_json::to_vec(&json).unwrap_or_default()
        }
        None => Vec::new(),
    };
    ApiResponse {
        status,
        headers,
        body,
    }
}

/// Each route takes the identity it needs: `required()` (401 without a valid
/// token), `optional()` (a bad token is still a 401), or none at all.
async fn dispatch(app: &App, id: &Identity, req: &ApiRequest) -> Result<Reply, ApiError> {
    let (b, q) = (req.body.as_ref(), req.query.as_slice());
    match routes::route(&req.method, &req.path)? {
        Route::Register => users::register(app, b).await,
        Route::Login => users::login(app, b).await,
        Route::CurrentUser => users::current(app, id.required()?).await,
        Route::UpdateUser => users::update(app, id.required()?, b).await,
        Route::Profile(name) => profiles::get(app, id.optional()?, &name).await,
        Route::Follow(name) => profiles::follow(app, id.required()?, &name).await,
        Route::Unfollow(name) => profiles::unfollow(app, id.required()?, &name).await,
        Route::ListArticles => articles::list(app, id.optional()?, q).await,
        Route::Feed => articles::feed(app, id.required()?, q).await,
        Route::CreateArticle => articles::create(app, id.required()?, b).await,
        Route::GetArticle(slug) => articles::get(app, id.optional()?, &slug).await,
        Route::UpdateArticle(slug) => articles::update(app, id.required()?, &slug, b).await,
        Route::DeleteArticle(slug) => articles::delete(app, id.required()?, &slug).await,
        Route::Favorite(slug) => articles::favorite(app, id.required()?, &slug, true).await,
        Route::Unfavorite(slug) => articles::favorite(app, id.required()?, &slug, false).await,
        Route::ListComments(slug) => comments::list(app, id.optional()?, &slug).await,
        Route::AddComment(slug) => comments::add(app, id.required()?, &slug, b).await,
        Route::DeleteComment(slug, cid) => comments::delete(app, id.required()?, &slug, &cid).await,
        Route::Tags => articles::tags(app).await,
    }
}
