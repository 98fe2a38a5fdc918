//! Scenarios: profiles.

use super::*;

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
