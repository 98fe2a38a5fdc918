//! Scenarios: users.

use serde_json::{json, Value};

use super::*;

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
            Some(json!({"user": {"username": "jake", "email": "other@x.io", "password": "password"}})),
        )
        .await;
    assert_eq!(status, 409);
    assert_eq!(body["errors"]["username"][0], "has already been taken");
    let (status, body) = c
        .call(POST, "/api/users", None, Some(json!({"user": {"username": "other", "email": "JAKE@example.com", "password": "password"}})))
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
    let body = br#"{"user":{"username":"jake","email":"jake@x.io","password":"jakejake"}}"#;
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
            Some(json!({"user": {"username": huge, "email": "a@b.c", "password": "password"}})),
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
        .call(PUT, "/api/user", Some(&token), Some(json!({"user": {"username": "jacob", "email": "jacob@x.io", "password": "new-password"}})))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(c.call(GET, "/api/profiles/jacob", None, None).await.0, 200);
    assert_eq!(c.call(GET, "/api/profiles/jake", None, None).await.0, 404);
    let (status, _) = c
        .call(
            POST,
            "/api/users/login",
            None,
            Some(json!({"user": {"email": "jacob@x.io", "password": "new-password"}})),
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

pub async fn empty_bio_and_image_are_stored_as_null(c: &Client) {
    // GIVEN jake with a bio and an image
    let token = c.register("jake").await;
    let set = json!({"user": {"bio": "I skate", "image": "https://x.io/j.png"}});
    assert_eq!(
        c.call(PUT, "/api/user", Some(&token), Some(set)).await.0,
        200
    );
    // WHEN a client clears both with empty strings (a cleared form field)
    let (status, body) = c
        .call(
            PUT,
            "/api/user",
            Some(&token),
            Some(json!({"user": {"bio": "", "image": ""}})),
        )
        .await;
    // THEN both come back null, and stay null for the user and the profile
    assert_eq!(status, 200, "{body}");
    assert!(
        body["user"]["bio"].is_null() && body["user"]["image"].is_null(),
        "{body}"
    );
    let (_, me) = c.call(GET, "/api/user", Some(&token), None).await;
    assert!(
        me["user"]["bio"].is_null() && me["user"]["image"].is_null(),
        "{me}"
    );
    let (_, profile) = c.call(GET, "/api/profiles/jake", None, None).await;
    assert!(profile["profile"]["bio"].is_null(), "{profile}");
    assert!(profile["profile"]["image"].is_null(), "{profile}");
    // AND null is accepted for both
    let (status, body) = c
        .call(
            PUT,
            "/api/user",
            Some(&token),
            Some(json!({"user": {"bio": null, "image": null}})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert!(body["user"]["bio"].is_null() && body["user"]["image"].is_null());
}

pub async fn registration_stores_empty_bio_and_image_as_null(c: &Client) {
    // WHEN jake registers with empty bio and image
    let (status, body) = c
        .call(POST, "/api/users", None, Some(json!({"user": {"username": "jake", "email": "jake@x.io", "password": "jakejake", "bio": "", "image": ""}})))
        .await;
    // THEN both are null, in the answer and in his profile
    assert_eq!(status, 201, "{body}");
    assert!(
        body["user"]["bio"].is_null() && body["user"]["image"].is_null(),
        "{body}"
    );
    let (_, profile) = c.call(GET, "/api/profiles/jake", None, None).await;
    assert!(profile["profile"]["bio"].is_null() && profile["profile"]["image"].is_null());
}

async fn register_with_password(c: &Client, name: &str, password: Value) -> (u16, Value) {
    let body =
        json!({"user": {"username": name, "email": format!("{name}@x.io"), "password": password}});
    c.call(POST, "/api/users", None, Some(body)).await
}

pub async fn registration_enforces_the_password_length_policy(c: &Client) {
    // Too short, empty or null: 422 on `password`
    for (name, password) in [
        ("a", json!("1234567")),
        ("b", json!("")),
        ("c", Value::Null),
    ] {
        let (status, body) = register_with_password(c, name, password.clone()).await;
        assert_eq!(status, 422, "{password}: {body}");
        assert!(
            body["errors"]["password"][0].is_string(),
            "{password}: {body}"
        );
    }
    let (_, body) = register_with_password(c, "d", json!("1234567")).await;
    assert_eq!(
        body["errors"]["password"][0],
        "is too short (minimum is 8 characters)"
    );
    // Longer than the documented bound (256): 422
    let (status, body) = register_with_password(c, "e", json!("x".repeat(257))).await;
    assert_eq!(status, 422);
    assert_eq!(
        body["errors"]["password"][0],
        "is too long (maximum is 256 characters)"
    );
    // 8 characters with no composition rules, and 64 or 256 characters, are accepted
    for (name, password) in [
        ("f", "aaaaaaaa".to_owned()),
        ("g", "p".repeat(64)),
        ("h", "q".repeat(256)),
    ] {
        let (status, body) = register_with_password(c, name, json!(password)).await;
        assert_eq!(status, 201, "{} chars: {body}", password.len());
    }
    // AND a 64-character password logs in
    let login = json!({"user": {"email": "g@x.io", "password": "p".repeat(64)}});
    assert_eq!(
        c.call(POST, "/api/users/login", None, Some(login)).await.0,
        200
    );
}

pub async fn password_update_enforces_the_same_policy(c: &Client) {
    let token = c.register("jake").await;
    for password in [
        json!("short"),
        json!(""),
        Value::Null,
        json!("x".repeat(257)),
    ] {
        let body = json!({"user": {"password": password}});
        let (status, answer) = c.call(PUT, "/api/user", Some(&token), Some(body)).await;
        assert_eq!(status, 422, "{password}: {answer}");
        assert!(answer["errors"]["password"][0].is_string(), "{answer}");
    }
    // AND the old password still works
    let login = json!({"user": {"email": "jake@example.com", "password": "password-jake"}});
    assert_eq!(
        c.call(POST, "/api/users/login", None, Some(login)).await.0,
        200
    );
}

pub async fn emails_are_unique_case_insensitively_and_shown_as_typed(c: &Client) {
    // GIVEN jake registered with a mixed-case email
    let (status, body) = c
        .call(POST, "/api/users", None, Some(json!({"user": {"username": "jake", "email": "Jake.Doe@Example.IO", "password": "jakejake"}})))
        .await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["user"]["email"], "Jake.Doe@Example.IO");
    // WHEN he logs in with the email in another case
    let (status, body) = c
        .call(
            POST,
            "/api/users/login",
            None,
            Some(json!({"user": {"email": "jake.doe@example.io", "password": "jakejake"}})),
        )
        .await;
    // THEN it is the same account, shown as he typed it at registration
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["user"]["username"], "jake");
    assert_eq!(body["user"]["email"], "Jake.Doe@Example.IO");
    // AND nobody can register it again in any case
    let (status, body) = c
        .call(POST, "/api/users", None, Some(json!({"user": {"username": "other", "email": "JAKE.DOE@EXAMPLE.IO", "password": "jakejake"}})))
        .await;
    assert_eq!(status, 409);
    assert_eq!(body["errors"]["email"][0], "has already been taken");
}
