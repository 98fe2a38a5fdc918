//! Scenarios: favorites.

use super::*;

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

pub async fn lists_feed_and_updates_show_what_the_viewer_favorited(c: &Client) {
    // GIVEN jake's articles One and Two (tag t); anne follows jake and favorites One;
    // jake favorites his own Two
    let jake = c.register("jake").await;
    let anne = c.register("anne").await;
    let one = c.article(&jake, "One", &["t"]).await;
    let two = c.article(&jake, "Two", &["t"]).await;
    c.call(POST, "/api/profiles/jake/follow", Some(&anne), None)
        .await;
    for (slug, fan) in [(&one, &anne), (&two, &jake)] {
        let fav = format!("/api/articles/{slug}/favorite");
        assert_eq!(c.call(POST, &fav, Some(fan), None).await.0, 200);
    }
    let favorited = |page: &serde_json::Value, slug: &str| {
        let articles = page["articles"].as_array().expect("articles");
        let article = articles.iter().find(|a| a["slug"] == slug).expect(slug);
        article["favorited"].clone()
    };
    // WHEN anne reads the list, the feed and a combined filter
    for path in [
        "/api/articles",
        "/api/articles/feed",
        "/api/articles?tag=t&author=jake",
    ] {
        let (status, page) = c.call(GET, path, Some(&anne), None).await;
        // THEN only One is favorited, as seen by anne
        assert_eq!(status, 200, "{path}: {page}");
        assert_eq!(favorited(&page, &one), true, "{path}");
        assert_eq!(favorited(&page, &two), false, "{path}");
    }
    // AND jake and an anonymous reader see their own favorites
    let (_, page) = c.call(GET, "/api/articles", Some(&jake), None).await;
    assert_eq!(favorited(&page, &one), false);
    assert_eq!(favorited(&page, &two), true);
    let (_, page) = c.call(GET, "/api/articles", None, None).await;
    assert_eq!(favorited(&page, &two), false);
    // AND jake's update of Two still says he favorited it
    let (status, body) = c
        .call(
            PUT,
            &format!("/api/articles/{two}"),
            Some(&jake),
            Some(serde_json::json!({"article": {"description": "new"}})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["article"]["favorited"], true);
    assert_eq!(body["article"]["favoritesCount"], 1);
}
