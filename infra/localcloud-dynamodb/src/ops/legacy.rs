//! The legacy (pre-expression) parameters, translated into the trees their
//! expression equivalents parse to, so both evaluate alike: `Expected`,
//! `QueryFilter` and `ScanFilter` (with `ConditionalOperator`) into a
//! condition, `KeyConditions` into a key condition, `AttributesToGet` into a
//! projection and `AttributeUpdates` into an update.
//! https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/LegacyConditionalParameters.html
//!
//! Requests without them pay one `is_some` test per parameter: nothing here
//! runs on the expression path.

use std::collections::BTreeMap;

use dynamodb_lang::expr::{
    Comparator, DocumentPath, Operand, PathElement, SetOperand, SetValue, UpdateAction,
};
use dynamodb_lang::{
    AttributeValue, Condition, KeyCondition, Projection, RangeCondition, UpdateExpression,
};
use serde::Deserialize;

use crate::error::{validation, DdbResult};

/// One element of `QueryFilter`, `ScanFilter` or `KeyConditions`.
#[derive(Deserialize, Debug)]
#[serde(rename_all = "PascalCase")]
pub struct LegacyCondition {
    attribute_value_list: Option<Vec<AttributeValue>>,
    comparison_operator: Option<String>,
}

/// One element of `Expected`.
#[derive(Deserialize, Debug)]
#[serde(rename_all = "PascalCase")]
pub struct ExpectedValue {
    value: Option<AttributeValue>,
    exists: Option<bool>,
    comparison_operator: Option<String>,
    attribute_value_list: Option<Vec<AttributeValue>>,
}

/// One element of `AttributeUpdates`.
#[derive(Deserialize, Debug)]
#[serde(rename_all = "PascalCase")]
pub struct AttributeValueUpdate {
    value: Option<AttributeValue>,
    action: Option<String>,
}

pub type Conditions = BTreeMap<String, LegacyCondition>;
pub type Expected = BTreeMap<String, ExpectedValue>;
pub type AttributeUpdates = BTreeMap<String, AttributeValueUpdate>;

/// AWS refuses a request that mixes the two families; each list names the
/// parameters of one family present in the request.
pub fn reject_mix(legacy: &[(&str, bool)], expressions: &[(&str, bool)]) -> DdbResult<()> {
    let any = |params: &[(&str, bool)]| params.iter().any(|(_, given)| *given);
    // The common case (expressions only) allocates nothing.
    if !any(legacy) || !any(expressions) {
        return Ok(());
    }
    let present = |params: &[(&str, bool)]| -> String {
        params
            .iter()
            .filter(|(_, given)| *given)
            .map(|(name, _)| *name)
            .collect::<Vec<_>>()
            .join(", ")
    };
    Err(validation(format!(
        "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {{{}}} Expression parameters: {{{}}}",
        present(legacy),
        present(expressions)
    )))
}

fn path(name: &str) -> DocumentPath {
    DocumentPath(vec![PathElement::Attribute(name.to_string())])
}

fn invalid(message: impl std::fmt::Display) -> crate::error::DdbError {
    validation(format!(
        "One or more parameter values were invalid: {message}"
    ))
}

/// `AND` (the default) or `OR`; `None` when no conditions come with it.
pub fn conditional_operator(op: Option<&str>, conditions: usize) -> DdbResult<bool> {
    match op {
        None | Some("AND") => {}
        Some("OR") => {}
        Some(other) => return Err(validation(format!(
            "1 validation error detected: Value '{other}' at 'conditionalOperator' failed to satisfy constraint: Member must satisfy enum value set: [AND, OR]"
        ))),
    }
    if op.is_some() && conditions == 0 {
        return Err(validation(
            "ConditionalOperator cannot be used without Filter or Expected",
        ));
    }
    Ok(op == Some("OR"))
}

/// Joins conditions with AND or OR; `None` for none.
fn join(conditions: Vec<Condition>, or: bool) -> Option<Condition> {
    conditions.into_iter().reduce(|a, b| {
        if or {
            Condition::Or(Box::new(a), Box::new(b))
        } else {
            Condition::And(Box::new(a), Box::new(b))
        }
    })
}

/// `QueryFilter` or `ScanFilter` with its `ConditionalOperator`.
pub fn filter(conditions: Conditions, op: Option<&str>) -> DdbResult<Option<Condition>> {
    let or = conditional_operator(op, conditions.len())?;
    let mut out = Vec::with_capacity(conditions.len());
    for (name, c) in conditions {
        let operator = c.comparison_operator.as_deref().ok_or_else(|| {
            validation("1 validation error detected: Value null at 'comparisonOperator' failed to satisfy constraint: Member must not be null")
        })?;
        out.push(comparison(
            &name,
            operator,
            c.attribute_value_list.unwrap_or_default(),
        )?);
    }
    Ok(join(out, or))
}

/// `Expected` with its `ConditionalOperator`.
pub fn expected(expected: Expected, op: Option<&str>) -> DdbResult<Option<Condition>> {
    let or = conditional_operator(op, expected.len())?;
    let mut out = Vec::with_capacity(expected.len());
    for (name, e) in expected {
        out.push(expected_one(&name, e)?);
    }
    Ok(join(out, or))
}

fn expected_one(name: &str, e: ExpectedValue) -> DdbResult<Condition> {
    if let Some(operator) = e.comparison_operator.as_deref() {
        if e.exists.is_some() {
            return Err(invalid(format!(
                "Exists and ComparisonOperator cannot be used together for Attribute: {name}"
            )));
        }
        let values = match (e.value, e.attribute_value_list) {
            (Some(_), Some(_)) => {
                return Err(invalid(format!(
                    "Value and AttributeValueList cannot be used together for Attribute: {name}"
                )))
            }
            (Some(v), None) => vec![v],
            (None, list) => list.unwrap_or_default(),
        };
        return comparison(name, operator, values);
    }
    if e.attribute_value_list.is_some() {
        return Err(invalid(format!(
            "AttributeValueList can only be used with a ComparisonOperator for Attribute: {name}"
        )));
    }
    match (e.exists, e.value) {
        (Some(false), Some(_)) => Err(invalid(format!(
            "Value cannot be used when Exists is false for Attribute: {name}"
        ))),
        (Some(false), None) => Ok(Condition::AttributeNotExists(path(name))),
        (_, Some(v)) => Ok(eq(name, v)),
        (Some(true), None) => Err(invalid(format!(
            "Value must be provided when Exists is true for Attribute: {name}"
        ))),
        (None, None) => Err(invalid(format!(
            "Value must be provided when Exists is null for Attribute: {name}"
        ))),
    }
}

fn eq(name: &str, v: AttributeValue) -> Condition {
    Condition::Compare(Operand::Path(path(name)), Comparator::Eq, Operand::Value(v))
}

const OPERATORS: &str =
    "[IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]";

/// One `ComparisonOperator` with its `AttributeValueList`, as the
/// expression that means the same: `EQ` is `a = :v`, `NOT_NULL` is
/// `attribute_exists(a)`, `NOT_CONTAINS` is `attribute_exists(a) AND NOT
/// contains(a, :v)` (false for a missing attribute, as DynamoDB Local and
/// AWS answer, unlike `NE`), ...
/// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/LegacyConditionalParameters.Conditions.html
fn comparison(name: &str, operator: &str, mut values: Vec<AttributeValue>) -> DdbResult<Condition> {
    let arity: (usize, usize) = match operator {
        "NULL" | "NOT_NULL" => (0, 0),
        "EQ" | "NE" | "LE" | "LT" | "GE" | "GT" | "CONTAINS" | "NOT_CONTAINS" | "BEGINS_WITH" => {
            (1, 1)
        }
        "BETWEEN" => (2, 2),
        "IN" => (1, usize::MAX),
        other => {
            return Err(validation(format!(
                "1 validation error detected: Value '{other}' at 'comparisonOperator' failed to satisfy constraint: Member must satisfy enum value set: {OPERATORS}"
            )))
        }
    };
    if values.len() < arity.0 || values.len() > arity.1 {
        return Err(invalid(format!(
            "Invalid number of argument(s) for the {operator} ComparisonOperator"
        )));
    }
    let scalar = |v: &AttributeValue| {
        matches!(
            v,
            AttributeValue::S(_) | AttributeValue::N(_) | AttributeValue::B(_)
        )
    };
    let allowed = |v: &AttributeValue| match operator {
        "EQ" | "NE" => true,
        "BEGINS_WITH" => matches!(v, AttributeValue::S(_) | AttributeValue::B(_)),
        _ => scalar(v),
    };
    if let Some(bad) = values.iter().find(|v| !allowed(v)) {
        return Err(invalid(format!(
            "ComparisonOperator {operator} is not valid for {} AttributeValue type",
            bad.type_code()
        )));
    }
    let attr = Operand::Path(path(name));
    let compare = |op, v| Condition::Compare(attr.clone(), op, Operand::Value(v));
    let mut next = || values.remove(0);
    Ok(match operator {
        "NULL" => Condition::AttributeNotExists(path(name)),
        "NOT_NULL" => Condition::AttributeExists(path(name)),
        "EQ" => compare(Comparator::Eq, next()),
        "NE" => compare(Comparator::Ne, next()),
        "LE" => compare(Comparator::Le, next()),
        "LT" => compare(Comparator::Lt, next()),
        "GE" => compare(Comparator::Ge, next()),
        "GT" => compare(Comparator::Gt, next()),
        "CONTAINS" => Condition::Contains(attr, Operand::Value(next())),
        "NOT_CONTAINS" => Condition::And(
            Box::new(Condition::AttributeExists(path(name))),
            Box::new(Condition::Not(Box::new(Condition::Contains(
                attr,
                Operand::Value(next()),
            )))),
        ),
        "BEGINS_WITH" => Condition::BeginsWith(attr, Operand::Value(next())),
        "BETWEEN" => {
            let low = next();
            let high = next();
            check_bounds(&low, &high)?;
            Condition::Between(attr, Operand::Value(low), Operand::Value(high))
        }
        _ => Condition::In(attr, values.into_iter().map(Operand::Value).collect()),
    })
}

/// `KeyConditions`: EQ on the partition key, and on the sort key one of
/// EQ, LE, LT, GE, GT, BEGINS_WITH or BETWEEN.
pub fn key_conditions(
    conditions: Conditions,
    hash_key: &str,
    range_key: Option<&str>,
) -> DdbResult<KeyCondition> {
    let mut hash = None;
    let mut range = None;
    for (name, c) in conditions {
        let operator = c.comparison_operator.as_deref().unwrap_or_default();
        let mut values = c.attribute_value_list.unwrap_or_default();
        let arity = match operator {
            "BETWEEN" => 2,
            "EQ" | "LE" | "LT" | "GE" | "GT" | "BEGINS_WITH" => 1,
            _ => {
                return Err(invalid(
                    "Attempted conditional constraint is not an indexable operation",
                ))
            }
        };
        if values.len() != arity {
            return Err(invalid(format!(
                "Invalid number of argument(s) for the {operator} ComparisonOperator"
            )));
        }
        if let [low, high] = &values[..] {
            check_bounds(low, high)?;
        }
        if name == hash_key {
            if operator != "EQ" {
                return Err(validation("Query key condition not supported"));
            }
            hash = values.pop();
        } else if Some(name.as_str()) == range_key {
            let v = values.remove(0);
            range = Some(match operator {
                "EQ" => RangeCondition::Eq(v),
                "LE" => RangeCondition::Le(v),
                "LT" => RangeCondition::Lt(v),
                "GE" => RangeCondition::Ge(v),
                "GT" => RangeCondition::Gt(v),
                "BEGINS_WITH" => RangeCondition::BeginsWith(v),
                _ => RangeCondition::Between(v, values.remove(0)),
            });
        } else {
            return Err(validation("Query condition missed key schema element"));
        }
    }
    let hash_value = hash.ok_or_else(|| validation("Query condition missed key schema element"))?;
    Ok(KeyCondition { hash_value, range })
}

/// `AttributesToGet`: the named top-level attributes.
pub fn attributes_to_get(names: Vec<String>) -> DdbResult<Projection> {
    if names.is_empty() {
        return Err(validation("1 validation error detected: Value '[]' at 'attributesToGet' failed to satisfy constraint: Member must have length greater than or equal to 1"));
    }
    for (i, name) in names.iter().enumerate() {
        if names[..i].contains(name) {
            return Err(validation("Cannot have two attributes with the same name"));
        }
    }
    Ok(Projection {
        paths: names.iter().map(|n| path(n)).collect(),
    })
}

/// `AttributeUpdates`: PUT sets, DELETE removes the attribute (or, with a
/// set, those members), ADD adds to a number or a set (or appends to a list).
/// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/LegacyConditionalParameters.AttributeUpdates.html
pub fn attribute_updates(updates: AttributeUpdates) -> DdbResult<UpdateExpression> {
    let mut actions = Vec::with_capacity(updates.len());
    for (name, update) in updates {
        let target = path(&name);
        let action = update.action.as_deref().unwrap_or("PUT");
        let is_set = |v: &AttributeValue| {
            matches!(
                v,
                AttributeValue::Ss(_) | AttributeValue::Ns(_) | AttributeValue::Bs(_)
            )
        };
        actions.push(match (action, update.value) {
            ("PUT" | "ADD", None) => {
                return Err(invalid(
                    "Only DELETE action is allowed when no attribute value is specified",
                ))
            }
            ("PUT", Some(v)) => UpdateAction::Set(target, SetValue::Operand(SetOperand::Value(v))),
            ("DELETE", None) => UpdateAction::Remove(target),
            ("DELETE", Some(v)) if is_set(&v) => UpdateAction::Delete(target, v),
            ("DELETE", Some(v)) => {
                return Err(invalid(format!(
                    "DELETE action with value is not supported for the type {}",
                    type_word(&v)
                )))
            }
            ("ADD", Some(v @ AttributeValue::L(_))) => UpdateAction::Set(
                target.clone(),
                SetValue::Operand(SetOperand::ListAppend(
                    Box::new(SetOperand::IfNotExists(
                        target,
                        Box::new(SetOperand::Value(AttributeValue::L(Vec::new()))),
                    )),
                    Box::new(SetOperand::Value(v)),
                )),
            ),
            ("ADD", Some(v)) if is_set(&v) || matches!(v, AttributeValue::N(_)) => {
                UpdateAction::Add(target, v)
            }
            ("ADD", Some(v)) => {
                return Err(invalid(format!(
                    "ADD action is not supported for the type {}",
                    type_word(&v)
                )))
            }
            (other, _) => return Err(validation(format!(
                "1 validation error detected: Value '{other}' at 'attributeUpdates.{name}.member.action' failed to satisfy constraint: Member must satisfy enum value set: [ADD, PUT, DELETE]"
            ))),
        });
    }
    Ok(UpdateExpression { actions })
}

/// A value's type as AWS spells it in AttributeUpdates errors.
fn type_word(v: &AttributeValue) -> &'static str {
    match v {
        AttributeValue::S(_) => "STRING",
        AttributeValue::N(_) => "NUMBER",
        AttributeValue::B(_) => "BINARY",
        AttributeValue::Bool(_) => "BOOLEAN",
        AttributeValue::Null => "NULL",
        AttributeValue::L(_) => "LIST",
        AttributeValue::M(_) => "MAP",
        AttributeValue::Ss(_) => "STRING_SET",
        AttributeValue::Ns(_) => "NUMBER_SET",
        AttributeValue::Bs(_) => "BINARY_SET",
    }
}

/// BETWEEN needs its lower bound first.
fn check_bounds(low: &AttributeValue, high: &AttributeValue) -> DdbResult<()> {
    if dynamodb_lang::compare_key_values(low, high) == Some(std::cmp::Ordering::Greater) {
        return Err(validation(
            "The BETWEEN condition was provided a range where the lower bound is greater than the upper bound",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use dynamodb_lang::{parse_condition, ExpressionContext, Item};
    use std::collections::HashMap;

    fn s(v: &str) -> AttributeValue {
        AttributeValue::S(v.into())
    }

    fn n(v: &str) -> AttributeValue {
        AttributeValue::N(v.parse().unwrap())
    }

    fn cond(op: &str, values: Vec<AttributeValue>) -> Conditions {
        BTreeMap::from([(
            "a".to_string(),
            LegacyCondition {
                attribute_value_list: Some(values),
                comparison_operator: Some(op.into()),
            },
        )])
    }

    /// The legacy condition and the expression decide every item alike.
    fn same_as(op: &str, values: Vec<AttributeValue>, expression: &str) {
        let mut placeholders = HashMap::new();
        for (i, v) in values.iter().enumerate() {
            placeholders.insert(format!(":v{i}"), v.clone());
        }
        let mut ctx =
            ExpressionContext::new(None, (!placeholders.is_empty()).then_some(placeholders))
                .unwrap();
        let from_expression = parse_condition(expression, &mut ctx).unwrap();
        let from_legacy = filter(cond(op, values), None).unwrap().unwrap();
        let items: Vec<Item> = vec![
            Item::new(),
            Item::from([("a".to_string(), s("abc"))]),
            Item::from([("a".to_string(), s("b"))]),
            Item::from([("a".to_string(), n("5"))]),
            Item::from([("a".to_string(), n("50"))]),
            Item::from([(
                "a".to_string(),
                AttributeValue::Ss(vec!["x".into(), "abc".into()]),
            )]),
            Item::from([("a".to_string(), AttributeValue::L(vec![s("abc")]))]),
        ];
        for item in &items {
            assert_eq!(
                from_legacy.evaluate(item).unwrap(),
                from_expression.evaluate(item).unwrap(),
                "{op} against `{expression}` on {item:?}"
            );
        }
    }

    #[test]
    fn every_comparison_operator_evaluates_as_its_expression() {
        same_as("EQ", vec![s("abc")], "a = :v0");
        same_as("NE", vec![s("abc")], "a <> :v0");
        same_as("LE", vec![n("5")], "a <= :v0");
        same_as("LT", vec![n("50")], "a < :v0");
        same_as("GE", vec![s("b")], "a >= :v0");
        same_as("GT", vec![s("abc")], "a > :v0");
        same_as("NOT_NULL", vec![], "attribute_exists(a)");
        same_as("NULL", vec![], "attribute_not_exists(a)");
        same_as("CONTAINS", vec![s("abc")], "contains(a, :v0)");
        same_as(
            "NOT_CONTAINS",
            vec![s("abc")],
            "attribute_exists(a) AND NOT contains(a, :v0)",
        );
        same_as("BEGINS_WITH", vec![s("a")], "begins_with(a, :v0)");
        same_as("IN", vec![s("b"), n("5")], "a IN (:v0, :v1)");
        same_as("BETWEEN", vec![n("1"), n("10")], "a BETWEEN :v0 AND :v1");
    }

    #[test]
    fn a_wrong_number_of_values_is_refused_with_aws_words() {
        let err = filter(cond("EQ", vec![]), None).unwrap_err();
        assert_eq!(
            err,
            validation("One or more parameter values were invalid: Invalid number of argument(s) for the EQ ComparisonOperator")
        );
        assert!(filter(cond("BETWEEN", vec![n("1")]), None).is_err());
        assert!(filter(cond("NULL", vec![n("1")]), None).is_err());
        assert!(filter(cond("LT", vec![AttributeValue::Ss(vec!["x".into()])]), None).is_err());
        assert!(filter(cond("NOPE", vec![]), None).is_err());
    }

    #[test]
    fn mixing_the_families_names_both() {
        let err = reject_mix(
            &[("AttributesToGet", true), ("QueryFilter", false)],
            &[("ProjectionExpression", true)],
        )
        .unwrap_err();
        assert_eq!(err, validation("Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}"));
        assert!(reject_mix(&[("Expected", true)], &[("ConditionExpression", false)]).is_ok());
    }

    #[test]
    fn expected_without_operator_is_equality_or_absence() {
        let e = Expected::from([
            (
                "a".to_string(),
                ExpectedValue {
                    value: Some(s("abc")),
                    exists: None,
                    comparison_operator: None,
                    attribute_value_list: None,
                },
            ),
            (
                "b".to_string(),
                ExpectedValue {
                    value: None,
                    exists: Some(false),
                    comparison_operator: None,
                    attribute_value_list: None,
                },
            ),
        ]);
        let c = expected(e, None).unwrap().unwrap();
        assert!(c
            .evaluate(&Item::from([("a".to_string(), s("abc"))]))
            .unwrap());
        assert!(!c
            .evaluate(&Item::from([
                ("a".to_string(), s("abc")),
                ("b".to_string(), n("1"))
            ]))
            .unwrap());
        let bad = Expected::from([(
            "a".to_string(),
            ExpectedValue {
                value: None,
                exists: Some(true),
                comparison_operator: None,
                attribute_value_list: None,
            },
        )]);
        assert!(expected(bad, None).is_err());
    }
}
