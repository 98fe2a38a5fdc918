//! Queue operations: create, find, list, delete, purge, attributes, tags.

use base64::Engine;
use serde_json::{json, Map, Value};

use super::input::{bounded, Input};
use super::queue_url::queue_of;
use crate::error;
use crate::permissions::{self, Permission};
use crate::service::SqsService;
use localcloud_core::{AwsError, RequestContext};

pub fn create_queue(
    s: &SqsService,
    ctx: &RequestContext,
    input: &Input,
) -> Result<Value, AwsError> {
    let name = input
        .str("QueueName")
        .inspect_err(|_| s.unattributed_call())?;
    let attributes = input.string_map("Attributes")?;
    let tags = input.string_map("tags")?;
    let queue = s
        .create_queue_in(&ctx.region, &ctx.account_id, name, &attributes, tags)
        .inspect_err(|_| s.unattributed_call())?;
    Ok(json!({"QueueUrl": s.queue_url(&queue)}))
}

pub fn get_queue_url(
    s: &SqsService,
    ctx: &RequestContext,
    input: &Input,
) -> Result<Value, AwsError> {
    let found = input.str("QueueName").and_then(|name| {
        let owner = input
            .opt_str("QueueOwnerAWSAccountId")?
            .unwrap_or(&ctx.account_id);
        s.registry().get(&ctx.region, owner, name)
    });
    let queue = found.inspect_err(|_| s.unattributed_call())?;
    s.count_call(&queue, "GetQueueUrl");
    Ok(json!({"QueueUrl": s.queue_url(&queue)}))
}

/// Sorted by name; `NextToken` is the base64 of the last name returned.
pub fn list_queues(s: &SqsService, ctx: &RequestContext, input: &Input) -> Result<Value, AwsError> {
    s.unattributed_call();
    let prefix = input.opt_str("QueueNamePrefix")?.unwrap_or("");
    let max = bounded("MaxResults", input.opt_int("MaxResults")?, 1, 1000)?;
    let after = match input.opt_str("NextToken")? {
        Some(token) => Some(decode_token(token)?),
        None => None,
    };
    let queues = s.registry().list(&ctx.region, &ctx.account_id, prefix);
    let remaining: Vec<_> = queues
        .into_iter()
        .filter(|q| after.as_deref().is_none_or(|a| q.name.as_str() > a))
        .collect();
    let limit = max.map_or(1000, |m| m as usize);
    let page = &remaining[..remaining.len().min(limit)];
    let mut out = Map::new();
    if !page.is_empty() {
        let urls: Vec<String> = page.iter().map(|q| s.queue_url(q)).collect();
        out.insert("QueueUrls".into(), json!(urls));
    }
    if max.is_some() && remaining.len() > page.len() {
        let last = &page[page.len() - 1].name;
        let token = base64::engine::general_purpose::STANDARD.encode(last);
        out.insert("NextToken".into(), json!(token));
    }
    Ok(Value::Object(out))
}

fn decode_token(token: &str) -> Result<String, AwsError> {
    base64::engine::general_purpose::STANDARD
        .decode(token)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .ok_or_else(|| error::invalid_parameter_value("Invalid NextToken value."))
}

pub fn delete_queue(
    s: &SqsService,
    ctx: &RequestContext,
    input: &Input,
) -> Result<Value, AwsError> {
    let queue = queue_of(s, ctx, input)?;
    s.delete_queue(&queue);
    Ok(json!({}))
}

pub fn purge_queue(s: &SqsService, ctx: &RequestContext, input: &Input) -> Result<Value, AwsError> {
    let queue = queue_of(s, ctx, input)?;
    s.purge_queue(&queue)?;
    Ok(json!({}))
}

pub fn get_queue_attributes(
    s: &SqsService,
    ctx: &RequestContext,
    input: &Input,
) -> Result<Value, AwsError> {
    let queue = queue_of(s, ctx, input)?;
    let names = input.string_list("AttributeNames")?;
    let attributes = s.queue_attributes(&queue, &names)?;
    if attributes.is_empty() {
        return Ok(json!({}));
    }
    Ok(json!({"Attributes": attributes}))
}

pub fn set_queue_attributes(
    s: &SqsService,
    ctx: &RequestContext,
    input: &Input,
) -> Result<Value, AwsError> {
    let queue = queue_of(s, ctx, input)?;
    let attributes = input.string_map("Attributes")?;
    s.set_queue_attributes(&queue, &attributes)?;
    Ok(json!({}))
}

pub fn tag_queue(s: &SqsService, ctx: &RequestContext, input: &Input) -> Result<Value, AwsError> {
    let queue = queue_of(s, ctx, input)?;
    s.count_call(&queue, "TagQueue");
    let tags = input.string_map("Tags")?;
    if tags.is_empty() {
        return Err(error::missing_parameter("Tags"));
    }
    queue.tags.lock().extend(tags);
    Ok(json!({}))
}

pub fn untag_queue(s: &SqsService, ctx: &RequestContext, input: &Input) -> Result<Value, AwsError> {
    let queue = queue_of(s, ctx, input)?;
    s.count_call(&queue, "UntagQueue");
    let keys = input.string_list("TagKeys")?;
    if keys.is_empty() {
        return Err(error::missing_parameter("TagKeys"));
    }
    let mut tags = queue.tags.lock();
    for key in keys {
        tags.remove(&key);
    }
    Ok(json!({}))
}

pub fn list_queue_tags(
    s: &SqsService,
    ctx: &RequestContext,
    input: &Input,
) -> Result<Value, AwsError> {
    let queue = queue_of(s, ctx, input)?;
    s.count_call(&queue, "ListQueueTags");
    let tags = queue.tags.lock().clone();
    if tags.is_empty() {
        return Ok(json!({}));
    }
    Ok(json!({"Tags": tags}))
}

/// Queues whose redrive policy targets this queue.
pub fn list_dead_letter_source_queues(
    s: &SqsService,
    ctx: &RequestContext,
    input: &Input,
) -> Result<Value, AwsError> {
    let queue = queue_of(s, ctx, input)?;
    s.count_call(&queue, "ListDeadLetterSourceQueues");
    let urls: Vec<String> = s
        .registry()
        .list(&queue.region, &queue.account, "")
        .iter()
        .filter(|q| {
            q.state
                .lock()
                .settings
                .redrive_policy
                .as_ref()
                .is_some_and(|p| p.dead_letter_target_arn == queue.arn)
        })
        .map(|q| s.queue_url(q))
        .collect();
    Ok(json!({"queueUrls": urls}))
}

/// Adds a statement to the queue's `Policy` (permissions.rs).
pub fn add_permission(
    s: &SqsService,
    ctx: &RequestContext,
    input: &Input,
) -> Result<Value, AwsError> {
    let queue = queue_of(s, ctx, input)?;
    let account_ids = input.string_list("AWSAccountIds")?;
    let actions = input.string_list("Actions")?;
    let permission = Permission {
        label: input.str("Label")?,
        account_ids: &account_ids,
        actions: &actions,
    };
    s.edit_policy(&queue, "AddPermission", |policy| {
        permissions::add(policy, &queue.arn, &permission).map(Some)
    })?;
    Ok(json!({}))
}

/// Removes the label's statement from the queue's `Policy` (permissions.rs).
pub fn remove_permission(
    s: &SqsService,
    ctx: &RequestContext,
    input: &Input,
) -> Result<Value, AwsError> {
    let queue = queue_of(s, ctx, input)?;
    let label = input.str("Label")?;
    s.edit_policy(&queue, "RemovePermission", |policy| {
        permissions::remove(policy, label)
    })?;
    Ok(json!({}))
}
