//! The bill as a reader scans it: every cost line falls in one of a few
//! headings (API Gateway, Lambda requests, Lambda duration, SQS, DynamoDB
//! reads and writes, CloudWatch Logs, data transfer), so variants can be
//! compared heading by heading (the report's stacked bars).

use serde::{Deserialize, Serialize};

use crate::cost::CostBreakdown;
use crate::line::CostLine;
use crate::usage::{FunctionUsage, QueueUsage, TableUsage, Usage};

/// Every heading, in the order the report stacks them.
pub const BILL_HEADINGS: [&str; 8] = [
    "API Gateway",
    "Lambda requests",
    "Lambda duration",
    "SQS",
    "DynamoDB reads",
    "DynamoDB writes",
    "CloudWatch Logs",
    "Data transfer",
];

/// Dollars under one heading.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BillLine {
    pub heading: String,
    pub usd: f64,
}

/// The heading a cost line is billed under; `None` for a service the
/// headings do not know (a price table with more services than the report).
/// Lambda Managed Instances' two lines ([`crate::managed`]) have headings of
/// their own, after [`BILL_HEADINGS`]: on-demand bills do not show them.
pub fn heading(line: &CostLine) -> Option<&'static str> {
    let heading = match (line.service.as_str(), line.price_item.as_str()) {
        ("apigateway", _) => "API Gateway",
        ("lambda", "requests") => "Lambda requests",
        ("lambda", crate::managed::FEE_ITEM) => "LMI management fee",
        ("lambda", _) => "Lambda duration",
        (crate::managed::EC2_SERVICE, _) => "EC2 instances",
        ("sqs", _) => "SQS",
        ("dynamodb", "read_request_units") => "DynamoDB reads",
        ("dynamodb", _) => "DynamoDB writes",
        ("logs", _) => "CloudWatch Logs",
        ("datatransfer", _) => "Data transfer",
        _ => return None,
    };
    Some(heading)
}

/// The breakdown's lines summed per heading: every heading, zeros included,
/// then any line no heading covers under its own service name.
pub fn bill_lines(breakdown: &CostBreakdown) -> Vec<BillLine> {
    lines_by_heading(&breakdown.lines)
}

/// Any cost lines (a month's, its volume discounts) summed per heading, as
/// [`bill_lines`] does.
pub fn lines_by_heading<'a>(cost_lines: impl IntoIterator<Item = &'a CostLine>) -> Vec<BillLine> {
    let mut lines: Vec<BillLine> = BILL_HEADINGS
        .iter()
        .map(|h| BillLine {
            heading: h.to_string(),
            usd: 0.0,
        })
        .collect();
    for line in cost_lines {
        let name = heading(line).unwrap_or(line.service.as_str());
        match lines.iter_mut().find(|l| l.heading == name) {
            Some(bill) => bill.usd += line.usd,
            None => lines.push(BillLine {
                heading: name.to_string(),
                usd: line.usd,
            }),
        }
    }
    lines
}

/// The same usage with every function on `architecture`: the durations are
/// kept, only the price changes (an estimate: code runs at another speed on
/// another architecture).
pub fn with_architecture(usage: &Usage, architecture: &str) -> Usage {
    let mut other = usage.clone();
    for function in &mut other.lambda {
        function.architecture = architecture.to_string();
    }
    other
}

/// One of everything the headings price (on x86_64): pricing it checks that a
/// price table has every line a bill can need.
pub fn every_line_usage() -> Usage {
    let mut usage = Usage {
        label: "all".into(),
        public_requests: 1000.0,
        lambda: vec![FunctionUsage {
            name: "f".into(),
            architecture: "x86_64".into(),
            memory_mb: 128.0,
            invocations: 1000.0,
            billed_ms_total: 10_000.0,
            init_ms_total: 20.0,
            waiting_ms_total: 0.0,
            gb_seconds: None,
            managed: None,
        }],
        sqs: vec![QueueUsage {
            name: "q".into(),
            billed_requests: 3000.0,
        }],
        dynamodb: vec![TableUsage {
            name: "t".into(),
            read_units: 500.0,
            write_units: 10.0,
        }],
        log_bytes: 350_000.0,
        data_transfer_out_bytes: 13_000_000.0,
        ..Usage::default()
    };
    usage.api_gateway.http_requests = 1000.0;
    usage
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{cost, CostOptions, PriceTable};

    #[test]
    fn every_heading_gets_its_lines_and_they_add_up_to_the_total() {
        // GIVEN usage touching every service
        let b = cost(
            &every_line_usage(),
            &PriceTable::aws_default(),
            "us-east-1",
            &CostOptions::default(),
        )
        .unwrap();
        // WHEN summed per heading
        let lines = bill_lines(&b);
        // THEN the eight headings, in order, each non-zero, and nothing lost
        let names: Vec<&str> = lines.iter().map(|l| l.heading.as_str()).collect();
        assert_eq!(names, BILL_HEADINGS);
        assert!(lines.iter().all(|l| l.usd > 0.0), "{lines:?}");
        let sum: f64 = lines.iter().map(|l| l.usd).sum();
        assert!((sum - b.total_usd).abs() < 1e-12);
        // Data transfer: 13 MB at $0.09 per GB
        let transfer = lines.iter().find(|l| l.heading == "Data transfer").unwrap();
        assert!((transfer.usd - 13_000_000.0 / 1_073_741_824.0 * 0.09).abs() < 1e-12);
    }

    #[test]
    fn the_other_architecture_keeps_durations_and_changes_the_price() {
        let prices = PriceTable::aws_default();
        let options = CostOptions::default();
        let x86 = cost(&every_line_usage(), &prices, "us-east-1", &options).unwrap();
        let arm = cost(
            &with_architecture(&every_line_usage(), "arm64"),
            &prices,
            "us-east-1",
            &options,
        )
        .unwrap();
        let duration = |b: &CostBreakdown| {
            bill_lines(b)
                .into_iter()
                .find(|l| l.heading == "Lambda duration")
                .unwrap()
                .usd
        };
        // 10 s x 0.125 GB = 1.25 GB-s at $0.0000166667 and at $0.0000133334
        assert!((duration(&x86) - 1.25 * 0.0000166667).abs() < 1e-15);
        assert!((duration(&arm) - 1.25 * 0.0000133334).abs() < 1e-15);
        assert!(
            (x86.total_usd - arm.total_usd - 1.25 * (0.0000166667 - 0.0000133334)).abs() < 1e-15
        );
    }
}
