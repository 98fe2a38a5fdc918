//! The queue a request names by its `QueueUrl` member.

use std::sync::Arc;

use super::input::Input;
use crate::registry::Queue;
use crate::service::SqsService;
use localcloud_core::{AwsError, RequestContext};

/// The queue named by the request's `QueueUrl`; failures count as calls that
/// reached no queue.
pub(super) fn queue_of(
    service: &SqsService,
    ctx: &RequestContext,
    input: &Input,
) -> Result<Arc<Queue>, AwsError> {
    let found = input
        .str("QueueUrl")
        .and_then(|url| service.queue_by_url(&ctx.region, &ctx.account_id, url));
    found.inspect_err(|_| service.unattributed_call())
}
