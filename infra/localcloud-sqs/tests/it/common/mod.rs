//! Starts the SQS service on an ephemeral port and builds a real
//! `aws-sdk-sqs` client against it.
#![allow(dead_code)]

use std::sync::Arc;

use aws_sdk_sqs::config::{BehaviorVersion, Region};
use aws_sdk_sqs::Client;
use localcloud_core::{serve_on_ephemeral_port, Dispatcher, ServerHandle};
use localcloud_sqs::SqsService;

pub struct Cloud {
    pub client: Client,
    pub service: Arc<SqsService>,
    pub endpoint: String,
    _server: ServerHandle,
}

pub async fn start() -> Cloud {
    let service = Arc::new(SqsService::new("http://localhost"));
    let dispatcher = Dispatcher::new().with_json(service.clone());
    let server = serve_on_ephemeral_port(Arc::new(dispatcher))
        .await
        .expect("bind");
    let endpoint = format!("http://{}", server.addr);
    service.set_endpoint(&endpoint);
    Cloud {
        client: client_for(&endpoint),
        service,
        endpoint,
        _server: server,
    }
}

pub fn client_for(endpoint: &str) -> Client {
    let credentials =
        aws_credential_types::Credentials::new("AKIDLOCALCLOUD", "secret", None, None, "test");
    let config = aws_sdk_sqs::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .credentials_provider(credentials)
        .endpoint_url(endpoint)
        .build();
    Client::from_conf(config)
}

impl Cloud {
    /// Creates a queue with the given attributes and returns its URL.
    pub async fn queue(&self, name: &str, attributes: &[(&str, &str)]) -> String {
        create_queue(&self.client, name, attributes).await
    }

    pub async fn arn(&self, url: &str) -> String {
        queue_arn(&self.client, url).await
    }
}

pub async fn create_queue(client: &Client, name: &str, attributes: &[(&str, &str)]) -> String {
    let mut request = client.create_queue().queue_name(name);
    for (k, v) in attributes {
        request = request.attributes((*k).into(), *v);
    }
    request
        .send()
        .await
        .expect("create queue")
        .queue_url
        .expect("url")
}

pub async fn queue_arn(client: &Client, url: &str) -> String {
    let out = client
        .get_queue_attributes()
        .queue_url(url)
        .attribute_names(aws_sdk_sqs::types::QueueAttributeName::QueueArn)
        .send()
        .await
        .expect("attributes");
    out.attributes.unwrap()[&aws_sdk_sqs::types::QueueAttributeName::QueueArn].clone()
}

pub fn code<E: aws_sdk_sqs::error::ProvideErrorMetadata>(err: &E) -> String {
    err.code().unwrap_or("<none>").to_string()
}
