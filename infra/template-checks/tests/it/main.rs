//! Checks of the project's template.yaml, one module per area.
//!
//! One binary for the whole crate: each test binary links the AWS SDK, tokio
//! and hyper stack again, so one per file multiplied the build's link time.

mod bench_agrees;
mod cold_starts;
mod common;
mod docs_links;
mod import_circles;
mod least_privilege;
mod one_source_of_truth;
mod readme_results;
mod reply_sweeper;
