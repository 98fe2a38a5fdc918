//! Conduit as four microservices (issue 5). Each service owns one kind of
//! data and serves the public routes of its resource with the unchanged
//! conduit logic; where that logic reads another owner's data, a remote store
//! calls the owner's internal batch API over a [`transport::Transport`]
//! (synchronous Invoke or SQS request/reply, chosen per deployment).
//!
//! - [`service`]: the four services and their names;
//! - [`wire`]: the internal requests and the records they answer with;
//! - [`remote`]: the conduit store traits over the internal API;
//! - [`owner`]: each owner answering internal requests from its store;
//! - [`app`]: one service's conduit `App`, its own store and remote ones;
//! - [`prefetch`]: author cards and "following" fetched in parallel;
//! - [`cluster`] and [`loopback`]: the four services in one process, for tests;
//! - [`settings`] and [`lambda`]: one entry point per service for public HTTP
//!   events, internal invokes and SQS batches of internal requests.

pub mod app;
pub mod cluster;
pub mod lambda;
pub mod loopback;
pub mod owner;
pub mod prefetch;
pub mod remote;
pub mod service;
pub mod settings;
pub mod wire;

pub use app::{compose, Connections, Link};
pub use service::{Service, UnknownService};
