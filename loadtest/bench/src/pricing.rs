//! A run's bill: the metered usage priced by `costmodel` at the measuring
//! host's architecture, and at the other one with the durations unchanged
//! (an estimate), with the dollars per bill heading for the report.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context;
use costmodel::bill::{bill_lines, every_line_usage, with_architecture};
use costmodel::{CostOptions, PriceTable, Usage};

use crate::results::{ArchitectureEstimate, CostFigures};
use crate::target::REGION;

/// The price table and the options every run of a bench is priced with.
pub struct Pricing {
    pub prices: PriceTable,
    pub options: CostOptions,
}

impl Pricing {
    /// `--prices FILE` (default: the table built in), `--price-date`, and the
    /// log groups' retention (`None`: kept forever, storage not priced).
    pub fn load(
        file: Option<&Path>,
        price_date: Option<String>,
        log_retention_days: Option<f64>,
    ) -> anyhow::Result<Self> {
        let prices = match file {
            Some(path) => PriceTable::from_path(path)
                .with_context(|| format!("reading the price table {}", path.display()))?,
            None => PriceTable::aws_default(),
        };
        let options = CostOptions {
            price_date,
            log_retention_days,
            ..CostOptions::default()
        };
        // A missing price fails before any load is generated, not after the first run.
        let probe = every_line_usage();
        for architecture in ["x86_64", "arm64"] {
            costmodel::cost(
                &with_architecture(&probe, architecture),
                &prices,
                REGION,
                &options,
            )
            .context("the price table cannot price a whole bill")?;
        }
        Ok(Self { prices, options })
    }

    /// Prices `usage` as measured on `measured` (the host's architecture), and
    /// on the other architecture as an estimate.
    pub fn price(
        &self,
        usage: &Usage,
        successes: u64,
        measured: &str,
    ) -> anyhow::Result<CostFigures> {
        let as_measured = with_architecture(usage, measured);
        let breakdown = costmodel::cost(&as_measured, &self.prices, REGION, &self.options)
            .context("pricing the run")?;
        let per_million_ok = |total: f64| (successes > 0).then(|| total / successes as f64 * 1e6);
        let other = other_architecture(measured);
        let estimate = costmodel::cost(
            &with_architecture(usage, other),
            &self.prices,
            REGION,
            &self.options,
        )
        .context("pricing the run on the other architecture")?;
        Ok(CostFigures {
            architecture: measured.to_string(),
            total_usd: breakdown.total_usd,
            usd_per_million_requests: breakdown.usd_per_million_requests,
            usd_per_million_successful: per_million_ok(breakdown.total_usd),
            by_service: breakdown
                .by_service
                .iter()
                .map(|s| (s.service.clone(), s.usd))
                .collect(),
            by_line: bill_lines(&breakdown),
            dominant: breakdown.dominant.as_ref().map(|d| {
                format!("{} {} {}", d.service, d.item, d.resource)
                    .trim()
                    .to_string()
            }),
            other_architecture: Some(ArchitectureEstimate {
                architecture: other.to_string(),
                total_usd: estimate.total_usd,
                usd_per_million_successful: per_million_ok(estimate.total_usd),
            }),
        })
    }
}

/// The template parameter that sets every function's log group retention.
pub const RETENTION_PARAMETER: &str = "LogRetentionInDays";

/// The log retention the template deploys, from its parameters in effect;
/// `None` when it sets none (Lambda's own log groups keep events forever).
pub fn log_retention_days(parameters: &BTreeMap<String, String>) -> Option<f64> {
    parameters.get(RETENTION_PARAMETER)?.parse().ok()
}

/// Lambda's name for the architecture this bench runs on: the functions'
/// billed durations were measured here.
pub fn host_architecture() -> &'static str {
    match std::env::consts::ARCH {
        "aarch64" => "arm64",
        _ => "x86_64",
    }
}

fn other_architecture(architecture: &str) -> &'static str {
    if architecture == "arm64" {
        "x86_64"
    } else {
        "arm64"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use costmodel::bill::BILL_HEADINGS;

    #[test]
    fn an_unknown_price_date_fails_before_any_run() {
        let err = Pricing::load(None, Some("2001-01-01".into()), None)
            .err()
            .unwrap();
        assert!(format!("{err:#}").contains("2001-01-01"), "{err:#}");
    }

    #[test]
    fn retention_comes_from_the_templates_parameter() {
        let params: BTreeMap<String, String> = [(RETENTION_PARAMETER.into(), "30".into())].into();
        assert_eq!(log_retention_days(&params), Some(30.0));
        assert_eq!(log_retention_days(&BTreeMap::new()), None);
    }

    #[test]
    fn a_price_table_file_is_read_and_a_broken_one_named() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("prices.csv");
        std::fs::write(&file, costmodel::DEFAULT_PRICES_CSV).unwrap();
        assert!(Pricing::load(Some(&file), None, None).is_ok());
        std::fs::write(&file, "# version: x\nregion\n").unwrap();
        let err = Pricing::load(Some(&file), None, None).err().unwrap();
        assert!(format!("{err:#}").contains("prices.csv"), "{err:#}");
    }

    #[test]
    fn both_architectures_and_every_bill_heading_are_priced() {
        // GIVEN the usage of a measured run with an API, a function and its logs
        let mut usage = Usage {
            label: "orders-direct".into(),
            public_requests: 100.0,
            log_bytes: 35_000.0,
            data_transfer_out_bytes: 60_000.0,
            lambda: vec![costmodel::FunctionUsage {
                name: "f".into(),
                architecture: "arm64".into(),
                memory_mb: 128.0,
                invocations: 100.0,
                billed_ms_total: 50_200.0,
                ..Default::default()
            }],
            ..Usage::default()
        };
        usage.api_gateway.http_requests = 100.0;
        // WHEN priced as measured on x86_64
        let pricing = Pricing::load(None, None, Some(14.0)).unwrap();
        let figures = pricing.price(&usage, 80, "x86_64").unwrap();
        // THEN the figures are x86_64's, arm64 is the estimate, and cheaper
        assert_eq!(figures.architecture, "x86_64");
        let arm = figures.other_architecture.as_ref().unwrap();
        assert_eq!(arm.architecture, "arm64");
        assert!(arm.total_usd < figures.total_usd);
        // AND the dollars per M successful divide by the 80 successes
        let per_ok = figures.usd_per_million_successful.unwrap();
        assert!((per_ok - figures.total_usd / 80.0 * 1e6).abs() < 1e-9);
        // AND every heading is listed, the used ones non-zero
        let headings: Vec<&str> = figures.by_line.iter().map(|l| l.heading.as_str()).collect();
        assert_eq!(headings, BILL_HEADINGS);
        for used in [
            "API Gateway",
            "Lambda requests",
            "Lambda duration",
            "CloudWatch Logs",
            "Data transfer",
        ] {
            let line = figures.by_line.iter().find(|l| l.heading == used).unwrap();
            assert!(line.usd > 0.0, "{used}");
        }
    }
}
