//! What the SDK tests share: a local S3 on an ephemeral port, a client of
//! it, and moto's endpoint for the differential tests.

// Each test binary uses part of this module.
#![allow(dead_code)]

use std::sync::Arc;

use aws_sdk_s3::Client;
use localcloud_core::{Dispatcher, ServerHandle};
use localcloud_s3::S3Service;

pub async fn start() -> (ServerHandle, Arc<S3Service>) {
    let s3 = Arc::new(S3Service::new());
    let dispatcher = Dispatcher::new().with_path(s3.clone());
    let server = localcloud_core::serve_on_ephemeral_port(Arc::new(dispatcher))
        .await
        .unwrap();
    (server, s3)
}

pub fn client(endpoint: &str, region: &str, path_style: bool) -> Client {
    let creds = aws_credential_types::Credentials::new("x", "x", None, None, "test");
    let config = aws_sdk_s3::Config::builder()
        .behavior_version(aws_sdk_s3::config::BehaviorVersion::latest())
        .region(aws_sdk_s3::config::Region::new(region.to_string()))
        .credentials_provider(creds)
        .endpoint_url(endpoint)
        .force_path_style(path_style)
        .build();
    Client::from_conf(config)
}

/// A local S3 with these buckets (us-east-1) and a path-style client.
pub async fn with_buckets(names: &[&str]) -> (ServerHandle, Client) {
    let (server, _) = start().await;
    let s3 = client(&format!("http://{}", server.addr), "us-east-1", true);
    for name in names {
        s3.create_bucket().bucket(*name).send().await.unwrap();
    }
    (server, s3)
}

/// moto's endpoint (`MOTO_ENDPOINT`, scripts/oracles/moto.sh); without it
/// differential tests say they are skipped, unless `LOCALCLOUD_REQUIRE_ORACLES=1`.
pub fn moto_endpoint() -> Option<String> {
    match std::env::var("MOTO_ENDPOINT") {
        Ok(e) if !e.is_empty() => Some(e),
        _ if std::env::var("LOCALCLOUD_REQUIRE_ORACLES").as_deref() == Ok("1") => {
            panic!("MOTO_ENDPOINT is not set and LOCALCLOUD_REQUIRE_ORACLES=1 (start it with scripts/oracles/moto.sh)")
        }
        _ => None,
    }
}
