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
        "unknown architecture `{architecture}` for {item}; the price table has: {}",
        available.join(", ")
    )]
    UnknownArchitecture {
        architecture: String,
        /// `service.item in region`.
        item: String,
        available: Vec<String>,
    },

    #[error("the price table has no {what}{}", as_of_suffix(.as_of))]
    MissingItem {
        /// `kind line for service.item in region`.
        what: String,
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
