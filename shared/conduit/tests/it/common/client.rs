//! The test client the scenarios take, over whatever answers the API: this
//! crate's `App`, or (in conduit-micro, which includes this file by path) the
//! microservices in process or over HTTP. Each suite supplies only the [`Api`].

use std::future::Future;

use bytes::Bytes;
use conduit::auth::Tokens;
use conduit::{ApiRequest, ApiResponse};
use http::{HeaderMap, HeaderValue, Method};
use serde_json::{json, Value};

/// The scenarios' secret; conduit-micro's local cloud gets it as `JwtSecret`.
pub const SECRET: &[u8] = b"unit-test-secret-unit-test-secret-0123";

pub fn tokens() -> Tokens {
    Tokens::new(SECRET).expect("test secret is long enough")
}

/// A request as a test wrote it: headers and query not yet parsed.
pub struct RawRequest<'a> {
    pub method: Method,
    pub path_and_query: &'a str,
    pub headers: &'a [(&'a str, &'a str)],
    pub body: &'a [u8],
}

/// What a [`Client`] sends its requests to.
pub trait Api {
    fn send(&self, request: RawRequest<'_>) -> impl Future<Output = ApiResponse>;
}

pub struct Client<A> {
    pub app: A,
}

impl<A: Api> Client<A> {
    pub async fn raw(
        &self,
        method: Method,
        path_and_query: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> ApiResponse {
        let request = RawRequest {
            method,
            path_and_query,
            headers,
            body,
        };
        self.app.send(request).await
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

impl RawRequest<'_> {
    /// The request for an in-process handler: the query split into pairs,
    /// the headers into a map.
    pub fn parse(self) -> ApiRequest {
        let (path, query) = self
            .path_and_query
            .split_once('?')
            .unwrap_or((self.path_and_query, ""));
        let query = query
            .split('&')
            .filter(|p| !p.is_empty())
            .map(|p| {
                let (k, v) = p.split_once('=').unwrap_or((p, ""));
                (k.to_owned(), v.to_owned())
            })
            .collect();
        let mut map = HeaderMap::new();
        for (k, v) in self.headers {
            map.insert(
                http::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                HeaderValue::from_str(v).unwrap(),
            );
        }
        ApiRequest {
            method: self.method,
            path: path.to_owned(),
            query,
            headers: map,
            body: Bytes::copy_from_slice(self.body),
        }
    }
}
