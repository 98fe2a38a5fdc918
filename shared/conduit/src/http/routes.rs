//! The route table: (method, path below `/api`) -> endpoint, with decoded parameters.

use http::Method;

use crate::error::ApiError;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    Register,
    Login,
    CurrentUser,
    UpdateUser,
    Profile(String),
    Follow(String),
    Unfollow(String),
    ListArticles,
    Feed,
    CreateArticle,
    GetArticle(String),
    UpdateArticle(String),
    DeleteArticle(String),
    Favorite(String),
    Unfavorite(String),
    ListComments(String),
    AddComment(String),
    DeleteComment(String, String),
    Tags,
}

/// Every route once: method, path pattern below `/api` (`{}` is a parameter)
/// and the constructor taking the decoded parameters. First match wins, so
/// `articles/feed` comes before `articles/{}`.
type Make = fn(&mut Params) -> Route;
const ROUTES: &[(Method, &str, Make)] = &[
    (Method::POST, "users", |_| Route::Register),
    (Method::POST, "users/login", |_| Route::Login),
    (Method::GET, "user", |_| Route::CurrentUser),
    (Method::PUT, "user", |_| Route::UpdateUser),
    (Method::GET, "profiles/{}", |p| Route::Profile(p.next())),
    (Method::POST, "profiles/{}/follow", |p| {
        Route::Follow(p.next())
    }),
    (Method::DELETE, "profiles/{}/follow", |p| {
        Route::Unfollow(p.next())
    }),
    (Method::GET, "articles", |_| Route::ListArticles),
    (Method::POST, "articles", |_| Route::CreateArticle),
    (Method::GET, "articles/feed", |_| Route::Feed),
    (Method::GET, "articles/{}", |p| Route::GetArticle(p.next())),
    (Method::PUT, "articles/{}", |p| {
        Route::UpdateArticle(p.next())
    }),
    (Method::DELETE, "articles/{}", |p| {
        Route::DeleteArticle(p.next())
    }),
    (Method::POST, "articles/{}/favorite", |p| {
        Route::Favorite(p.next())
    }),
    (Method::DELETE, "articles/{}/favorite", |p| {
        Route::Unfavorite(p.next())
    }),
    (Method::GET, "articles/{}/comments", |p| {
        Route::ListComments(p.next())
    }),
    (Method::POST, "articles/{}/comments", |p| {
        Route::AddComment(p.next())
    }),
    (Method::DELETE, "articles/{}/comments/{}", |p| {
        Route::DeleteComment(p.next(), p.next())
    }),
    (Method::GET, "tags", |_| Route::Tags),
];

/// Every route's method and path pattern below `/api` (`{}` is a parameter),
/// in matching order: what an API Gateway in front of conduit must route.
pub fn patterns() -> impl Iterator<Item = (&'static Method, &'static str)> {
    ROUTES.iter().map(|(method, pattern, _)| (method, *pattern))
}

/// The parameters a pattern captured, handed out in order.
struct Params(std::vec::IntoIter<String>);

impl Params {
    fn next(&mut self) -> String {
        self.0.next().unwrap_or_default()
    }
}

/// Segments after the `api` segment; a stage prefix such as `/prod/api/...` is skipped.
fn api_segments(path: &str) -> Option<Vec<String>> {
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let api = segments.iter().take(2).position(|s| *s == "api")?;
    Some(
        segments[api + 1..]
            .iter()
            .map(|s| percent_decode(s))
            .collect(),
    )
}

/// The parameters of `segments` if they fit `pattern`.
fn captures(pattern: &str, segments: &[String]) -> Option<Vec<String>> {
    let parts: Vec<&str> = pattern.split('/').collect();
    if parts.len() != segments.len() {
        return None;
    }
    let mut params = Vec::new();
    for (part, segment) in parts.iter().zip(segments) {
        match *part {
            "{}" => params.push(segment.clone()),
            literal if literal == segment => {}
            _ => return None,
        }
    }
    Some(params)
}

/// The route of a request: 404 for an unknown path, 405 for a known path
/// with a method it does not take.
pub fn route(method: &Method, path: &str) -> Result<Route, ApiError> {
    let segments = api_segments(path).ok_or(ApiError::NoRoute)?;
    let mut known_path = false;
    for (route_method, pattern, make) in ROUTES {
        if let Some(params) = captures(pattern, &segments) {
            if route_method == method {
                return Ok(make(&mut Params(params.into_iter())));
            }
            known_path = true;
        }
    }
    Err(if known_path {
        ApiError::MethodNotAllowed
    } else {
        ApiError::NoRoute
    })
}

/// `%XX` sequences to bytes, then UTF-8 (lossy); a malformed escape stays as is.
pub fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feed_wins_over_slug() {
        assert_eq!(
            route(&Method::GET, "/api/articles/feed").unwrap(),
            Route::Feed
        );
    }

    #[test]
    fn stage_prefix_and_trailing_slash_are_tolerated() {
        assert_eq!(route(&Method::GET, "/prod/api/tags/").unwrap(), Route::Tags);
    }

    #[test]
    fn every_route_of_the_table_is_reachable_with_its_parameters() {
        let cases = [
            (
                Method::DELETE,
                "/api/articles/s/comments/7",
                Route::DeleteComment("s".into(), "7".into()),
            ),
            (
                Method::POST,
                "/api/articles/s/favorite",
                Route::Favorite("s".into()),
            ),
            (
                Method::PUT,
                "/api/articles/s",
                Route::UpdateArticle("s".into()),
            ),
            (
                Method::DELETE,
                "/api/profiles/p/follow",
                Route::Unfollow("p".into()),
            ),
            (Method::POST, "/api/users/login", Route::Login),
            (Method::PUT, "/api/user", Route::UpdateUser),
        ];
        for (method, path, expected) in cases {
            assert_eq!(route(&method, path).unwrap(), expected, "{method} {path}");
        }
    }

    #[test]
    fn username_is_percent_decoded() {
        let r = route(&Method::GET, "/api/profiles/j%C3%A1ke%20s").unwrap();
        assert_eq!(r, Route::Profile("jáke s".into()));
    }

    #[test]
    fn wrong_method_on_known_path_is_405_and_unknown_path_404() {
        assert_eq!(
            route(&Method::PATCH, "/api/user")
                .unwrap_err()
                .status_code(),
            405
        );
        assert_eq!(
            route(&Method::GET, "/api/nope").unwrap_err().status_code(),
            404
        );
        assert_eq!(
            route(&Method::GET, "/elsewhere").unwrap_err().status_code(),
            404
        );
    }
}
