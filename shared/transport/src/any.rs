//! The transport of a deployment, whichever of the two it is.

use serde_json::Value;

use crate::call::{Transport, TransportError};
use crate::invoke::InvokeTransport;
use crate::reply::RequestReply;

/// One of the two transports, chosen per deployment (`Transport` is not
/// object-safe, so this enum stands in for `dyn Transport`).
pub enum AnyTransport {
    Invoke(InvokeTransport),
    Queue(RequestReply),
}

impl Transport for AnyTransport {
    async fn call(&self, request: Value) -> Result<Value, TransportError> {
        match self {
            AnyTransport::Invoke(t) => t.call(request).await,
            AnyTransport::Queue(t) => t.call(request).await,
        }
    }
}
