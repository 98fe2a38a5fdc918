//! Plumbing shared by every service of the local cloud: the HTTP server, the
//! AWS JSON 1.0 protocol (errors, request context) and the dispatcher that tells
//! services apart by `X-Amz-Target` or by path.

pub mod context;
pub mod dispatch;
pub mod error;
pub mod server;

pub use context::RequestContext;
pub use dispatch::{Dispatcher, JsonService, PathService};
pub use error::AwsError;
pub use server::{serve, serve_on_ephemeral_port, Handler, HttpRequest, HttpResponse, ServerHandle};
