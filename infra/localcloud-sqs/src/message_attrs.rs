//! Message (user) attributes and message system attributes: validation, size
//! and the MD5 digests SQS returns (and some SDKs verify).

use std::collections::BTreeMap;

use base64::Engine;
use md5::{Digest, Md5};
use serde_json::{json, Map, Value};

use crate::error;
use localcloud_core::AwsError;

pub const MAX_ATTRIBUTES: usize = 10;

/// One attribute value. `data_type` keeps its custom suffix (`Number.float`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MessageAttribute {
    pub data_type: String,
    pub value: AttributeValue,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum AttributeValue {
    String(String),
    Binary(Vec<u8>),
}

pub type MessageAttributes = BTreeMap<String, MessageAttribute>;

impl MessageAttribute {
    pub fn string(data_type: &str, value: &str) -> Self {
        Self {
            data_type: data_type.to_string(),
            value: AttributeValue::String(value.to_string()),
        }
    }

    /// Bytes counted against the message size limit: name + type + value.
    fn size(&self, name: &str) -> usize {
        let value = match &self.value {
            AttributeValue::String(s) => s.len(),
            AttributeValue::Binary(b) => b.len(),
        };
        name.len() + self.data_type.len() + value
    }

    pub fn to_json(&self) -> Value {
        match &self.value {
            AttributeValue::String(s) => json!({"StringValue": s, "DataType": self.data_type}),
            AttributeValue::Binary(b) => json!({
                "BinaryValue": base64::engine::general_purpose::STANDARD.encode(b),
                "DataType": self.data_type,
            }),
        }
    }
}

pub fn total_size(attributes: &MessageAttributes) -> usize {
    attributes.iter().map(|(name, a)| a.size(name)).sum()
}

/// MD5 of the attributes as SQS computes it: names sorted, each of name, data
/// type and value length-prefixed (4 bytes big endian), with a transport byte
/// (1 = string, 2 = binary) before the value. `None` when there are none.
pub fn md5_of_attributes(attributes: &MessageAttributes) -> Option<String> {
    if attributes.is_empty() {
        return None;
    }
    fn field(hasher: &mut Md5, bytes: &[u8]) {
        hasher.update((bytes.len() as u32).to_be_bytes());
        hasher.update(bytes);
    }
    let mut hasher = Md5::new();
    for (name, attr) in attributes {
        field(&mut hasher, name.as_bytes());
        field(&mut hasher, attr.data_type.as_bytes());
        match &attr.value {
            AttributeValue::String(s) => {
                hasher.update([1u8]);
                field(&mut hasher, s.as_bytes());
            }
            AttributeValue::Binary(b) => {
                hasher.update([2u8]);
                field(&mut hasher, b);
            }
        }
    }
    Some(hex::encode(hasher.finalize()))
}

pub fn md5_hex(bytes: &[u8]) -> String {
    hex::encode(Md5::digest(bytes))
}

/// Parses the `MessageAttributes` (or `MessageSystemAttributes`) member.
pub fn parse(
    value: Option<&Map<String, Value>>,
    system: bool,
) -> Result<MessageAttributes, AwsError> {
    let mut out = MessageAttributes::new();
    let Some(map) = value else { return Ok(out) };
    if map.len() > MAX_ATTRIBUTES && !system {
        return Err(error::invalid_parameter_value(format!(
            "Number of message attributes [{}] exceeds the allowed maximum [{MAX_ATTRIBUTES}].",
            map.len()
        )));
    }
    for (name, raw) in map {
        if system {
            if name != "AWSTraceHeader" {
                return Err(error::invalid_parameter_value(format!(
                    "Message system attribute name '{name}' is invalid."
                )));
            }
        } else {
            validate_name(name)?;
        }
        out.insert(name.clone(), parse_one(name, raw)?);
    }
    Ok(out)
}

fn parse_one(name: &str, raw: &Value) -> Result<MessageAttribute, AwsError> {
    let obj = raw.as_object().ok_or_else(|| {
        error::serialization(format!("MessageAttributes.{name} must be an object"))
    })?;
    let data_type = obj.get("DataType").and_then(Value::as_str).unwrap_or("");
    if data_type.is_empty() {
        return Err(error::invalid_parameter_value(format!(
            "The message attribute '{name}' must contain non-empty message attribute type."
        )));
    }
    let list_given = ["StringListValues", "BinaryListValues"].iter().any(|k| {
        obj.get(*k)
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty())
    });
    if list_given {
        return Err(error::invalid_parameter_value(format!(
            "Message attribute list values in '{name}' are not supported."
        )));
    }
    let base = data_type.split('.').next().unwrap_or("");
    if data_type.len() > 256 || !matches!(base, "String" | "Number" | "Binary") {
        return Err(error::invalid_parameter_value(format!(
            "The message attribute '{name}' has an invalid message attribute type, the set of supported type prefixes is Binary, Number, and String."
        )));
    }
    let value = if base == "Binary" {
        let encoded = obj.get("BinaryValue").and_then(Value::as_str).unwrap_or("");
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .map_err(|_| {
                error::serialization(format!(
                    "MessageAttributes.{name}.BinaryValue is not base64"
                ))
            })?;
        if bytes.is_empty() {
            return Err(empty_value(name, "Binary"));
        }
        AttributeValue::Binary(bytes)
    } else {
        let s = obj.get("StringValue").and_then(Value::as_str).unwrap_or("");
        if s.is_empty() {
            return Err(empty_value(name, base));
        }
        if base == "Number" && !is_sqs_number(s) {
            return Err(error::invalid_parameter_value(format!(
                "Value {s} for parameter MessageAttributeValue is invalid. Reason: Could not parse the given number value."
            )));
        }
        if !valid_text(s) {
            return Err(error::invalid_parameter_value(format!(
                "Message attribute '{name}' contains characters outside the allowed set."
            )));
        }
        AttributeValue::String(s.to_string())
    };
    Ok(MessageAttribute {
        data_type: data_type.to_string(),
        value,
    })
}

fn empty_value(name: &str, kind: &str) -> AwsError {
    error::invalid_parameter_value(format!(
        "Message (user) attribute '{name}' must contain a non-empty value of type '{kind}'."
    ))
}

/// Names: up to 256 of `[A-Za-z0-9_.-]`, no leading/trailing/double period,
/// no reserved `AWS.` / `Amazon.` prefix.
fn validate_name(name: &str) -> Result<(), AwsError> {
    let lower = name.to_ascii_lowercase();
    let valid = !name.is_empty()
        && name.len() <= 256
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_-.".contains(&b))
        && !name.starts_with('.')
        && !name.ends_with('.')
        && !name.contains("..")
        && !lower.starts_with("aws.")
        && !lower.starts_with("amazon.");
    if valid {
        Ok(())
    } else {
        Err(error::invalid_parameter_value(format!(
            "Message (user) attribute name '{name}' is invalid."
        )))
    }
}

/// SQS numbers: a decimal with at most 38 significant digits, in roughly
/// 10^-128 .. 10^126.
fn is_sqs_number(s: &str) -> bool {
    let unsigned = s.strip_prefix(['-', '+']).unwrap_or(s);
    let (mantissa, exponent) = match unsigned.split_once(['e', 'E']) {
        Some((m, e)) => match e.parse::<i32>() {
            Ok(e) => (m, e),
            Err(_) => return false,
        },
        None => (unsigned, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int.is_empty() && frac.is_empty() {
        return false;
    }
    if !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
        return false;
    }
    let digits: String = int.chars().chain(frac.chars()).collect();
    let significant = digits.trim_start_matches('0');
    if significant.is_empty() {
        return true;
    }
    let leading_zeros = digits.len() - significant.len();
    let magnitude = int.len() as i32 - leading_zeros as i32 + exponent;
    significant.trim_end_matches('0').len() <= 38 && (-128..=126).contains(&(magnitude - 1))
}

/// Characters SQS accepts in bodies and string values:
/// `#x9 | #xA | #xD | #x20-#xD7FF | #xE000-#xFFFD | #x10000-#x10FFFF`.
pub fn valid_text(s: &str) -> bool {
    s.chars().all(|c| {
        matches!(c, '\u{9}' | '\u{A}' | '\u{D}' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..='\u{10FFFF}')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attrs() -> MessageAttributes {
        let mut a = MessageAttributes::new();
        a.insert("color".into(), MessageAttribute::string("String", "red"));
        a.insert("count".into(), MessageAttribute::string("Number.int", "42"));
        a.insert(
            "blob".into(),
            MessageAttribute {
                data_type: "Binary".into(),
                value: AttributeValue::Binary(vec![0, 1, 255]),
            },
        );
        a
    }

    #[test]
    fn attribute_md5_matches_the_sqs_algorithm() {
        // Expected value computed independently (length-prefixed fields, sorted names).
        assert_eq!(
            md5_of_attributes(&attrs()).unwrap(),
            "0423c30d7bd3689e7e99b927bb1df3bf"
        );
        assert_eq!(md5_of_attributes(&MessageAttributes::new()), None);
    }

    #[test]
    fn body_md5_is_over_utf8_bytes() {
        assert_eq!(
            md5_hex("héllo".as_bytes()),
            "be50e8478cf24ff3595bc7307fb91b50"
        );
    }

    #[test]
    fn parse_accepts_custom_types_and_rejects_bad_ones() {
        let ok: Map<String, Value> = serde_json::from_value(json!({
            "n": {"DataType": "Number.float", "StringValue": "-1.5e3"},
            "b": {"DataType": "Binary.gz", "BinaryValue": "AAH/"}
        }))
        .unwrap();
        let parsed = parse(Some(&ok), false).unwrap();
        assert_eq!(parsed["b"].value, AttributeValue::Binary(vec![0, 1, 255]));
        for bad in [
            json!({"x": {"DataType": "Integer", "StringValue": "1"}}),
            json!({"x": {"DataType": "Number", "StringValue": "abc"}}),
            json!({"x": {"DataType": "String", "StringValue": ""}}),
            json!({"AWS.x": {"DataType": "String", "StringValue": "v"}}),
            json!({"a..b": {"DataType": "String", "StringValue": "v"}}),
        ] {
            let map: Map<String, Value> = serde_json::from_value(bad.clone()).unwrap();
            let err = parse(Some(&map), false).unwrap_err();
            assert_eq!(err.code(), "InvalidParameterValue", "{bad}");
        }
    }

    #[test]
    fn numbers_follow_sqs_precision_rules() {
        assert!(is_sqs_number("0"));
        assert!(is_sqs_number("12345678901234567890123456789012345678"));
        assert!(!is_sqs_number("123456789012345678901234567890123456789"));
        assert!(is_sqs_number(".5"));
        assert!(!is_sqs_number("1e200"));
        assert!(!is_sqs_number("-"));
    }

    #[test]
    fn text_rejects_control_characters() {
        assert!(valid_text("tab\tnew\nline"));
        assert!(!valid_text("bell\u{7}"));
    }
}
