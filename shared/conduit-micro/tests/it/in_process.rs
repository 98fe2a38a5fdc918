//! The four services in one process (in-memory stores, loopback transports):
//! the conduit crate's whole API suite, unchanged, plus the internal calls
//! each public request makes: one per dependency, in parallel where
//! independent, and a clean 500 when an owner fails.

use crate::all_scenarios;
use crate::common::Client;

macro_rules! in_process {
    ($($name:ident),* $(,)?) => {
        $(
            #[tokio::test]
            async fn $name() {
                crate::common::scenarios::$name(&Client::in_process().0).await;
            }
        )*
    };
}

all_scenarios!(in_process);

mod internal_calls {
    use std::collections::BTreeMap;
    use std::time::Duration;

    use conduit_micro::loopback::Behaviour;
    use conduit_micro::Service;
    use http::Method;
    use serde_json::json;

    use crate::common::Client;

    fn counts(pairs: &[(&str, usize)]) -> BTreeMap<String, usize> {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    /// Three authors with an article each; `reader` follows one of them.
    async fn three_authors(c: &Client) -> String {
        for name in ["ann", "bob", "cid"] {
            let token = c.register(name).await;
            c.article(&token, &format!("By {name}"), &["t"]).await;
        }
        let reader = c.register("reader").await;
        let (status, _) = c
            .call(
                Method::POST,
                "/api/profiles/bob/follow",
                Some(&reader),
                None,
            )
            .await;
        assert_eq!(status, 200);
        reader
    }

    #[tokio::test]
    async fn listing_articles_asks_each_owner_once_whatever_the_page_size() {
        // GIVEN three authors and a reader who follows one
        let (c, cluster) = Client::in_process();
        let reader = three_authors(&c).await;
        cluster.log.clear();
        // WHEN the reader lists the articles
        let (status, body) = c
            .call(Method::GET, "/api/articles", Some(&reader), None)
            .await;
        // THEN the answer joins authors and following...
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["articlesCount"], 3);
        let following: Vec<(String, bool)> = body["articles"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| {
                (
                    a["author"]["username"].as_str().unwrap().to_owned(),
                    a["author"]["following"].as_bool().unwrap(),
                )
            })
            .collect();
        assert!(following.contains(&("bob".into(), true)), "{following:?}");
        assert!(following.contains(&("ann".into(), false)), "{following:?}");
        // ...with one batch call to users and one to profiles, not one per article
        assert_eq!(
            cluster.log.counts(),
            counts(&[("users.usersByIds", 1), ("profiles.followedAmong", 1)])
        );
    }

    #[tokio::test]
    async fn author_cards_and_following_are_fetched_in_parallel() {
        // GIVEN slow users and profiles owners
        let (c, cluster) = Client::in_process();
        let reader = three_authors(&c).await;
        for owner in [Service::Users, Service::Profiles] {
            cluster.owners[&owner].set_behaviour(Behaviour::Slow(Duration::from_millis(100)));
        }
        cluster.log.clear();
        // WHEN the reader reads one article
        let (status, body) = c
            .call(Method::GET, "/api/articles/by-bob", Some(&reader), None)
            .await;
        // THEN both calls were in flight together (wall time is too noisy to assert)
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["article"]["author"]["following"], true);
        assert_eq!(cluster.log.max_in_flight(), 2, "{:?}", cluster.log.calls());
    }

    #[tokio::test]
    async fn a_new_comment_asks_for_its_author_card_and_following_together() {
        // GIVEN an article, and slow users and profiles owners
        let (c, cluster) = Client::in_process();
        let ann = c.register("ann").await;
        let slug = c.article(&ann, "Talk", &[]).await;
        for owner in [Service::Users, Service::Profiles] {
            cluster.owners[&owner].set_behaviour(Behaviour::Slow(Duration::from_millis(50)));
        }
        cluster.log.clear();
        // WHEN ann comments
        let (status, body) = c
            .call(
                Method::POST,
                &format!("/api/articles/{slug}/comments"),
                Some(&ann),
                Some(json!({"comment": {"body": "hi"}})),
            )
            .await;
        // THEN her card and "following" were asked for at once, and once each
        assert_eq!(status, 201, "{body}");
        assert_eq!(body["comment"]["author"]["username"], "ann");
        assert_eq!(body["comment"]["author"]["following"], false);
        assert_eq!(cluster.log.max_in_flight(), 2, "{:?}", cluster.log.calls());
        assert_eq!(
            cluster.log.counts(),
            counts(&[
                ("articles.articleIdBySlug", 1),
                ("profiles.followedAmong", 1),
                ("users.userById", 1),
            ])
        );
    }

    #[tokio::test]
    async fn anonymous_reads_do_not_ask_about_following() {
        let (c, cluster) = Client::in_process();
        three_authors(&c).await;
        cluster.log.clear();
        let (status, _) = c.call(Method::GET, "/api/articles", None, None).await;
        assert_eq!(status, 200);
        assert_eq!(cluster.log.counts(), counts(&[("users.usersByIds", 1)]));
    }

    #[tokio::test]
    async fn comments_resolve_the_slug_once_and_authors_in_one_batch() {
        // GIVEN an article with comments by two users
        let (c, cluster) = Client::in_process();
        let ann = c.register("ann").await;
        let bob = c.register("bob").await;
        let slug = c.article(&ann, "Talk", &[]).await;
        let path = format!("/api/articles/{slug}/comments");
        for token in [&ann, &bob, &ann] {
            let body = json!({"comment": {"body": "hi"}});
            let (status, _) = c.call(Method::POST, &path, Some(token), Some(body)).await;
            assert_eq!(status, 201);
        }
        cluster.log.clear();
        // WHEN bob lists them
        let (status, body) = c.call(Method::GET, &path, Some(&bob), None).await;
        // THEN one slug lookup, one batch of cards, one following check
        assert_eq!(status, 200);
        assert_eq!(body["comments"].as_array().unwrap().len(), 3);
        assert_eq!(
            cluster.log.counts(),
            counts(&[
                ("articles.articleIdBySlug", 1),
                ("profiles.followedAmong", 1),
                ("users.usersByIds", 1),
            ])
        );
    }

    #[tokio::test]
    async fn deleting_an_article_removes_its_comments_through_the_owner() {
        let (c, cluster) = Client::in_process();
        let ann = c.register("ann").await;
        let slug = c.article(&ann, "Gone", &[]).await;
        let path = format!("/api/articles/{slug}/comments");
        let body = json!({"comment": {"body": "hi"}});
        assert_eq!(
            c.call(Method::POST, &path, Some(&ann), Some(body)).await.0,
            201
        );
        cluster.log.clear();
        let (status, _) = c
            .call(
                Method::DELETE,
                &format!("/api/articles/{slug}"),
                Some(&ann),
                None,
            )
            .await;
        assert_eq!(status, 204);
        assert_eq!(
            cluster.log.counts(),
            counts(&[("comments.deleteCommentsOf", 1)])
        );
    }

    #[tokio::test]
    async fn a_failing_owner_gives_a_clean_500_that_reveals_nothing() {
        // GIVEN the users service is down
        let (c, cluster) = Client::in_process();
        let ann = c.register("ann").await;
        c.article(&ann, "Hello", &[]).await;
        cluster.owners[&Service::Users].set_behaviour(Behaviour::Failing);
        // WHEN articles needs author cards
        let (status, body) = c.call(Method::GET, "/api/articles", None, None).await;
        // THEN the client gets the generic internal error
        assert_eq!(status, 500);
        assert_eq!(body, json!({"errors": {"body": ["internal error"]}}));
        // AND routes that need no other owner still work
        let (status, _) = c.call(Method::GET, "/api/tags", None, None).await;
        assert_eq!(status, 200);
    }

    #[tokio::test]
    async fn an_owner_that_does_not_answer_in_time_gives_a_clean_500() {
        // GIVEN the profiles service never answers (the transport gives up after 50 ms)
        let (c, cluster) = Client::in_process();
        let ann = c.register("ann").await;
        let slug = c.article(&ann, "Hello", &[]).await;
        cluster.owners[&Service::Profiles]
            .set_behaviour(Behaviour::Unanswered(Duration::from_millis(50)));
        cluster.log.clear();
        // WHEN a signed-in reader needs "following"
        let (status, body) = c
            .call(
                Method::GET,
                &format!("/api/articles/{slug}"),
                Some(&ann),
                None,
            )
            .await;
        // THEN the request fails cleanly with the generic error, after one wait
        assert_eq!(status, 500);
        assert_eq!(body, json!({"errors": {"body": ["internal error"]}}));
        assert_eq!(
            cluster.log.counts().get("profiles.followedAmong"),
            Some(&1),
            "the timed-out call is not repeated"
        );
        // AND an anonymous read, which needs no profiles, still works
        let (status, _) = c
            .call(Method::GET, &format!("/api/articles/{slug}"), None, None)
            .await;
        assert_eq!(status, 200);
    }

    #[tokio::test]
    async fn tokens_are_checked_locally_without_asking_users() {
        let (c, cluster) = Client::in_process();
        let ann = c.register("ann").await;
        cluster.log.clear();
        let (status, _) = c
            .call(
                Method::POST,
                "/api/articles",
                Some(&ann),
                Some(json!({"article": {"title": "T", "description": "d", "body": "b"}})),
            )
            .await;
        assert_eq!(status, 201);
        let (status, _) = c
            .call(Method::GET, "/api/tags", Some("garbage"), None)
            .await;
        assert_eq!(status, 200, "tags ignore tokens, as in the monolith");
        let calls = cluster.log.calls();
        assert!(
            !calls.iter().any(|c| c == "users.userById"),
            "no auth round trip: {calls:?}"
        );
    }
}
