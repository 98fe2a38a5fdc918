//! The HTTP face of the API, independent of Lambda: `handle(app, request) -> response`.

pub mod input;
pub mod routes;
pub mod views;

use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Method, StatusCode};

use crate::app::App;
use crate::error::ApiError;
use crate::resources::{articles, comments, profiles, users};
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

/// A successful outcome: status and optional JSON body.
#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub body: Option<serde_json::Value>,
}

impl Reply {
    pub fn ok(body: serde_json::Value) -> Self {
        Self {
            status: StatusCode::OK,
            body: Some(body),
        }
    }

    pub fn created(body: serde_json::Value) -> Self {
        Self {
            status: StatusCode::CREATED,
            body: Some(body),
        }
    }

    pub fn no_content() -> Self {
        Self {
            status: StatusCode::NO_CONTENT,
            body: None,
        }
    }
}

pub async fn handle(app: &App, req: ApiRequest) -> ApiResponse {
    match dispatch(app, &req).await {
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

async fn dispatch(app: &App, req: &ApiRequest) -> Result<Reply, ApiError> {
    let (h, b, q) = (&req.headers, req.body.as_ref(), req.query.as_slice());
    match routes::route(&req.method, &req.path)? {
        Route::Register => users::register(app, b).await,
        Route::Login => users::login(app, b).await,
        Route::CurrentUser => users::current(app, h).await,
        Route::UpdateUser => users::update(app, h, b).await,
        Route::Profile(name) => profiles::get(app, h, &name).await,
        Route::Follow(name) => profiles::follow(app, h, &name).await,
        Route::Unfollow(name) => profiles::unfollow(app, h, &name).await,
        Route::ListArticles => articles::list(app, h, q).await,
        Route::Feed => articles::feed(app, h, q).await,
        Route::CreateArticle => articles::create(app, h, b).await,
        Route::GetArticle(slug) => articles::get(app, h, &slug).await,
        Route::UpdateArticle(slug) => articles::update(app, h, &slug, b).await,
        Route::DeleteArticle(slug) => articles::delete(app, h, &slug).await,
        Route::Favorite(slug) => articles::favorite(app, h, &slug, true).await,
        Route::Unfavorite(slug) => articles::favorite(app, h, &slug, false).await,
        Route::ListComments(slug) => comments::list(app, h, &slug).await,
        Route::AddComment(slug) => comments::add(app, h, &slug, b).await,
        Route::DeleteComment(slug, id) => comments::delete(app, h, &slug, &id).await,
        Route::Tags => articles::tags(app).await,
    }
}
