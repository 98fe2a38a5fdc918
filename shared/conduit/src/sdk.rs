//! The AWS SDK configuration every Conduit function loads once, at init.

use aws_config::stalled_stream_protection::StalledStreamProtectionConfig;
use aws_config::{BehaviorVersion, SdkConfig};

/// The environment's configuration (region, credentials, `AWS_ENDPOINT_URL`)
/// with the SDK's default retries (standard mode, three attempts: throttling
/// exists) and without stalled-stream protection. That protection watches
/// streaming bodies (S3 transfers) for throughput below 1 B/s after a 5 s
/// grace period; it wraps every request and response body in a throughput
/// log and a timer, which cost about N % of a request's CPU here
/// (docs/benchmarks.md, "Where a request's CPU goes"), while our DynamoDB,
/// SQS and Lambda bodies are a few KB and a stalled call is still bounded by
/// the function's timeout.
pub async fn load() -> SdkConfig {
    aws_config::defaults(BehaviorVersion::latest())
        .stalled_stream_protection(StalledStreamProtectionConfig::disabled())
        .load()
        .await
}
