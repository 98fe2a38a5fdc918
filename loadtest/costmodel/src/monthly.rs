//! Monthly figures: a run's lines scaled to a month of steady traffic, then the
//! account-wide volume tiers and always-free allowances applied to the month's totals.

use serde::{Deserialize, Serialize};

use crate::error::{CostError, Result};
use crate::format::quantity;
use crate::line::CostLine;
use crate::options::CostOptions;
use crate::prices::{LineKind, RegionPrices, ANY_ARCHITECTURE};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MonthlyCost {
    pub requests_per_second: f64,
    pub hours_per_month: f64,
    pub requests_per_month: f64,
    /// The usage lines scaled to a month, at first-tier prices.
    pub lines: Vec<CostLine>,
    /// Units beyond a volume tier's threshold, with their (negative) saving against
    /// the first-tier price.
    pub volume_discounts: Vec<CostLine>,
    /// Always-free allowances, as negative lines (quantity and dollars).
    pub free_tier: Vec<CostLine>,
    /// Volume tiers applied.
    pub usd_without_free_tier: f64,
    pub usd_with_free_tier: f64,
    /// `usd_with_free_tier` per 1M public requests of the month.
    pub usd_per_million_requests_with_free_tier: f64,
}

pub(crate) fn monthly(
    lines: &[CostLine],
    public_requests: f64,
    rate: f64,
    options: &CostOptions,
    prices: &RegionPrices<'_>,
) -> Result<MonthlyCost> {
    let hours = options.hours_per_month;
    if !(rate.is_finite() && rate >= 0.0 && hours.is_finite() && hours > 0.0) {
        return Err(CostError::InvalidUsage(format!(
            "request rate ({rate}/s) and hours per month ({}) must be non-negative numbers",
            options.hours_per_month
        )));
    }
    let requests_per_month = rate * options.hours_per_month * 3600.0;
    let scale = requests_per_month / public_requests;
    let scaled: Vec<CostLine> = lines
        .iter()
        .map(|line| CostLine {
            quantity: line.quantity * scale,
            usd: line.usd * scale,
            ..line.clone()
        })
        .collect();
    let volume_discounts = volume_discounts(&scaled, prices);
    let free_tier = free_tier_credits(&scaled, prices);
    Ok(MonthlyCost::totalled(
        rate,
        options.hours_per_month,
        requests_per_month,
        scaled,
        volume_discounts,
        free_tier,
    ))
}

impl MonthlyCost {
    /// A month of these lines, with its totals summed from them.
    pub(crate) fn totalled(
        requests_per_second: f64,
        hours_per_month: f64,
        requests_per_month: f64,
        lines: Vec<CostLine>,
        volume_discounts: Vec<CostLine>,
        free_tier: Vec<CostLine>,
    ) -> Self {
        let sum = |lines: &[CostLine]| lines.iter().map(|l| l.usd).sum::<f64>();
        let without_free_tier = sum(&lines) + sum(&volume_discounts);
        let with_free_tier = without_free_tier + sum(&free_tier);
        let per_million = if requests_per_month > 0.0 {
            with_free_tier / requests_per_month * 1e6
        } else {
            0.0
        };
        Self {
            requests_per_second,
            hours_per_month,
            requests_per_month,
            lines,
            volume_discounts,
            free_tier,
            usd_without_free_tier: without_free_tier,
            usd_with_free_tier: with_free_tier,
            usd_per_million_requests_with_free_tier: per_million,
        }
    }
}

/// Lines are priced at the first tier; the month's units beyond each higher tier's
/// threshold (summed over the lines sharing the price) get the difference back.
fn volume_discounts(monthly: &[CostLine], prices: &RegionPrices<'_>) -> Vec<CostLine> {
    let mut groups: Vec<(&CostLine, f64)> = Vec::new();
    for line in monthly {
        let same_price = |(first, _): &&mut (&CostLine, f64)| {
            first.service == line.service
                && first.price_item == line.price_item
                && first.architecture == line.architecture
        };
        match groups.iter_mut().find(same_price) {
            Some((_, total)) => *total += line.quantity,
            None => groups.push((line, line.quantity)),
        }
    }
    let mut discounts = Vec::new();
    for (first, total) in groups {
        let tiers = prices.tiers(&first.service, &first.price_item, &first.architecture);
        let base = first.usd_per_unit();
        for (index, tier) in tiers.iter().enumerate().skip(1) {
            let end = tiers
                .get(index + 1)
                .map_or(f64::INFINITY, |t| t.monthly_from);
            let units = (total.min(end) - tier.monthly_from).max(0.0);
            if units <= 0.0 {
                continue;
            }
            discounts.push(CostLine {
                item: format!(
                    "volume tier: {} beyond {}",
                    first.price_item,
                    quantity(tier.monthly_from)
                ),
                resource: credit_resource(first),
                quantity: units,
                price_usd: tier.usd.unwrap_or(0.0),
                price_per: tier.quantity,
                usd: -units * (base - tier.usd_per_unit()),
                ..first.clone()
            });
        }
    }
    discounts
}

/// Each monthly allowance is spent on the dearest matching lines first (x86_64 before
/// arm64 for the shared Lambda GB-seconds): AWS does not document the order, and this
/// one gives the customer the most.
fn free_tier_credits(monthly: &[CostLine], prices: &RegionPrices<'_>) -> Vec<CostLine> {
    let mut credits: Vec<CostLine> = Vec::new();
    for allowance in prices.all_of_kind(LineKind::FreeTier) {
        let mut matching: Vec<&CostLine> = monthly
            .iter()
            .filter(|l| l.service == allowance.service && l.price_item == allowance.item)
            .filter(|l| {
                allowance.architecture == ANY_ARCHITECTURE
                    || l.architecture == allowance.architecture
            })
            .collect();
        matching.sort_by(|a, b| b.usd_per_unit().total_cmp(&a.usd_per_unit()));
        let mut left = allowance.quantity;
        for line in matching {
            let used = left.min(line.quantity);
            if used <= 0.0 {
                break;
            }
            left -= used;
            let credit = CostLine {
                item: format!("free tier: {}", allowance.item),
                resource: credit_resource(line),
                quantity: -used,
                usd: -used * line.usd_per_unit(),
                ..line.clone()
            };
            merge_credit(&mut credits, credit);
        }
    }
    credits
}

/// Only architecture-specific prices need telling apart.
fn credit_resource(line: &CostLine) -> String {
    match line.architecture.as_str() {
        ANY_ARCHITECTURE => String::new(),
        arch => arch.to_string(),
    }
}

fn merge_credit(credits: &mut Vec<CostLine>, credit: CostLine) {
    let same = credits.iter_mut().find(|c| {
        c.service == credit.service && c.item == credit.item && c.resource == credit.resource
    });
    match same {
        Some(existing) => {
            existing.quantity += credit.quantity;
            existing.usd += credit.usd;
        }
        None => credits.push(credit),
    }
}
