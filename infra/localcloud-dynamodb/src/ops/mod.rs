//! One module per family of operations; each function takes the service and
//! the raw JSON body and returns the JSON response body.

pub mod batch;
pub mod common;
pub mod control;
pub mod items;
pub mod read;
pub mod transact;
pub mod walk;
