//! A Conduit client over the microservices, in process or over HTTP, with the
//! interface the conduit crate's scenarios expect, so that those scenarios
//! (its integration tests) run here unchanged.
#![allow(dead_code)]

// Test binaries that run no scenario (events.rs) leave its re-exports unused.
#[allow(unused_imports)]
#[path = "../../../conduit/tests/common/scenarios/mod.rs"]
pub mod scenarios;

pub mod http_client;

use std::sync::Arc;

use bytes::Bytes;
use conduit::auth::Tokens;
use conduit::{ApiRequest, ApiResponse};
use conduit_micro::cluster::Cluster;
use http::{HeaderMap, HeaderValue, Method};
use serde_json::{json, Value};

/// The conduit scenarios' secret; the local cloud gets it as `JwtSecret`.
pub const SECRET: &[u8] = b"unit-test-secret-unit-test-secret-0123";

pub fn tokens() -> Tokens {
    Tokens::new(SECRET).expect("test secret is long enough")
}

pub enum Target {
    InProcess(Arc<Cluster>),
    /// Base URL of an HTTP API.
    Http(String),
}

pub struct Client {
    pub target: Target,
}

impl Client {
    pub fn in_process() -> (Self, Arc<Cluster>) {
        let cluster = Arc::new(Cluster::in_memory(tokens()));
        let client = Self {
            target: Target::InProcess(cluster.clone()),
        };
        (client, cluster)
    }

    pub fn http(base: &str) -> Self {
        Self {
            target: Target::Http(base.trim_end_matches('/').to_owned()),
        }
    }

    pub async fn raw(
        &self,
        method: Method,
        path_and_query: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> ApiResponse {
        match &self.target {
            Target::InProcess(cluster) => {
                let request = api_request(method, path_and_query, headers, body);
                cluster.handle(request).await
            }
            Target::Http(base) => {
                http_client::send(base, method.as_str(), path_and_query, headers, body).await
            }
        }
    }

    /// JSON call with an optional token; returns status and parsed body.
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> (u16, Value) {
        let auth = token.map(|t| format!("Token {t}"));
        let mut headers = vec![("content-type", "application/json")];
        if let Some(auth) = &auth {
            headers.push(("authorization", auth.as_str()));
        }
        let bytes = body
            .map(|b| serde_json::to_vec(&b).unwrap())
            .unwrap_or_default();
        let resp = self.raw(method, path, &headers, &bytes).await;
        (resp.status.as_u16(), resp.json())
    }

    /// Registers `name` (email `name@example.com`, password `password-<name>`); returns the token.
    pub async fn register(&self, name: &str) -> String {
        let (status, body) = self
            .call(
                Method::POST,
                "/api/users",
                None,
                Some(json!({"user": {"username": name, "email": format!("{name}@example.com"), "password": format!("password-{name}")}})),
            )
            .await;
        assert_eq!(status, 201, "register {name}: {body}");
        body["user"]["token"].as_str().unwrap().to_owned()
    }

    /// Creates an article; returns its slug.
    pub async fn article(&self, token: &str, title: &str, tags: &[&str]) -> String {
        let (status, body) = self
            .call(
                Method::POST,
                "/api/articles",
                Some(token),
                Some(json!({"article": {"title": title, "description": "d", "body": "b", "tagList": tags}})),
            )
            .await;
        assert_eq!(status, 201, "create {title}: {body}");
        body["article"]["slug"].as_str().unwrap().to_owned()
    }
}

/// The request as the conduit test client builds it.
fn api_request(
    method: Method,
    path_and_query: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> ApiRequest {
    let (path, query) = path_and_query
        .split_once('?')
        .unwrap_or((path_and_query, ""));
    let query = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (k.to_owned(), v.to_owned())
        })
        .collect();
    let mut map = HeaderMap::new();
    for (k, v) in headers {
        map.insert(
            http::HeaderName::from_bytes(k.as_bytes()).unwrap(),
            HeaderValue::from_str(v).unwrap(),
        );
    }
    ApiRequest {
        method,
        path: path.to_owned(),
        query,
        headers: map,
        body: Bytes::copy_from_slice(body),
    }
}

/// Every scenario of the conduit crate's suite, for `$each!(name, ...)`.
#[macro_export]
macro_rules! all_scenarios {
    ($each:ident) => {
        $each!(
            registration_returns_201_with_user_and_token,
            registration_with_taken_username_or_email_is_409,
            registration_with_missing_empty_or_null_fields_is_422,
            registration_with_wrong_types_is_422,
            non_json_body_without_content_type_is_422,
            json_body_without_content_type_is_accepted,
            oversized_body_is_rejected_without_crash,
            login_returns_user_and_wrong_password_is_401,
            login_without_password_is_422,
            current_user_requires_a_token,
            current_user_is_returned_for_a_valid_token,
            forged_or_expired_token_is_401_even_where_auth_is_optional,
            update_user_changes_only_given_fields,
            update_user_can_rename_and_change_password,
            update_user_to_taken_email_is_409,
            update_user_with_empty_user_or_blank_email_is_422,
            profile_of_unknown_user_is_404,
            follow_and_unfollow_toggle_following,
            follow_requires_auth_and_existing_user,
            create_article_returns_201_with_full_article,
            create_article_without_auth_is_401_and_without_title_is_422,
            equal_titles_get_distinct_slugs,
            get_unknown_article_is_404,
            list_articles_is_newest_first_without_body_with_count,
            list_articles_pages_with_offset_and_limit,
            list_articles_filters_by_tag_author_and_favorited,
            list_articles_combines_filters,
            feed_shows_followed_authors_only,
            feed_pages_across_several_authors,
            update_article_keeps_tags_unless_given_and_empty_list_clears,
            update_article_title_changes_slug,
            only_the_author_may_update_or_delete_an_article,
            update_article_with_blank_title_is_422,
            delete_article_is_204_and_then_404,
            favorite_and_unfavorite_update_count_idempotently,
            favorite_requires_auth_and_existing_article,
            comments_can_be_added_listed_and_deleted_by_their_author,
            comment_errors_follow_the_spec,
            tags_lists_each_used_tag_once,
            unknown_route_is_404_json,
        );
    };
}
