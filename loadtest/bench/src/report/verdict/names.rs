//! The architectures as the verdict names them.

use crate::results::RunRecord;

/// (variant, name in the verdict)
pub const DIRECT: (&str, &str) = ("orders-direct", "direct Invoke");
pub const QUEUE: (&str, &str) = ("orders-queue", "SQS request/reply");

pub const MONOLITH: (&str, &str) = ("conduit-monolith", "monolith");
pub const MICRO_INVOKE: (&str, &str) = ("conduit-micro-invoke", "micro-invoke");
pub const MICRO_QUEUE: (&str, &str) = ("conduit-micro-queue", "micro-queue");

/// The most users the run's load reached.
pub fn peak_users(r: &RunRecord) -> u64 {
    r.load.shape.peak_users()
}
