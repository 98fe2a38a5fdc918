//! Scenarios: tags.

use serde_json::json;

use super::*;

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
