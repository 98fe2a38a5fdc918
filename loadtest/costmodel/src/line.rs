//! One line of a bill: a quantity of one price table item, priced.

use serde::{Deserialize, Serialize};

use crate::prices::PriceLine;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CostLine {
    pub service: String,
    /// What is billed, as shown ("duration (waiting)").
    pub item: String,
    /// Function, queue or table; empty for account-wide lines.
    pub resource: String,
    pub quantity: f64,
    pub unit: String,
    /// `price_usd` dollars per `price_per` units, as the table states it.
    pub price_usd: f64,
    pub price_per: f64,
    pub usd: f64,
    /// The price table item the line is billed under (free tier matching uses it).
    pub price_item: String,
    /// The price line's architecture (`any` unless the price depends on it).
    pub architecture: String,
}

impl CostLine {
    /// `quantity` of `price`'s unit, billed as `item` of `resource`.
    pub(crate) fn priced(price: &PriceLine, item: &str, resource: &str, quantity: f64) -> Self {
        Self {
            service: price.service.clone(),
            item: item.to_string(),
            resource: resource.to_string(),
            quantity,
            unit: price.unit.clone(),
            price_usd: price.usd.unwrap_or(0.0),
            price_per: price.quantity,
            usd: quantity * price.usd_per_unit(),
            price_item: price.item.clone(),
            architecture: price.architecture.clone(),
        }
    }

    /// Dollars per unit, at the price the line states.
    pub(crate) fn usd_per_unit(&self) -> f64 {
        self.price_usd / self.price_per
    }
}
