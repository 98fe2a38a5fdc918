//! Behaviour of the public API, written once and run against every store
//! implementation (in memory, DynamoDB emulator). Each takes a fresh client.

use http::Method;
use serde_json::json;

use super::Client;

const GET: Method = Method::GET;
const POST: Method = Method::POST;
const PUT: Method = Method::PUT;
const DELETE: Method = Method::DELETE;

// ---- users ------------------------------------------------------------------------

pub async fn registration_returns_201_with_user_and_token(c: &Client) {
    // WHEN jake registers
    let (status, body) = c
        .call(POST, "/api/users", None, Some(json!({"user": {"username": "jake", "email": "jake@jake.jake", "password": "jakejake"}})))
        .await;
    // THEN the user comes back with a token and null bio/image
    assert_eq!(status, 201);
    let user = &body["user"];
    assert_eq!(user["username"], "jake");
    assert_eq!(user["email"], "jake@jake.jake");
    assert!(user["bio"].is_null() && user["image"].is_null());
    assert!(user["token"].as_str().unwrap().len() > 20);
    assert!(user.get("password").is_none());
}

pub async fn registration_with_taken_username_or_email_is_409(c: &Client) {
    c.register("jake").await;
    let (status, body) = c
        .call(
            POST,
            "/api/users",
            None,
            Some(json!({"user": {"username": "jake", "email": "other@x.io", "password": "p"}})),
        )
        .await;
    assert_eq!(status, 409);
    assert_eq!(body["errors"]["username"][0], "has already been taken");
    let (status, body) = c
        .call(POST, "/api/users", None, Some(json!({"user": {"username": "other", "email": "JAKE@example.com", "password": "p"}})))
        .await;
    assert_eq!(status, 409);
    assert_eq!(body["errors"]["email"][0], "has already been taken");
}

pub async fn registration_with_missing_empty_or_null_fields_is_422(c: &Client) {
    let (status, body) = c
        .call(
            POST,
            "/api/users",
            None,
            Some(json!({"user": {"username": "", "email": null}})),
        )
        .await;
    assert_eq!(status, 422);
    for field in ["username", "email", "password"] {
        assert_eq!(
            body["errors"][field][0], "can't be blank",
            "{field}: {body}"
        );
    }
}

pub async fn registration_with_wrong_types_is_422(c: &Client) {
    let (status, body) = c
        .call(
            POST,
            "/api/users",
            None,
            Some(json!({"user": {"username": 7, "email": "a@b.c", "password": ["x"]}})),
        )
        .await;
    assert_eq!(status, 422);
    assert!(body["errors"]["username"].is_array());
    assert!(body["errors"]["password"].is_array());
}

pub async fn non_json_body_without_content_type_is_422(c: &Client) {
    // GIVEN a client that sends neither JSON nor a Content-Type
    let resp = c.raw(POST, "/api/users", &[], b"username=jake").await;
    assert_eq!(resp.status, 422);
    assert!(resp.json()["errors"].is_object());
}

pub async fn json_body_without_content_type_is_accepted(c: &Client) {
    let body = br#"{"user":{"username":"jake","email":"jake@x.io","password":"pw"}}"#;
    let resp = c.raw(POST, "/api/users", &[], body).await;
    assert_eq!(resp.status, 201);
}

pub async fn oversized_body_is_rejected_without_crash(c: &Client) {
    let huge = "x".repeat(100 * 1024);
    let (status, _) = c
        .call(
            POST,
            "/api/users",
            None,
            Some(json!({"user": {"username": huge, "email": "a@b.c", "password": "p"}})),
        )
        .await;
    assert!(status == 413 || status == 422, "status {status}");
}

pub async fn login_returns_user_and_wrong_password_is_401(c: &Client) {
    c.register("jake").await;
    let (status, body) = c
        .call(
            POST,
            "/api/users/login",
            None,
            Some(json!({"user": {"email": "jake@example.com", "password": "password-jake"}})),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(body["user"]["username"], "jake");
    let (status, _) = c
        .call(
            POST,
            "/api/users/login",
            None,
            Some(json!({"user": {"email": "jake@example.com", "password": "nope"}})),
        )
        .await;
    assert_eq!(status, 401);
    let (status, _) = c
        .call(
            POST,
            "/api/users/login",
            None,
            Some(json!({"user": {"email": "ghost@example.com", "password": "nope"}})),
        )
        .await;
    assert_eq!(status, 401);
}

pub async fn login_without_password_is_422(c: &Client) {
    let (status, body) = c
        .call(
            POST,
            "/api/users/login",
            None,
            Some(json!({"user": {"email": "a@b.c"}})),
        )
        .await;
    assert_eq!(status, 422);
    assert_eq!(body["errors"]["password"][0], "can't be blank");
}

pub async fn current_user_requires_a_token(c: &Client) {
    let resp = c.raw(GET, "/api/user", &[], b"").await;
    assert_eq!(resp.status, 401);
    assert_eq!(resp.headers["www-authenticate"], "Token");
    assert_eq!(resp.json()["errors"]["token"][0], "is missing");
}

pub async fn current_user_is_returned_for_a_valid_token(c: &Client) {
    let token = c.register("jake").await;
    let (status, body) = c.call(GET, "/api/user", Some(&token), None).await;
    assert_eq!(status, 200);
    assert_eq!(body["user"]["email"], "jake@example.com");
}

pub async fn forged_or_expired_token_is_401_even_where_auth_is_optional(c: &Client) {
    let token = c.register("jake").await;
    let forged = format!("{}x", token);
    assert_eq!(c.call(GET, "/api/user", Some(&forged), None).await.0, 401);
    assert_eq!(
        c.call(GET, "/api/articles", Some(&forged), None).await.0,
        401
    );
    assert_eq!(
        c.call(GET, "/api/profiles/jake", Some("garbage"), None)
            .await
            .0,
        401
    );
    let expired = super::tokens()
        .with_ttl_secs(1)
        .issue_at(&"someone".to_owned(), 1_000_000)
        .unwrap();
    assert_eq!(
        c.call(GET, "/api/articles", Some(&expired), None).await.0,
        401
    );
    let resp = c
        .raw(
            GET,
            "/api/profiles/jake",
            &[("authorization", "Basic abc")],
            b"",
        )
        .await;
    assert_eq!(resp.status, 401);
}

pub async fn update_user_changes_only_given_fields(c: &Client) {
    let token = c.register("jake").await;
    let (status, body) = c
        .call(PUT, "/api/user", Some(&token), Some(json!({"user": {"bio": "I like to skateboard", "image": "https://i.stack.imgur.com/xHWG8.jpg"}})))
        .await;
    assert_eq!(status, 200);
    assert_eq!(body["user"]["bio"], "I like to skateboard");
    assert_eq!(body["user"]["username"], "jake");
    // AND null clears the bio
    let (_, body) = c
        .call(
            PUT,
            "/api/user",
            Some(&token),
            Some(json!({"user": {"bio": null}})),
        )
        .await;
    assert!(body["user"]["bio"].is_null());
    assert_eq!(body["user"]["image"], "https://i.stack.imgur.com/xHWG8.jpg");
}

pub async fn update_user_can_rename_and_change_password(c: &Client) {
    let token = c.register("jake").await;
    let (status, body) = c
        .call(PUT, "/api/user", Some(&token), Some(json!({"user": {"username": "jacob", "email": "jacob@x.io", "password": "newpass"}})))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(c.call(GET, "/api/profiles/jacob", None, None).await.0, 200);
    assert_eq!(c.call(GET, "/api/profiles/jake", None, None).await.0, 404);
    let (status, _) = c
        .call(
            POST,
            "/api/users/login",
            None,
            Some(json!({"user": {"email": "jacob@x.io", "password": "newpass"}})),
        )
        .await;
    assert_eq!(status, 200);
    // AND the old name and email are free again
    c.register("jake").await;
}

pub async fn update_user_to_taken_email_is_409(c: &Client) {
    let token = c.register("jake").await;
    c.register("anne").await;
    let (status, body) = c
        .call(
            PUT,
            "/api/user",
            Some(&token),
            Some(json!({"user": {"email": "anne@example.com"}})),
        )
        .await;
    assert_eq!(status, 409);
    assert_eq!(body["errors"]["email"][0], "has already been taken");
}

pub async fn update_user_with_empty_user_or_blank_email_is_422(c: &Client) {
    let token = c.register("jake").await;
    assert_eq!(
        c.call(PUT, "/api/user", Some(&token), Some(json!({"user": {}})))
            .await
            .0,
        422
    );
    let (status, body) = c
        .call(
            PUT,
            "/api/user",
            Some(&token),
            Some(json!({"user": {"email": ""}})),
        )
        .await;
    assert_eq!(status, 422);
    assert_eq!(body["errors"]["email"][0], "can't be blank");
    assert_eq!(
        c.call(
            PUT,
            "/api/user",
            Some(&token),
            Some(json!({"user": {"bio": 5}}))
        )
        .await
        .0,
        422
    );
}

// ---- profiles ---------------------------------------------------------------------

pub async fn profile_of_unknown_user_is_404(c: &Client) {
    let (status, body) = c.call(GET, "/api/profiles/ghost", None, None).await;
    assert_eq!(status, 404);
    assert_eq!(body["errors"]["profile"][0], "not found");
}

pub async fn follow_and_unfollow_toggle_following(c: &Client) {
    let jake = c.register("jake").await;
    c.register("anne").await;
    let (status, body) = c
        .call(POST, "/api/profiles/anne/follow", Some(&jake), None)
        .await;
    assert_eq!(status, 200);
    assert_eq!(body["profile"]["following"], true);
    let (_, body) = c.call(GET, "/api/profiles/anne", Some(&jake), None).await;
    assert_eq!(body["profile"]["following"], true);
    let (_, body) = c.call(GET, "/api/profiles/anne", None, None).await;
    assert_eq!(body["profile"]["following"], false);
    let (status, body) = c
        .call(DELETE, "/api/profiles/anne/follow", Some(&jake), None)
        .await;
    assert_eq!(status, 200);
    assert_eq!(body["profile"]["following"], false);
    let (_, body) = c.call(GET, "/api/profiles/anne", Some(&jake), None).await;
    assert_eq!(body["profile"]["following"], false);
}

pub async fn follow_requires_auth_and_existing_user(c: &Client) {
    let jake = c.register("jake").await;
    assert_eq!(
        c.call(POST, "/api/profiles/jake/follow", None, None)
            .await
            .0,
        401
    );
    assert_eq!(
        c.call(POST, "/api/profiles/ghost/follow", Some(&jake), None)
            .await
            .0,
        404
    );
    assert_eq!(
        c.call(DELETE, "/api/profiles/ghost/follow", Some(&jake), None)
            .await
            .0,
        404
    );
}

// ---- articles ---------------------------------------------------------------------

pub async fn create_article_returns_201_with_full_article(c: &Client) {
    let jake = c.register("jake").await;
    let (status, body) = c
        .call(POST, "/api/articles", Some(&jake), Some(json!({"article": {"title": "How to train your dragon", "description": "Ever wonder how?", "body": "You have to believe", "tagList": ["dragons", "training"]}})))
        .await;
    assert_eq!(status, 201, "{body}");
    let a = &body["article"];
    assert_eq!(a["slug"], "how-to-train-your-dragon");
    assert_eq!(a["body"], "You have to believe");
    assert_eq!(a["tagList"], json!(["dragons", "training"]));
    assert_eq!(a["favorited"], false);
    assert_eq!(a["favoritesCount"], 0);
    assert_eq!(a["author"]["username"], "jake");
    assert_eq!(a["author"]["following"], false);
    let created = a["createdAt"].as_str().unwrap();
    assert!(created.ends_with('Z') && created.len() == 24, "{created}");
    assert_eq!(a["createdAt"], a["updatedAt"]);
}

pub async fn create_article_without_auth_is_401_and_without_title_is_422(c: &Client) {
    let jake = c.register("jake").await;
    let article = json!({"article": {"title": "t", "description": "d", "body": "b"}});
    assert_eq!(
        c.call(POST, "/api/articles", None, Some(article)).await.0,
        401
    );
    let (status, body) = c
        .call(
            POST,
            "/api/articles",
            Some(&jake),
            Some(json!({"article": {"description": "d", "body": ""}})),
        )
        .await;
    assert_eq!(status, 422);
    assert_eq!(body["errors"]["title"][0], "can't be blank");
    assert_eq!(body["errors"]["body"][0], "can't be blank");
    let (status, _) = c
        .call(
            POST,
            "/api/articles",
            Some(&jake),
            Some(
                json!({"article": {"title": "t", "description": "d", "body": "b", "tagList": "x"}}),
            ),
        )
        .await;
    assert_eq!(status, 422);
}

pub async fn equal_titles_get_distinct_slugs(c: &Client) {
    let jake = c.register("jake").await;
    let first = c.article(&jake, "Same title", &[]).await;
    let second = c.article(&jake, "Same title", &[]).await;
    assert_ne!(first, second);
    assert_eq!(
        c.call(GET, &format!("/api/articles/{first}"), None, None)
            .await
            .0,
        200
    );
    assert_eq!(
        c.call(GET, &format!("/api/articles/{second}"), None, None)
            .await
            .0,
        200
    );
}

pub async fn get_unknown_article_is_404(c: &Client) {
    let (status, body) = c.call(GET, "/api/articles/nope", None, None).await;
    assert_eq!(status, 404);
    assert_eq!(body["errors"]["article"][0], "not found");
}

pub async fn list_articles_is_newest_first_without_body_with_count(c: &Client) {
    let jake = c.register("jake").await;
    for i in 0..3 {
        c.article(&jake, &format!("Article {i}"), &[]).await;
        tokio::time::sleep(std::time::Duration::from_millis(3)).await;
    }
    let (status, body) = c.call(GET, "/api/articles", None, None).await;
    assert_eq!(status, 200);
    assert_eq!(body["articlesCount"], 3);
    let titles: Vec<&str> = body["articles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, ["Article 2", "Article 1", "Article 0"]);
    assert!(body["articles"][0].get("body").is_none());
    assert_eq!(body["articles"][0]["author"]["username"], "jake");
}

pub async fn list_articles_pages_with_offset_and_limit(c: &Client) {
    let jake = c.register("jake").await;
    for i in 0..5 {
        c.article(&jake, &format!("A{i}"), &[]).await;
        tokio::time::sleep(std::time::Duration::from_millis(3)).await;
    }
    let (_, body) = c
        .call(GET, "/api/articles?limit=2&offset=1", None, None)
        .await;
    let titles: Vec<&str> = body["articles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, ["A3", "A2"]);
    assert_eq!(body["articlesCount"], 5);
    let (_, body) = c.call(GET, "/api/articles?offset=10", None, None).await;
    assert_eq!(body["articles"], json!([]));
    assert_eq!(body["articlesCount"], 5);
    assert_eq!(
        c.call(GET, "/api/articles?limit=abc", None, None).await.0,
        422
    );
}

pub async fn list_articles_filters_by_tag_author_and_favorited(c: &Client) {
    let jake = c.register("jake").await;
    let anne = c.register("anne").await;
    let dragons = c.article(&jake, "Dragons", &["dragons"]).await;
    c.article(&jake, "Cats", &["cats"]).await;
    c.article(&anne, "Anne's dragons", &["dragons"]).await;
    c.call(
        POST,
        &format!("/api/articles/{dragons}/favorite"),
        Some(&anne),
        None,
    )
    .await;

    let (_, by_tag) = c.call(GET, "/api/articles?tag=dragons", None, None).await;
    assert_eq!(by_tag["articlesCount"], 2);
    let (_, by_author) = c.call(GET, "/api/articles?author=jake", None, None).await;
    assert_eq!(by_author["articlesCount"], 2);
    let (_, by_fav) = c
        .call(GET, "/api/articles?favorited=anne", Some(&anne), None)
        .await;
    assert_eq!(by_fav["articlesCount"], 1);
    assert_eq!(by_fav["articles"][0]["slug"], dragons.as_str());
    assert_eq!(by_fav["articles"][0]["favorited"], true);
    let (status, unknown) = c.call(GET, "/api/articles?author=ghost", None, None).await;
    assert_eq!(status, 200);
    assert_eq!(unknown["articlesCount"], 0);
}

pub async fn list_articles_combines_filters(c: &Client) {
    // GIVEN jake's and anne's articles with overlapping tags, one favorited by anne
    let jake = c.register("jake").await;
    let anne = c.register("anne").await;
    let dragons = c.article(&jake, "Dragons", &["dragons", "fire"]).await;
    c.article(&jake, "Cats", &["cats"]).await;
    tokio::time::sleep(std::time::Duration::from_millis(3)).await;
    c.article(&jake, "More dragons", &["dragons"]).await;
    c.article(&anne, "Anne's dragons", &["dragons"]).await;
    c.call(
        POST,
        &format!("/api/articles/{dragons}/favorite"),
        Some(&anne),
        None,
    )
    .await;
    // WHEN filters are combined THEN every one of them holds
    let (_, tag_author) = c
        .call(
            GET,
            "/api/articles?tag=dragons&author=jake&limit=1",
            None,
            None,
        )
        .await;
    assert_eq!(tag_author["articlesCount"], 2);
    assert_eq!(tag_author["articles"][0]["title"], "More dragons");
    let (_, author_fan) = c
        .call(GET, "/api/articles?author=jake&favorited=anne", None, None)
        .await;
    assert_eq!(author_fan["articlesCount"], 1);
    assert_eq!(author_fan["articles"][0]["slug"], dragons.as_str());
    let (_, none) = c
        .call(GET, "/api/articles?tag=cats&favorited=anne", None, None)
        .await;
    assert_eq!(none["articlesCount"], 0);
    let (_, unknown) = c
        .call(GET, "/api/articles?tag=dragons&author=ghost", None, None)
        .await;
    assert_eq!(unknown["articlesCount"], 0);
}

pub async fn feed_shows_followed_authors_only(c: &Client) {
    let jake = c.register("jake").await;
    let anne = c.register("anne").await;
    let bob = c.register("bob").await;
    c.article(&anne, "By anne", &[]).await;
    c.article(&bob, "By bob", &[]).await;
    let (_, empty) = c.call(GET, "/api/articles/feed", Some(&jake), None).await;
    assert_eq!(empty["articlesCount"], 0);
    c.call(POST, "/api/profiles/anne/follow", Some(&jake), None)
        .await;
    let (status, feed) = c.call(GET, "/api/articles/feed", Some(&jake), None).await;
    assert_eq!(status, 200);
    assert_eq!(feed["articlesCount"], 1);
    assert_eq!(feed["articles"][0]["title"], "By anne");
    assert_eq!(feed["articles"][0]["author"]["following"], true);
    assert!(feed["articles"][0].get("body").is_none());
    assert_eq!(c.call(GET, "/api/articles/feed", None, None).await.0, 401);
}

pub async fn feed_pages_across_several_authors(c: &Client) {
    let jake = c.register("jake").await;
    let anne = c.register("anne").await;
    let bob = c.register("bob").await;
    for i in 0..3 {
        c.article(&anne, &format!("anne {i}"), &[]).await;
        tokio::time::sleep(std::time::Duration::from_millis(3)).await;
        c.article(&bob, &format!("bob {i}"), &[]).await;
        tokio::time::sleep(std::time::Duration::from_millis(3)).await;
    }
    c.call(POST, "/api/profiles/anne/follow", Some(&jake), None)
        .await;
    c.call(POST, "/api/profiles/bob/follow", Some(&jake), None)
        .await;
    let (_, feed) = c
        .call(
            GET,
            "/api/articles/feed?limit=3&offset=2",
            Some(&jake),
            None,
        )
        .await;
    let titles: Vec<&str> = feed["articles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["title"].as_str().unwrap())
        .collect();
    // newest first: bob 2, anne 2, bob 1, anne 1, bob 0, anne 0
    assert_eq!(titles, ["bob 1", "anne 1", "bob 0"]);
    assert_eq!(feed["articlesCount"], 6);
}

pub async fn update_article_keeps_tags_unless_given_and_empty_list_clears(c: &Client) {
    let jake = c.register("jake").await;
    let slug = c.article(&jake, "Tagged", &["a", "b"]).await;
    let path = format!("/api/articles/{slug}");
    let (status, body) = c
        .call(
            PUT,
            &path,
            Some(&jake),
            Some(json!({"article": {"body": "new body"}})),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(body["article"]["body"], "new body");
    assert_eq!(body["article"]["tagList"], json!(["a", "b"]));
    let (_, body) = c
        .call(
            PUT,
            &path,
            Some(&jake),
            Some(json!({"article": {"tagList": []}})),
        )
        .await;
    assert_eq!(body["article"]["tagList"], json!([]));
    let (_, tags) = c.call(GET, "/api/tags", None, None).await;
    assert_eq!(tags["tags"], json!([]));
    let (_, body) = c.call(GET, &path, None, None).await;
    assert_eq!(body["article"]["tagList"], json!([]));
}

pub async fn update_article_title_changes_slug(c: &Client) {
    let jake = c.register("jake").await;
    let slug = c.article(&jake, "Old title", &[]).await;
    let (status, body) = c
        .call(
            PUT,
            &format!("/api/articles/{slug}"),
            Some(&jake),
            Some(json!({"article": {"title": "New title"}})),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(body["article"]["slug"], "new-title");
    assert_eq!(body["article"]["title"], "New title");
    assert_eq!(
        c.call(GET, "/api/articles/new-title", None, None).await.0,
        200
    );
    assert_eq!(
        c.call(GET, "/api/articles/old-title", None, None).await.0,
        404
    );
}

pub async fn only_the_author_may_update_or_delete_an_article(c: &Client) {
    let jake = c.register("jake").await;
    let anne = c.register("anne").await;
    let slug = c.article(&jake, "Mine", &[]).await;
    let path = format!("/api/articles/{slug}");
    let (status, body) = c
        .call(
            PUT,
            &path,
            Some(&anne),
            Some(json!({"article": {"body": "hacked"}})),
        )
        .await;
    assert_eq!(status, 403);
    assert_eq!(body["errors"]["article"][0], "forbidden");
    assert_eq!(c.call(DELETE, &path, Some(&anne), None).await.0, 403);
    assert_eq!(c.call(DELETE, &path, None, None).await.0, 401);
    assert_eq!(
        c.call(
            PUT,
            "/api/articles/nope",
            Some(&anne),
            Some(json!({"article": {"body": "x"}}))
        )
        .await
        .0,
        404
    );
}

pub async fn update_article_with_blank_title_is_422(c: &Client) {
    let jake = c.register("jake").await;
    let slug = c.article(&jake, "Mine", &[]).await;
    let (status, body) = c
        .call(
            PUT,
            &format!("/api/articles/{slug}"),
            Some(&jake),
            Some(json!({"article": {"title": ""}})),
        )
        .await;
    assert_eq!(status, 422);
    assert_eq!(body["errors"]["title"][0], "can't be blank");
}

pub async fn delete_article_is_204_and_then_404(c: &Client) {
    let jake = c.register("jake").await;
    let slug = c.article(&jake, "Doomed", &["doom"]).await;
    let path = format!("/api/articles/{slug}");
    c.call(
        POST,
        &format!("{path}/comments"),
        Some(&jake),
        Some(json!({"comment": {"body": "c"}})),
    )
    .await;
    let resp = c
        .raw(
            DELETE,
            &path,
            &[("authorization", &format!("Token {jake}"))],
            b"",
        )
        .await;
    assert_eq!(resp.status, 204);
    assert!(resp.body.is_empty());
    assert_eq!(c.call(GET, &path, None, None).await.0, 404);
    assert_eq!(
        c.call(GET, &format!("{path}/comments"), None, None).await.0,
        404
    );
    let (_, list) = c.call(GET, "/api/articles", None, None).await;
    assert_eq!(list["articlesCount"], 0);
    let (_, tags) = c.call(GET, "/api/tags", None, None).await;
    assert_eq!(tags["tags"], json!([]));
}

// ---- favorites --------------------------------------------------------------------

pub async fn favorite_and_unfavorite_update_count_idempotently(c: &Client) {
    let jake = c.register("jake").await;
    let anne = c.register("anne").await;
    let slug = c.article(&jake, "Fav", &[]).await;
    let fav = format!("/api/articles/{slug}/favorite");
    let (status, body) = c.call(POST, &fav, Some(&anne), None).await;
    assert_eq!(status, 200);
    assert_eq!(body["article"]["favorited"], true);
    assert_eq!(body["article"]["favoritesCount"], 1);
    let (_, body) = c.call(POST, &fav, Some(&anne), None).await;
    assert_eq!(body["article"]["favoritesCount"], 1);
    let (_, body) = c
        .call(GET, &format!("/api/articles/{slug}"), Some(&anne), None)
        .await;
    assert_eq!(body["article"]["favorited"], true);
    let (_, body) = c
        .call(GET, &format!("/api/articles/{slug}"), Some(&jake), None)
        .await;
    assert_eq!(body["article"]["favorited"], false);
    let (status, body) = c.call(DELETE, &fav, Some(&anne), None).await;
    assert_eq!(status, 200);
    assert_eq!(body["article"]["favorited"], false);
    assert_eq!(body["article"]["favoritesCount"], 0);
    let (_, body) = c.call(DELETE, &fav, Some(&anne), None).await;
    assert_eq!(body["article"]["favoritesCount"], 0);
}

pub async fn favorite_requires_auth_and_existing_article(c: &Client) {
    let jake = c.register("jake").await;
    assert_eq!(
        c.call(POST, "/api/articles/nope/favorite", Some(&jake), None)
            .await
            .0,
        404
    );
    let slug = c.article(&jake, "Fav", &[]).await;
    assert_eq!(
        c.call(POST, &format!("/api/articles/{slug}/favorite"), None, None)
            .await
            .0,
        401
    );
}

// ---- comments ---------------------------------------------------------------------

pub async fn comments_can_be_added_listed_and_deleted_by_their_author(c: &Client) {
    let jake = c.register("jake").await;
    let anne = c.register("anne").await;
    let slug = c.article(&jake, "Commented", &[]).await;
    let path = format!("/api/articles/{slug}/comments");
    let (status, body) = c
        .call(
            POST,
            &path,
            Some(&anne),
            Some(json!({"comment": {"body": "Thank you so much!"}})),
        )
        .await;
    assert_eq!(status, 201);
    let comment = &body["comment"];
    assert_eq!(comment["body"], "Thank you so much!");
    assert_eq!(comment["author"]["username"], "anne");
    assert!(comment["id"].is_i64());
    let id = comment["id"].as_i64().unwrap();
    // ids are time-ordered at millisecond granularity
    tokio::time::sleep(std::time::Duration::from_millis(2)).await;
    c.call(
        POST,
        &path,
        Some(&jake),
        Some(json!({"comment": {"body": "second"}})),
    )
    .await;

    let (status, list) = c.call(GET, &path, None, None).await;
    assert_eq!(status, 200);
    assert_eq!(list["comments"].as_array().unwrap().len(), 2);
    assert_eq!(list["comments"][0]["id"], id);

    let delete = format!("{path}/{id}");
    let (status, body) = c.call(DELETE, &delete, Some(&jake), None).await;
    assert_eq!(status, 403);
    assert_eq!(body["errors"]["comment"][0], "forbidden");
    assert_eq!(c.call(DELETE, &delete, Some(&anne), None).await.0, 204);
    assert_eq!(c.call(DELETE, &delete, Some(&anne), None).await.0, 404);
    let (_, list) = c.call(GET, &path, None, None).await;
    assert_eq!(list["comments"].as_array().unwrap().len(), 1);
}

pub async fn comment_errors_follow_the_spec(c: &Client) {
    let jake = c.register("jake").await;
    let slug = c.article(&jake, "Commented", &[]).await;
    let path = format!("/api/articles/{slug}/comments");
    let body = json!({"comment": {"body": "x"}});
    assert_eq!(c.call(POST, &path, None, Some(body.clone())).await.0, 401);
    assert_eq!(
        c.call(POST, "/api/articles/nope/comments", Some(&jake), Some(body))
            .await
            .0,
        404
    );
    assert_eq!(
        c.call(GET, "/api/articles/nope/comments", None, None)
            .await
            .0,
        404
    );
    let (status, errs) = c
        .call(
            POST,
            &path,
            Some(&jake),
            Some(json!({"comment": {"body": ""}})),
        )
        .await;
    assert_eq!(status, 422);
    assert_eq!(errs["errors"]["body"][0], "can't be blank");
    assert_eq!(
        c.call(DELETE, &format!("{path}/12345"), Some(&jake), None)
            .await
            .0,
        404
    );
    assert_eq!(
        c.call(DELETE, &format!("{path}/abc"), Some(&jake), None)
            .await
            .0,
        404
    );
}

// ---- tags -------------------------------------------------------------------------

pub async fn tags_lists_each_used_tag_once(c: &Client) {
    let jake = c.register("jake").await;
    c.article(&jake, "One", &["rust", "aws"]).await;
    c.article(&jake, "Two", &["rust"]).await;
    let (status, body) = c.call(GET, "/api/tags", None, None).await;
    assert_eq!(status, 200);
    assert_eq!(body["tags"], json!(["rust", "aws"]));
}

pub async fn unknown_route_is_404_json(c: &Client) {
    let (status, body) = c.call(GET, "/api/nothing-here", None, None).await;
    assert_eq!(status, 404);
    assert!(body["errors"].is_object());
}
