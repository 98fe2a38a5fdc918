//! Follows table: one item per edge, partition `follower`, sort `followee`.
//! "Whom do I follow" is one Query; "which of these do I follow" one BatchGetItem.

use std::collections::HashSet;

use async_trait::async_trait;
use aws_sdk_dynamodb::Client;

use super::items::{backend, batch_get, get_s, key, query, s, QuerySpec};
use crate::model::UserId;
use crate::store::{FollowStore, StoreResult};

pub struct DynamoFollows {
    client: Client,
    table: String,
}

impl DynamoFollows {
    pub fn new(client: Client, table: &str) -> Self {
        Self {
            client,
            table: table.to_owned(),
        }
    }
}

#[async_trait]
impl FollowStore for DynamoFollows {
    async fn follow(&self, follower: &UserId, followee: &UserId) -> StoreResult<()> {
        self.client
            .put_item()
            .table_name(&self.table)
            .item("follower", s(follower))
            .item("followee", s(followee))
            .send()
            .await
            .map_err(backend)?;
        Ok(())
    }

    async fn unfollow(&self, follower: &UserId, followee: &UserId) -> StoreResult<()> {
        self.client
            .delete_item()
            .table_name(&self.table)
            .key("follower", s(follower))
            .key("followee", s(followee))
            .send()
            .await
            .map_err(backend)?;
        Ok(())
    }

    async fn followed_among(
        &self,
        viewer: &UserId,
        candidates: &[UserId],
    ) -> StoreResult<HashSet<UserId>> {
        let mut unique: Vec<&UserId> = candidates.iter().collect();
        unique.sort();
        unique.dedup();
        let keys = unique
            .into_iter()
            .map(|c| key(&[("follower", s(viewer)), ("followee", s(c))]))
            .collect();
        let items = batch_get(&self.client, &self.table, keys, &["followee"]).await?;
        items.iter().map(|item| get_s(item, "followee")).collect()
    }

    async fn followees(&self, viewer: &UserId) -> StoreResult<Vec<UserId>> {
        let items = query(
            &self.client,
            QuerySpec {
                table: &self.table,
                key_condition: "#f = :f",
                names: &[("#f", "follower")],
                values: vec![(":f", s(viewer))],
                filter: None,
                projection: &["followee"],
                newest_first: false,
                want: None,
            },
        )
        .await?;
        items.iter().map(|item| get_s(item, "followee")).collect()
    }
}
