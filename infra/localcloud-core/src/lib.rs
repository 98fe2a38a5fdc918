//! Plumbing shared by every service of the local cloud: the HTTP server, the
//! AWS JSON 1.0 protocol (errors, request context), the dispatcher that tells
//! services apart by `X-Amz-Target` or by path, and the small contracts
//! between services (Lambda invocation, queue consumption).

pub mod context;
pub mod dispatch;
pub mod error;
pub mod invoke;
pub mod latency;
pub mod procstat;
pub mod queue;
pub mod server;
pub mod url;
pub mod xml;

pub use context::RequestContext;
pub use dispatch::{Dispatcher, Guard, JsonService, PathService};
pub use error::AwsError;
pub use invoke::{InvocationType, InvokeError, InvokeRequest, InvokeResponse, Invoker};
pub use latency::LatencyProfile;
pub use queue::{MessageAttribute, QueueConsumer, QueueMessage};
pub use server::{
    serve, serve_on_ephemeral_port, Handler, HttpRequest, HttpResponse, ServerHandle,
};
