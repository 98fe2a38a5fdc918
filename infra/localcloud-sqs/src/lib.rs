//! The local cloud's SQS: standard and FIFO queues spoken over the AWS JSON 1.0
//! protocol (`X-Amz-Target: AmazonSQS.<Op>`), with visibility timeouts, long
//! polling, dead-letter redrive, and request counting as SQS bills it.
//!
//! [`SqsService`] is both the [`localcloud_core::JsonService`] mounted on the
//! shared endpoint and the in-process API the Lambda event source mapping
//! pollers call ([`SqsService::receive`], [`SqsService::delete`],
//! [`SqsService::change_visibility`], and the core's
//! [`localcloud_core::QueueConsumer`] contract). Both are billed alike
//! ([`SqsService::metrics`]).
//!
//! Layout: `api` reads and writes the JSON protocol; `service` and
//! `message_ops` apply SQS's rules and billing; `queue` is one queue's
//! message life cycle; `registry` finds queues by name, URL or ARN.

// `AwsError` is the core's error type, fixed by the `JsonService` contract;
// errors are rare and cheap next to an HTTP round trip, so no boxing.
#![allow(clippy::result_large_err)]

mod api;
mod consumer;
pub mod error;
mod handle;
pub mod message_attrs;
mod message_ops;
pub mod metrics;
mod permissions;
mod persist;
mod poller;
mod queue;
mod registry;
mod send;
mod service;
pub mod settings;

pub use message_attrs::{AttributeValue, MessageAttribute, MessageAttributes};
pub use metrics::{QueueMetrics, SqsMetrics};
pub use persist::SqsSnapshot;
pub use registry::Queue;
pub use service::{QueueInfo, ReceivedMessage, SendRequest, SendResult, SqsService};
