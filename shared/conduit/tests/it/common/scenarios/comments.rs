//! Scenarios: comments.

use serde_json::json;

use super::*;

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
