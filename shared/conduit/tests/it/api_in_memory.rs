//! Every API behaviour against the in-memory stores (no network).

use crate::all_scenarios;
use crate::common::Client;

macro_rules! in_memory {
    ($($name:ident),* $(,)?) => {
        $(
            #[tokio::test]
            async fn $name() {
                crate::common::scenarios::$name(&Client::in_memory()).await;
            }
        )*
    };
}

all_scenarios!(in_memory);

mod failures {
    use std::sync::Arc;

    use async_trait::async_trait;
    use conduit::model::{Profile, User, UserId};
    use conduit::store::{StoreError, StoreResult, UserStore};
    use conduit::App;
    use http::Method;
    use serde_json::json;

    use crate::common::{self, Client};

    /// A users store whose backend is down, with a secret-looking message.
    struct BrokenUsers;

    fn down<T>() -> StoreResult<T> {
        Err(StoreError::backend(
            "connection refused to 10.0.0.7: table conduit-users",
        ))
    }

    #[async_trait]
    impl UserStore for BrokenUsers {
        async fn create(&self, _: &User) -> StoreResult<()> {
            down()
        }
        async fn by_id(&self, _: &UserId) -> StoreResult<Option<User>> {
            down()
        }
        async fn by_username(&self, _: &str) -> StoreResult<Option<User>> {
            down()
        }
        async fn by_email(&self, _: &str) -> StoreResult<Option<User>> {
            down()
        }
        async fn users_by_ids(&self, _: &[UserId]) -> StoreResult<Vec<Profile>> {
            down()
        }
        async fn update(&self, _: &User, _: &User) -> StoreResult<()> {
            down()
        }
    }

    #[tokio::test]
    async fn storage_failure_is_a_500_that_reveals_nothing() {
        // GIVEN a backend that fails
        let app = App {
            users: Arc::new(BrokenUsers),
            ..App::in_memory(common::tokens())
        };
        let c = Client { app };
        // WHEN a client registers
        let (status, body) = c
            .call(
                Method::POST,
                "/api/users",
                None,
                Some(json!({"user": {"username": "a", "email": "a@b.c", "password": "password"}})),
            )
            .await;
        // THEN it gets a generic 500 without the internal message
        assert_eq!(status, 500);
        assert_eq!(body, json!({"errors": {"body": ["internal error"]}}));
    }
}

/// How many calls each public request makes to the users store: the future users
/// service must get at most one call per kind of lookup.
mod call_counts {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    use async_trait::async_trait;
    use conduit::model::{Profile, User, UserId};
    use conduit::store::memory::MemoryUsers;
    use conduit::store::{StoreResult, UserStore};
    use conduit::App;
    use http::Method;

    use crate::common::{self, Client};

    #[derive(Default)]
    struct CountingUsers {
        inner: MemoryUsers,
        batch_calls: AtomicUsize,
    }

    #[async_trait]
    impl UserStore for CountingUsers {
        async fn create(&self, user: &User) -> StoreResult<()> {
            self.inner.create(user).await
        }
        async fn by_id(&self, id: &UserId) -> StoreResult<Option<User>> {
            self.inner.by_id(id).await
        }
        async fn by_username(&self, username: &str) -> StoreResult<Option<User>> {
            self.inner.by_username(username).await
        }
        async fn by_email(&self, email: &str) -> StoreResult<Option<User>> {
            self.inner.by_email(email).await
        }
        async fn users_by_ids(&self, ids: &[UserId]) -> StoreResult<Vec<Profile>> {
            self.batch_calls.fetch_add(1, Ordering::SeqCst);
            self.inner.users_by_ids(ids).await
        }
        async fn update(&self, old: &User, new: &User) -> StoreResult<()> {
            self.inner.update(old, new).await
        }
    }

    #[tokio::test]
    async fn listing_by_author_reuses_the_author_it_looked_up() {
        // GIVEN jake's articles and a users store that counts batch lookups
        let users = Arc::new(CountingUsers::default());
        let app = App {
            users: users.clone(),
            ..App::in_memory(common::tokens())
        };
        let c = Client { app };
        let jake = c.register("jake").await;
        c.article(&jake, "One", &[]).await;
        c.article(&jake, "Two", &[]).await;
        let before = users.batch_calls.load(Ordering::SeqCst);
        // WHEN listing by author, then all articles
        let (_, by_author) = c
            .call(Method::GET, "/api/articles?author=jake", None, None)
            .await;
        let after_author = users.batch_calls.load(Ordering::SeqCst);
        let (_, all) = c.call(Method::GET, "/api/articles", None, None).await;
        // THEN the author filter needs no batch lookup, a plain list exactly one
        assert_eq!(by_author["articles"][0]["author"]["username"], "jake");
        assert_eq!(all["articlesCount"], 2);
        assert_eq!(after_author - before, 0);
        assert_eq!(users.batch_calls.load(Ordering::SeqCst) - after_author, 1);
    }
}

mod login_timing {
    use conduit::App;
    use http::Method;
    use serde_json::json;

    use crate::common::{self, Client};

    #[tokio::test]
    async fn login_does_the_argon2_work_whether_or_not_the_email_exists() {
        // GIVEN jake, and a count of the app's Argon2 computations
        let app = App::in_memory(common::tokens());
        let passwords = app.passwords.clone();
        let c = Client { app };
        c.register("jake").await;
        let login =
            |email: &str| Some(json!({"user": {"email": email, "password": "not-his-password"}}));
        // WHEN a wrong password is given for jake, then any password for nobody
        let before = passwords.runs();
        let wrong = c
            .call(
                Method::POST,
                "/api/users/login",
                None,
                login("jake@example.com"),
            )
            .await;
        let between = passwords.runs();
        let unknown = c
            .call(
                Method::POST,
                "/api/users/login",
                None,
                login("ghost@example.com"),
            )
            .await;
        // THEN each costs exactly one Argon2 verification, and the answers are the same
        assert_eq!(between - before, 1);
        assert_eq!(passwords.runs() - between, 1);
        assert_eq!(wrong, unknown);
        assert_eq!(wrong.0, 401);
    }
}
