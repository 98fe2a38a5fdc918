//! The orders experiment (see `experiments.md`, section 1): `GET /orders/{size}`
//! answered by a deliberately slow back end, reached either by a synchronous
//! Lambda `Invoke` (`orders-direct`) or by SQS request/reply (`orders-queue`).
//!
//! - [`model`]: the order and the validation of `size`;
//! - [`error`]: what goes wrong reading (or seeding) the orders table;
//! - [`backend`]: the slow back end over DynamoDB (read only);
//! - [`table`]: how orders are stored, and the seeding that stores them;
//! - [`api`]: the public HTTP function, over any [`transport::Transport`];
//! - [`worker`]: the back end's answers to direct invokes and SQS batches;
//! - [`settings`]: every knob, read from the environment, with its default;
//! - [`runtime`]: the Tokio runtime, by compute type.

pub mod api;
pub mod backend;
pub mod error;
pub mod model;
pub mod runtime;
pub mod settings;
pub mod table;
pub mod worker;

pub use backend::OrdersBackend;
pub use error::BackendError;
pub use model::{parse_size, Order, SizeError, MAX_SIZE};
