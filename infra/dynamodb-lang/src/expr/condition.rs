//! Condition and filter expressions after resolution, and their evaluation against an
//! item. Comparisons of values of different types are false, never errors.

use std::borrow::Cow;
use std::cmp::Ordering;

use super::error::ExprError;
use super::parser::Comparator;
use super::path::DocumentPath;
use crate::number::Number;
use crate::value::{compare_key_values, AttributeValue, Item};

#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    Path(DocumentPath),
    Value(AttributeValue),
    Size(Box<Operand>),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Condition {
    Compare(Operand, Comparator, Operand),
    Between(Operand, Operand, Operand),
    In(Operand, Vec<Operand>),
    AttributeExists(DocumentPath),
    AttributeNotExists(DocumentPath),
    /// `attribute_type(path, :t)`; the second operand holds the type code as `S`.
    AttributeType(Operand, Operand),
    BeginsWith(Operand, Operand),
    Contains(Operand, Operand),
    And(Box<Condition>, Box<Condition>),
    Or(Box<Condition>, Box<Condition>),
    Not(Box<Condition>),
}

impl Condition {
    pub fn evaluate(&self, item: &Item) -> Result<bool, ExprError> {
        Ok(self.holds(item))
    }

    fn holds(&self, item: &Item) -> bool {
        match self {
            Condition::Compare(a, op, b) => compare(a.eval(item), *op, b.eval(item)),
            Condition::Between(v, low, high) => {
                let v = v.eval(item);
                compare(v.clone(), Comparator::Ge, low.eval(item))
                    && compare(v, Comparator::Le, high.eval(item))
            }
            Condition::In(v, list) => {
                let v = v.eval(item);
                list.iter()
                    .any(|candidate| compare(v.clone(), Comparator::Eq, candidate.eval(item)))
            }
            Condition::AttributeExists(path) => path.get(item).is_some(),
            Condition::AttributeNotExists(path) => path.get(item).is_none(),
            Condition::AttributeType(v, t) => match (v.eval(item), t.eval(item)) {
                (Some(v), Some(t)) => {
                    matches!(&*t, AttributeValue::S(code) if code == v.type_code())
                }
                _ => false,
            },
            Condition::BeginsWith(v, prefix) => begins_with(v.eval(item), prefix.eval(item)),
            Condition::Contains(v, member) => contains(v.eval(item), member.eval(item)),
            Condition::And(a, b) => a.holds(item) && b.holds(item),
            Condition::Or(a, b) => a.holds(item) || b.holds(item),
            Condition::Not(a) => !a.holds(item),
        }
    }
}

impl Operand {
    /// The operand's value in `item`; `None` for a missing attribute or for `size` of a
    /// type that has no size (which makes every comparison with it false).
    pub fn eval<'a>(&'a self, item: &'a Item) -> Option<Cow<'a, AttributeValue>> {
        match self {
            Operand::Path(path) => path.get(item).map(Cow::Borrowed),
            Operand::Value(v) => Some(Cow::Borrowed(v)),
            Operand::Size(inner) => {
                let size = size_of(inner.eval(item)?.as_ref())?;
                Some(Cow::Owned(AttributeValue::N(Number::from(size as i64))))
            }
        }
    }
}

/// `size()`: strings count UTF-16 code units (as DynamoDB does), binaries bytes,
/// collections their elements; other types have no size.
fn size_of(v: &AttributeValue) -> Option<usize> {
    Some(match v {
        AttributeValue::S(s) => s.encode_utf16().count(),
        AttributeValue::B(b) => b.len(),
        AttributeValue::Ss(s) => s.len(),
        AttributeValue::Ns(s) => s.len(),
        AttributeValue::Bs(s) => s.len(),
        AttributeValue::L(l) => l.len(),
        AttributeValue::M(m) => m.len(),
        _ => return None,
    })
}

type Val<'a> = Option<Cow<'a, AttributeValue>>;

fn compare(a: Val<'_>, op: Comparator, b: Val<'_>) -> bool {
    match op {
        Comparator::Eq => matches!((a, b), (Some(a), Some(b)) if a.same_value(&b)),
        // A missing attribute is "not equal" to anything.
        Comparator::Ne => !matches!((a, b), (Some(a), Some(b)) if a.same_value(&b)),
        _ => {
            let (Some(a), Some(b)) = (a, b) else {
                return false;
            };
            let Some(ordering) = compare_key_values(&a, &b) else {
                return false;
            };
            match op {
                Comparator::Lt => ordering == Ordering::Less,
                Comparator::Le => ordering != Ordering::Greater,
                Comparator::Gt => ordering == Ordering::Greater,
                _ => ordering != Ordering::Less,
            }
        }
    }
}

fn begins_with(v: Val<'_>, prefix: Val<'_>) -> bool {
    match (v.as_deref(), prefix.as_deref()) {
        (Some(AttributeValue::S(s)), Some(AttributeValue::S(p))) => s.starts_with(p.as_str()),
        (Some(AttributeValue::B(b)), Some(AttributeValue::B(p))) => b.starts_with(p),
        _ => false,
    }
}

fn contains(v: Val<'_>, member: Val<'_>) -> bool {
    let (Some(v), Some(member)) = (v.as_deref(), member.as_deref()) else {
        return false;
    };
    match (v, member) {
        (AttributeValue::S(s), AttributeValue::S(sub)) => s.contains(sub.as_str()),
        (AttributeValue::B(b), AttributeValue::B(sub)) => {
            sub.is_empty() || b.windows(sub.len()).any(|w| w == sub.as_slice())
        }
        (AttributeValue::Ss(set), AttributeValue::S(m)) => set.contains(m),
        (AttributeValue::Ns(set), AttributeValue::N(m)) => set.contains(m),
        (AttributeValue::Bs(set), AttributeValue::B(m)) => set.contains(m),
        (AttributeValue::L(list), m) => list.iter().any(|e| e.same_value(m)),
        _ => false,
    }
}
