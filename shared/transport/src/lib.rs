//! How one function calls another, with the same interface for both
//! transports the experiments compare:
//!
//! - [`InvokeTransport`]: a synchronous Lambda `Invoke` (RequestResponse) of
//!   the owner's function; throttling surfaces at once as [`TransportError::Throttled`].
//! - [`RequestReply`]: the request goes to the owner's SQS request queue; the
//!   reply comes back on a reply queue that belongs to this execution
//!   environment, so it reaches exactly the waiting caller.
//!
//! Which transport a function uses, and to whom, is read from its environment
//! by [`settings`]; the worker side of the queue transport is in [`worker`],
//! the clean-up of reply queues (a scheduled function's job) in [`sweep`].

mod any;
mod call;
pub mod envelope;
pub mod invoke;
pub mod reply;
pub mod settings;
pub mod sweep;
pub mod worker;

pub use any::AnyTransport;
pub use call::{Transport, TransportError};
pub use envelope::{Reply, ReplyOutcome, Request};
pub use invoke::InvokeTransport;
pub use reply::{RequestReply, RequestReplyConfig};
pub use settings::{SettingsError, TransportSettings, Via};
