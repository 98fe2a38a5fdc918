//! The Conduit mixed workload (experiments.md, section 2): ~40 % list articles
//! (a quarter of them by tag or author), 20 % get an article, 15 % profiles,
//! 15 % comments, 3 % tags, 6 % authenticated writes; 1-7 s think time; each
//! user logs in once as a seeded user (`conduit-seed`) and keeps its token.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use goose::goose::{GooseMethod, GooseUser, Scenario, Transaction, TransactionResult};
use goose::GooseError;
use rand::Rng;
use serde_json::{json, Value};

use super::{expect_json, send, Call, Validator};
use crate::recorder::Recorder;

/// The password of every seeded user (`conduit::seed::SEED_PASSWORD`).
pub const SEED_PASSWORD: &str = "conduit-seed-password";

/// Transaction weights, by route template; they sum to 99 (the writes: 6).
pub const MIX: [(&str, usize); 9] = [
    ("GET /api/articles", 40),
    ("GET /api/articles/{slug}", 20),
    ("GET /api/profiles/{username}", 15),
    ("GET /api/articles/{slug}/comments", 15),
    ("GET /api/tags", 3),
    ("POST /api/articles", 1),
    ("POST /api/articles/{slug}/comments", 2),
    ("POST /api/articles/{slug}/favorite", 2),
    ("POST /api/profiles/{username}/follow", 1),
];

/// What a user knows: its token and some slugs and authors to visit.
#[derive(Debug, Clone, Default)]
struct Session {
    token: String,
    slugs: Vec<String>,
    authors: Vec<String>,
    tags: Vec<String>,
    /// How many seeded users to pick from when logging in again.
    seeded: usize,
}

type Step = for<'u> fn(&'u mut GooseUser, Arc<Recorder>) -> BoxedStep<'u>;
type BoxedStep<'u> = Pin<Box<dyn Future<Output = TransactionResult> + Send + 'u>>;

/// The persona; `seeded_users` is how many `user<i>` accounts exist.
pub fn scenario(seeded_users: usize, recorder: Arc<Recorder>) -> Result<Scenario, GooseError> {
    let steps: [Step; 9] = [
        |u, r| Box::pin(list_articles(u, r)),
        |u, r| Box::pin(get_article(u, r)),
        |u, r| Box::pin(get_profile(u, r)),
        |u, r| Box::pin(list_comments(u, r)),
        |u, r| Box::pin(get_tags(u, r)),
        |u, r| Box::pin(create_article(u, r)),
        |u, r| Box::pin(create_comment(u, r)),
        |u, r| Box::pin(favorite(u, r)),
        |u, r| Box::pin(follow(u, r)),
    ];
    let seeded = seeded_users.max(1);
    let login_recorder = recorder.clone();
    let login = Transaction::new(Arc::new(move |user| {
        let recorder = login_recorder.clone();
        Box::pin(login(user, recorder, seeded))
    }))
    .set_name("POST /api/users/login")
    .set_on_start();
    let mut scenario = Scenario::new("conduit")
        .set_wait_time(Duration::from_secs(1), Duration::from_secs(7))?
        .register_transaction(login);
    for ((name, weight), step) in MIX.iter().zip(steps) {
        let recorder = recorder.clone();
        let transaction = Transaction::new(Arc::new(move |user| step(user, recorder.clone())))
            .set_name(name)
            .set_weight(*weight)?;
        scenario = scenario.register_transaction(transaction);
    }
    Ok(scenario)
}

fn session(user: &GooseUser) -> Session {
    user.get_session_data::<Session>()
        .cloned()
        .unwrap_or_default()
}

fn pick(items: &[String], fallback: &str) -> String {
    if items.is_empty() {
        return fallback.to_string();
    }
    items[rand::rng().random_range(0..items.len())].clone()
}

async fn get(
    user: &mut GooseUser,
    recorder: &Arc<Recorder>,
    path: &str,
    name: &str,
    token: Option<&str>,
    validate: Validator,
) -> Result<Option<Value>, Box<goose::goose::TransactionError>> {
    let call = Call {
        method: GooseMethod::Get,
        path,
        name,
        token,
        body: None,
        validate,
    };
    send(user, recorder, call).await
}

async fn post(
    user: &mut GooseUser,
    recorder: &Arc<Recorder>,
    path: &str,
    name: &str,
    token: &str,
    body: Value,
    validate: Validator,
) -> Result<Option<Value>, Box<goose::goose::TransactionError>> {
    let call = Call {
        method: GooseMethod::Post,
        path,
        name,
        token: Some(token),
        body: Some(body),
        validate,
    };
    send(user, recorder, call).await
}

async fn login(user: &mut GooseUser, recorder: Arc<Recorder>, seeded: usize) -> TransactionResult {
    let index = rand::rng().random_range(0..seeded);
    let body = json!({"user": {"email": format!("user{index}@seed.conduit.local"), "password": SEED_PASSWORD}});
    let call = Call {
        method: GooseMethod::Post,
        path: "/api/users/login",
        name: "POST /api/users/login",
        token: None,
        body: Some(body),
        validate: validate_user,
    };
    let mut session = Session {
        seeded,
        ..Session::default()
    };
    if let Some(value) = send(user, &recorder, call).await? {
        session.token = value["user"]["token"].as_str().unwrap_or_default().into();
    }
    // Something to browse: a page of articles and the tags.
    let offset = rand::rng().random_range(0..50) * 20;
    let path = format!("/api/articles?limit=20&offset={offset}");
    if let Some(page) = get(user, &recorder, &path, MIX[0].0, None, validate_articles).await? {
        remember_articles(&mut session, &page);
    }
    if let Some(tags) = get(user, &recorder, "/api/tags", MIX[4].0, None, validate_tags).await? {
        session.tags = strings(&tags["tags"]);
    }
    user.set_session_data(session);
    Ok(())
}

fn remember_articles(session: &mut Session, page: &Value) {
    for article in page["articles"].as_array().into_iter().flatten() {
        if let Some(slug) = article["slug"].as_str() {
            session.slugs.push(slug.into());
        }
        if let Some(author) = article["author"]["username"].as_str() {
            session.authors.push(author.into());
        }
    }
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(String::from))
        .collect()
}

async fn list_articles(user: &mut GooseUser, recorder: Arc<Recorder>) -> TransactionResult {
    let s = session(user);
    let path = {
        let mut rng = rand::rng();
        let offset = rng.random_range(0..20) * 20;
        match rng.random_range(0..8) {
            0 => format!("/api/articles?tag={}&limit=20", pick(&s.tags, "dragons")),
            1 => format!(
                "/api/articles?author={}&limit=20",
                pick(&s.authors, "user1")
            ),
            _ => format!("/api/articles?limit=20&offset={offset}"),
        }
    };
    get(user, &recorder, &path, MIX[0].0, None, validate_articles).await?;
    Ok(())
}

async fn get_article(user: &mut GooseUser, recorder: Arc<Recorder>) -> TransactionResult {
    let s = session(user);
    let path = format!("/api/articles/{}", pick(&s.slugs, "missing"));
    get(
        user,
        &recorder,
        &path,
        MIX[1].0,
        Some(&s.token),
        validate_article,
    )
    .await?;
    Ok(())
}

async fn get_profile(user: &mut GooseUser, recorder: Arc<Recorder>) -> TransactionResult {
    let s = session(user);
    let path = format!("/api/profiles/{}", pick(&s.authors, "user1"));
    get(
        user,
        &recorder,
        &path,
        MIX[2].0,
        Some(&s.token),
        validate_profile,
    )
    .await?;
    Ok(())
}

async fn list_comments(user: &mut GooseUser, recorder: Arc<Recorder>) -> TransactionResult {
    let s = session(user);
    let path = format!("/api/articles/{}/comments", pick(&s.slugs, "missing"));
    get(user, &recorder, &path, MIX[3].0, None, validate_comments).await?;
    Ok(())
}

async fn get_tags(user: &mut GooseUser, recorder: Arc<Recorder>) -> TransactionResult {
    get(user, &recorder, "/api/tags", MIX[4].0, None, validate_tags).await?;
    Ok(())
}

async fn create_article(user: &mut GooseUser, recorder: Arc<Recorder>) -> TransactionResult {
    let s = session(user);
    if s.token.is_empty() {
        // The login failed (and was counted): a real client logs in again
        // rather than sending writes bound to fail with 401.
        return login(user, recorder, s.seeded.max(1)).await;
    }
    let n: u64 = rand::rng().random();
    let body = json!({"article": {"title": format!("Bench article {n}"), "description": "load test",
        "body": "Written by the bench.", "tagList": ["bench"]}});
    let created = post(
        user,
        &recorder,
        "/api/articles",
        MIX[5].0,
        &s.token,
        body,
        validate_article,
    )
    .await?;
    if let Some(slug) = created.as_ref().and_then(|a| a["article"]["slug"].as_str()) {
        let mut s = s.clone();
        s.slugs.push(slug.into());
        user.set_session_data(s);
    }
    Ok(())
}

async fn create_comment(user: &mut GooseUser, recorder: Arc<Recorder>) -> TransactionResult {
    let s = session(user);
    if s.token.is_empty() {
        // The login failed (and was counted): a real client logs in again
        // rather than sending writes bound to fail with 401.
        return login(user, recorder, s.seeded.max(1)).await;
    }
    let path = format!("/api/articles/{}/comments", pick(&s.slugs, "missing"));
    let body = json!({"comment": {"body": "Nice one (bench)."}});
    post(
        user,
        &recorder,
        &path,
        MIX[6].0,
        &s.token,
        body,
        validate_comment,
    )
    .await?;
    Ok(())
}

async fn favorite(user: &mut GooseUser, recorder: Arc<Recorder>) -> TransactionResult {
    let s = session(user);
    if s.token.is_empty() {
        // The login failed (and was counted): a real client logs in again
        // rather than sending writes bound to fail with 401.
        return login(user, recorder, s.seeded.max(1)).await;
    }
    let path = format!("/api/articles/{}/favorite", pick(&s.slugs, "missing"));
    post(
        user,
        &recorder,
        &path,
        MIX[7].0,
        &s.token,
        json!({}),
        validate_favorited,
    )
    .await?;
    Ok(())
}

async fn follow(user: &mut GooseUser, recorder: Arc<Recorder>) -> TransactionResult {
    let s = session(user);
    if s.token.is_empty() {
        // The login failed (and was counted): a real client logs in again
        // rather than sending writes bound to fail with 401.
        return login(user, recorder, s.seeded.max(1)).await;
    }
    let path = format!("/api/profiles/{}/follow", pick(&s.authors, "user1"));
    post(
        user,
        &recorder,
        &path,
        MIX[8].0,
        &s.token,
        json!({}),
        validate_following,
    )
    .await?;
    Ok(())
}

fn field<'v>(value: &'v Value, key: &str) -> Result<&'v Value, String> {
    value
        .get(key)
        .ok_or_else(|| format!("no `{key}` in the body"))
}

fn validate_user(status: u16, body: &str) -> Result<Value, String> {
    let value = expect_json(status, &[200], body)?;
    field(field(&value, "user")?, "token")?
        .as_str()
        .ok_or("token is not text")?;
    Ok(value)
}

fn validate_articles(status: u16, body: &str) -> Result<Value, String> {
    let value = expect_json(status, &[200], body)?;
    let articles = field(&value, "articles")?
        .as_array()
        .ok_or("articles is not a list")?;
    field(&value, "articlesCount")?
        .as_u64()
        .ok_or("articlesCount is not a count")?;
    if articles
        .iter()
        .any(|a| a["slug"].as_str().is_none() || a["author"]["username"].as_str().is_none())
    {
        return Err("an article lacks slug or author".into());
    }
    Ok(value)
}

fn validate_article(status: u16, body: &str) -> Result<Value, String> {
    let value = expect_json(status, &[200, 201], body)?;
    field(field(&value, "article")?, "slug")?;
    Ok(value)
}

fn validate_profile(status: u16, body: &str) -> Result<Value, String> {
    let value = expect_json(status, &[200], body)?;
    let profile = field(&value, "profile")?;
    field(profile, "username")?;
    field(profile, "following")?;
    Ok(value)
}

fn validate_comments(status: u16, body: &str) -> Result<Value, String> {
    let value = expect_json(status, &[200], body)?;
    field(&value, "comments")?
        .as_array()
        .ok_or("comments is not a list")?;
    Ok(value)
}

fn validate_comment(status: u16, body: &str) -> Result<Value, String> {
    let value = expect_json(status, &[200, 201], body)?;
    field(field(&value, "comment")?, "id")?;
    Ok(value)
}

fn validate_tags(status: u16, body: &str) -> Result<Value, String> {
    let value = expect_json(status, &[200], body)?;
    field(&value, "tags")?
        .as_array()
        .ok_or("tags is not a list")?;
    Ok(value)
}

fn validate_favorited(status: u16, body: &str) -> Result<Value, String> {
    let value = validate_article(status, body)?;
    if value["article"]["favorited"] != json!(true) {
        return Err("favorited is not true after favoriting".into());
    }
    Ok(value)
}

fn validate_following(status: u16, body: &str) -> Result<Value, String> {
    let value = validate_profile(status, body)?;
    if value["profile"]["following"] != json!(true) {
        return Err("following is not true after following".into());
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mix_matches_the_documented_shares() {
        let total: usize = MIX.iter().map(|(_, w)| w).sum();
        let writes: usize = MIX
            .iter()
            .filter(|(n, _)| n.starts_with("POST"))
            .map(|(_, w)| w)
            .sum();
        assert_eq!(total, 99);
        assert!((5..=7).contains(&writes));
        assert_eq!(MIX[0], ("GET /api/articles", 40));
    }

    #[test]
    fn article_list_needs_slugs_authors_and_count() {
        let ok = r#"{"articles":[{"slug":"a","author":{"username":"u"}}],"articlesCount":1}"#;
        assert!(validate_articles(200, ok).is_ok());
        let no_count = r#"{"articles":[]}"#;
        assert!(validate_articles(200, no_count)
            .unwrap_err()
            .contains("articlesCount"));
        let no_author = r#"{"articles":[{"slug":"a"}],"articlesCount":1}"#;
        assert!(validate_articles(200, no_author).is_err());
    }

    #[test]
    fn write_answers_must_show_the_write() {
        let unfavorited = r#"{"article":{"slug":"a","favorited":false}}"#;
        assert!(validate_favorited(200, unfavorited).is_err());
        let followed = r#"{"profile":{"username":"u","following":true}}"#;
        assert!(validate_following(200, followed).is_ok());
        assert!(validate_user(401, r#"{"errors":{}}"#).is_err());
    }

    #[test]
    fn browsing_state_comes_from_a_page_of_articles() {
        let page = json!({"articles": [{"slug": "s1", "author": {"username": "user7"}}], "articlesCount": 1});
        let mut session = Session::default();
        remember_articles(&mut session, &page);
        assert_eq!(
            (session.slugs[0].as_str(), session.authors[0].as_str()),
            ("s1", "user7")
        );
        assert_eq!(pick(&[], "fallback"), "fallback");
    }
}
