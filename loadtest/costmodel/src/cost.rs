//! Usage x prices = cost, line by line, per request and per month.

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::line::CostLine;
use crate::managed::instance_lines;
use crate::monthly::{monthly, MonthlyCost};
use crate::options::CostOptions;
use crate::prices::{LineKind, PriceTable, RegionPrices};
use crate::usage::{FunctionUsage, ManagedUsage, Usage};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServiceTotal {
    pub service: String,
    pub usd: f64,
    pub share: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Dominant {
    pub service: String,
    pub item: String,
    pub resource: String,
    pub usd: f64,
    /// Fraction of the total (0..=1).
    pub share: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CostBreakdown {
    pub label: String,
    pub region: String,
    pub price_table_version: String,
    pub price_date: Option<String>,
    pub public_requests: f64,
    /// Cost of the usage as measured (no free tier: it applies per month, never per request).
    pub lines: Vec<CostLine>,
    pub total_usd: f64,
    pub usd_per_request: f64,
    pub usd_per_million_requests: f64,
    pub by_service: Vec<ServiceTotal>,
    pub dominant: Option<Dominant>,
    pub monthly: Option<MonthlyCost>,
}

/// Prices `usage` in `region`. Fails on an unknown region or architecture, a missing
/// price, or usage no bill could contain.
pub fn cost(
    usage: &Usage,
    prices: &PriceTable,
    region: &str,
    options: &CostOptions,
) -> Result<CostBreakdown> {
    usage.validate()?;
    let regional = prices.region(region, options.price_date.as_deref())?;
    let lines = usage_lines(usage, &regional, options)?;
    let total_usd: f64 = lines.iter().map(|l| l.usd).sum();
    let monthly = match options.requests_per_second {
        Some(rate) => Some(monthly(
            &lines,
            usage.public_requests,
            rate,
            options,
            &regional,
        )?),
        None => None,
    };
    Ok(CostBreakdown {
        label: usage.label.clone(),
        region: region.to_string(),
        price_table_version: prices.version().to_string(),
        price_date: options.price_date.clone(),
        public_requests: usage.public_requests,
        total_usd,
        usd_per_request: total_usd / usage.public_requests,
        usd_per_million_requests: total_usd / usage.public_requests * 1e6,
        by_service: by_service(&lines, total_usd),
        dominant: dominant(&lines, total_usd),
        lines,
        monthly,
    })
}

fn usage_lines(
    usage: &Usage,
    prices: &RegionPrices<'_>,
    options: &CostOptions,
) -> Result<Vec<CostLine>> {
    let mut lines = Vec::new();
    let api = &usage.api_gateway;
    for (item, quantity) in [
        ("http_requests", api.http_requests),
        ("rest_requests", api.rest_requests),
    ] {
        if quantity > 0.0 {
            let price = prices.get("apigateway", item, LineKind::Price)?;
            lines.push(CostLine::priced(price, item, "", quantity));
        }
    }
    for function in &usage.lambda {
        lines.extend(lambda_lines(function, prices)?);
    }
    for queue in usage.sqs.iter().filter(|q| q.billed_requests > 0.0) {
        let price = prices.get("sqs", "requests", LineKind::Price)?;
        lines.push(CostLine::priced(
            price,
            "requests",
            &queue.name,
            queue.billed_requests,
        ));
    }
    for table in &usage.dynamodb {
        for (item, quantity) in [
            ("read_request_units", table.read_units),
            ("write_request_units", table.write_units),
        ] {
            if quantity > 0.0 {
                let price = prices.get("dynamodb", item, LineKind::Price)?;
                lines.push(CostLine::priced(price, item, &table.name, quantity));
            }
        }
    }
    lines.extend(log_lines(usage.log_bytes, prices, options)?);
    if usage.data_transfer_out_bytes > 0.0 {
        let bytes_per_gb = prices.get("datatransfer", "bytes_per_gb", LineKind::Metering)?;
        let price = prices.get("datatransfer", "internet_out", LineKind::Price)?;
        let gb = usage.data_transfer_out_bytes / bytes_per_gb.quantity;
        lines.push(CostLine::priced(price, "internet_out", "", gb));
    }
    Ok(lines)
}

/// Ingestion, and storage over the retention window: at a steady rate a log
/// group holds `retention days / days in a month` months of ingestion, so each
/// ingested GB is stored for that fraction of a GB-month. Stored bytes are
/// taken uncompressed (AWS bills them compressed): an upper bound.
fn log_lines(
    bytes: f64,
    prices: &RegionPrices<'_>,
    options: &CostOptions,
) -> Result<Vec<CostLine>> {
    if bytes <= 0.0 {
        return Ok(Vec::new());
    }
    let bytes_per_gb = prices.get("logs", "bytes_per_gb", LineKind::Metering)?;
    let gb = bytes / bytes_per_gb.quantity;
    let mut lines = vec![CostLine::priced(
        prices.get("logs", "ingestion", LineKind::Price)?,
        "ingestion",
        "",
        gb,
    )];
    if let Some(days) = options.log_retention_days {
        let months_kept = days / (options.hours_per_month / 24.0);
        let price = prices.get("logs", "storage", LineKind::Price)?;
        lines.push(CostLine::priced(price, "storage", "", gb * months_kept));
    }
    Ok(lines)
}

/// Requests, then billed GB-seconds split into the function's own work, INIT and
/// waiting. The split only labels the bill: the three parts add up to billed time.
fn lambda_lines(function: &FunctionUsage, prices: &RegionPrices<'_>) -> Result<Vec<CostLine>> {
    if let Some(managed) = &function.managed {
        return managed_lines(function, managed, prices);
    }
    let arch = function.architecture.as_str();
    let duration = prices.get_for("lambda", "duration", LineKind::Price, arch)?;
    let requests = prices.get("lambda", "requests", LineKind::Price)?;
    let gb_seconds_per_ms = function.gb_seconds_per_billed_ms();
    let parts = [
        ("requests", requests, function.invocations),
        (
            "duration",
            duration,
            function.working_ms_total() * gb_seconds_per_ms,
        ),
        (
            "duration (INIT)",
            duration,
            function.init_ms_total * gb_seconds_per_ms,
        ),
        (
            "duration (waiting)",
            duration,
            function.waiting_ms_total * gb_seconds_per_ms,
        ),
    ];
    Ok(parts
        .into_iter()
        .filter(|(_, _, quantity)| *quantity > 0.0)
        .map(|(item, price, quantity)| CostLine::priced(price, item, &function.name, quantity))
        .collect())
}

/// On Lambda Managed Instances: requests, and the function's part of the
/// instances with its management fee; no duration
/// (<https://aws.amazon.com/lambda/pricing/>).
fn managed_lines(
    function: &FunctionUsage,
    managed: &ManagedUsage,
    prices: &RegionPrices<'_>,
) -> Result<Vec<CostLine>> {
    let requests = prices.get("lambda", "requests", LineKind::Price)?;
    let mut lines = vec![CostLine::priced(
        requests,
        "requests",
        &function.name,
        function.invocations,
    )];
    if managed.instance_seconds > 0.0 {
        let hours = managed.instance_seconds / 3600.0;
        lines.extend(instance_lines(
            &managed.instance_type,
            &function.name,
            hours,
            prices,
        )?);
    }
    lines.retain(|l| l.quantity > 0.0);
    Ok(lines)
}

fn by_service(lines: &[CostLine], total: f64) -> Vec<ServiceTotal> {
    let mut totals: Vec<ServiceTotal> = Vec::new();
    for line in lines {
        match totals.iter_mut().find(|t| t.service == line.service) {
            Some(total) => total.usd += line.usd,
            None => totals.push(ServiceTotal {
                service: line.service.clone(),
                usd: line.usd,
                share: 0.0,
            }),
        }
    }
    for entry in &mut totals {
        entry.share = share(entry.usd, total);
    }
    totals
}

fn dominant(lines: &[CostLine], total: f64) -> Option<Dominant> {
    lines
        .iter()
        .max_by(|a, b| a.usd.total_cmp(&b.usd))
        .map(|line| Dominant {
            service: line.service.clone(),
            item: line.item.clone(),
            resource: line.resource.clone(),
            usd: line.usd,
            share: share(line.usd, total),
        })
}

fn share(part: f64, total: f64) -> f64 {
    if total > 0.0 {
        part / total
    } else {
        0.0
    }
}

/// Variant A : variant B.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CostRatio {
    pub numerator: String,
    pub denominator: String,
    /// `None` when B costs nothing.
    pub per_request: Option<f64>,
    /// `None` without monthly figures on both sides, or when B's month is free.
    pub monthly_with_free_tier: Option<f64>,
}

pub fn ratio(a: &CostBreakdown, b: &CostBreakdown) -> CostRatio {
    let divide = |x: f64, y: f64| (y > 0.0).then(|| x / y);
    let monthly = match (&a.monthly, &b.monthly) {
        (Some(x), Some(y)) => divide(x.usd_with_free_tier, y.usd_with_free_tier),
        _ => None,
    };
    CostRatio {
        numerator: a.label.clone(),
        denominator: b.label.clone(),
        per_request: divide(a.usd_per_request, b.usd_per_request),
        monthly_with_free_tier: monthly,
    }
}

#[cfg(test)]
#[path = "cost_tests.rs"]
mod tests;
