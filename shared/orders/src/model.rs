//! An order, as the original benchmark returns it, and the `size` rule.

use chrono::{DateTime, Duration, TimeZone, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// The largest `size` accepted; the back end stores exactly this many orders.
pub const MAX_SIZE: u32 = 1000;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Order {
    pub order_id: Uuid,
    #[serde(with = "millis_format")]
    pub order_date: DateTime<Utc>,
}

impl Order {
    /// The `index`-th stored order: the same on every run, so that both paths
    /// and every environment return identical data.
    pub fn seeded(index: u32) -> Self {
        // A fixed, version-4-shaped id per index (no RNG, no hashing crate).
        let n = 0x6f72_6465_7273_0000_0000_0000_0000_0000u128 | u128::from(index);
        let mut bytes = n.to_be_bytes();
        bytes[6] = (bytes[6] & 0x0f) | 0x40;
        bytes[8] = (bytes[8] & 0x3f) | 0x80;
        let base = Utc
            .with_ymd_and_hms(2025, 1, 1, 0, 0, 0)
            .single()
            .expect("valid date");
        Self {
            order_id: Uuid::from_bytes(bytes),
            order_date: base - Duration::minutes(i64::from(index) * 37),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SizeError {
    #[error("size must be a whole number from 1 to {MAX_SIZE}, got {0:?}")]
    NotANumber(String),
    #[error("size must be from 1 to {MAX_SIZE}, got {0}")]
    OutOfRange(u64),
}

/// `size` from the path: a whole number from 1 to [`MAX_SIZE`].
pub fn parse_size(raw: &str) -> Result<u32, SizeError> {
    let value: u64 = raw
        .parse()
        .map_err(|_| SizeError::NotANumber(raw.chars().take(40).collect()))?;
    if value == 0 || value > u64::from(MAX_SIZE) {
        return Err(SizeError::OutOfRange(value));
    }
    Ok(value as u32)
}

mod millis_format {
    use chrono::{DateTime, SecondsFormat, Utc};
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(date: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&date.to_rfc3339_opts(SecondsFormat::Millis, true))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<DateTime<Utc>, D::Error> {
        let text = String::deserialize(d)?;
        DateTime::parse_from_rfc3339(&text)
            .map(|date| date.with_timezone(&Utc))
            .map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_accepts_one_to_a_thousand() {
        assert_eq!(parse_size("1"), Ok(1));
        assert_eq!(parse_size("1000"), Ok(1000));
    }

    #[test]
    fn size_rejects_zero_too_large_and_garbage_with_a_clear_message() {
        assert_eq!(parse_size("0"), Err(SizeError::OutOfRange(0)));
        assert_eq!(parse_size("1001"), Err(SizeError::OutOfRange(1001)));
        assert!(matches!(parse_size("-3"), Err(SizeError::NotANumber(_))));
        assert!(matches!(parse_size("abc"), Err(SizeError::NotANumber(_))));
        assert!(matches!(
            parse_size("99999999999999999999999"),
            Err(SizeError::NotANumber(_))
        ));
        let message = parse_size("1001").unwrap_err().to_string();
        assert_eq!(message, "size must be from 1 to 1000, got 1001");
    }

    #[test]
    fn seeded_orders_are_stable_distinct_and_uuid_v4_shaped() {
        let a = Order::seeded(7);
        assert_eq!(a, Order::seeded(7));
        assert_ne!(a.order_id, Order::seeded(8).order_id);
        assert_eq!(a.order_id.get_version_num(), 4);
    }

    #[test]
    fn orders_serialise_as_the_original_shape() {
        let json = serde_json::to_value(Order::seeded(0)).unwrap();
        assert_eq!(json["orderDate"], "2025-01-01T00:00:00.000Z");
        assert_eq!(json["orderId"].as_str().unwrap().len(), 36);
        let five = serde_json::to_vec(&(0..5).map(Order::seeded).collect::<Vec<_>>()).unwrap();
        assert!(
            (300..700).contains(&five.len()),
            "size 5 is a few hundred bytes: {}",
            five.len()
        );
    }
}
