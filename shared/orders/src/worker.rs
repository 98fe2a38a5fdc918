//! The back end's entry: one function serves both paths. A direct invoke
//! carries `{"size": N}`; the queue path delivers SQS batches of requests
//! (see [`transport::worker`]), answered concurrently, with partial batch
//! failure so that one bad request does not retry its neighbours.

use aws_lambda_events::sqs::{SqsBatchResponse, SqsEvent};
use serde::Deserialize;
use serde_json::{json, Value};
use transport::worker::answer_batch;

use crate::backend::OrdersBackend;
use crate::error::BackendError;

#[derive(Debug, Deserialize)]
pub struct OrdersRequest {
    pub size: u32,
}

/// What the back end's event is.
pub enum BackendEvent {
    Direct(OrdersRequest),
    Queue(SqsEvent),
}

impl BackendEvent {
    pub fn parse(event: Value) -> Result<Self, BackendError> {
        if event.get("Records").is_some() {
            serde_json::from_value(event)
                .map(BackendEvent::Queue)
                .map_err(|e| BackendError::BadRequest(format!("not an SQS event: {e}")))
        } else {
            serde_json::from_value(event)
                .map(BackendEvent::Direct)
                .map_err(|e| BackendError::BadRequest(format!("expected {{\"size\": N}}: {e}")))
        }
    }
}

/// Runs the event; the `Value` is the function's response.
pub async fn handle(
    backend: &OrdersBackend,
    sqs: &aws_sdk_sqs::Client,
    event: Value,
) -> Result<Value, BackendError> {
    match BackendEvent::parse(event)? {
        BackendEvent::Direct(request) => {
            let orders = backend.get_orders(request.size).await?;
            Ok(json!(orders))
        }
        BackendEvent::Queue(batch) => {
            let response = handle_batch(backend, sqs, batch).await;
            Ok(serde_json::to_value(response).expect("batch responses serialise"))
        }
    }
}

pub async fn handle_batch(
    backend: &OrdersBackend,
    sqs: &aws_sdk_sqs::Client,
    batch: SqsEvent,
) -> SqsBatchResponse {
    answer_batch(sqs, batch, |payload| async move {
        let request: OrdersRequest = serde_json::from_value(payload).map_err(|e| {
            (
                "BadRequest".to_string(),
                format!("expected {{\"size\": N}}: {e}"),
            )
        })?;
        match backend.get_orders(request.size).await {
            Ok(orders) => Ok(json!(orders)),
            Err(BackendError::BadRequest(message)) => Err(("BadRequest".to_string(), message)),
            Err(e) => {
                tracing::error!("orders back end failed: {e}");
                Err((
                    "BackendFailure".to_string(),
                    "the orders back end failed".to_string(),
                ))
            }
        }
    })
    .await
}
