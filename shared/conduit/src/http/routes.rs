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

pub fn route(method: &Method, path: &str) -> Result<Route, ApiError> {
    let segments = api_segments(path).ok_or(ApiError::NoRoute)?;
    let s: Vec<&str> = segments.iter().map(String::as_str).collect();
    let m = method.clone();
    let owned = |x: &str| x.to_owned();
    let found = match (s.as_slice(), m) {
        (["users"], Method::POST) => Route::Register,
        (["users", "login"], Method::POST) => Route::Login,
        (["user"], Method::GET) => Route::CurrentUser,
        (["user"], Method::PUT) => Route::UpdateUser,
        (["profiles", name], Method::GET) => Route::Profile(owned(name)),
        (["profiles", name, "follow"], Method::POST) => Route::Follow(owned(name)),
        (["profiles", name, "follow"], Method::DELETE) => Route::Unfollow(owned(name)),
        (["articles"], Method::GET) => Route::ListArticles,
        (["articles"], Method::POST) => Route::CreateArticle,
        (["articles", "feed"], Method::GET) => Route::Feed,
        (["articles", slug], Method::GET) => Route::GetArticle(owned(slug)),
        (["articles", slug], Method::PUT) => Route::UpdateArticle(owned(slug)),
        (["articles", slug], Method::DELETE) => Route::DeleteArticle(owned(slug)),
        (["articles", slug, "favorite"], Method::POST) => Route::Favorite(owned(slug)),
        (["articles", slug, "favorite"], Method::DELETE) => Route::Unfavorite(owned(slug)),
        (["articles", slug, "comments"], Method::GET) => Route::ListComments(owned(slug)),
        (["articles", slug, "comments"], Method::POST) => Route::AddComment(owned(slug)),
        (["articles", slug, "comments", id], Method::DELETE) => {
            Route::DeleteComment(owned(slug), owned(id))
        }
        (["tags"], Method::GET) => Route::Tags,
        (known, _) if is_known_path(known) => return Err(ApiError::MethodNotAllowed),
        _ => return Err(ApiError::NoRoute),
    };
    Ok(found)
}

fn is_known_path(s: &[&str]) -> bool {
    matches!(
        s,
        ["users"]
            | ["users", "login"]
            | ["user"]
            | ["profiles", _]
            | ["profiles", _, "follow"]
            | ["articles"]
            | ["articles", _]
            | ["articles", _, "favorite"]
            | ["articles", _, "comments"]
            | ["articles", _, "comments", _]
            | ["tags"]
    )
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
