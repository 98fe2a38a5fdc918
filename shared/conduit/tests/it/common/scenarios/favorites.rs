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
