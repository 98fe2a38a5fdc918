//! A thin Lambda runtime: one event at a time on on-demand Lambda, as many
//! as `AWS_LAMBDA_MAX_CONCURRENCY` says on Lambda Managed Instances.
//!
//! `lambda_runtime` drives the Runtime API through hyper and tower on the
//! Tokio runtime, so that waiting for the next event is itself a task: after
//! every idle gap the whole async stack wakes up. Here the wait is a blocking
//! read on one keep-alive connection, and the Tokio runtime (one thread) runs
//! only while a handler does. On the local cloud this took a no-op HTTP
//! function from 0.53 to 0.13 ms of CPU per invocation after 20 ms idle
//! (docs/benchmarks.md, "The floor of an invocation").
//!
//! Between invocations nothing runs, as in a frozen Lambda environment: tasks
//! a handler spawned and left behind go on during the next invocation.
//! On Lambda Managed Instances (module `concurrent`), each of N threads
//! waits on its own connection and runs its handler; one Tokio worker
//! thread drives the I/O of them all.

mod concurrent;
mod error;
mod function;
mod run;
mod runtime_api;
mod serve;

pub use concurrent::{max_concurrency_from_env, run_concurrent_with};
pub use error::RuntimeError;
pub use function::{Function, FunctionError};
pub use run::{run, run_with};
pub use runtime_api::{Invocation, RuntimeApi};
