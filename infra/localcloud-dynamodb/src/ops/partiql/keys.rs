//! Which keys a PartiQL WHERE clause names, read from its condition tree:
//! the one item an UPDATE, DELETE or single-item SELECT acts on (an equality
//! on every key attribute among the top-level ANDs), and the partitions and
//! sort-key range a SELECT reads (`pk = v`, `pk IN [...]` or an OR of those
//! make it a Query; anything else a Scan).
//! https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.select.html

use dynamodb_lang::expr::{Comparator, Operand, PathElement};
use dynamodb_lang::{AttributeValue, Condition, Item, RangeCondition};

use crate::error::{validation, DdbResult};
use crate::key::{KeyAttr, KeyPart, KeySchema};

/// The conditions joined by the top-level ANDs.
fn conjuncts(condition: &Condition) -> Vec<&Condition> {
    match condition {
        Condition::And(a, b) => {
            let mut all = conjuncts(a);
            all.extend(conjuncts(b));
            all
        }
        other => vec![other],
    }
}

/// The top-level attribute an operand names, if it is one.
fn attribute(operand: &Operand) -> Option<&str> {
    match operand {
        Operand::Path(p) => match p.0.as_slice() {
            [PathElement::Attribute(name)] => Some(name),
            _ => None,
        },
        _ => None,
    }
}

/// `name op value` with the value on either side, as `name op' value`.
fn comparison(condition: &Condition) -> Option<(&str, Comparator, &AttributeValue)> {
    let Condition::Compare(a, op, b) = condition else {
        return None;
    };
    match (attribute(a), a, b, attribute(b)) {
        (Some(name), _, Operand::Value(v), _) => Some((name, *op, v)),
        (_, Operand::Value(v), _, Some(name)) => Some((name, op.mirrored(), v)),
        _ => None,
    }
}

/// AWS's answer to a key value of the wrong type.
fn key_type_mismatch(attr: &KeyAttr) -> crate::error::DdbError {
    validation(format!(
        "Key attribute's data type should match its data type in table's schema: Key {}",
        attr.name
    ))
}

/// The item one statement acts on: its key (checked against the schema's
/// types) and what is left of the WHERE clause once the key equalities are
/// taken out (`None` if nothing).
pub fn single_item(
    keys: &KeySchema,
    filter: Option<&Condition>,
) -> DdbResult<(Item, Option<Condition>)> {
    let all = filter.map(conjuncts).unwrap_or_default();
    let mut key = Item::new();
    let mut rest: Vec<&Condition> = Vec::new();
    for condition in all {
        match comparison(condition) {
            Some((name, Comparator::Eq, value)) if keys.is_key_attribute(name) => {
                if key.insert(name.to_string(), value.clone()).is_some() {
                    return Err(validation(format!(
                        "Multiple conditions on same key {name}. Only single item Update/Insert/Delete are supported"
                    )));
                }
            }
            _ => rest.push(condition),
        }
    }
    check_key_item(keys, &key, |_| {
        validation("Where clause does not contain a mandatory equality on all key attributes")
    })?;
    let rest = rest
        .into_iter()
        .cloned()
        .reduce(|a, b| Condition::And(Box::new(a), Box::new(b)));
    Ok((key, rest))
}

/// Every key attribute is in `item`, of its schema's type; `missing` is the
/// error for an absent one.
pub fn check_key_item(
    keys: &KeySchema,
    item: &Item,
    missing: impl Fn(&KeyAttr) -> crate::error::DdbError,
) -> DdbResult<()> {
    for attr in keys.attrs() {
        let value = item.get(&attr.name).ok_or_else(|| missing(attr))?;
        if KeyPart::from_value(value, attr.ty).is_none() {
            return Err(key_type_mismatch(attr));
        }
    }
    Ok(())
}

/// The partition key values a SELECT reads, sorted and distinct, when its
/// WHERE clause limits it to them; `None` when it may match any partition.
pub fn partitions(hash: &KeyAttr, filter: Option<&Condition>) -> DdbResult<Option<Vec<KeyPart>>> {
    let Some(values) = filter.and_then(|f| partition_values(&hash.name, f)) else {
        return Ok(None);
    };
    let mut parts = values
        .into_iter()
        .map(|v| KeyPart::from_value(v, hash.ty).ok_or_else(|| key_type_mismatch(hash)))
        .collect::<DdbResult<Vec<_>>>()?;
    parts.sort();
    parts.dedup();
    Ok(Some(parts))
}

fn partition_values<'a>(hash: &str, condition: &'a Condition) -> Option<Vec<&'a AttributeValue>> {
    match condition {
        Condition::And(a, b) => partition_values(hash, a).or_else(|| partition_values(hash, b)),
        Condition::Or(a, b) => {
            let mut values = partition_values(hash, a)?;
            values.extend(partition_values(hash, b)?);
            Some(values)
        }
        Condition::In(on, list) if attribute(on) == Some(hash) => list
            .iter()
            .map(|o| match o {
                Operand::Value(v) => Some(v),
                _ => None,
            })
            .collect(),
        other => match comparison(other) {
            Some((name, Comparator::Eq, value)) if name == hash => Some(vec![value]),
            _ => None,
        },
    }
}

/// The first sort-key condition among the top-level ANDs that narrows a
/// Query's walk (the whole WHERE clause still filters every item read).
pub fn sort_range(range: Option<&KeyAttr>, filter: Option<&Condition>) -> Option<RangeCondition> {
    let range_key = range?;
    let fits = |v: &AttributeValue| KeyPart::from_value(v, range_key.ty).is_some();
    filter
        .map(conjuncts)
        .unwrap_or_default()
        .into_iter()
        .find_map(|condition| {
            let narrowed = match condition {
                Condition::Between(on, Operand::Value(low), Operand::Value(high))
                    if attribute(on) == Some(range_key.name.as_str()) =>
                {
                    RangeCondition::Between(low.clone(), high.clone())
                }
                Condition::BeginsWith(on, Operand::Value(prefix))
                    if attribute(on) == Some(range_key.name.as_str()) =>
                {
                    RangeCondition::BeginsWith(prefix.clone())
                }
                other => {
                    let (name, op, v) = comparison(other)?;
                    if name != range_key.name {
                        return None;
                    }
                    let v = v.clone();
                    match op {
                        Comparator::Eq => RangeCondition::Eq(v),
                        Comparator::Lt => RangeCondition::Lt(v),
                        Comparator::Le => RangeCondition::Le(v),
                        Comparator::Gt => RangeCondition::Gt(v),
                        Comparator::Ge => RangeCondition::Ge(v),
                        Comparator::Ne => return None,
                    }
                }
            };
            narrowed.values().into_iter().all(fits).then_some(narrowed)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::KeyType;
    use dynamodb_lang::partiql::{parse_statement, Statement};

    fn schema() -> KeySchema {
        KeySchema {
            hash: KeyAttr {
                name: "pk".into(),
                ty: KeyType::S,
            },
            range: Some(KeyAttr {
                name: "sk".into(),
                ty: KeyType::N,
            }),
        }
    }

    fn filter(statement: &str) -> Option<Condition> {
        match parse_statement(statement, &[]).unwrap() {
            Statement::Select(s) => s.filter,
            other => panic!("not a select: {other:?}"),
        }
    }

    #[test]
    fn a_full_key_equality_names_one_item_and_leaves_the_rest_as_condition() {
        let f = filter("SELECT * FROM t WHERE pk = 'a' AND 1 = sk AND x > 3");
        let (key, rest) = single_item(&schema(), f.as_ref()).unwrap();
        assert_eq!(key.len(), 2);
        assert_eq!(key["pk"], AttributeValue::S("a".into()));
        let rest = rest.expect("x > 3 is left");
        assert!(rest
            .evaluate(&Item::from([(
                "x".to_string(),
                AttributeValue::N("4".parse().unwrap())
            )]))
            .unwrap());
    }

    #[test]
    fn a_missing_repeated_or_mistyped_key_is_refused_with_aws_words() {
        let err = |s: &str| single_item(&schema(), filter(s).as_ref()).unwrap_err();
        assert_eq!(
            err("SELECT * FROM t WHERE pk = 'a'"),
            validation("Where clause does not contain a mandatory equality on all key attributes")
        );
        assert_eq!(
            err("SELECT * FROM t WHERE pk = 'a' AND sk = 1 OR x = 2"),
            validation("Where clause does not contain a mandatory equality on all key attributes")
        );
        assert_eq!(
            err("SELECT * FROM t WHERE pk = 'a' AND sk = 1 AND sk = 2"),
            validation("Multiple conditions on same key sk. Only single item Update/Insert/Delete are supported")
        );
        assert_eq!(
            err("SELECT * FROM t WHERE pk = 1 AND sk = 1"),
            validation(
                "Key attribute's data type should match its data type in table's schema: Key pk"
            )
        );
    }

    #[test]
    fn equality_in_or_an_or_of_equalities_on_the_partition_key_is_a_query() {
        let hash = schema().hash;
        let parts = |s: &str| partitions(&hash, filter(s).as_ref()).unwrap();
        assert_eq!(
            parts("SELECT * FROM t WHERE pk = 'b' AND x = 1")
                .unwrap()
                .len(),
            1
        );
        assert_eq!(
            parts("SELECT * FROM t WHERE pk IN ['b', 'a', 'b']")
                .unwrap()
                .len(),
            2
        );
        assert_eq!(
            parts("SELECT * FROM t WHERE pk = 'a' OR pk = 'c'")
                .unwrap()
                .len(),
            2
        );
        assert!(parts("SELECT * FROM t WHERE pk = 'a' OR x = 1").is_none());
        assert!(parts("SELECT * FROM t WHERE pk > 'a'").is_none());
        assert!(parts("SELECT * FROM t").is_none());
    }

    #[test]
    fn a_sort_key_comparison_narrows_the_walk_when_its_type_fits() {
        let s = schema();
        let range = |q: &str| sort_range(s.range.as_ref(), filter(q).as_ref());
        assert_eq!(
            range("SELECT * FROM t WHERE pk = 'a' AND 5 < sk"),
            Some(RangeCondition::Gt(AttributeValue::N("5".parse().unwrap())))
        );
        assert!(matches!(
            range("SELECT * FROM t WHERE pk = 'a' AND sk BETWEEN 1 AND 2"),
            Some(RangeCondition::Between(..))
        ));
        assert_eq!(range("SELECT * FROM t WHERE pk = 'a' AND sk = 'x'"), None);
        assert_eq!(range("SELECT * FROM t WHERE pk = 'a' OR sk = 1"), None);
    }
}
