//! Differential tests: the same seeded request sequences (failing requests
//! included) run against the local cloud and against moto server, through the
//! same aws-sdk-sqs client; every response is reduced to what both can be
//! expected to agree on and compared step by step. Known divergences are
//! normalised here and listed in docs/divergences-sqs.md.
//!
//! Needs `MOTO_ENDPOINT` (see scripts/oracles/moto.sh). Without it the test
//! says it is skipped, unless `LOCALCLOUD_REQUIRE_ORACLES=1`.

use std::collections::BTreeMap;

use crate::common::{client_for, start};
use aws_sdk_sqs::error::ProvideErrorMetadata;
use aws_sdk_sqs::types::{
    MessageAttributeValue, MessageSystemAttributeName as S, QueueAttributeName as A,
    SendMessageBatchRequestEntry,
};
use aws_sdk_sqs::Client;

/// SplitMix64: a tiny PRNG whose sequence never changes with a crate upgrade.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// One side of the comparison: a client plus what the sequence has learned
/// (receipt handles, message ids in send order) to refer back to.
struct Side {
    client: Client,
    prefix: String,
    handles: Vec<String>,
    message_ids: Vec<String>,
    /// FIFO deduplication ids accepted so far on the live queue.
    dedup_ids: Vec<String>,
}

impl Side {
    fn new(client: Client, prefix: String) -> Self {
        Self {
            client,
            prefix,
            handles: vec![],
            message_ids: vec![],
            dedup_ids: vec![],
        }
    }

    fn url(&self, queue: &str) -> String {
        // moto and the local cloud both accept the URL they issued; build it
        // the way each issues it (account segment + name) via GetQueueUrl is
        // not possible for a queue that does not exist, so use the name form.
        format!("{}{queue}", self.prefix)
    }

    /// Replaces the side's own identifiers with stable placeholders.
    fn normalise(&self, text: &str) -> String {
        let mut out = text.to_string();
        for (i, id) in self.message_ids.iter().enumerate() {
            out = out.replace(id, &format!("<msg{i}>"));
        }
        out
    }
}

/// Queue URLs differ in host and account: keep the queue name.
fn url_name(url: &str) -> String {
    url.rsplit('/').next().unwrap_or(url).to_string()
}

fn error_code<E: aws_sdk_sqs::error::ProvideErrorMetadata>(err: &E) -> String {
    format!("Err({})", err.code().unwrap_or("<none>"))
}

const QUEUES: &[&str] = &["std-a", "std-b", "work.fifo", "missing"];
// moto accepts empty bodies and characters SQS rejects (docs/divergences-sqs.md).
const BODIES: &[&str] = &["hello", "héllo wörld", "{\"json\":true}", "x"];

#[derive(Debug, Clone)]
enum Op {
    Create {
        queue: &'static str,
        attrs: Vec<(&'static str, &'static str)>,
    },
    GetUrl {
        queue: &'static str,
    },
    Send {
        queue: &'static str,
        body: &'static str,
        attrs: Vec<(&'static str, &'static str, &'static str)>,
        group: Option<&'static str>,
        dedup: Option<String>,
    },
    Batch {
        queue: &'static str,
        ids: Vec<String>,
        body: &'static str,
    },
    Receive {
        queue: &'static str,
        max: i32,
        visibility: Option<i32>,
    },
    Delete {
        queue: &'static str,
        handle: Option<usize>,
    },
    ChangeVisibility {
        queue: &'static str,
        handle: Option<usize>,
        seconds: i32,
    },
    GetAttrs {
        queue: &'static str,
        names: Vec<&'static str>,
    },
    SetAttrs {
        queue: &'static str,
        name: &'static str,
        value: &'static str,
    },
    List,
    DeleteQueue {
        queue: &'static str,
    },
}

fn generate(rng: &mut Rng, steps: usize) -> Vec<Op> {
    let mut ops = vec![
        Op::Create {
            queue: "std-a",
            attrs: vec![],
        },
        Op::Create {
            queue: "work.fifo",
            attrs: vec![("FifoQueue", "true")],
        },
    ];
    let mut dedup = 0;
    for _ in 0..steps {
        let queue = rng.pick(QUEUES);
        let op = match rng.below(100) {
            0..=7 => {
                let mut attrs = match rng.below(4) {
                    0 => vec![("VisibilityTimeout", "30")],
                    // moto does not range-check attribute values (docs/divergences-sqs.md).
                    1 => vec![("VisibilityTimeout", "0")],
                    2 => vec![("DelaySeconds", "0"), ("MaximumMessageSize", "2048")],
                    _ => vec![],
                };
                // moto accepts `.fifo` names without FifoQueue=true, AWS does
                // not (docs/divergences-sqs.md): always sent.
                if queue.ends_with(".fifo") {
                    attrs.push(("FifoQueue", "true"));
                }
                Op::Create { queue, attrs }
            }
            8..=11 => Op::GetUrl { queue },
            12..=36 => {
                let attrs = match rng.below(5) {
                    0 => vec![("color", "String", "red")],
                    1 => vec![("n", "Number", "42"), ("c", "String.custom", "v")],
                    // moto does not validate Number values or reserved
                    // names (docs/divergences-sqs.md): not generated.
                    2 => vec![("b", "String", "x"), ("a", "Number.float", "1.5")],
                    3 => vec![
                        ("bin", "Binary", "\u{0}\u{1}raw"),
                        ("gz", "Binary.gzip", "z"),
                    ],
                    _ => vec![],
                };
                let group = if queue.ends_with(".fifo") && rng.chance(90) {
                    Some(rng.pick(&["g1", "g2"]))
                } else {
                    None
                };
                let dedup_id = if queue.ends_with(".fifo") && rng.chance(90) {
                    dedup += rng.below(2);
                    Some(format!("d{dedup}"))
                } else {
                    None
                };
                Op::Send {
                    queue,
                    body: rng.pick(BODIES),
                    attrs,
                    group,
                    dedup: dedup_id,
                }
            }
            37..=44 => {
                let n = rng.pick(&[0usize, 1, 3, 10, 11]);
                let mut ids: Vec<String> = (0..n).map(|i| format!("e{i}")).collect();
                if (2..=10).contains(&n) && rng.chance(20) {
                    ids[1] = "e0".into();
                }
                if (1..=10).contains(&n) && rng.chance(10) {
                    ids[0] = "bad id".into();
                }
                Op::Batch {
                    queue,
                    ids,
                    body: rng.pick(&["a", "b"]),
                }
            }
            45..=64 => {
                // On FIFO queues moto delivers a group's later messages first
                // once earlier ones become visible again
                // (docs/divergences-sqs.md): no visibility 0 there.
                let visibility = if queue.ends_with(".fifo") {
                    rng.pick(&[None, Some(30)])
                } else {
                    rng.pick(&[None, Some(0), Some(30)])
                };
                Op::Receive {
                    queue,
                    max: rng.pick(&[1, 3, 10, 11, 0]),
                    visibility,
                }
            }
            65..=72 => Op::Delete {
                queue,
                handle: if rng.chance(80) {
                    Some(rng.below(1000))
                } else {
                    None
                },
            },
            73..=78 => Op::ChangeVisibility {
                queue,
                handle: if rng.chance(80) {
                    Some(rng.below(1000))
                } else {
                    None
                },
                seconds: 0,
            },
            79..=86 => Op::GetAttrs {
                queue,
                names: rng
                    .pick(&[
                        &[
                            "ApproximateNumberOfMessages",
                            "ApproximateNumberOfMessagesNotVisible",
                        ][..],
                        &["VisibilityTimeout", "DelaySeconds", "MaximumMessageSize"],
                        &["QueueArn"],
                        &["FifoQueue", "ContentBasedDeduplication"],
                        &["Bogus"],
                    ])
                    .to_vec(),
            },
            87..=91 => {
                // Only valid values, and FIFO-only attributes only on FIFO
                // queues: moto accepts the others (docs/divergences-sqs.md).
                let (name, value) = if queue.ends_with(".fifo") && rng.chance(30) {
                    ("ContentBasedDeduplication", rng.pick(&["true", "false"]))
                } else {
                    rng.pick(&[
                        ("VisibilityTimeout", "5"),
                        ("VisibilityTimeout", "30"),
                        ("DelaySeconds", "0"),
                        ("MessageRetentionPeriod", "600"),
                    ])
                };
                Op::SetAttrs { queue, name, value }
            }
            92..=96 => Op::List,
            _ => Op::DeleteQueue { queue },
        };
        ops.push(op);
    }
    ops
}

async fn run(side: &mut Side, op: &Op) -> String {
    let c = side.client.clone();
    let result = match op {
        Op::Create { queue, attrs } => {
            let mut r = c.create_queue().queue_name(side.url(queue));
            for (k, v) in attrs {
                r = r.attributes((*k).into(), *v);
            }
            match r.send().await {
                Ok(out) => format!("Ok({})", url_name(out.queue_url().unwrap_or(""))),
                Err(e) => error_code(&e.into_service_error()),
            }
        }
        Op::GetUrl { queue } => match c.get_queue_url().queue_name(side.url(queue)).send().await {
            Ok(out) => format!("Ok({})", url_name(out.queue_url().unwrap_or(""))),
            Err(e) => error_code(&e.into_service_error()),
        },
        Op::Send {
            queue,
            body,
            attrs,
            group,
            dedup,
        } => {
            let mut r = c
                .send_message()
                .queue_url(queue_url(side, queue).await)
                .message_body(*body);
            for (name, data_type, value) in attrs {
                let v = MessageAttributeValue::builder().data_type(*data_type);
                let v = if data_type.starts_with("Binary") {
                    v.binary_value(aws_sdk_sqs::primitives::Blob::new(value.as_bytes()))
                } else {
                    v.string_value(*value)
                };
                let v = v.build().unwrap();
                r = r.message_attributes(*name, v);
            }
            r = r
                .set_message_group_id(group.map(str::to_owned))
                .set_message_deduplication_id(dedup.clone());
            match r.send().await {
                Ok(out) => {
                    let id = out.message_id().unwrap_or("").to_string();
                    // A duplicate within the deduplication window: moto
                    // reports a fresh id, the local cloud the original one
                    // (docs/divergences-sqs.md); neither enqueues it.
                    let duplicate = dedup.as_ref().filter(|d| side.dedup_ids.contains(d));
                    let shown = match duplicate {
                        Some(d) => format!("<duplicate of {d}>"),
                        None => {
                            side.message_ids.push(id.clone());
                            side.normalise(&id)
                        }
                    };
                    if let Some(d) = dedup {
                        side.dedup_ids.push(d.clone());
                    }
                    format!(
                        "Ok(id={} md5={:?} attrs_md5={:?} seq={})",
                        shown,
                        out.md5_of_message_body(),
                        out.md5_of_message_attributes(),
                        out.sequence_number().is_some()
                    )
                }
                Err(e) => error_code(&e.into_service_error()),
            }
        }
        Op::Batch { queue, ids, body } => {
            // FIFO entries carry group and unique deduplication ids: moto
            // fails the whole batch where SQS fails entries (docs/divergences-sqs.md).
            let fifo = queue.ends_with(".fifo");
            let batch_no = side.message_ids.len();
            let entries = ids
                .iter()
                .map(|id| {
                    SendMessageBatchRequestEntry::builder()
                        .id(id)
                        .message_body(*body)
                        .set_message_group_id(fifo.then(|| "g2".to_string()))
                        .set_message_deduplication_id(fifo.then(|| format!("batch{batch_no}-{id}")))
                        .build()
                        .unwrap()
                })
                .collect();
            match c
                .send_message_batch()
                .queue_url(queue_url(side, queue).await)
                .set_entries(Some(entries))
                .send()
                .await
            {
                Ok(out) => {
                    for e in out.successful() {
                        side.message_ids.push(e.message_id().to_string());
                    }
                    let ok: Vec<_> = out
                        .successful()
                        .iter()
                        .map(|e| (e.id(), e.md5_of_message_body()))
                        .collect();
                    let failed: Vec<_> = out
                        .failed()
                        .iter()
                        .map(|e| (e.id(), e.code(), e.sender_fault()))
                        .collect();
                    format!("Ok(ok={ok:?} failed={failed:?})")
                }
                Err(e) => error_code(&e.into_service_error()),
            }
        }
        Op::Receive {
            queue,
            max,
            visibility,
        } => {
            let r = c
                .receive_message()
                .queue_url(queue_url(side, queue).await)
                .max_number_of_messages(*max)
                .set_visibility_timeout(*visibility)
                .message_system_attribute_names(S::ApproximateReceiveCount)
                .message_system_attribute_names(S::MessageGroupId)
                .message_attribute_names("All");
            match r.send().await {
                Ok(out) => {
                    let mut seen = Vec::new();
                    for m in out.messages() {
                        side.handles
                            .push(m.receipt_handle().unwrap_or("").to_string());
                        let attrs: BTreeMap<String, String> = m
                            .attributes()
                            .map(|a| {
                                a.iter()
                                    .map(|(k, v)| (k.as_str().to_string(), v.clone()))
                                    .collect()
                            })
                            .unwrap_or_default();
                        seen.push(format!(
                            "{} body={:?} md5={:?} attrs_md5={:?} sys={attrs:?} n_attrs={}",
                            side.normalise(m.message_id().unwrap_or("")),
                            m.body(),
                            m.md5_of_body(),
                            m.md5_of_message_attributes(),
                            m.message_attributes().map_or(0, |a| a.len()),
                        ));
                    }
                    format!("Ok({seen:?})")
                }
                Err(e) => error_code(&e.into_service_error()),
            }
        }
        Op::Delete { queue, handle } => {
            let handle = pick_handle(side, *handle);
            match c
                .delete_message()
                .queue_url(queue_url(side, queue).await)
                .receipt_handle(handle)
                .send()
                .await
            {
                Ok(_) => "Ok".to_string(),
                Err(e) => error_code(&e.into_service_error()),
            }
        }
        Op::ChangeVisibility {
            queue,
            handle,
            seconds,
        } => {
            let handle = pick_handle(side, *handle);
            let r = c
                .change_message_visibility()
                .queue_url(queue_url(side, queue).await)
                .receipt_handle(handle)
                .visibility_timeout(*seconds);
            match r.send().await {
                Ok(_) => "Ok".to_string(),
                // moto never answers MessageNotInflight; with a timeout of 0
                // both leave the (visible) message as it was, so only the
                // answer differs (docs/divergences-sqs.md).
                Err(e) if e.code() == Some("AWS.SimpleQueueService.MessageNotInflight") => {
                    "Ok".to_string()
                }
                Err(e) => error_code(&e.into_service_error()),
            }
        }
        Op::GetAttrs { queue, names } => {
            let mut r = c
                .get_queue_attributes()
                .queue_url(queue_url(side, queue).await);
            for n in names {
                r = r.attribute_names(A::from(*n));
            }
            match r.send().await {
                Ok(out) => {
                    let attrs: BTreeMap<String, String> = out
                        .attributes()
                        .map(|a| {
                            a.iter()
                                .map(|(k, v)| (k.as_str().to_string(), url_name(v)))
                                .collect()
                        })
                        .unwrap_or_default();
                    format!("Ok({attrs:?})")
                }
                Err(e) => error_code(&e.into_service_error()),
            }
        }
        Op::SetAttrs { queue, name, value } => {
            let r = c
                .set_queue_attributes()
                .queue_url(queue_url(side, queue).await)
                .attributes(A::from(*name), *value);
            match r.send().await {
                Ok(_) => "Ok".to_string(),
                Err(e) => error_code(&e.into_service_error()),
            }
        }
        Op::List => match c.list_queues().queue_name_prefix(&side.prefix).send().await {
            Ok(out) => {
                let mut names: Vec<String> = out.queue_urls().iter().map(|u| url_name(u)).collect();
                names.sort();
                format!("Ok({names:?})")
            }
            Err(e) => error_code(&e.into_service_error()),
        },
        Op::DeleteQueue { queue } => match c
            .delete_queue()
            .queue_url(queue_url(side, queue).await)
            .send()
            .await
        {
            Ok(_) => {
                if queue.ends_with(".fifo") {
                    side.dedup_ids.clear();
                }
                "Ok".to_string()
            }
            Err(e) => error_code(&e.into_service_error()),
        },
    };
    // Default accounts differ (moto: 123456789012).
    result
        .replace(&side.prefix, "")
        .replace("000000000000", "<account>")
        .replace("123456789012", "<account>")
}

/// The queue's URL as this side issues it, or a made-up one for a queue it
/// does not know (both then answer QueueDoesNotExist).
async fn queue_url(side: &Side, queue: &str) -> String {
    match side
        .client
        .get_queue_url()
        .queue_name(side.url(queue))
        .send()
        .await
    {
        Ok(out) => out.queue_url.unwrap_or_default(),
        Err(_) => format!("http://127.0.0.1:1/000000000000/{}", side.url(queue)),
    }
}

fn pick_handle(side: &Side, index: Option<usize>) -> String {
    match index {
        Some(i) if !side.handles.is_empty() => side.handles[i % side.handles.len()].clone(),
        _ => "garbage-handle".to_string(),
    }
}

pub(crate) fn moto_endpoint() -> Option<String> {
    match std::env::var("MOTO_ENDPOINT") {
        Ok(e) if !e.is_empty() => Some(e),
        _ if std::env::var("LOCALCLOUD_REQUIRE_ORACLES").as_deref() == Ok("1") => {
            panic!("MOTO_ENDPOINT is not set and LOCALCLOUD_REQUIRE_ORACLES=1 (start it with scripts/oracles/moto.sh)")
        }
        _ => None,
    }
}

#[tokio::test]
async fn seeded_sequences_agree_with_moto() {
    let Some(moto) = moto_endpoint() else {
        eprintln!("skipped: MOTO_ENDPOINT is not set (scripts/oracles/moto.sh starts moto)");
        return;
    };
    let cloud = start().await;
    let run_id = std::process::id();
    let first_seed = std::env::var("DIFF_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    for seed in first_seed..=16u64 {
        let prefix = format!("diff{run_id}s{seed}-");
        let mut local = Side::new(cloud.client.clone(), prefix.clone());
        let mut oracle = Side::new(client_for(&moto), prefix);
        let ops = generate(&mut Rng(seed), 80);
        for (step, op) in ops.iter().enumerate() {
            let ours = run(&mut local, op).await;
            let theirs = run(&mut oracle, op).await;
            if std::env::var_os("DIFF_TRACE").is_some() {
                eprintln!("seed {seed} step {step}: {op:?}\n  local: {ours}\n  moto:  {theirs}");
            }
            assert_eq!(ours, theirs, "seed {seed} step {step}: {op:?}");
        }
    }
}

/// Redrive to a dead-letter queue, message attribute filters and queue counts,
/// as one fixed scenario observed on both services.
async fn redrive_scenario(client: &Client, prefix: &str) -> Vec<String> {
    let mut seen = Vec::new();
    let dlq = crate::common::create_queue(client, &format!("{prefix}dlq"), &[]).await;
    let dlq_arn = crate::common::queue_arn(client, &dlq).await;
    let policy = format!(r#"{{"deadLetterTargetArn":"{dlq_arn}","maxReceiveCount":2}}"#);
    let src = crate::common::create_queue(
        client,
        &format!("{prefix}src"),
        &[("RedrivePolicy", &policy), ("VisibilityTimeout", "0")],
    )
    .await;
    for (i, body) in ["one", "two", "three"].iter().enumerate() {
        let attr = |v: &str| {
            MessageAttributeValue::builder()
                .data_type("String")
                .string_value(v)
                .build()
                .unwrap()
        };
        client
            .send_message()
            .queue_url(&src)
            .message_body(*body)
            .message_attributes("app.id", attr(&i.to_string()))
            .message_attributes("app.kind", attr("test"))
            .message_attributes("other", attr("x"))
            .send()
            .await
            .unwrap();
    }
    for filter in ["app.*", "other", "All", "none"] {
        let out = client
            .receive_message()
            .queue_url(&src)
            .max_number_of_messages(10)
            .message_attribute_names(filter)
            .message_system_attribute_names(S::ApproximateReceiveCount)
            .send()
            .await
            .unwrap();
        for m in out.messages() {
            let mut names: Vec<&String> = m
                .message_attributes()
                .map(|a| a.keys().collect())
                .unwrap_or_default();
            names.sort();
            let count = &m.attributes().unwrap()[&S::ApproximateReceiveCount];
            seen.push(format!(
                "{filter}: {:?} count={count} attrs={names:?} md5={:?}",
                m.body(),
                m.md5_of_message_attributes()
            ));
        }
    }
    let attributes = client
        .get_queue_attributes()
        .queue_url(&dlq)
        .attribute_names(A::ApproximateNumberOfMessages)
        .send()
        .await
        .unwrap();
    seen.push(format!(
        "dlq count {:?}",
        attributes.attributes().unwrap()[&A::ApproximateNumberOfMessages]
    ));
    let dead = client
        .receive_message()
        .queue_url(&dlq)
        .max_number_of_messages(10)
        .send()
        .await
        .unwrap();
    let mut bodies: Vec<&str> = dead.messages().iter().filter_map(|m| m.body()).collect();
    bodies.sort();
    seen.push(format!("dlq {bodies:?}"));
    let sources = client
        .list_dead_letter_source_queues()
        .queue_url(&dlq)
        .send()
        .await
        .unwrap();
    let sources: Vec<String> = sources
        .queue_urls()
        .iter()
        .map(|u| url_name(u).replace(prefix, ""))
        .collect();
    seen.push(format!("sources {sources:?}"));
    seen
}

#[tokio::test]
async fn redrive_and_attribute_filters_agree_with_moto() {
    let Some(moto) = moto_endpoint() else {
        eprintln!("skipped: MOTO_ENDPOINT is not set (scripts/oracles/moto.sh starts moto)");
        return;
    };
    let cloud = start().await;
    let prefix = format!("redrive{}-", std::process::id());
    let ours = redrive_scenario(&cloud.client, &prefix).await;
    let theirs = redrive_scenario(&client_for(&moto), &prefix).await;
    assert!(
        ours.contains(&r#"dlq ["one", "three", "two"]"#.to_string()),
        "{ours:#?}"
    );
    assert_eq!(ours, theirs);
}
