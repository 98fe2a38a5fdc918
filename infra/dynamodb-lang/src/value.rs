//! DynamoDB attribute values, their size accounting and key ordering.
//! The wire format (`{"S":"x"}`, ...) lives in `wire.rs`.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use crate::number::Number;

/// An item: attribute name to value.
pub type Item = BTreeMap<String, AttributeValue>;

/// One DynamoDB value. Sets keep the order they were given in (DynamoDB does not
/// promise an order); use [`AttributeValue::same_value`] for order-blind equality.
#[derive(Clone, Debug, PartialEq)]
pub enum AttributeValue {
    S(String),
    N(Number),
    B(Vec<u8>),
    Bool(bool),
    Null,
    M(Item),
    L(Vec<AttributeValue>),
    Ss(Vec<String>),
    Ns(Vec<Number>),
    Bs(Vec<Vec<u8>>),
}

/// The ten type codes, as `attribute_type` and error messages spell them.
pub const TYPE_CODES: [&str; 10] = ["S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS"];

impl AttributeValue {
    pub fn type_code(&self) -> &'static str {
        match self {
            AttributeValue::S(_) => "S",
            AttributeValue::N(_) => "N",
            AttributeValue::B(_) => "B",
            AttributeValue::Bool(_) => "BOOL",
            AttributeValue::Null => "NULL",
            AttributeValue::M(_) => "M",
            AttributeValue::L(_) => "L",
            AttributeValue::Ss(_) => "SS",
            AttributeValue::Ns(_) => "NS",
            AttributeValue::Bs(_) => "BS",
        }
    }

    /// Bytes this value counts for in an item, per the DynamoDB developer guide
    /// ("Item sizes and formats"): strings by UTF-8 bytes, numbers one byte per two
    /// significant digits plus one, binaries by raw bytes, booleans and null one byte,
    /// lists and maps 3 bytes plus one per element plus their contents (map keys
    /// included), sets the sum of their members.
    pub fn size(&self) -> usize {
        match self {
            AttributeValue::S(s) => s.len(),
            AttributeValue::N(n) => number_size(n),
            AttributeValue::B(b) => b.len(),
            AttributeValue::Bool(_) | AttributeValue::Null => 1,
            AttributeValue::M(m) => {
                3 + m.iter().map(|(k, v)| 1 + k.len() + v.size()).sum::<usize>()
            }
            AttributeValue::L(l) => 3 + l.iter().map(|v| 1 + v.size()).sum::<usize>(),
            AttributeValue::Ss(ss) => ss.iter().map(String::len).sum(),
            AttributeValue::Ns(ns) => ns.iter().map(number_size).sum(),
            AttributeValue::Bs(bs) => bs.iter().map(Vec::len).sum(),
        }
    }

    /// DynamoDB equality: numbers numerically, sets regardless of order, lists and
    /// maps element by element; values of different types are never equal.
    pub fn same_value(&self, other: &AttributeValue) -> bool {
        use AttributeValue::*;
        match (self, other) {
            (L(a), L(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same_value(y)),
            (M(a), M(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .all(|(k, v)| b.get(k).is_some_and(|w| v.same_value(w)))
            }
            (Ss(a), Ss(b)) => same_members(a, b),
            (Ns(a), Ns(b)) => same_members(a, b),
            (Bs(a), Bs(b)) => same_members(a, b),
            _ => self == other,
        }
    }
}

fn same_members<T: PartialEq>(a: &[T], b: &[T]) -> bool {
    a.len() == b.len() && a.iter().all(|x| b.contains(x))
}

fn number_size(n: &Number) -> usize {
    n.significant_digits().div_ceil(2) + 1
}

/// Sum over attributes of name length (UTF-8 bytes) plus value size.
pub fn item_size(item: &Item) -> usize {
    item.iter().map(|(k, v)| k.len() + v.size()).sum()
}

/// Orders key values as DynamoDB sorts sort keys: numbers numerically, strings by UTF-8
/// bytes, binaries by unsigned bytes. `None` when the types differ or are not key types.
pub fn compare_key_values(a: &AttributeValue, b: &AttributeValue) -> Option<Ordering> {
    match (a, b) {
        (AttributeValue::N(x), AttributeValue::N(y)) => Some(x.cmp(y)),
        (AttributeValue::S(x), AttributeValue::S(y)) => Some(x.as_bytes().cmp(y.as_bytes())),
        (AttributeValue::B(x), AttributeValue::B(y)) => Some(x.cmp(y)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> AttributeValue {
        AttributeValue::N(s.parse().unwrap())
    }

    #[test]
    fn sizes_follow_the_documented_rules() {
        assert_eq!(AttributeValue::S("héllo".into()).size(), 6);
        assert_eq!(n("12345").size(), 4);
        assert_eq!(n("1.50").size(), 2);
        assert_eq!(AttributeValue::B(vec![1, 2, 3]).size(), 3);
        assert_eq!(AttributeValue::Bool(true).size(), 1);
        assert_eq!(AttributeValue::Null.size(), 1);
        assert_eq!(AttributeValue::L(vec![]).size(), 3);
        assert_eq!(
            AttributeValue::L(vec![AttributeValue::S("ab".into()), AttributeValue::Null]).size(),
            3 + (1 + 2) + (1 + 1)
        );
        let map: Item = [("key".to_string(), AttributeValue::S("v".into()))].into();
        assert_eq!(AttributeValue::M(map).size(), 3 + 1 + 3 + 1);
        assert_eq!(AttributeValue::Ss(vec!["a".into(), "bc".into()]).size(), 3);
    }

    #[test]
    fn item_size_adds_attribute_names() {
        let item: Item = [
            ("id".to_string(), AttributeValue::S("abc".into())),
            ("n".to_string(), n("7")),
        ]
        .into();
        assert_eq!(item_size(&item), 2 + 3 + 1 + 2);
    }

    #[test]
    fn key_comparison_uses_dynamodb_orders() {
        assert_eq!(compare_key_values(&n("9"), &n("10")), Some(Ordering::Less));
        let s = |x: &str| AttributeValue::S(x.into());
        assert_eq!(compare_key_values(&s("Z"), &s("a")), Some(Ordering::Less));
        assert_eq!(
            compare_key_values(&s("é"), &s("z")),
            Some(Ordering::Greater)
        );
        let b = |x: &[u8]| AttributeValue::B(x.to_vec());
        assert_eq!(
            compare_key_values(&b(&[0x7f]), &b(&[0x80])),
            Some(Ordering::Less)
        );
        assert_eq!(compare_key_values(&s("1"), &n("1")), None);
    }

    #[test]
    fn same_value_ignores_set_order_and_number_spelling() {
        let a = AttributeValue::Ss(vec!["a".into(), "b".into()]);
        let b = AttributeValue::Ss(vec!["b".into(), "a".into()]);
        assert!(a.same_value(&b));
        assert!(n("1.0").same_value(&n("1")));
        assert!(!AttributeValue::S("1".into()).same_value(&n("1")));
    }
}
