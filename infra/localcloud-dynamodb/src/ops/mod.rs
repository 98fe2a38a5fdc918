//! One module per family of operations; each function takes the service and
//! the raw JSON body and returns the JSON response body.

pub mod backups;
pub mod batch;
pub mod common;
pub mod control;
pub mod items;
pub mod legacy;
pub mod partiql;
pub mod read;
pub mod tags;
pub mod transact;
pub mod update_table;
pub mod walk;
