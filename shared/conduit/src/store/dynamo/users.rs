//! Users table: `USER#<id>` items plus `USERNAME#<name>` and `EMAIL#<lowercase>`
//! guard items that make both unique through conditional transactional puts.

use async_trait::async_trait;
use aws_sdk_dynamodb::Client;

use super::items::{
    backend, batch_get, delete, get_opt_s, get_s, hit, key, put, put_opt_s, put_when, s,
    take_opt_s, take_s, transact, Item, TxOutcome,
};
use crate::model::{email_key, Profile, User, UserId};
use crate::store::{StoreError, StoreResult, UserStore};

const NOT_EXISTS: &str = "attribute_not_exists(#pk)";

pub struct DynamoUsers {
    client: Client,
    table: String,
}

fn user_pk(id: &str) -> String {
    format!("USER#{id}")
}

fn username_pk(username: &str) -> String {
    format!("USERNAME#{username}")
}

/// Emails are unique regardless of case.
fn email_pk(email: &str) -> String {
    format!("EMAIL#{}", email_key(email))
}

fn to_item(user: &User) -> Item {
    let mut item = key(&[
        ("pk", s(user_pk(&user.id))),
        ("id", s(&user.id)),
        ("username", s(&user.username)),
        ("email", s(&user.email)),
        ("passwordHash", s(&user.password_hash)),
    ]);
    put_opt_s(&mut item, "bio", &user.bio);
    put_opt_s(&mut item, "image", &user.image);
    item
}

fn from_item(item: &Item) -> StoreResult<User> {
    Ok(User {
        id: get_s(item, "id")?,
        username: get_s(item, "username")?,
        email: get_s(item, "email")?,
        password_hash: get_s(item, "passwordHash")?,
        bio: get_opt_s(item, "bio"),
        image: get_opt_s(item, "image"),
    })
}

/// The attributes of a [`Profile`].
const PROFILE: &[&str] = &["id", "username", "bio", "image"];

fn guard(pk: String, id: &str) -> Item {
    key(&[("pk", s(pk)), ("userId", s(id))])
}

/// Everything `create` writes, for bulk loading into an empty table.
pub(super) fn items_for_new_user(user: &User) -> Vec<Item> {
    vec![
        to_item(user),
        guard(username_pk(&user.username), &user.id),
        guard(email_pk(&user.email), &user.id),
    ]
}

impl DynamoUsers {
    pub fn new(client: Client, table: &str) -> Self {
        Self {
            client,
            table: table.to_owned(),
        }
    }

    async fn get(&self, pk: String) -> StoreResult<Option<Item>> {
        let out = self
            .client
            .get_item()
            .table_name(&self.table)
            .key("pk", s(pk))
            .consistent_read(true)
            .send()
            .await
            .map_err(backend)?;
        Ok(out.item)
    }

    /// Follows a guard item to its user.
    async fn by_guard(&self, pk: String) -> StoreResult<Option<User>> {
        let Some(guard) = self.get(pk).await? else {
            return Ok(None);
        };
        self.by_id(&get_s(&guard, "userId")?).await
    }
}

#[async_trait]
impl UserStore for DynamoUsers {
    async fn create(&self, user: &User) -> StoreResult<()> {
        let t = &self.table;
        let actions = vec![
            put(
                t,
                guard(username_pk(&user.username), &user.id),
                Some(NOT_EXISTS),
            )?,
            put(t, guard(email_pk(&user.email), &user.id), Some(NOT_EXISTS))?,
            put(t, to_item(user), Some(NOT_EXISTS))?,
        ];
        match transact(&self.client, actions).await? {
            TxOutcome::Done => Ok(()),
            TxOutcome::ConditionFailed(failed) if hit(&failed, 0) => {
                Err(StoreError::Taken("username"))
            }
            TxOutcome::ConditionFailed(failed) if hit(&failed, 1) => {
                Err(StoreError::Taken("email"))
            }
            TxOutcome::ConditionFailed(_) => Err(StoreError::backend("user id collision")),
        }
    }

    async fn by_id(&self, id: &UserId) -> StoreResult<Option<User>> {
        self.get(user_pk(id))
            .await?
            .as_ref()
            .map(from_item)
            .transpose()
    }

    async fn by_username(&self, username: &str) -> StoreResult<Option<User>> {
        self.by_guard(username_pk(username)).await
    }

    async fn by_email(&self, email: &str) -> StoreResult<Option<User>> {
        self.by_guard(email_pk(email)).await
    }

    /// Reads only the profile's attributes (not the email, not the password hash).
    async fn users_by_ids(&self, ids: &[UserId]) -> StoreResult<Vec<Profile>> {
        let mut unique: Vec<&UserId> = ids.iter().collect();
        unique.sort();
        unique.dedup();
        let keys = unique
            .into_iter()
            .map(|id| key(&[("pk", s(user_pk(id)))]))
            .collect();
        let items = batch_get(&self.client, &self.table, keys, PROFILE).await?;
        items
            .into_iter()
            .map(|mut item| {
                Ok(Profile {
                    id: take_s(&mut item, "id")?,
                    username: take_s(&mut item, "username")?,
                    bio: take_opt_s(&mut item, "bio"),
                    image: take_opt_s(&mut item, "image"),
                })
            })
            .collect()
    }

    /// One transaction: the user item, plus the guards that move when the username
    /// or email changes; a taken new value cancels everything.
    async fn update(&self, old: &User, new: &User) -> StoreResult<()> {
        let t = &self.table;
        // Conditional on the username and email read: the guards we move are the
        // stored ones, so a concurrent rename cannot leave a stale guard behind.
        let mut actions = vec![put_when(
            t,
            to_item(new),
            "#u = :u AND #e = :e",
            &[("#u", "username"), ("#e", "email")],
            vec![(":u", s(&old.username)), (":e", s(&old.email))],
        )?];
        let mut claims = Vec::new();
        if old.username != new.username {
            claims.push((actions.len(), "username"));
            actions.push(put(
                t,
                guard(username_pk(&new.username), &new.id),
                Some(NOT_EXISTS),
            )?);
            actions.push(delete(
                t,
                key(&[("pk", s(username_pk(&old.username)))]),
                None,
            )?);
        }
        if email_pk(&old.email) != email_pk(&new.email) {
            claims.push((actions.len(), "email"));
            actions.push(put(
                t,
                guard(email_pk(&new.email), &new.id),
                Some(NOT_EXISTS),
            )?);
            actions.push(delete(t, key(&[("pk", s(email_pk(&old.email)))]), None)?);
        }
        match transact(&self.client, actions).await? {
            TxOutcome::Done => Ok(()),
            TxOutcome::ConditionFailed(failed) => {
                if hit(&failed, 0) {
                    return match self.by_id(&old.id).await? {
                        None => Err(StoreError::NotFound("user")),
                        Some(_) => Err(StoreError::backend("user changed by a concurrent update")),
                    };
                }
                let field = claims
                    .iter()
                    .find(|(i, _)| hit(&failed, *i))
                    .map(|(_, f)| *f);
                Err(StoreError::Taken(field.unwrap_or("username")))
            }
        }
    }
}
