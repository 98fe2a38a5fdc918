//! One entry point per service, for the three kinds of event it receives:
//! API Gateway HTTP API (payload v2) events on its public routes, internal
//! requests by direct Invoke, and SQS batches of internal requests (queue
//! transport), answered concurrently with partial batch failure.

use aws_lambda_events::sqs::{SqsBatchResponse, SqsEvent};
use conduit::auth::Tokens;
use conduit::store::dynamo::{DynamoArticles, DynamoComments, DynamoFollows, DynamoUsers};
use conduit::{ApiResponse, App};
use lambda_runtime::{service_fn, Diagnostic, LambdaEvent};
use serde_json::{json, Value};
use std::sync::Arc;
use transport::AnyTransport;

use crate::owner::{Owned, OwnerError};
use crate::settings::Settings;
use crate::{compose, Connections, Service};

/// What arrived, told apart by the event's shape.
#[derive(Debug)]
pub enum Event {
    Http(Box<lambda_http::Request>),
    Internal(Value),
    Queue(SqsEvent),
}

impl Event {
    pub fn parse(event: Value) -> Result<Self, Diagnostic> {
        if event.get("Records").is_some() {
            serde_json::from_value(event)
                .map(Event::Queue)
                .map_err(|e| bad_event(format!("not an SQS event: {e}")))
        } else if event.get("requestContext").is_some() {
            lambda_http::request::from_str(&event.to_string())
                .map(|request| Event::Http(Box::new(request)))
                .map_err(|e| bad_event(format!("not an API Gateway event: {e}")))
        } else if event.get("op").is_some() {
            Ok(Event::Internal(event))
        } else {
            Err(bad_event(
                "neither an HTTP API event, an SQS batch nor an internal request".into(),
            ))
        }
    }
}

fn bad_event(message: String) -> Diagnostic {
    Diagnostic {
        error_type: "BadRequest".into(),
        error_message: message,
    }
}

/// A service's function: the conduit app it serves the public routes with,
/// and the store it answers internal requests from.
pub struct ServiceFunction {
    pub app: App,
    pub owned: Owned,
    pub sqs: aws_sdk_sqs::Client,
}

impl ServiceFunction {
    /// Runs one event; the `Value` is the function's response.
    pub async fn handle(&self, event: Value) -> Result<Value, Diagnostic> {
        match Event::parse(event)? {
            Event::Http(request) => {
                let request = conduit::lambda::to_api_request(*request);
                Ok(http_response(
                    crate::prefetch::serve(&self.app, request).await,
                ))
            }
            Event::Internal(payload) => self.owned.answer_json(payload).await.map_err(|e| {
                log_owner_error(&e);
                Diagnostic {
                    error_type: e.error_type().into(),
                    error_message: e.to_string(),
                }
            }),
            Event::Queue(batch) => {
                let response = self.answer_batch(batch).await;
                serde_json::to_value(response).map_err(|e| bad_event(e.to_string()))
            }
        }
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

/// The HTTP API (payload v2) response for `response`.
pub fn http_response(response: ApiResponse) -> Value {
    let mut headers = serde_json::Map::new();
    for name in response.headers.keys() {
        let values: Vec<&str> = response
            .headers
            .get_all(name)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect();
        headers.insert(name.as_str().to_owned(), json!(values.join(",")));
    }
    let mut answer = json!({
        "statusCode": response.status.as_u16(),
        "headers": headers,
        "isBase64Encoded": false,
    });
    if !response.body.is_empty() {
        answer["body"] = json!(String::from_utf8_lossy(&response.body));
    }
    answer
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

/// The whole `main` of a service's function.
pub async fn run(service: Service) -> Result<(), lambda_runtime::Error> {
    lambda_runtime::tracing::init_default_subscriber();
    // Fail the INIT phase, not the first request, when configuration is wrong.
    let settings = Settings::from_env(service)?;
    let tokens = Tokens::from_env()?;
    let config = conduit::sdk::load().await;
    let sqs = aws_sdk_sqs::Client::new(&config);
    let owned = dynamo_store(
        service,
        aws_sdk_dynamodb::Client::new(&config),
        &settings.table,
    );
    let connections = connections(&settings, &config);
    let function = ServiceFunction {
        app: compose(&owned, &connections, tokens),
        owned,
        sqs,
    };
    let function = &function;
    lambda_runtime::run(service_fn(move |event: LambdaEvent<Value>| async move {
        function.handle(event.payload).await
    }))
    .await
}
