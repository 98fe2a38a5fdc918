//! The load tests and the bench driver (issue 8): Goose scenarios for the
//! orders and Conduit experiments, run against the local cloud (one child
//! `localcloud serve` per run) or a deployed stack, metered from the local
//! cloud's counters, priced by `costmodel`, reported as `results.json`, a
//! self-contained HTML page and a Markdown summary. See `docs/bench.md`.

pub mod apis;
pub mod break_even;
pub mod compute;
pub mod cpu;
pub mod driver;
pub mod iam;
pub mod ledger;
pub mod lmi_config;
pub mod metering;
pub mod monthly;
pub mod monthly_render;
pub mod pass;
pub mod plan;
pub mod pricing;
pub mod recorder;
pub mod report;
pub mod results;
pub mod runner;
pub mod scenarios;
pub mod seed;
pub mod sla;
pub mod stats;
pub mod target;
pub mod tune;
pub mod variants;

#[cfg(test)]
mod testdata;
