//! The AWS SDK configuration every Conduit function loads once, at init.

use aws_config::stalled_stream_protection::StalledStreamProtectionConfig;
use aws_config::{BehaviorVersion, SdkConfig};

/// The environment's configuration (region, credentials, `AWS_ENDPOINT_URL`)
/// with the SDK's default retries (standard mode, three attempts: throttling
/// exists) and without stalled-stream protection. That protection watches
/// streaming bodies (S3 transfers) for throughput below 1 B/s after a 20 s
/// grace period, longer than our functions' 10 s timeout, so it could never
/// fire here; yet it wraps every request and response body in a throughput
/// log and a timer, about a tenth of the monolith's CPU per request
/// (docs/benchmarks.md, "Where a request's CPU goes"). Our DynamoDB, SQS and
/// Lambda bodies are a few KB, and a stalled call stays bounded by the
/// function's timeout (internal Invokes by their own, `CALL_TIMEOUT_MS`).
pub async fn load() -> SdkConfig {
    aws_config::defaults(BehaviorVersion::latest())
        .stalled_stream_protection(StalledStreamProtectionConfig::disabled())
        .load()
        .await
}
