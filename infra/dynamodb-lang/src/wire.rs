//! DynamoDB JSON wire format for attribute values: `{"S":"x"}`, `{"N":"1"}`,
//! `{"B":"<base64>"}`, `{"BOOL":true}`, `{"NULL":true}`, `{"M":{..}}`, `{"L":[..]}`,
//! `{"SS":[..]}`, `{"NS":[..]}`, `{"BS":[..]}`.
//!
//! Deserialisation validates like DynamoDB; a custom error's text is the
//! ValidationException message (serde_json appends " at line L column C", which a
//! caller may cut at the last " at line ").

use std::fmt;

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use serde::de::{self, IgnoredAny, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::number::Number;
use crate::value::{AttributeValue, Item};

const INVALID: &str = "One or more parameter values were invalid: ";

impl Serialize for AttributeValue {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        let code = self.type_code();
        match self {
            AttributeValue::S(s) => map.serialize_entry(code, s)?,
            AttributeValue::N(n) => map.serialize_entry(code, &n.to_string())?,
            AttributeValue::B(b) => map.serialize_entry(code, &BASE64.encode(b))?,
            AttributeValue::Bool(b) => map.serialize_entry(code, b)?,
            AttributeValue::Null => map.serialize_entry(code, &true)?,
            AttributeValue::M(m) => map.serialize_entry(code, m)?,
            AttributeValue::L(l) => map.serialize_entry(code, l)?,
            AttributeValue::Ss(ss) => map.serialize_entry(code, ss)?,
            AttributeValue::Ns(ns) => {
                let texts: Vec<String> = ns.iter().map(Number::to_string).collect();
                map.serialize_entry(code, &texts)?
            }
            AttributeValue::Bs(bs) => {
                let texts: Vec<String> = bs.iter().map(|b| BASE64.encode(b)).collect();
                map.serialize_entry(code, &texts)?
            }
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for AttributeValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = AttributeValue;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an AttributeValue object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<AttributeValue, A::Error> {
        let mut found: Option<AttributeValue> = None;
        let mut count = 0usize;
        while let Some(key) = map.next_key::<String>()? {
            // Unknown members are ignored and JSON nulls mean "absent", as in AWS.
            let value = match key.as_str() {
                "S" => map.next_value::<Option<String>>()?.map(AttributeValue::S),
                "N" => match map.next_value::<Option<String>>()? {
                    Some(t) => Some(AttributeValue::N(parse_number(&t)?)),
                    None => None,
                },
                "B" => match map.next_value::<Option<String>>()? {
                    Some(t) => Some(AttributeValue::B(decode_blob(&t)?)),
                    None => None,
                },
                "BOOL" => map.next_value::<Option<bool>>()?.map(AttributeValue::Bool),
                "NULL" => match map.next_value::<Option<bool>>()? {
                    Some(true) => Some(AttributeValue::Null),
                    Some(false) => return Err(null_false()),
                    None => None,
                },
                "M" => map.next_value::<Option<Item>>()?.map(AttributeValue::M),
                "L" => map
                    .next_value::<Option<Vec<AttributeValue>>>()?
                    .map(AttributeValue::L),
                "SS" => match map.next_value::<Option<Vec<String>>>()? {
                    Some(v) => Some(string_set(v)?),
                    None => None,
                },
                "NS" => match map.next_value::<Option<Vec<String>>>()? {
                    Some(v) => Some(number_set(v)?),
                    None => None,
                },
                "BS" => match map.next_value::<Option<Vec<String>>>()? {
                    Some(v) => Some(binary_set(v)?),
                    None => None,
                },
                _ => {
                    map.next_value::<IgnoredAny>()?;
                    None
                }
            };
            if let Some(v) = value {
                count += 1;
                found = Some(v);
            }
        }
        match (count, found) {
            (1, Some(v)) => Ok(v),
            (0, _) | (_, None) => Err(de::Error::custom(
                "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes",
            )),
            _ => Err(de::Error::custom(
                "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes",
            )),
        }
    }
}

fn null_false<E: de::Error>() -> E {
    E::custom(format!(
        "{INVALID}Null attribute value types must have the value of true"
    ))
}

fn parse_number<E: de::Error>(text: &str) -> Result<Number, E> {
    text.parse::<Number>().map_err(E::custom)
}

fn decode_blob<E: de::Error>(text: &str) -> Result<Vec<u8>, E> {
    BASE64
        .decode(text)
        .map_err(|e| E::custom(format!("'{text}' can not be converted to a Blob: {e}")))
}

fn string_set<E: de::Error>(members: Vec<String>) -> Result<AttributeValue, E> {
    if members.is_empty() {
        return Err(E::custom(format!(
            "{INVALID}An string set  may not be empty"
        )));
    }
    if has_duplicates(&members) {
        return Err(E::custom(format!(
            "{INVALID}Input collection [{}] contains duplicates.",
            members.join(", ")
        )));
    }
    Ok(AttributeValue::Ss(members))
}

fn number_set<E: de::Error>(texts: Vec<String>) -> Result<AttributeValue, E> {
    if texts.is_empty() {
        return Err(E::custom(format!(
            "{INVALID}An number set  may not be empty"
        )));
    }
    let numbers = texts
        .iter()
        .map(|t| parse_number(t))
        .collect::<Result<Vec<Number>, E>>()?;
    // Duplicates are numeric: "1" and "1.0" are the same member.
    if has_duplicates(&numbers) {
        return Err(E::custom(format!(
            "{INVALID}Input collection [{}] contains duplicates.",
            texts.join(", ")
        )));
    }
    Ok(AttributeValue::Ns(numbers))
}

fn binary_set<E: de::Error>(texts: Vec<String>) -> Result<AttributeValue, E> {
    if texts.is_empty() {
        return Err(E::custom(format!(
            "{INVALID}An binary set  may not be empty"
        )));
    }
    let blobs = texts
        .iter()
        .map(|t| decode_blob(t))
        .collect::<Result<Vec<Vec<u8>>, E>>()?;
    if has_duplicates(&blobs) {
        return Err(E::custom(format!(
            "{INVALID}Input collection [{}]of type BS contains duplicates.",
            texts.join(", ")
        )));
    }
    Ok(AttributeValue::Bs(blobs))
}

fn has_duplicates<T: Eq + std::hash::Hash>(members: &[T]) -> bool {
    let mut seen = std::collections::HashSet::with_capacity(members.len());
    !members.iter().all(|m| seen.insert(m))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(v: serde_json::Value) -> Result<AttributeValue, String> {
        serde_json::from_value(v).map_err(|e| e.to_string())
    }

    #[test]
    fn every_type_round_trips_through_json() {
        let cases = [
            json!({"S": "x"}),
            json!({"N": "1.5"}),
            json!({"B": "AQID"}),
            json!({"BOOL": true}),
            json!({"NULL": true}),
            json!({"M": {"a": {"S": "b"}}}),
            json!({"L": [{"N": "1"}, {"S": "two"}]}),
            json!({"SS": ["a", "b"]}),
            json!({"NS": ["1", "2"]}),
            json!({"BS": ["AQ==", "Ag=="]}),
        ];
        for case in cases {
            let value = parse(case.clone()).unwrap();
            assert_eq!(serde_json::to_value(&value).unwrap(), case);
        }
    }

    #[test]
    fn numbers_come_back_canonical() {
        let value = parse(json!({"N": "1.50e1"})).unwrap();
        assert_eq!(serde_json::to_value(&value).unwrap(), json!({"N": "15"}));
    }

    #[test]
    fn rejects_empty_and_ambiguous_values() {
        assert!(parse(json!({}))
            .unwrap_err()
            .starts_with("Supplied AttributeValue is empty"));
        assert!(parse(json!({"X": "1"}))
            .unwrap_err()
            .starts_with("Supplied AttributeValue is empty"));
        assert!(parse(json!({"S": "a", "N": "1"}))
            .unwrap_err()
            .starts_with("Supplied AttributeValue has more than one datatypes set"));
        assert_eq!(
            parse(json!({"S": null, "N": "1"})).unwrap(),
            AttributeValue::N(Number::from(1))
        );
    }

    #[test]
    fn rejects_invalid_members_with_aws_messages() {
        let cases = [
            (json!({"SS": []}), "One or more parameter values were invalid: An string set  may not be empty"),
            (json!({"NS": []}), "One or more parameter values were invalid: An number set  may not be empty"),
            (json!({"SS": ["a", "a"]}), "One or more parameter values were invalid: Input collection [a, a] contains duplicates."),
            (json!({"NS": ["1", "1.0"]}), "One or more parameter values were invalid: Input collection [1, 1.0] contains duplicates."),
            (json!({"N": "abc"}), "The parameter cannot be converted to a numeric value: abc"),
            (json!({"NULL": false}), "One or more parameter values were invalid: Null attribute value types must have the value of true"),
            (json!({"N": "1e200"}), "Number overflow. Attempting to store a number with magnitude larger than supported range"),
        ];
        for (input, message) in cases {
            let err = parse(input.clone()).unwrap_err();
            assert!(err.starts_with(message), "{input}: {err}");
        }
    }

    #[test]
    fn nested_errors_surface() {
        let err = parse(json!({"M": {"a": {"L": [{"SS": []}]}}})).unwrap_err();
        assert!(err.contains("An string set  may not be empty"), "{err}");
    }

    #[test]
    fn empty_strings_in_sets_and_values_are_allowed() {
        assert!(parse(json!({"SS": [""]})).is_ok());
        assert!(parse(json!({"S": ""})).is_ok());
        assert!(parse(json!({"B": ""})).is_ok());
    }
}
