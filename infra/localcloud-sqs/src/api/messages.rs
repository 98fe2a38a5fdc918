//! Message operations: send, receive, delete, change visibility (and batches).

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{json, Map, Value};

use super::input::{bounded, Input};
use super::queue_url::queue_of;
use crate::error;
use crate::message_attrs::{self, MessageAttributes};
use crate::service::{ReceivedMessage, SendRequest, SendResult, SqsService};
use crate::settings::{DEFAULT_MAX_MESSAGE_SIZE, MAX_VISIBILITY_TIMEOUT};
use localcloud_core::{AwsError, RequestContext};

fn send_request(input: &Input) -> Result<SendRequest, AwsError> {
    Ok(SendRequest {
        body: input
            .opt_str("MessageBody")?
            .unwrap_or_default()
            .to_string(),
        delay_seconds: match input.opt_int("DelaySeconds")? {
            Some(d) if d < 0 => bounded("DelaySeconds", Some(d), 0, 900)?,
            Some(d) => Some(d.min(u32::MAX as i64) as u32),
            None => None,
        },
        attributes: message_attrs::parse(input.opt_map("MessageAttributes")?, false)?,
        system_attributes: message_attrs::parse(input.opt_map("MessageSystemAttributes")?, true)?,
        group_id: input.opt_str("MessageGroupId")?.map(str::to_owned),
        dedup_id: input.opt_str("MessageDeduplicationId")?.map(str::to_owned),
    })
}

fn send_output(result: &SendResult, out: &mut Map<String, Value>) {
    out.insert("MessageId".into(), json!(result.message_id));
    out.insert("MD5OfMessageBody".into(), json!(result.md5_of_body));
    if let Some(md5) = &result.md5_of_attributes {
        out.insert("MD5OfMessageAttributes".into(), json!(md5));
    }
    if let Some(md5) = &result.md5_of_system_attributes {
        out.insert("MD5OfMessageSystemAttributes".into(), json!(md5));
    }
    if let Some(seq) = &result.sequence_number {
        out.insert("SequenceNumber".into(), json!(seq));
    }
}

pub fn send_message(
    s: &SqsService,
    ctx: &RequestContext,
    input: &Input,
) -> Result<Value, AwsError> {
    let queue = queue_of(s, ctx, input)?;
    let request = send_request(input).inspect_err(|_| s.count_call(&queue, "SendMessage"))?;
    let result = s
        .send(&queue, "SendMessage", vec![request])
        .pop()
        .expect("one result")?;
    let mut out = Map::new();
    send_output(&result, &mut out);
    Ok(Value::Object(out))
}

pub fn send_message_batch(
    s: &SqsService,
    ctx: &RequestContext,
    input: &Input,
) -> Result<Value, AwsError> {
    let queue = queue_of(s, ctx, input)?;
    let entries = input
        .entries("SendMessageBatchRequestEntry")
        .inspect_err(|_| s.count_call(&queue, "SendMessageBatch"))?;
    let total: usize = entries
        .iter()
        .map(|(_, e)| {
            e.opt_str("MessageBody").ok().flatten().map_or(0, str::len) + attributes_size(e)
        })
        .sum();
    if total > DEFAULT_MAX_MESSAGE_SIZE as usize {
        s.count_call(&queue, "SendMessageBatch");
        return Err(error::batch_request_too_long(
            DEFAULT_MAX_MESSAGE_SIZE as usize,
            total,
        ));
    }
    // Entries that fail to parse fail alone; the others are sent in one call.
    let mut ids = Vec::new();
    let mut parsed = Vec::new();
    let mut failed = Vec::new();
    for (id, entry) in &entries {
        match send_request(entry) {
            Ok(request) => {
                ids.push(id.clone());
                parsed.push(request);
            }
            Err(err) => failed.push(failed_entry(id, &err)),
        }
    }
    let results = s.send(&queue, "SendMessageBatch", parsed);
    let mut successful = Vec::new();
    for (id, result) in ids.iter().zip(results) {
        match result {
            Ok(result) => {
                let mut out = Map::new();
                out.insert("Id".into(), json!(id));
                send_output(&result, &mut out);
                successful.push(Value::Object(out));
            }
            Err(err) => failed.push(failed_entry(id, &err)),
        }
    }
    Ok(json!({"Successful": successful, "Failed": failed}))
}

fn attributes_size(entry: &Input) -> usize {
    message_attrs::parse(entry.opt_map("MessageAttributes").ok().flatten(), false)
        .map(|a| message_attrs::total_size(&a))
        .unwrap_or(0)
}

pub async fn receive_message(
    s: &SqsService,
    ctx: &RequestContext,
    input: &Input,
) -> Result<Value, AwsError> {
    let queue = queue_of(s, ctx, input)?;
    let parsed = receive_params(input);
    let (max, wait, visibility) = parsed.inspect_err(|_| s.count_call(&queue, "ReceiveMessage"))?;
    let default_wait = queue.state.lock().settings.receive_wait_time_seconds;
    let wait = Duration::from_secs(wait.unwrap_or(default_wait) as u64);
    let visibility = visibility.map(|v| Duration::from_secs(v as u64));
    let messages = s.receive_from(&queue, max, wait, visibility).await?;
    let mut names = input.string_list("AttributeNames")?;
    names.extend(input.string_list("MessageSystemAttributeNames")?);
    let attribute_filter = input.string_list("MessageAttributeNames")?;
    let rendered: Vec<Value> = messages
        .into_iter()
        .map(|m| render_message(m, &names, &attribute_filter))
        .collect();
    if rendered.is_empty() {
        return Ok(json!({}));
    }
    Ok(json!({"Messages": rendered}))
}

type ReceiveParams = (usize, Option<u32>, Option<u32>);

fn receive_params(input: &Input) -> Result<ReceiveParams, AwsError> {
    let max = bounded(
        "MaxNumberOfMessages",
        input.opt_int("MaxNumberOfMessages")?,
        1,
        10,
    )?
    .unwrap_or(1);
    let wait = bounded("WaitTimeSeconds", input.opt_int("WaitTimeSeconds")?, 0, 20)?;
    let visibility = bounded(
        "VisibilityTimeout",
        input.opt_int("VisibilityTimeout")?,
        0,
        MAX_VISIBILITY_TIMEOUT as i64,
    )?;
    Ok((max as usize, wait, visibility))
}

/// Keeps the system attributes and message attributes the caller asked for
/// (`All`, exact names, or `prefix.*` for message attributes).
fn render_message(m: ReceivedMessage, names: &[String], filter: &[String]) -> Value {
    let mut out = Map::new();
    out.insert("MessageId".into(), json!(m.message_id));
    out.insert("ReceiptHandle".into(), json!(m.receipt_handle));
    out.insert("MD5OfBody".into(), json!(m.md5_of_body));
    out.insert("Body".into(), json!(m.body));
    let all = names.iter().any(|n| n == "All");
    let attributes: BTreeMap<&String, &String> = m
        .attributes
        .iter()
        .filter(|(k, _)| all || names.iter().any(|n| n == *k))
        .collect();
    if !attributes.is_empty() {
        out.insert("Attributes".into(), json!(attributes));
    }
    let chosen: MessageAttributes = m
        .message_attributes
        .into_iter()
        .filter(|(name, _)| wanted(name, filter))
        .collect();
    if let Some(md5) = message_attrs::md5_of_attributes(&chosen) {
        out.insert("MD5OfMessageAttributes".into(), json!(md5));
        let rendered: Map<String, Value> = chosen
            .iter()
            .map(|(k, v)| (k.clone(), v.to_json()))
            .collect();
        out.insert("MessageAttributes".into(), Value::Object(rendered));
    }
    Value::Object(out)
}

fn wanted(name: &str, filter: &[String]) -> bool {
    filter.iter().any(|f| {
        f == "All"
            || f == ".*"
            || f == name
            || f.strip_suffix(".*")
                .is_some_and(|prefix| name.starts_with(&format!("{prefix}.")))
    })
}

pub fn delete_message(
    s: &SqsService,
    ctx: &RequestContext,
    input: &Input,
) -> Result<Value, AwsError> {
    let queue = queue_of(s, ctx, input)?;
    let handle = input
        .str("ReceiptHandle")
        .inspect_err(|_| s.count_call(&queue, "DeleteMessage"))?;
    s.delete_from(&queue, "DeleteMessage", &[handle.to_string()])
        .pop()
        .expect("one result")?;
    Ok(json!({}))
}

pub fn delete_message_batch(
    s: &SqsService,
    ctx: &RequestContext,
    input: &Input,
) -> Result<Value, AwsError> {
    let queue = queue_of(s, ctx, input)?;
    let entries = input
        .entries("DeleteMessageBatchRequestEntry")
        .and_then(|entries| {
            entries
                .into_iter()
                .map(|(id, e)| Ok((id, e.str("ReceiptHandle")?.to_string())))
                .collect::<Result<Vec<_>, AwsError>>()
        })
        .inspect_err(|_| s.count_call(&queue, "DeleteMessageBatch"))?;
    let handles: Vec<String> = entries.iter().map(|(_, h)| h.clone()).collect();
    let results = s.delete_from(&queue, "DeleteMessageBatch", &handles);
    Ok(batch_output(
        entries.iter().map(|(id, _)| id.as_str()),
        results,
    ))
}

fn batch_output<'a>(
    ids: impl Iterator<Item = &'a str>,
    results: Vec<Result<(), AwsError>>,
) -> Value {
    let mut successful = Vec::new();
    let mut failed = Vec::new();
    for (id, result) in ids.zip(results) {
        match result {
            Ok(()) => successful.push(json!({"Id": id})),
            Err(err) => failed.push(failed_entry(id, &err)),
        }
    }
    json!({"Successful": successful, "Failed": failed})
}

fn visibility_entry(input: &Input) -> Result<(String, u32), AwsError> {
    let handle = input.str("ReceiptHandle")?.to_string();
    let timeout = input
        .opt_int("VisibilityTimeout")?
        .ok_or_else(|| error::missing_parameter("VisibilityTimeout"))?;
    let timeout = bounded(
        "VisibilityTimeout",
        Some(timeout),
        0,
        MAX_VISIBILITY_TIMEOUT as i64,
    )?
    .unwrap_or(0);
    Ok((handle, timeout))
}

pub fn change_message_visibility(
    s: &SqsService,
    ctx: &RequestContext,
    input: &Input,
) -> Result<Value, AwsError> {
    let queue = queue_of(s, ctx, input)?;
    let entry =
        visibility_entry(input).inspect_err(|_| s.count_call(&queue, "ChangeMessageVisibility"))?;
    s.change_visibility_of(&queue, "ChangeMessageVisibility", &[entry])
        .pop()
        .expect("one result")?;
    Ok(json!({}))
}

pub fn change_message_visibility_batch(
    s: &SqsService,
    ctx: &RequestContext,
    input: &Input,
) -> Result<Value, AwsError> {
    let queue = queue_of(s, ctx, input)?;
    let entries = input
        .entries("ChangeMessageVisibilityBatchRequestEntry")
        .inspect_err(|_| s.count_call(&queue, "ChangeMessageVisibilityBatch"))?;
    // An entry with bad members fails alone, like SQS does.
    let mut ids = Vec::new();
    let mut valid = Vec::new();
    let mut failed = Vec::new();
    for (id, entry) in &entries {
        match visibility_entry(entry) {
            Ok(e) => {
                ids.push(id.as_str());
                valid.push(e);
            }
            Err(err) => failed.push(failed_entry(id, &err)),
        }
    }
    let results = s.change_visibility_of(&queue, "ChangeMessageVisibilityBatch", &valid);
    let mut out = batch_output(ids.into_iter(), results);
    if let Some(list) = out["Failed"].as_array_mut() {
        list.extend(failed);
    }
    Ok(out)
}

/// `{"Id", "SenderFault", "Code", "Message"}` for a failed batch entry; the
/// code is the query code SQS puts there (the SDK's `code()`).
fn failed_entry(id: &str, err: &AwsError) -> Value {
    let code = err
        .headers
        .iter()
        .find(|(name, _)| name == "x-amzn-query-error")
        .and_then(|(_, v)| v.split(';').next())
        .unwrap_or_else(|| err.code());
    serde_json::json!({"Id": id, "SenderFault": true, "Code": code, "Message": err.message})
}
