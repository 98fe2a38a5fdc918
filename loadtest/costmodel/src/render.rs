//! Markdown rendering of cost breakdowns and ratios, for the bench report and the CLI.

use std::fmt::Write;

use crate::cost::{ratio, CostBreakdown, CostRatio};
use crate::format::{quantity, usd};
use crate::line::CostLine;

impl CostBreakdown {
    /// A heading, one table row per line (with per-1M-request and monthly columns) and
    /// a summary; the monthly column and free tier rows only when a rate was given.
    pub fn to_markdown(&self) -> String {
        let mut out = String::new();
        let date = self
            .price_date
            .as_deref()
            .map(|d| format!(", prices in effect on {d}"))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "### Cost of `{}` ({}, price table {}{date})\n",
            self.label, self.region, self.price_table_version
        );
        let monthly = self.monthly.as_ref();
        let mut header = String::from(
            "| service | item | resource | quantity (run) | unit price | USD (run) | USD per 1M requests |",
        );
        let mut rule = String::from("|---|---|---|--:|--:|--:|--:|");
        if monthly.is_some() {
            header.push_str(" USD per month |");
            rule.push_str("--:|");
        }
        let _ = writeln!(out, "{header}\n{rule}");
        let per_million = 1e6 / self.public_requests;
        for (index, line) in self.lines.iter().enumerate() {
            let month = monthly.map(|m| usd(m.lines[index].usd));
            let cells = [
                line.service.clone(),
                line.item.clone(),
                line.resource.clone(),
                format!("{} {}", quantity(line.quantity), line.unit),
                unit_price(line),
                usd(line.usd),
                usd(line.usd * per_million),
            ];
            row(&mut out, &cells, month);
        }
        let total_cells = bold_total("total", self.total_usd, self.total_usd * per_million);
        row(
            &mut out,
            &total_cells,
            monthly.map(|m| format!("**{}**", usd(m.lines.iter().map(|l| l.usd).sum()))),
        );
        if let Some(m) = monthly {
            for discount in &m.volume_discounts {
                let cells = [
                    discount.service.clone(),
                    discount.item.clone(),
                    discount.resource.clone(),
                    format!("{} {} a month", quantity(discount.quantity), discount.unit),
                    unit_price(discount),
                    String::new(),
                    String::new(),
                ];
                row(&mut out, &cells, Some(usd(discount.usd)));
            }
            if !m.volume_discounts.is_empty() {
                let cells =
                    ["**total with volume tiers**", "", "", "", "", "", ""].map(String::from);
                let month = format!("**{}**", usd(m.usd_without_free_tier));
                row(&mut out, &cells, Some(month));
            }
            for credit in &m.free_tier {
                let cells = [
                    credit.service.clone(),
                    credit.item.clone(),
                    credit.resource.clone(),
                    format!("{} {} a month", quantity(credit.quantity), credit.unit),
                    unit_price(credit),
                    String::new(),
                    String::new(),
                ];
                row(&mut out, &cells, Some(usd(credit.usd)));
            }
            let cells = ["**total with free tier**", "", "", "", "", "", ""].map(String::from);
            row(
                &mut out,
                &cells,
                Some(format!("**{}**", usd(m.usd_with_free_tier))),
            );
        }
        out.push('\n');
        out.push_str(&self.summary());
        out
    }

    /// One paragraph: per request, per month, the dominant line.
    pub fn summary(&self) -> String {
        let mut out = format!(
            "Run: {} public requests, {} in total, {} per request ({} per 1M requests).",
            quantity(self.public_requests),
            usd(self.total_usd),
            usd(self.usd_per_request),
            usd(self.usd_per_million_requests)
        );
        if let Some(m) = &self.monthly {
            let _ = write!(
                out,
                " A month at {} req/s ({} requests, {} h): {} without free tier, {} with it ({} per 1M requests).",
                quantity(m.requests_per_second),
                quantity(m.requests_per_month),
                quantity(m.hours_per_month),
                usd(m.usd_without_free_tier),
                usd(m.usd_with_free_tier),
                usd(m.usd_per_million_requests_with_free_tier)
            );
        }
        if let Some(d) = &self.dominant {
            let resource = if d.resource.is_empty() {
                String::new()
            } else {
                format!(" of `{}`", d.resource)
            };
            let _ = write!(
                out,
                " Dominant line: {} {}{resource}, {:.0} % of the run's cost.",
                d.service,
                d.item,
                d.share * 100.0
            );
        }
        let services: Vec<String> = self
            .by_service
            .iter()
            .map(|s| format!("{} {:.0} %", s.service, s.share * 100.0))
            .collect();
        if !services.is_empty() {
            let _ = write!(out, " By service: {}.", services.join(", "));
        }
        out.push('\n');
        out
    }
}

/// One row per variant, each compared with the first: the side-by-side view a bench
/// report wants.
pub fn comparison_markdown(breakdowns: &[CostBreakdown]) -> String {
    let Some(base) = breakdowns.first() else {
        return String::new();
    };
    let mut out = format!(
        "| variant | USD per 1M requests | USD per month (free tier) | dominant line | : `{}` |\n|---|--:|--:|---|--:|\n",
        base.label
    );
    for b in breakdowns {
        let month = b
            .monthly
            .as_ref()
            .map(|m| usd(m.usd_with_free_tier))
            .unwrap_or_else(|| "n/a".into());
        let dominant = b
            .dominant
            .as_ref()
            .map(|d| format!("{} {} ({:.0} %)", d.service, d.item, d.share * 100.0))
            .unwrap_or_default();
        let r = ratio(b, base)
            .per_request
            .map(|r| format!("{r:.2}"))
            .unwrap_or_else(|| "n/a".into());
        let _ = writeln!(
            out,
            "| `{}` | {} | {month} | {dominant} | {r} |",
            b.label,
            usd(b.usd_per_million_requests)
        );
    }
    out
}

impl CostRatio {
    pub fn to_markdown(&self) -> String {
        let show = |value: Option<f64>| match value {
            Some(v) => format!("{v:.2}"),
            None => "n/a".to_string(),
        };
        format!(
            "`{}` : `{}` = {} per request, {} per month with free tier\n",
            self.numerator,
            self.denominator,
            show(self.per_request),
            show(self.monthly_with_free_tier)
        )
    }
}

fn bold_total(label: &str, run: f64, per_million: f64) -> [String; 7] {
    [
        format!("**{label}**"),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
        format!("**{}**", usd(run)),
        format!("**{}**", usd(per_million)),
    ]
}

fn row(out: &mut String, cells: &[String], monthly: Option<String>) {
    let mut line = format!("| {} |", cells.join(" | "));
    if let Some(month) = monthly {
        let _ = write!(line, " {month} |");
    }
    let _ = writeln!(out, "{line}");
}

fn unit_price(line: &CostLine) -> String {
    let per = if line.price_per == 1e6 {
        "1M ".to_string()
    } else if line.price_per == 1.0 {
        String::new()
    } else {
        format!("{} ", quantity(line.price_per))
    };
    format!("${} per {per}{}", line.price_usd, line.unit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{cost, CostOptions, FunctionUsage, PriceTable, Usage};

    #[test]
    fn comparison_has_one_row_per_variant_with_its_ratio_to_the_first() {
        let prices = PriceTable::aws_default();
        let breakdown = |label: &str, invocations: f64| {
            let usage = Usage {
                label: label.into(),
                public_requests: 1e6,
                lambda: vec![FunctionUsage {
                    name: "f".into(),
                    architecture: "arm64".into(),
                    memory_mb: 128.0,
                    invocations,
                    billed_ms_total: invocations * 5.0,
                    ..FunctionUsage::default()
                }],
                ..Usage::default()
            };
            cost(&usage, &prices, "us-east-1", &CostOptions::default()).unwrap()
        };
        let table = comparison_markdown(&[breakdown("mono", 1e6), breakdown("micro", 2e6)]);
        assert!(
            table.contains("| `mono` | $0.2083 | n/a | lambda requests (96 %) | 1.00 |"),
            "{table}"
        );
        assert!(
            table.contains("| `micro` | $0.4167 | n/a | lambda requests (96 %) | 2.00 |"),
            "{table}"
        );
        assert_eq!(comparison_markdown(&[]), "");
    }

    #[test]
    fn breakdown_renders_lines_totals_and_free_tier_rows() {
        // GIVEN 1M requests of one 5 ms arm64 invocation, at 10 req/s
        let usage = Usage {
            label: "mono".into(),
            public_requests: 1e6,
            lambda: vec![FunctionUsage {
                name: "api".into(),
                architecture: "arm64".into(),
                memory_mb: 128.0,
                invocations: 1e6,
                billed_ms_total: 5e6,
                ..FunctionUsage::default()
            }],
            ..Usage::default()
        };
        let options = CostOptions {
            requests_per_second: Some(10.0),
            ..CostOptions::default()
        };
        let breakdown = cost(&usage, &PriceTable::aws_default(), "us-east-1", &options).unwrap();
        // WHEN rendered
        let markdown = breakdown.to_markdown();
        // THEN each line, the total, the credits and the summary are there
        assert!(markdown.contains("| lambda | requests | api | 1,000,000 request | $0.2 per 1M request | $0.2000 | $0.2000 | $5.256 |"), "{markdown}");
        assert!(
            markdown.contains("| lambda | duration | api | 625 GB-second |"),
            "{markdown}"
        );
        assert!(markdown.contains("| **total** |"), "{markdown}");
        assert!(markdown.contains("free tier: requests"), "{markdown}");
        assert!(markdown.contains("**total with free tier**"), "{markdown}");
        assert!(
            markdown.contains("Dominant line: lambda requests of `api`, 96 %"),
            "{markdown}"
        );
    }
}
