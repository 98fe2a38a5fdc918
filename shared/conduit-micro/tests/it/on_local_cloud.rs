//! The project's template.yaml on the local cloud with the real function
//! binaries: the conduit crate's API suite, unchanged, against the monolith
//! and both microservice variants; internal calls counted by the local
//! cloud's own metrics; owner failures; replies under concurrency.

use crate::all_scenarios;
use crate::common::cloud::Cloud;
use crate::common::Client;

pub const MONOLITH: &str = "ConduitApi";
pub const INVOKE: &str = "ConduitMicroInvokeApi";
pub const QUEUE: &str = "ConduitMicroQueueApi";

/// Every conduit scenario on a fresh cloud, through one HTTP API.
macro_rules! scenarios_through {
    ($api:expr; $($name:ident),* $(,)?) => {
        $(
            #[tokio::test]
            async fn $name() {
                let cloud = Cloud::start().await;
                crate::common::scenarios::$name(&cloud.client($api)).await;
                cloud.stop().await;
            }
        )*
    };
}

mod monolith {
    use super::*;
    macro_rules! each {
        ($($name:ident),* $(,)?) => { scenarios_through!(MONOLITH; $($name),*); };
    }
    all_scenarios!(each);
}

mod by_invoke {
    use super::*;
    macro_rules! each {
        ($($name:ident),* $(,)?) => { scenarios_through!(INVOKE; $($name),*); };
    }
    all_scenarios!(each);
}

mod by_queue {
    use super::*;
    macro_rules! each {
        ($($name:ident),* $(,)?) => { scenarios_through!(QUEUE; $($name),*); };
    }
    all_scenarios!(each);
}

mod internal_calls {
    use std::collections::BTreeMap;

    use http::Method;
    use serde_json::json;

    use super::*;

    /// Three authors with an article each; the returned reader follows bob.
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

    /// Invocations per service of the Invoke variant.
    fn invoked(cloud: &Cloud) -> BTreeMap<&'static str, u64> {
        let all = cloud.invocations();
        ["users", "profiles", "articles", "comments"]
            .into_iter()
            .map(|s| {
                let name = format!("local-conduit-invoke-{s}");
                (s, all.get(&name).copied().unwrap_or(0))
            })
            .collect()
    }

    /// Messages sent to each owner's request queue.
    fn requested(cloud: &Cloud) -> BTreeMap<&'static str, u64> {
        let sqs = serde_json::to_value(cloud.cloud.sqs().metrics()).unwrap();
        ["users", "profiles", "articles", "comments"]
            .into_iter()
            .map(|s| {
                let arn = format!("arn:aws:sqs:us-east-1:000000000000:local-conduit-{s}-requests");
                (
                    s,
                    sqs["queues"][&arn]["messages_sent"].as_u64().unwrap_or(0),
                )
            })
            .collect()
    }

    fn delta(
        before: &BTreeMap<&'static str, u64>,
        after: &BTreeMap<&'static str, u64>,
    ) -> Vec<(&'static str, u64)> {
        after
            .iter()
            .map(|(k, v)| (*k, v - before[k]))
            .filter(|(_, d)| *d > 0)
            .collect()
    }

    #[tokio::test]
    async fn a_listing_invokes_users_and_profiles_once_each() {
        // GIVEN three authors and a reader, on the Invoke variant
        let cloud = Cloud::start().await;
        let c = cloud.client(INVOKE);
        let reader = three_authors(&c).await;
        let before = invoked(&cloud);
        // WHEN the reader lists the articles
        let (status, body) = c
            .call(Method::GET, "/api/articles", Some(&reader), None)
            .await;
        // THEN the public function ran once and each owner was invoked once
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["articlesCount"], 3);
        assert_eq!(
            delta(&before, &invoked(&cloud)),
            vec![("articles", 1), ("profiles", 1), ("users", 1)]
        );
        // AND a comment listing: one slug lookup, one batch of cards, one following check
        let slug = body["articles"][0]["slug"].as_str().unwrap().to_owned();
        let path = format!("/api/articles/{slug}/comments");
        let comment = json!({"comment": {"body": "hi"}});
        assert_eq!(
            c.call(Method::POST, &path, Some(&reader), Some(comment))
                .await
                .0,
            201
        );
        let before = invoked(&cloud);
        assert_eq!(c.call(Method::GET, &path, Some(&reader), None).await.0, 200);
        assert_eq!(
            delta(&before, &invoked(&cloud)),
            vec![
                ("articles", 1),
                ("comments", 1),
                ("profiles", 1),
                ("users", 1)
            ]
        );
        cloud.stop().await;
    }

    #[tokio::test]
    async fn a_listing_sends_one_request_to_each_owner_queue() {
        // GIVEN three authors and a reader, on the queue variant
        let cloud = Cloud::start().await;
        let c = cloud.client(QUEUE);
        let reader = three_authors(&c).await;
        let before = requested(&cloud);
        // WHEN the reader lists the articles
        let (status, body) = c
            .call(Method::GET, "/api/articles", Some(&reader), None)
            .await;
        assert_eq!(status, 200, "{body}");
        // THEN one request went to users and one to profiles
        assert_eq!(
            delta(&before, &requested(&cloud)),
            vec![("profiles", 1), ("users", 1)]
        );
        // AND the joins are right
        let authors: Vec<(&str, bool)> = body["articles"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| {
                (
                    a["author"]["username"].as_str().unwrap(),
                    a["author"]["following"].as_bool().unwrap(),
                )
            })
            .collect();
        assert_eq!(authors, vec![("cid", false), ("bob", true), ("ann", false)]);
        cloud.stop().await;
    }

    #[tokio::test]
    async fn concurrent_requests_get_their_own_replies_on_both_variants() {
        // GIVEN twelve users
        let cloud = Cloud::start().await;
        let names: Vec<String> = (0..12).map(|i| format!("user{i}")).collect();
        let c = cloud.client(QUEUE);
        let mut tokens = Vec::new();
        for name in &names {
            tokens.push(c.register(name).await);
        }
        for api in [QUEUE, INVOKE] {
            // WHEN each asks for another's profile, all at once
            let tasks: Vec<_> = names
                .iter()
                .enumerate()
                .map(|(i, name)| {
                    let client = cloud.client(api);
                    let token = tokens[(i + 1) % tokens.len()].clone();
                    let path = format!("/api/profiles/{name}");
                    tokio::spawn(async move {
                        client.call(Method::GET, &path, Some(&token), None).await
                    })
                })
                .collect();
            // THEN every answer is about the user asked for
            for (task, name) in tasks.into_iter().zip(&names) {
                let (status, body) = task.await.unwrap();
                assert_eq!(status, 200, "{api}: {body}");
                assert_eq!(body["profile"]["username"], name.as_str(), "{api}");
            }
        }
        // AND no request was lost or dead-lettered
        let sqs = serde_json::to_value(cloud.cloud.sqs().metrics()).unwrap();
        let users =
            &sqs["queues"]["arn:aws:sqs:us-east-1:000000000000:local-conduit-users-requests"];
        assert_eq!(users["messages_sent"], 12, "{users}");
        assert_eq!(users["messages_deleted"], 12, "{users}");
        let dlq = &sqs["queues"]["arn:aws:sqs:us-east-1:000000000000:local-conduit-requests-dlq"];
        assert_eq!(dlq["messages_sent"], 0, "{dlq}");
        cloud.stop().await;
    }

    #[tokio::test]
    async fn a_failing_owner_is_a_clean_500_on_both_variants() {
        // GIVEN an article, then the users table gone (the users service fails)
        let cloud = Cloud::start().await;
        let c = cloud.client(INVOKE);
        let token = c.register("ann").await;
        let slug = c.article(&token, "Hello", &["t"]).await;
        let config = aws_sdk_dynamodb::Config::builder()
            .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
            .region(aws_sdk_dynamodb::config::Region::new("us-east-1"))
            .endpoint_url(cloud.cloud.endpoint())
            .credentials_provider(aws_credential_types::Credentials::new(
                "AKIDLOCAL",
                "secret",
                None,
                None,
                "test",
            ))
            .build();
        aws_sdk_dynamodb::Client::from_conf(config)
            .delete_table()
            .table_name("local-conduit-users")
            .send()
            .await
            .unwrap();
        for api in [INVOKE, QUEUE] {
            // WHEN a request needs author cards
            let (status, body) = cloud
                .client(api)
                .call(Method::GET, &format!("/api/articles/{slug}"), None, None)
                .await;
            // THEN it fails cleanly, revealing nothing
            assert_eq!(status, 500, "{api}: {body}");
            assert_eq!(
                body,
                json!({"errors": {"body": ["internal error"]}}),
                "{api}"
            );
            // AND what needs no users still works
            let (status, body) = cloud
                .client(api)
                .call(Method::GET, "/api/tags", None, None)
                .await;
            assert_eq!(status, 200, "{api}: {body}");
        }
        cloud.stop().await;
    }
}
