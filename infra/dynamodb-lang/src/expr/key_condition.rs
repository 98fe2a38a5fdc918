//! Key condition expressions of `Query`: one equality on the partition key, optionally
//! one condition on the sort key, joined by AND.

use std::cmp::Ordering;

use super::condition::{Condition, Operand};
use super::context::ExpressionContext;
use super::error::{ExprError, ExpressionKind};
use super::parser::{Comparator, Parser};
use super::path::DocumentPath;
use super::resolve::{self, Resolver};
use crate::value::{compare_key_values, AttributeValue};

#[derive(Clone, Debug, PartialEq)]
pub struct KeyCondition {
    pub hash_value: AttributeValue,
    pub range: Option<RangeCondition>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum RangeCondition {
    Eq(AttributeValue),
    Lt(AttributeValue),
    Le(AttributeValue),
    Gt(AttributeValue),
    Ge(AttributeValue),
    Between(AttributeValue, AttributeValue),
    BeginsWith(AttributeValue),
}

impl RangeCondition {
    /// Whether a sort-key value satisfies the condition; other types never match.
    pub fn matches(&self, v: &AttributeValue) -> bool {
        let cmp = |bound: &AttributeValue| compare_key_values(v, bound);
        match self {
            RangeCondition::Eq(b) => cmp(b) == Some(Ordering::Equal),
            RangeCondition::Lt(b) => cmp(b) == Some(Ordering::Less),
            RangeCondition::Le(b) => matches!(cmp(b), Some(Ordering::Less | Ordering::Equal)),
            RangeCondition::Gt(b) => cmp(b) == Some(Ordering::Greater),
            RangeCondition::Ge(b) => matches!(cmp(b), Some(Ordering::Greater | Ordering::Equal)),
            RangeCondition::Between(low, high) => {
                matches!(cmp(low), Some(Ordering::Greater | Ordering::Equal))
                    && matches!(cmp(high), Some(Ordering::Less | Ordering::Equal))
            }
            RangeCondition::BeginsWith(prefix) => match (v, prefix) {
                (AttributeValue::S(s), AttributeValue::S(p)) => s.starts_with(p.as_str()),
                (AttributeValue::B(b), AttributeValue::B(p)) => b.starts_with(p),
                _ => false,
            },
        }
    }

    /// The value(s) the condition compares against, for schema type checks.
    pub fn values(&self) -> Vec<&AttributeValue> {
        match self {
            RangeCondition::Between(low, high) => vec![low, high],
            RangeCondition::Eq(v)
            | RangeCondition::Lt(v)
            | RangeCondition::Le(v)
            | RangeCondition::Gt(v)
            | RangeCondition::Ge(v)
            | RangeCondition::BeginsWith(v) => vec![v],
        }
    }
}

const NOT_SUPPORTED: &str = "Query key condition not supported";

pub fn parse_key_condition(
    expr: &str,
    ctx: &mut ExpressionContext,
    hash_key: &str,
    range_key: Option<&str>,
) -> Result<KeyCondition, ExprError> {
    let kind = ExpressionKind::KeyCondition;
    let raw = resolve::syntax(kind, Parser::for_condition(expr), |p| p.condition())?;
    let mut r = Resolver::new(ctx, kind);
    let cond = r.cond(&raw);
    let cond = r.finish(cond)?;
    let mut conjuncts = Vec::new();
    flatten(cond, &mut conjuncts)?;
    let mut keyed: Vec<(String, RangeCondition)> = Vec::new();
    for c in conjuncts {
        let (name, condition) = key_part(c)?;
        if keyed.iter().any(|(n, _)| *n == name) {
            return Err(ExprError::invalid(
                ExpressionKind::KeyCondition,
                "KeyConditionExpressions must only contain one condition per key",
            ));
        }
        keyed.push((name, condition));
    }
    if keyed
        .iter()
        .any(|(n, _)| n != hash_key && Some(n.as_str()) != range_key)
    {
        return Err(ExprError::new(NOT_SUPPORTED));
    }
    let hash_index = keyed
        .iter()
        .position(|(n, _)| n == hash_key)
        .ok_or_else(|| {
            ExprError::new(format!(
                "Query condition missed key schema element: {hash_key}"
            ))
        })?;
    let (_, hash) = keyed.remove(hash_index);
    let RangeCondition::Eq(hash_value) = hash else {
        return Err(ExprError::new(NOT_SUPPORTED));
    };
    Ok(KeyCondition {
        hash_value,
        range: keyed.pop().map(|(_, c)| c),
    })
}

fn invalid_operator(op: &str) -> ExprError {
    ExprError::new(format!(
        "Invalid operator used in KeyConditionExpression: {op}"
    ))
}

fn flatten(cond: Condition, out: &mut Vec<Condition>) -> Result<(), ExprError> {
    match cond {
        Condition::And(a, b) => {
            flatten(*a, out)?;
            flatten(*b, out)
        }
        Condition::Or(..) => Err(invalid_operator("OR")),
        Condition::Not(..) => Err(invalid_operator("NOT")),
        Condition::In(..) => Err(invalid_operator("IN")),
        Condition::AttributeExists(_) => Err(invalid_operator("attribute_exists")),
        Condition::AttributeNotExists(_) => Err(invalid_operator("attribute_not_exists")),
        Condition::AttributeType(..) => Err(invalid_operator("attribute_type")),
        Condition::Contains(..) => Err(invalid_operator("contains")),
        Condition::Compare(_, Comparator::Ne, _) => Err(invalid_operator("<>")),
        other => {
            out.push(other);
            Ok(())
        }
    }
}

fn key_name(path: &DocumentPath) -> Result<String, ExprError> {
    if path.0.len() != 1 {
        return Err(ExprError::invalid(
            ExpressionKind::KeyCondition,
            "KeyConditionExpressions cannot have conditions on nested attributes",
        ));
    }
    Ok(path.top_level().to_string())
}

fn key_part(cond: Condition) -> Result<(String, RangeCondition), ExprError> {
    match cond {
        Condition::Compare(Operand::Path(p), op, Operand::Value(v)) => {
            Ok((key_name(&p)?, comparison(op, v)))
        }
        // `:v < key` reads as `key > :v`.
        Condition::Compare(Operand::Value(v), op, Operand::Path(p)) => {
            Ok((key_name(&p)?, comparison(op.mirrored(), v)))
        }
        Condition::Between(Operand::Path(p), Operand::Value(low), Operand::Value(high)) => {
            Ok((key_name(&p)?, RangeCondition::Between(low, high)))
        }
        Condition::BeginsWith(Operand::Path(p), Operand::Value(v)) => {
            Ok((key_name(&p)?, RangeCondition::BeginsWith(v)))
        }
        Condition::Compare(Operand::Size(_), ..) | Condition::Compare(_, _, Operand::Size(_)) => {
            Err(invalid_operator("size"))
        }
        _ => Err(ExprError::new(NOT_SUPPORTED)),
    }
}

fn comparison(op: Comparator, v: AttributeValue) -> RangeCondition {
    match op {
        Comparator::Lt => RangeCondition::Lt(v),
        Comparator::Le => RangeCondition::Le(v),
        Comparator::Gt => RangeCondition::Gt(v),
        Comparator::Ge => RangeCondition::Ge(v),
        _ => RangeCondition::Eq(v),
    }
}
