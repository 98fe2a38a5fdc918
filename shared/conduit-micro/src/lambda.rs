//! One entry point per service, for the three kinds of event it receives:
//! API Gateway HTTP API (payload v2) events on its public routes, internal
//! requests by direct Invoke, and SQS batches of internal requests (queue
//! transport), answered concurrently with partial batch failure.

use aws_lambda_events::sqs::{SqsBatchResponse, SqsEvent};
use conduit::auth::Tokens;
use conduit::store::dynamo::{DynamoArticles, DynamoComments, DynamoFollows, DynamoUsers};
use conduit::App;
use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::Value;
use std::sync::Arc;
use thin_runtime::{Function, FunctionError};
use transport::AnyTransport;

use crate::app::{compose, Connections};
use crate::owner::{Owned, OwnerError};
use crate::service::Service;
use crate::settings::Settings;

/// What arrived, told apart by the event's shape.
#[derive(Debug)]
pub enum Event {
    Http(conduit::http::ApiRequest),
    Internal(Value),
    Queue(SqsEvent),
}

/// The keys that tell the three kinds of event apart, read without
/// building the document.
#[derive(Deserialize)]
struct Shape {
    #[serde(rename = "Records")]
    records: Option<IgnoredAny>,
    #[serde(rename = "requestContext")]
    request_context: Option<IgnoredAny>,
    op: Option<IgnoredAny>,
}

impl Event {
    pub fn parse(event: &[u8]) -> Result<Self, FunctionError> {
        let unknown =
            || bad_event("neither an HTTP API event, an SQS batch nor an internal request".into());
        let shape: Shape = serde_json::from_slice(event).map_err(|_| unknown())?;
        if shape.records.is_some() {
            serde_json::from_slice(event)
                .map(Event::Queue)
                .map_err(|e| bad_event(format!("not an SQS event: {e}")))
        } else if shape.request_context.is_some() {
            conduit::lambda::event_request(event)
                .map(Event::Http)
                .map_err(|e| bad_event(e.to_string()))
        } else if shape.op.is_some() {
            serde_json::from_slice(event)
                .map(Event::Internal)
                .map_err(|e| bad_event(e.to_string()))
        } else {
            Err(unknown())
        }
    }
}

fn to_bytes(answer: &impl serde::Serialize) -> Result<Vec<u8>, FunctionError> {
    serde_json::to_vec(answer).map_err(|e| FunctionError::new("InternalError", e.to_string()))
}

fn bad_event(message: String) -> FunctionError {
    FunctionError::new("BadRequest", message)
}

/// A service's function: the conduit app it serves the public routes with,
/// and the store it answers internal requests from.
pub struct ServiceFunction {
    pub app: App,
    pub owned: Owned,
    pub sqs: aws_sdk_sqs::Client,
}

impl Function for ServiceFunction {
    /// Runs one event; the bytes are the function's response document.
    async fn invoke(&self, event: &[u8]) -> Result<Vec<u8>, FunctionError> {
        match Event::parse(event)? {
            Event::Http(request) => Ok(conduit::lambda::proxy_response(
                &crate::prefetch::serve(&self.app, request).await,
            )),
            Event::Internal(payload) => {
                let answer = self.owned.answer_json(payload).await.map_err(|e| {
                    log_owner_error(&e);
                    FunctionError::new(e.error_type(), e.to_string())
                })?;
                to_bytes(&answer)
            }
            Event::Queue(batch) => to_bytes(&self.answer_batch(batch).await),
        }
    }
}

impl ServiceFunction {
    /// [`Function::invoke`] on a JSON document, for tests.
    pub async fn handle(&self, event: Value) -> Result<Value, FunctionError> {
        let answer = self.invoke(event.to_string().as_bytes()).await?;
        Ok(serde_json::from_slice(&answer).expect("a function answers JSON"))
    }

    /// Answers every request of the batch concurrently; a request whose reply
    /// could not be sent is reported as a batch item failure (retried, then DLQ).
    pub async fn answer_batch(&self, batch: SqsEvent) -> SqsBatchResponse {
        transport::worker::answer_batch(&self.sqs, batch, |payload| async move {
            self.owned.answer_json(payload).await.map_err(|e| {
                log_owner_error(&e);
                (e.error_type().to_string(), e.to_string())
            })
        })
        .await
    }
}

fn log_owner_error(error: &OwnerError) {
    match error {
        OwnerError::Store { source, .. } => tracing::error!(source = ?source, "{error}"),
        _ => tracing::warn!("{error}"),
    }
}

/// The store `service` owns, on DynamoDB.
pub fn dynamo_store(service: Service, client: aws_sdk_dynamodb::Client, table: &str) -> Owned {
    match service {
        Service::Users => Owned::Users(Arc::new(DynamoUsers::new(client, table))),
        Service::Profiles => Owned::Follows(Arc::new(DynamoFollows::new(client, table))),
        Service::Articles => Owned::Articles(Arc::new(DynamoArticles::new(client, table))),
        Service::Comments => Owned::Comments(Arc::new(DynamoComments::new(client, table))),
    }
}

/// One transport per owner called, as the settings ask.
pub fn connections(
    settings: &Settings,
    config: &aws_config::SdkConfig,
) -> Connections<AnyTransport> {
    let Some(transport) = &settings.transport else {
        return Connections::default();
    };
    let mut transports = transport.transports(config);
    Connections::for_service(settings.service, |owner| {
        Arc::new(
            transports
                .remove(owner.name())
                .expect("the settings name every owner called"),
        )
    })
}

/// The INIT phase of a service's function: configuration errors fail it,
/// not the first request.
pub async fn init(service: Service) -> Result<ServiceFunction, FunctionError> {
    let settings = Settings::from_env(service).map_err(FunctionError::config_invalid)?;
    let tokens = Tokens::from_env().map_err(FunctionError::config_invalid)?;
    let config = sdk_config::load().await;
    let sqs = aws_sdk_sqs::Client::new(&config);
    let owned = dynamo_store(
        service,
        aws_sdk_dynamodb::Client::new(&config),
        &settings.table,
    );
    let connections = connections(&settings, &config);
    Ok(ServiceFunction {
        app: compose(&owned, &connections, tokens),
        owned,
        sqs,
    })
}
