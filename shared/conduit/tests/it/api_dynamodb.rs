//! The same behaviours against the real `aws-sdk-dynamodb` adapters on the local
//! cloud's DynamoDB, plus concurrency and API Gateway v2 event fixtures. When
//! `DYNAMODB_LOCAL_ENDPOINT` is set (scripts/test.sh starts DynamoDB Local), the
//! scenarios also run there, as an oracle for what real DynamoDB accepts.

use std::sync::Arc;

use crate::common::Client;
use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
use conduit::store::dynamo::{create_tables, TableNames};
use conduit::App;
use http::Method;
use localcloud_core::{serve_on_ephemeral_port, Dispatcher, ServerHandle};
use localcloud_dynamodb::{DynamoDb, DynamoDbConfig};
use serde_json::json;

struct Local {
    client: Client,
    sdk: aws_sdk_dynamodb::Client,
    tables: TableNames,
    _server: Option<ServerHandle>,
}

fn sdk_client(endpoint: &str) -> aws_sdk_dynamodb::Client {
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .endpoint_url(endpoint)
        .credentials_provider(Credentials::new("AKIDLOCAL", "secret", None, None, "test"))
        .build();
    aws_sdk_dynamodb::Client::from_conf(config)
}

/// Fresh tables (unique names: DynamoDB Local is shared) and a client over them.
async fn with_tables(sdk: aws_sdk_dynamodb::Client, server: Option<ServerHandle>) -> Local {
    let tables = TableNames::with_prefix(&format!("conduit-{}", uuid::Uuid::new_v4().simple()));
    create_tables(&sdk, &tables).await.expect("tables created");
    let app = App::dynamo(sdk.clone(), &tables, crate::common::tokens());
    Local {
        client: Client { app },
        sdk,
        tables,
        _server: server,
    }
}

/// A fresh local-cloud DynamoDB emulator.
async fn local() -> Local {
    let db = DynamoDb::new(DynamoDbConfig::default());
    let server = serve_on_ephemeral_port(Arc::new(Dispatcher::new().with_json(db)))
        .await
        .expect("emulator starts");
    with_tables(sdk_client(&format!("http://{}", server.addr)), Some(server)).await
}

/// DynamoDB Local, if the test run started it.
async fn oracle() -> Option<Local> {
    let endpoint = std::env::var("DYNAMODB_LOCAL_ENDPOINT").ok()?;
    Some(with_tables(sdk_client(&endpoint), None).await)
}

/// Scenarios from `common::scenarios` and the concurrency cases of this file.
macro_rules! all_cases {
    ($each:ident) => {
        $each!(
            scenarios: [
                   registration_returns_201_with_user_and_token,
                   registration_with_taken_username_or_email_is_409,
                   login_returns_user_and_wrong_password_is_401,
                   current_user_is_returned_for_a_valid_token,
                   update_user_changes_only_given_fields,
                   update_user_can_rename_and_change_password,
                   update_user_to_taken_email_is_409,
                   profile_of_unknown_user_is_404,
                   follow_and_unfollow_toggle_following,
                   follow_requires_auth_and_existing_user,
                   create_article_returns_201_with_full_article,
                   equal_titles_get_distinct_slugs,
                   get_unknown_article_is_404,
                   list_articles_is_newest_first_without_body_with_count,
                   list_articles_pages_with_offset_and_limit,
                   list_articles_filters_by_tag_author_and_favorited,
                   list_articles_combines_filters,
                   feed_shows_followed_authors_only,
                   feed_pages_across_several_authors,
                   update_article_keeps_tags_unless_given_and_empty_list_clears,
                   update_article_title_changes_slug,
                   only_the_author_may_update_or_delete_an_article,
                   delete_article_is_204_and_then_404,
                   favorite_and_unfavorite_update_count_idempotently,
                   favorite_requires_auth_and_existing_article,
                   lists_feed_and_updates_show_what_the_viewer_favorited,
                   comments_can_be_added_listed_and_deleted_by_their_author,
                   comment_errors_follow_the_spec,
                   tags_lists_each_used_tag_once,
               ]
            local: [
                concurrent_registrations_with_one_email_let_exactly_one_win,
                fifty_concurrent_favorites_count_fifty,
                seeded_data_is_served_like_data_written_through_the_api,
                update_from_a_stale_read_moves_the_stored_tags,
                delete_from_a_stale_read_removes_the_stored_tags,
                rename_from_a_stale_read_leaves_no_stale_username_claim,
            ]
        );
    };
}

mod emulator {
    use super::*;

    macro_rules! tests {
        (scenarios: [$($s:ident),* $(,)?] local: [$($l:ident),* $(,)?]) => {
            $(
                #[tokio::test]
                async fn $s() {
                    crate::common::scenarios::$s(&local().await.client).await;
                }
            )*
            $(
                #[tokio::test]
                async fn $l() {
                    super::$l(&local().await).await;
                }
            )*
        };
    }

    all_cases!(tests);
}

mod dynamodb_local {
    use super::*;

    macro_rules! tests {
        (scenarios: [$($s:ident),* $(,)?] local: [$($l:ident),* $(,)?]) => {
            $(
                #[tokio::test]
                async fn $s() {
                    match oracle().await {
                        Some(local) => crate::common::scenarios::$s(&local.client).await,
                        None => eprintln!("skipped: DYNAMODB_LOCAL_ENDPOINT not set"),
                    }
                }
            )*
            $(
                #[tokio::test]
                async fn $l() {
                    match oracle().await {
                        Some(local) => super::$l(&local).await,
                        None => eprintln!("skipped: DYNAMODB_LOCAL_ENDPOINT not set"),
                    }
                }
            )*
        };
    }

    all_cases!(tests);
}

async fn concurrent_registrations_with_one_email_let_exactly_one_win(local: &Local) {
    // GIVEN two clients registering the same email at the same time
    let c = &local.client;
    let body = |name: &str| {
        Some(
            json!({"user": {"username": name, "email": "same@example.com", "password": "password"}}),
        )
    };
    // WHEN both requests run concurrently
    let (a, b) = tokio::join!(
        c.call(Method::POST, "/api/users", None, body("first")),
        c.call(Method::POST, "/api/users", None, body("second")),
    );
    // THEN one gets 201 and the other 409 on email
    let mut statuses = [a.0, b.0];
    statuses.sort();
    assert_eq!(statuses, [201, 409], "{a:?} {b:?}");
    let loser = if a.0 == 409 { a.1 } else { b.1 };
    assert_eq!(loser["errors"]["email"][0], "has already been taken");
}

async fn fifty_concurrent_favorites_count_fifty(local: &Local) {
    // GIVEN an article and 50 users
    let c = &local.client;
    let author = c.register("author").await;
    let slug = c.article(&author, "Popular", &[]).await;
    let mut tokens = Vec::new();
    for i in 0..50 {
        tokens.push(c.app.tokens.issue(&register_fast(c, i).await).unwrap());
    }
    // WHEN all favorite it at once
    let path = format!("/api/articles/{slug}/favorite");
    let calls = tokens
        .iter()
        .map(|t| c.call(Method::POST, &path, Some(t), None));
    let results = futures::future::join_all(calls).await;
    // THEN every call succeeds and the count is exactly 50
    assert!(
        results.iter().all(|(status, _)| *status == 200),
        "{results:?}"
    );
    let (_, body) = c
        .call(Method::GET, &format!("/api/articles/{slug}"), None, None)
        .await;
    assert_eq!(body["article"]["favoritesCount"], 50);
}

/// Registration hashes a password (slow in debug builds): insert users directly.
async fn register_fast(c: &Client, i: usize) -> String {
    let user = conduit::model::User {
        id: format!("fan-{i}"),
        username: format!("fan{i}"),
        email: format!("fan{i}@example.com"),
        password_hash: "unused".into(),
        bio: None,
        image: None,
    };
    c.app.users.create(&user).await.unwrap();
    user.id
}

fn fixture(name: &str, token: &str) -> Vec<u8> {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path)
        .unwrap()
        .replace("{{TOKEN}}", token)
        .into_bytes()
}

/// The function's answer to `event`: the proxy response document.
async fn invoke(app: &conduit::App, event: Vec<u8>) -> serde_json::Value {
    let answer = conduit::lambda::invoke(app, &event).await.unwrap();
    serde_json::from_slice(&answer).unwrap()
}

fn body(answer: &serde_json::Value) -> serde_json::Value {
    serde_json::from_str(answer["body"].as_str().unwrap()).unwrap()
}

#[tokio::test]
async fn api_gateway_v2_events_drive_the_handler() {
    let local = local().await;
    let app = &local.client.app;
    // GIVEN a registration event without Content-Type
    let answer = invoke(app, fixture("apigw-v2-register-no-content-type.json", "")).await;
    assert_eq!(answer["statusCode"], 201, "{answer}");
    let user = body(&answer);
    let token = user["user"]["token"].as_str().unwrap();
    // WHEN jake posts an article with a base64-encoded body
    let answer = invoke(app, fixture("apigw-v2-create-article-base64.json", token)).await;
    assert_eq!(answer["statusCode"], 201, "{answer}");
    // THEN listing by author through a query-string event finds it
    let answer = invoke(
        app,
        fixture("apigw-v2-list-articles-with-token.json", token),
    )
    .await;
    assert_eq!(answer["statusCode"], 200, "{answer}");
    assert_eq!(answer["headers"]["content-type"], "application/json");
    assert_eq!(answer["isBase64Encoded"], false);
    let list = body(&answer);
    assert_eq!(list["articlesCount"], 1);
    assert_eq!(list["articles"][0]["slug"], "how-to-train-your-dragon");
}

#[tokio::test]
async fn an_event_of_another_shape_is_a_bad_event_not_a_panic() {
    let local = local().await;
    let app = &local.client.app;
    for event in [
        &b"{}"[..],
        b"[]",
        b"null",
        b"\xff",
        b"{\"requestContext\": 5}",
    ] {
        let error = conduit::lambda::invoke(app, event).await.unwrap_err();
        assert!(
            error.to_string().starts_with("not an API Gateway event"),
            "{error}"
        );
    }
}

async fn seeded_data_is_served_like_data_written_through_the_api(local: &Local) {
    use conduit::seed::{generate, Sizes, SEED_PASSWORD};
    // GIVEN a small seeded data set loaded with BatchWriteItem
    let c = &local.client;
    let sizes = Sizes {
        users: 30,
        articles: 120,
        comments: 200,
        follows_per_user: 5,
        favorites_per_user: 6,
    };
    let hash = conduit::passwords::Passwords::default()
        .hash(SEED_PASSWORD)
        .await
        .unwrap();
    let data = generate(sizes, 9, &hash, conduit::model::Timestamp::now());
    let sdk = local.sdk.clone();
    let loader = conduit::store::dynamo::BulkLoader::new(sdk, local.tables.clone(), 8);
    loader.users(&data.users).await.unwrap();
    loader.follows(&data.follows).await.unwrap();
    loader
        .articles(&data.articles, &data.favorites)
        .await
        .unwrap();
    loader.comments(&data.comments).await.unwrap();

    // WHEN a seeded user logs in with the documented password
    let (status, body) = c
        .call(
            Method::POST,
            "/api/users/login",
            None,
            Some(json!({"user": {"email": "user0@seed.conduit.local", "password": SEED_PASSWORD}})),
        )
        .await;
    assert_eq!(status, 200);
    let token = body["user"]["token"].as_str().unwrap().to_owned();

    // THEN counts, favorites and comments match what was generated
    let (_, list) = c
        .call(Method::GET, "/api/articles?limit=5", Some(&token), None)
        .await;
    assert_eq!(list["articlesCount"], 120);
    let newest = data
        .articles
        .iter()
        .max_by_key(|a| (a.created_at, a.id.clone()))
        .unwrap();
    assert_eq!(list["articles"][0]["slug"], newest.slug.as_str());
    let fav_index = data.favorites[0].0;
    let favorited = &data.articles[fav_index];
    let expected = data
        .favorites
        .iter()
        .filter(|(i, _)| *i == fav_index)
        .count();
    let (_, one) = c
        .call(
            Method::GET,
            &format!("/api/articles/{}", favorited.slug),
            None,
            None,
        )
        .await;
    assert_eq!(one["article"]["favoritesCount"], expected);
    let commented = &data.comments[0].article_id;
    let slug = &data
        .articles
        .iter()
        .find(|a| &a.id == commented)
        .unwrap()
        .slug;
    let expected = data
        .comments
        .iter()
        .filter(|cm| &cm.article_id == commented)
        .count();
    let (_, comments) = c
        .call(
            Method::GET,
            &format!("/api/articles/{slug}/comments"),
            None,
            None,
        )
        .await;
    assert_eq!(comments["comments"].as_array().unwrap().len(), expected);
    let (_, feed) = c
        .call(Method::GET, "/api/articles/feed", Some(&token), None)
        .await;
    let followees: Vec<&String> = data
        .follows
        .iter()
        .filter(|(f, _)| f == "seed-user-0")
        .map(|(_, e)| e)
        .collect();
    let expected = data
        .articles
        .iter()
        .filter(|a| followees.contains(&&a.author_id))
        .count();
    assert_eq!(feed["articlesCount"], expected);
    let (_, tags) = c.call(Method::GET, "/api/tags", None, None).await;
    assert!(!tags["tags"].as_array().unwrap().is_empty());
}

/// The full default data set (1k users, 10k articles, 50k comments). Heavy: run with
/// `cargo test -p conduit --test it api_dynamodb:: -- --ignored` when changing the loader.
#[tokio::test]
#[ignore = "loads ~160k items: ~10 s in a debug build"]
async fn default_seed_loads_in_seconds_not_minutes() {
    use conduit::seed::{generate, Sizes};
    let local = local().await;
    let sizes = Sizes {
        users: 1_000,
        articles: 10_000,
        comments: 50_000,
        follows_per_user: 10,
        favorites_per_user: 20,
    };
    let started = std::time::Instant::now();
    let data = generate(sizes, 42, "hash", conduit::model::Timestamp::now());
    let loader =
        conduit::store::dynamo::BulkLoader::new(local.sdk.clone(), local.tables.clone(), 16);
    loader.users(&data.users).await.unwrap();
    loader.follows(&data.follows).await.unwrap();
    loader
        .articles(&data.articles, &data.favorites)
        .await
        .unwrap();
    loader.comments(&data.comments).await.unwrap();
    let elapsed = started.elapsed();
    eprintln!("seeded in {elapsed:?}");
    let (_, list) = local
        .client
        .call(Method::GET, "/api/articles", None, None)
        .await;
    assert_eq!(list["articlesCount"], 10_000);
    assert!(elapsed.as_secs() < 120, "{elapsed:?}");
}

/// An article with tags `a, b`, then retagged `c` through the API; returns the
/// version read before the retag.
async fn stale_article(c: &Client) -> conduit::model::Article {
    let jake = c.register("jake").await;
    let slug = c.article(&jake, "Tagged", &["a", "b"]).await;
    let stale = c
        .app
        .articles
        .by_slug(&slug, None)
        .await
        .unwrap()
        .unwrap()
        .article;
    tokio::time::sleep(std::time::Duration::from_millis(2)).await;
    let path = format!("/api/articles/{slug}");
    let (status, _) = c
        .call(
            Method::PUT,
            &path,
            Some(&jake),
            Some(json!({"article": {"tagList": ["c"]}})),
        )
        .await;
    assert_eq!(status, 200);
    stale
}

async fn update_from_a_stale_read_moves_the_stored_tags(local: &Local) {
    // GIVEN a writer holding a version read before someone else retagged the article
    let c = &local.client;
    let stale = stale_article(c).await;
    // WHEN it applies its own retag from that stale version
    let changes = conduit::model::ArticleChanges {
        tags: Some(vec!["d".into()]),
        ..Default::default()
    };
    let updated = c
        .app
        .articles
        .update(&stale, changes, conduit::model::Timestamp::now())
        .await
        .unwrap();
    // THEN the stored tags were replaced, and the tag counters follow the stored state
    assert_eq!(updated.tags, ["d"]);
    let (_, tags) = c.call(Method::GET, "/api/tags", None, None).await;
    assert_eq!(tags["tags"], json!(["d"]));
    let (_, by_c) = c.call(Method::GET, "/api/articles?tag=c", None, None).await;
    assert_eq!(by_c["articlesCount"], 0);
}

async fn delete_from_a_stale_read_removes_the_stored_tags(local: &Local) {
    let c = &local.client;
    let stale = stale_article(c).await;
    c.app.articles.delete(&stale).await.unwrap();
    let (_, tags) = c.call(Method::GET, "/api/tags", None, None).await;
    assert_eq!(tags["tags"], json!([]));
    let (_, by_c) = c.call(Method::GET, "/api/articles?tag=c", None, None).await;
    assert_eq!(by_c["articlesCount"], 0);
    assert_eq!(by_c["articles"], json!([]));
}

async fn rename_from_a_stale_read_leaves_no_stale_username_claim(local: &Local) {
    // GIVEN jake read by one writer, then renamed to "jacob" by another
    let c = &local.client;
    let token = c.register("jake").await;
    let stale = c.app.users.by_username("jake").await.unwrap().unwrap();
    let (status, _) = c
        .call(
            Method::PUT,
            "/api/user",
            Some(&token),
            Some(json!({"user": {"username": "jacob"}})),
        )
        .await;
    assert_eq!(status, 200);
    // WHEN the first writer renames from its stale read
    let renamed = conduit::model::User {
        username: "jay".into(),
        ..stale.clone()
    };
    let result = c.app.users.update(&stale, &renamed).await;
    // THEN it fails, and names map to the stored user only
    assert!(result.is_err());
    assert!(c.app.users.by_username("jay").await.unwrap().is_none());
    assert_eq!(
        c.app.users.by_username("jacob").await.unwrap().unwrap().id,
        stale.id
    );
}
