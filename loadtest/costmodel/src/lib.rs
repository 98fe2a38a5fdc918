//! The cost model: what each architecture costs on AWS for the same traffic.
//!
//! Usage from any source (the local cloud's metering, Lambda REPORT log lines, a
//! what-if scenario) becomes one [`Usage`]; [`cost`] prices it with a dated
//! [`PriceTable`] into a [`CostBreakdown`], line by line, per request and per month.
//! See `docs/cost-model.md` for the formulas and what is not modelled.

pub mod bill;
mod cost;
mod error;
pub mod examples;
mod format;
mod line;
pub mod managed;
mod metering;
mod monthly;
mod options;
mod prices;
mod render;
pub mod sources;
mod usage;
pub mod whatif;

pub use cost::{cost, ratio, CostBreakdown, CostRatio, Dominant, ServiceTotal};
pub use error::{CostError, Result};
pub use format::{quantity, usd};
pub use line::CostLine;
pub use metering::{Metering, ReadConsistency, WriteKind};
pub use monthly::MonthlyCost;
pub use options::{CostOptions, DEFAULT_HOURS_PER_MONTH, DEFAULT_LOG_RETENTION_DAYS};
pub use prices::{
    LineKind, PriceLine, PriceTable, RegionPrices, ANY_ARCHITECTURE, DEFAULT_PRICES_CSV,
};
pub use render::comparison_markdown;
pub use usage::{ApiGatewayUsage, FunctionUsage, ManagedUsage, QueueUsage, TableUsage, Usage};
