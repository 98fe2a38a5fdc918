//! The call graph table of `docs/architecture.md`, checked endpoint by
//! endpoint on the four services in one process (counting loopbacks).

use std::collections::BTreeMap;

use http::Method;
use serde_json::{json, Value};

use crate::common::Client;

struct Step {
    method: Method,
    path: String,
    token: Option<String>,
    body: Option<Value>,
    calls: &'static [&'static str],
}

fn step(
    method: Method,
    path: impl Into<String>,
    token: Option<&String>,
    body: Option<Value>,
    calls: &'static [&'static str],
) -> Step {
    Step {
        method,
        path: path.into(),
        token: token.cloned(),
        body,
        calls,
    }
}

#[tokio::test]
async fn every_endpoint_makes_the_documented_internal_calls() {
    // GIVEN ann's article "a" with a comment by bob; reader follows ann
    let (c, cluster) = Client::in_process();
    let ann = c.register("ann").await;
    let bob = c.register("bob").await;
    let reader = c.register("reader").await;
    let slug = c.article(&ann, "A", &["t"]).await;
    let own = c.article(&reader, "Own", &[]).await;
    let comments = format!("/api/articles/{slug}/comments");
    let said = json!({"comment": {"body": "hi"}});
    assert_eq!(
        c.call(Method::POST, &comments, Some(&bob), Some(said.clone()))
            .await
            .0,
        201
    );
    let (_, mine) = c
        .call(Method::POST, &comments, Some(&reader), Some(said.clone()))
        .await;
    let mine = mine["comment"]["id"].as_i64().unwrap();
    assert_eq!(
        c.call(
            Method::POST,
            "/api/profiles/ann/follow",
            Some(&reader),
            None
        )
        .await
        .0,
        200
    );
    let cards = &["profiles.followedAmong", "users.usersByIds"];
    let (r, a) = (Some(&reader), Some(&ann));
    let steps = [
        step(
            Method::POST,
            "/api/users",
            None,
            Some(
                json!({"user": {"username": "new", "email": "new@x.y", "password": "password-new"}}),
            ),
            &[],
        ),
        step(
            Method::POST,
            "/api/users/login",
            None,
            Some(json!({"user": {"email": "ann@example.com", "password": "password-ann"}})),
            &[],
        ),
        step(Method::GET, "/api/user", r, None, &[]),
        step(
            Method::PUT,
            "/api/user",
            r,
            Some(json!({"user": {"bio": "hi"}})),
            &[],
        ),
        step(
            Method::GET,
            "/api/profiles/ann",
            r,
            None,
            &["users.userByUsername"],
        ),
        step(
            Method::POST,
            "/api/profiles/bob/follow",
            r,
            None,
            &["users.userByUsername"],
        ),
        step(
            Method::DELETE,
            "/api/profiles/bob/follow",
            r,
            None,
            &["users.userByUsername"],
        ),
        step(Method::GET, "/api/articles", r, None, cards),
        step(
            Method::GET,
            "/api/articles",
            None,
            None,
            &["users.usersByIds"],
        ),
        step(
            Method::GET,
            "/api/articles?author=ann",
            r,
            None,
            &["profiles.followedAmong", "users.userByUsername"],
        ),
        step(
            Method::GET,
            "/api/articles/feed",
            r,
            None,
            &[
                "profiles.followedAmong",
                "profiles.followees",
                "users.usersByIds",
            ],
        ),
        step(
            Method::POST,
            "/api/articles",
            r,
            Some(json!({"article": {"title": "New", "description": "d", "body": "b"}})),
            cards,
        ),
        step(Method::GET, format!("/api/articles/{slug}"), r, None, cards),
        step(
            Method::GET,
            format!("/api/articles/{slug}"),
            None,
            None,
            &["users.usersByIds"],
        ),
        step(
            Method::PUT,
            format!("/api/articles/{slug}"),
            a,
            Some(json!({"article": {"body": "b2"}})),
            cards,
        ),
        step(
            Method::POST,
            format!("/api/articles/{slug}/favorite"),
            r,
            None,
            cards,
        ),
        step(
            Method::DELETE,
            format!("/api/articles/{slug}/favorite"),
            r,
            None,
            cards,
        ),
        step(Method::GET, "/api/tags", None, None, &[]),
        step(
            Method::GET,
            comments.clone(),
            r,
            None,
            &[
                "articles.articleIdBySlug",
                "profiles.followedAmong",
                "users.usersByIds",
            ],
        ),
        step(
            Method::POST,
            comments.clone(),
            r,
            Some(said),
            &[
                "articles.articleIdBySlug",
                "profiles.followedAmong",
                "users.userById",
            ],
        ),
        step(
            Method::DELETE,
            format!("{comments}/{mine}"),
            r,
            None,
            &["articles.articleIdBySlug"],
        ),
        step(
            Method::DELETE,
            format!("/api/articles/{own}"),
            r,
            None,
            &["comments.deleteCommentsOf"],
        ),
    ];
    for s in steps {
        cluster.log.clear();
        // WHEN the endpoint is called
        let (status, body) = c
            .call(s.method.clone(), &s.path, s.token.as_deref(), s.body)
            .await;
        // THEN it succeeds with exactly the documented calls, one each
        assert!(status < 300, "{} {}: {status} {body}", s.method, s.path);
        let expected: BTreeMap<String, usize> =
            s.calls.iter().map(|c| (c.to_string(), 1)).collect();
        assert_eq!(cluster.log.counts(), expected, "{} {}", s.method, s.path);
    }
}

#[tokio::test]
async fn a_favorited_filter_asks_following_separately_for_a_fan_who_is_also_an_author() {
    // GIVEN reader favorited ann's article and their own
    let (c, cluster) = Client::in_process();
    let ann = c.register("ann").await;
    let reader = c.register("reader").await;
    for (token, title) in [(&ann, "A"), (&reader, "Own")] {
        let slug = c.article(token, title, &[]).await;
        let path = format!("/api/articles/{slug}/favorite");
        assert_eq!(
            c.call(Method::POST, &path, Some(&reader), None).await.0,
            200
        );
    }
    cluster.log.clear();
    // WHEN reader lists their favorites
    let (status, body) = c
        .call(
            Method::GET,
            "/api/articles?favorited=reader",
            Some(&reader),
            None,
        )
        .await;
    // THEN the fan's card is reused, ann's comes in a batch with following,
    // and following for the fan (known before the batch) is one more call
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["articlesCount"], 2);
    let expected: BTreeMap<String, usize> = [
        ("profiles.followedAmong", 2),
        ("users.userByUsername", 1),
        ("users.usersByIds", 1),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    assert_eq!(cluster.log.counts(), expected);
}
