//! Scenarios: articles.

use serde_json::json;

use super::*;

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
    let (_, empty_filter) = c.call(GET, "/api/articles?tag=&author=", None, None).await;
    assert_eq!(
        empty_filter["articlesCount"], 3,
        "empty values filter nothing"
    );
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
