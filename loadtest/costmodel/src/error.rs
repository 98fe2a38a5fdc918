//! The crate's one error type: every failure names what is missing and what exists.

use thiserror::Error;

pub type Result<T, E = CostError> = std::result::Result<T, E>;

#[derive(Debug, Clone, PartialEq, Error)]
pub enum CostError {
    #[error("price table, line {line}: {message}")]
    PriceTableSyntax { line: usize, message: String },

    #[error("cannot read price table {path}: {message}")]
    PriceTableRead { path: String, message: String },

    #[error("unknown region `{region}`; the price table has: {}", available.join(", "))]
    UnknownRegion {
        region: String,
        available: Vec<String>,
    },

    #[error(
        "unknown architecture `{architecture}` for {service}.{item} in {region}; the price table has: {}",
        available.join(", ")
    )]
    UnknownArchitecture {
        region: String,
        service: String,
        item: String,
        architecture: String,
        available: Vec<String>,
    },

    #[error("the price table has no {kind} line for {service}.{item} in {region}{}", as_of_suffix(.as_of))]
    MissingItem {
        region: String,
        service: String,
        item: String,
        kind: String,
        as_of: Option<String>,
    },

    #[error("invalid usage: {0}")]
    InvalidUsage(String),

    #[error("Lambda log, line {line}: {message}")]
    ReportLine { line: usize, message: String },
}

fn as_of_suffix(as_of: &Option<String>) -> String {
    as_of
        .as_ref()
        .map(|date| format!(" in effect on {date}"))
        .unwrap_or_default()
}
