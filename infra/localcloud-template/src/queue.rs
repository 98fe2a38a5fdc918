//! `AWS::SQS::Queue` as the attributes of an SQS `CreateQueue` call.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use crate::diag::{At, Diags};
use crate::model::Queue;
use crate::props::{check_keys, Reader};
use crate::yaml::Node;

const USED: &[&str] = &[
    "QueueName",
    "FifoQueue",
    "VisibilityTimeout",
    "MessageRetentionPeriod",
    "DelaySeconds",
    "ReceiveMessageWaitTimeSeconds",
    "MaximumMessageSize",
    "ContentBasedDeduplication",
    "DeduplicationScope",
    "FifoThroughputLimit",
    "RedrivePolicy",
    "RedriveAllowPolicy",
];
const IGNORED: &[&str] = &[
    "Tags",
    "KmsMasterKeyId",
    "KmsDataKeyReusePeriodSeconds",
    "SqsManagedSseEnabled",
];

/// Numeric attributes and their valid ranges (SQS `SetQueueAttributes`).
const NUMERIC: &[(&str, u32, u32)] = &[
    ("VisibilityTimeout", 0, 43_200),
    ("MessageRetentionPeriod", 60, 1_209_600),
    ("DelaySeconds", 0, 900),
    ("ReceiveMessageWaitTimeSeconds", 0, 20),
    ("MaximumMessageSize", 1_024, 1_048_576),
];

/// The name SQS would accept for this queue, checked against the SQS rules.
pub(crate) fn check_name(name: &str, fifo: bool) -> Result<(), String> {
    let base = name.strip_suffix(".fifo").unwrap_or(name);
    if fifo != name.ends_with(".fifo") {
        return Err(if fifo {
            format!("FIFO queue name `{name}` must end with .fifo")
        } else {
            format!("queue name `{name}` ends with .fifo but FifoQueue is not true")
        });
    }
    let valid_chars = base
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if name.is_empty() || name.len() > 80 || !valid_chars {
        return Err(format!(
            "queue name `{name}` must be 1 to 80 letters, digits, - or _"
        ));
    }
    Ok(())
}

pub(crate) fn queue(id: &str, props: &Node, name: &str, r: &mut Reader) -> Option<Queue> {
    let at = At::resource(id).child("Properties");
    check_keys(props, USED, IGNORED, &at, r.diags);
    let errors_before = r.diags.items.len();
    let mut attributes = BTreeMap::new();
    let fifo = r.bool(props, "FifoQueue", &at).unwrap_or(false);
    if fifo {
        attributes.insert("FifoQueue".to_string(), "true".to_string());
    }
    for (key, min, max) in NUMERIC {
        let Some(n) = r.u32(props, key, &at) else {
            continue;
        };
        if n < *min || n > *max {
            let line = props.get(key).map_or(props.line, |e| e.key_line);
            r.diags.error(
                &at.child(key),
                line,
                format!("must be between {min} and {max}"),
            );
        }
        attributes.insert(key.to_string(), n.to_string());
    }
    for key in ["ContentBasedDeduplication"] {
        if let Some(b) = r.bool(props, key, &at) {
            fifo_only(fifo, props, key, &at, r.diags);
            attributes.insert(key.to_string(), b.to_string());
        }
    }
    for key in ["DeduplicationScope", "FifoThroughputLimit"] {
        if let Some(s) = r.string(props, key, &at) {
            fifo_only(fifo, props, key, &at, r.diags);
            attributes.insert(key.to_string(), s);
        }
    }
    if let Some((v, line)) = r.value(props, "RedrivePolicy", &at) {
        match redrive_policy(v) {
            Ok(doc) => {
                attributes.insert("RedrivePolicy".to_string(), doc);
            }
            Err(m) => r.diags.error(&at.child("RedrivePolicy"), line, m),
        }
    }
    if let Some((v, _)) = r.value(props, "RedriveAllowPolicy", &at) {
        let doc = match v {
            Value::String(s) => s,
            other => other.to_string(),
        };
        attributes.insert("RedriveAllowPolicy".to_string(), doc);
    }
    if let Err(m) = check_name(name, fifo) {
        let line = props.get("QueueName").map_or(props.line, |e| e.key_line);
        r.diags.error(&at.child("QueueName"), line, m);
    }
    if r.diags.items[errors_before..]
        .iter()
        .any(|d| d.severity == crate::diag::Severity::Error)
    {
        return None;
    }
    let ctx = r.scope.ctx;
    Some(Queue {
        logical_id: id.to_string(),
        name: name.to_string(),
        url: ctx.queue_url(name),
        arn: ctx.arn("sqs", name),
        attributes,
    })
}

fn fifo_only(fifo: bool, props: &Node, key: &str, at: &At, diags: &mut Diags) {
    if !fifo {
        let line = props.get(key).map_or(props.line, |e| e.key_line);
        diags.error(&at.child(key), line, "only valid for FIFO queues");
    }
}

/// `{deadLetterTargetArn, maxReceiveCount}` (a map or a JSON string) as the
/// JSON document string SQS stores.
fn redrive_policy(v: Value) -> Result<String, String> {
    let v = match v {
        Value::String(s) => serde_json::from_str(&s).map_err(|e| format!("not JSON: {e}"))?,
        v => v,
    };
    let arn = v.get("deadLetterTargetArn").and_then(Value::as_str);
    let count = v.get("maxReceiveCount").and_then(|c| match c {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.parse().ok(),
        _ => None,
    });
    match (arn, count) {
        (Some(arn), Some(count @ 1..=1000)) => {
            Ok(json!({"deadLetterTargetArn": arn, "maxReceiveCount": count}).to_string())
        }
        _ => Err("needs deadLetterTargetArn and maxReceiveCount (1 to 1000)".to_string()),
    }
}

/// The dead-letter target of a queue, read back from its attributes.
pub(crate) fn dead_letter_arn(q: &Queue) -> Option<String> {
    let doc: Value = serde_json::from_str(q.attributes.get("RedrivePolicy")?).ok()?;
    Some(doc.get("deadLetterTargetArn")?.as_str()?.to_string())
}

/// Orders queues so that each dead-letter queue comes before its sources.
/// Returns the ids of queues caught in a redrive cycle as the error.
pub(crate) fn dependency_order(mut pending: Vec<Queue>) -> Result<Vec<Queue>, Vec<String>> {
    let mut ordered: Vec<Queue> = Vec::with_capacity(pending.len());
    while !pending.is_empty() {
        let ready = pending.iter().position(|q| match dead_letter_arn(q) {
            None => true,
            Some(arn) => {
                ordered.iter().any(|o| o.arn == arn) || !pending.iter().any(|p| p.arn == arn)
            }
        });
        match ready {
            Some(i) => ordered.push(pending.remove(i)),
            None => return Err(pending.into_iter().map(|q| q.logical_id).collect()),
        }
    }
    Ok(ordered)
}
