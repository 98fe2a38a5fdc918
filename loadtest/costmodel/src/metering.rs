//! How AWS turns raw operations into billed units (the `metering` lines of the table).
//!
//! Sources that already report billed units (the local cloud, REPORT lines) do not
//! need this; the what-if calculator and callers that know payload sizes do.

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::prices::{LineKind, RegionPrices};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReadConsistency {
    Eventual,
    Strong,
    Transactional,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WriteKind {
    Standard,
    Transactional,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Metering {
    lambda_granularity_ms: f64,
    http_api_chunk_bytes: f64,
    sqs_chunk_bytes: f64,
    read_unit_bytes: f64,
    write_unit_bytes: f64,
    read_eventual: f64,
    read_strong: f64,
    read_transactional: f64,
    write_standard: f64,
    write_transactional: f64,
    log_bytes_per_gb: f64,
}

impl Metering {
    pub fn from_prices(prices: &RegionPrices<'_>) -> Result<Self> {
        let rule = |service, item| {
            prices
                .get(service, item, LineKind::Metering)
                .map(|line| line.quantity)
        };
        Ok(Self {
            lambda_granularity_ms: rule("lambda", "billing_granularity")?,
            http_api_chunk_bytes: rule("apigateway", "http_metering_size")?,
            sqs_chunk_bytes: rule("sqs", "payload_chunk")?,
            read_unit_bytes: rule("dynamodb", "read_unit_size")?,
            write_unit_bytes: rule("dynamodb", "write_unit_size")?,
            read_eventual: rule("dynamodb", "read_eventual_factor")?,
            read_strong: rule("dynamodb", "read_strong_factor")?,
            read_transactional: rule("dynamodb", "read_transactional_factor")?,
            write_standard: rule("dynamodb", "write_standard_factor")?,
            write_transactional: rule("dynamodb", "write_transactional_factor")?,
            log_bytes_per_gb: rule("logs", "bytes_per_gb")?,
        })
    }

    /// Billed milliseconds for one invocation: rounded up to the billing granularity.
    pub fn billed_ms(&self, duration_ms: f64) -> f64 {
        round_up(duration_ms.max(0.0), self.lambda_granularity_ms)
    }

    /// HTTP API requests billed for one call carrying `payload_bytes`.
    pub fn http_api_requests(&self, payload_bytes: u64) -> f64 {
        chunks(payload_bytes, self.http_api_chunk_bytes)
    }

    /// SQS requests billed for one API action carrying `payload_bytes`.
    pub fn sqs_requests(&self, payload_bytes: u64) -> f64 {
        chunks(payload_bytes, self.sqs_chunk_bytes)
    }

    /// Read request units for one read returning `item_bytes` (a Query: the sum of the
    /// sizes of the items it read).
    pub fn read_units(&self, item_bytes: u64, consistency: ReadConsistency) -> f64 {
        let factor = match consistency {
            ReadConsistency::Eventual => self.read_eventual,
            ReadConsistency::Strong => self.read_strong,
            ReadConsistency::Transactional => self.read_transactional,
        };
        chunks(item_bytes, self.read_unit_bytes) * factor
    }

    /// Write request units for one write of an item of `item_bytes`.
    pub fn write_units(&self, item_bytes: u64, kind: WriteKind) -> f64 {
        let factor = match kind {
            WriteKind::Standard => self.write_standard,
            WriteKind::Transactional => self.write_transactional,
        };
        chunks(item_bytes, self.write_unit_bytes) * factor
    }

    /// CloudWatch Logs gigabytes for `bytes` ingested.
    pub fn log_gb(&self, bytes: f64) -> f64 {
        bytes / self.log_bytes_per_gb
    }
}

/// Whole units started, at least one: an empty payload is still one request.
fn chunks(bytes: u64, unit: f64) -> f64 {
    (bytes as f64 / unit).ceil().max(1.0)
}

fn round_up(value: f64, step: f64) -> f64 {
    // Float noise (5.000000001 ms) must not bill a whole extra step.
    let steps = value / step;
    let nearest = steps.round();
    if (steps - nearest).abs() < 1e-9 {
        nearest * step
    } else {
        steps.ceil() * step
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prices::PriceTable;

    fn metering() -> Metering {
        let prices = PriceTable::aws_default();
        Metering::from_prices(&prices.region("us-east-1", None).unwrap()).unwrap()
    }

    #[test]
    fn lambda_duration_is_rounded_up_to_the_next_millisecond() {
        let m = metering();
        assert_eq!(m.billed_ms(1.44), 2.0);
        assert_eq!(m.billed_ms(5.0), 5.0);
        assert_eq!(m.billed_ms(0.01), 1.0);
        assert_eq!(m.billed_ms(500.3), 501.0);
    }

    #[test]
    fn http_api_requests_are_metered_per_512_kb() {
        let m = metering();
        assert_eq!(m.http_api_requests(0), 1.0);
        assert_eq!(m.http_api_requests(512 * 1024), 1.0);
        assert_eq!(m.http_api_requests(512 * 1024 + 1), 2.0);
        // 1.5 MB = 3 x 512 KB
        assert_eq!(m.http_api_requests(1536 * 1024), 3.0);
    }

    #[test]
    fn sqs_payloads_are_billed_per_64_kb_chunk() {
        let m = metering();
        assert_eq!(m.sqs_requests(650), 1.0);
        assert_eq!(m.sqs_requests(64 * 1024), 1.0);
        // 256 KB (the maximum message) = 4 requests
        assert_eq!(m.sqs_requests(256 * 1024), 4.0);
        assert_eq!(m.sqs_requests(65 * 1024), 2.0);
    }

    #[test]
    fn dynamodb_reads_round_up_to_4_kb_and_scale_by_consistency() {
        let m = metering();
        // 1 KB item: one 4 KB unit; eventual 0.5, strong 1, transactional 2
        assert_eq!(m.read_units(1024, ReadConsistency::Eventual), 0.5);
        assert_eq!(m.read_units(1024, ReadConsistency::Strong), 1.0);
        assert_eq!(m.read_units(1024, ReadConsistency::Transactional), 2.0);
        // 9 KB: ceil(9/4) = 3 units; eventual 3 x 0.5 = 1.5
        assert_eq!(m.read_units(9 * 1024, ReadConsistency::Eventual), 1.5);
        // an item that is not found still costs one unit
        assert_eq!(m.read_units(0, ReadConsistency::Strong), 1.0);
    }

    #[test]
    fn dynamodb_writes_round_up_to_1_kb_and_double_in_transactions() {
        let m = metering();
        assert_eq!(m.write_units(500, WriteKind::Standard), 1.0);
        // 2.5 KB: ceil(2.5) = 3 units
        assert_eq!(m.write_units(2560, WriteKind::Standard), 3.0);
        assert_eq!(m.write_units(2560, WriteKind::Transactional), 6.0);
    }

    #[test]
    fn log_bytes_convert_to_binary_gigabytes() {
        let m = metering();
        assert_eq!(m.log_gb(1024.0 * 1024.0 * 1024.0), 1.0);
    }
}
