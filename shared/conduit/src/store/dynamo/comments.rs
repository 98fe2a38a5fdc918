//! Comments table: partition `articleId`, sort `id` (number, time-ordered), so an
//! article's comments are one Query in creation order.

use async_trait::async_trait;
use aws_sdk_dynamodb::operation::put_item::PutItemError;
use aws_sdk_dynamodb::types::{DeleteRequest, WriteRequest};
use aws_sdk_dynamodb::Client;

use super::items::{backend, batch_write, get_n, get_s, key, n, query, s, Item, QuerySpec};
use crate::model::{ArticleId, Comment, Timestamp, UserId};
use crate::store::{new_comment_id, CommentStore, StoreError, StoreResult};

/// Random id collisions (same millisecond, same 1/1000 draw) are retried.
const ID_ATTEMPTS: usize = 5;

pub struct DynamoComments {
    client: Client,
    table: String,
}

fn from_item(item: &Item) -> StoreResult<Comment> {
    Ok(Comment {
        id: get_n(item, "id")?,
        article_id: get_s(item, "articleId")?,
        author_id: get_s(item, "authorId")?,
        body: get_s(item, "body")?,
        created_at: Timestamp(get_n(item, "createdAt")?),
        updated_at: Timestamp(get_n(item, "updatedAt")?),
    })
}

fn comment_key(article: &str, id: i64) -> Item {
    key(&[("articleId", s(article)), ("id", n(id))])
}

pub(super) fn to_item(c: &Comment) -> Item {
    let mut item = comment_key(&c.article_id, c.id);
    item.extend(key(&[
        ("authorId", s(&c.author_id)),
        ("body", s(&c.body)),
        ("createdAt", n(c.created_at.millis())),
        ("updatedAt", n(c.updated_at.millis())),
    ]));
    item
}

impl DynamoComments {
    pub fn new(client: Client, table: &str) -> Self {
        Self {
            client,
            table: table.to_owned(),
        }
    }

    fn spec<'a>(
        &'a self,
        projection: &'a [&'a str],
        values: Vec<(&'a str, aws_sdk_dynamodb::types::AttributeValue)>,
    ) -> QuerySpec<'a> {
        QuerySpec {
            table: &self.table,
            key_condition: "#a = :a",
            names: &[("#a", "articleId")],
            values,
            filter: None,
            projection,
            newest_first: false,
            want: None,
        }
    }
}

#[async_trait]
impl CommentStore for DynamoComments {
    async fn add(
        &self,
        article: &ArticleId,
        author: &UserId,
        body: &str,
        now: Timestamp,
    ) -> StoreResult<Comment> {
        for _ in 0..ID_ATTEMPTS {
            let comment = Comment {
                id: new_comment_id(now),
                article_id: article.clone(),
                author_id: author.clone(),
                body: body.to_owned(),
                created_at: now,
                updated_at: now,
            };
            let item = to_item(&comment);
            let sent = self
                .client
                .put_item()
                .table_name(&self.table)
                .set_item(Some(item))
                .condition_expression("attribute_not_exists(#id)")
                .expression_attribute_names("#id", "id")
                .send()
                .await;
            match sent.map_err(|e| e.into_service_error()) {
                Ok(_) => return Ok(comment),
                Err(PutItemError::ConditionalCheckFailedException(_)) => continue,
                Err(other) => return Err(backend(other)),
            }
        }
        Err(StoreError::backend("no free comment id"))
    }

    async fn for_article(&self, article: &ArticleId) -> StoreResult<Vec<Comment>> {
        let items = query(&self.client, self.spec(&[], vec![(":a", s(article))])).await?;
        items.iter().map(from_item).collect()
    }

    async fn get(&self, article: &ArticleId, id: i64) -> StoreResult<Option<Comment>> {
        let out = self
            .client
            .get_item()
            .table_name(&self.table)
            .set_key(Some(comment_key(article, id)))
            .consistent_read(true)
            .send()
            .await
            .map_err(backend)?;
        out.item.as_ref().map(from_item).transpose()
    }

    async fn delete(&self, article: &ArticleId, id: i64) -> StoreResult<()> {
        self.client
            .delete_item()
            .table_name(&self.table)
            .set_key(Some(comment_key(article, id)))
            .send()
            .await
            .map_err(backend)?;
        Ok(())
    }

    async fn delete_for_article(&self, article: &ArticleId) -> StoreResult<()> {
        let items = query(&self.client, self.spec(&["id"], vec![(":a", s(article))])).await?;
        let requests = items
            .iter()
            .map(|item| {
                let key = comment_key(article, get_n(item, "id")?);
                let delete = DeleteRequest::builder()
                    .set_key(Some(key))
                    .build()
                    .map_err(backend)?;
                Ok(WriteRequest::builder().delete_request(delete).build())
            })
            .collect::<StoreResult<Vec<_>>>()?;
        batch_write(&self.client, &self.table, requests).await
    }
}
