//! Helpers shared by the orders crate's integration tests.
#![allow(dead_code)]

/// A DynamoDB client of the local cloud at `endpoint`, with test credentials.
pub fn client(endpoint: &str) -> aws_sdk_dynamodb::Client {
    let credentials =
        aws_credential_types::Credentials::new("AKIDTEST", "secret", None, None, "test");
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
        .region(aws_sdk_dynamodb::config::Region::new("us-east-1"))
        .credentials_provider(credentials)
        .endpoint_url(endpoint)
        .build();
    aws_sdk_dynamodb::Client::from_conf(config)
}
