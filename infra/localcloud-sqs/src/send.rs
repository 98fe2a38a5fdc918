//! The per-message rules of SendMessage: body, size, delay, FIFO ids.

use tokio::time::Instant;

use crate::error;
use crate::message_attrs;
use crate::queue::{epoch_ms, Message};
use crate::registry::Queue;
use crate::service::SendRequest;
use crate::settings::QueueSettings;
use localcloud_core::AwsError;

/// Applies the per-message rules (body, size, FIFO ids, delay) and builds
/// the stored message.
pub fn build_message(
    queue: &Queue,
    settings: &QueueSettings,
    r: &SendRequest,
) -> Result<Message, AwsError> {
    if r.body.is_empty() {
        return Err(error::missing_parameter("MessageBody"));
    }
    if !message_attrs::valid_text(&r.body) {
        return Err(error::invalid_message_contents(
            "Invalid characters found. Valid unicode characters are #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF",
        ));
    }
    let size = r.body.len() + message_attrs::total_size(&r.attributes);
    let limit = settings.maximum_message_size as usize;
    if size > limit {
        return Err(error::invalid_parameter_value(format!(
            "One or more parameters are invalid. Reason: Message must be shorter than {limit} bytes."
        )));
    }
    if let Some(delay) = r.delay_seconds {
        if settings.fifo {
            return Err(error::invalid_parameter_value(format!(
                "Value {delay} for parameter DelaySeconds is invalid. Reason: The request include parameter that is not valid for this queue type."
            )));
        }
        if delay > 900 {
            return Err(error::invalid_parameter_value(format!(
                "Value {delay} for parameter DelaySeconds is invalid. Reason: DelaySeconds must be >= 0 and <= 900."
            )));
        }
    }
    let dedup_id = fifo_ids(settings, r)?;
    for (name, id) in [
        ("MessageGroupId", &r.group_id),
        ("MessageDeduplicationId", &dedup_id),
    ] {
        if let Some(id) = id {
            let ok = !id.is_empty() && id.len() <= 128 && id.bytes().all(|b| b.is_ascii_graphic());
            if !ok {
                return Err(error::invalid_parameter_value(format!(
                    "Value {id} for parameter {name} is invalid. Reason: The value must be 1 to 128 printable ASCII characters."
                )));
            }
        }
    }
    let now = Instant::now();
    Ok(Message {
        message_id: uuid::Uuid::new_v4().to_string(),
        md5_of_body: message_attrs::md5_hex(r.body.as_bytes()),
        body: r.body.clone(),
        md5_of_attributes: message_attrs::md5_of_attributes(&r.attributes),
        attributes: r.attributes.clone(),
        md5_of_system_attributes: message_attrs::md5_of_attributes(&r.system_attributes),
        system_attributes: r.system_attributes.clone(),
        sender_id: queue.account.clone(),
        group_id: r.group_id.clone(),
        dedup_id,
        sequence_number: None,
        size,
        sent_epoch_ms: epoch_ms(),
        enqueued: now,
        receive_count: 0,
        first_receive_epoch_ms: None,
        visible_at: now,
        in_flight: false,
        receive_nonce: 0,
        received_at: None,
    })
}

/// The deduplication id to use: given, content-based, or an error. Standard
/// queues take no deduplication id.
fn fifo_ids(settings: &QueueSettings, r: &SendRequest) -> Result<Option<String>, AwsError> {
    if !settings.fifo {
        if let Some(id) = &r.dedup_id {
            return Err(error::invalid_parameter_value(format!(
                "Value {id} for parameter MessageDeduplicationId is invalid. Reason: The request include parameter that is not valid for this queue type."
            )));
        }
        return Ok(None);
    }
    if r.group_id.is_none() {
        return Err(error::missing_parameter("MessageGroupId"));
    }
    match (&r.dedup_id, settings.content_based_deduplication) {
        (Some(id), _) => Ok(Some(id.clone())),
        (None, true) => Ok(Some(sha256_hex(r.body.as_bytes()))),
        (None, false) => Err(error::invalid_parameter_value(
            "The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly",
        )),
    }
}

/// Content-based deduplication ids are the SHA-256 of the body (SQS returns
/// them as `MessageDeduplicationId`).
fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    hex::encode(Sha256::digest(bytes))
}
