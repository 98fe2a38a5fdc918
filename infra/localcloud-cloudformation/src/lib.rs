//! The local cloud's CloudFormation: change sets (create, describe, execute,
//! delete), stacks (describe, events, resources, template, summary, delete)
//! with CloudFormation's statuses and rollback, parameters (defaults,
//! `NoEcho`, `UsePreviousValue`), outputs and exports, over the query
//! protocol; and STS `GetCallerIdentity`, which deploy tools call first.
//!
//! The engine keeps the stacks' records; what a template creates is up to a
//! [`Backend`] (in `localcloud`, which reads templates with
//! `localcloud-template` and starts them in the emulated services).
//!
//! Change sets are computed when created, and an executed change set runs
//! in a task of its own; [`CloudFormation`] answers `ExecuteChangeSet` once
//! that task ends or after a short wait, so that waiters polling
//! `DescribeStacks` usually see the final status on their first call.

mod api;
mod backend;
mod engine;
mod execute;
mod input;
mod model;
mod query;
mod render;
mod sts;

pub use backend::{Backend, Deployed, Deployment, Failure, Output, Resource};
pub use engine::CloudFormation;
pub use model::{ChangeSetStatus, StackStatus};
pub use query::{Params, QueryError};
pub use sts::Sts;
