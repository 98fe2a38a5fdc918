//! Property tests: parsers never panic, numbers agree with `bigdecimal`, values
//! survive the wire format.

use std::collections::HashMap;
use std::str::FromStr;

use bigdecimal::BigDecimal;
use dynamodb_lang::{
    parse_condition, parse_key_condition, parse_projection, parse_update, AttributeValue,
    ExpressionContext, Item, Number,
};
use proptest::prelude::*;

/// A context defining the placeholders the generators use.
fn context() -> ExpressionContext {
    let names = HashMap::from([
        ("#a".to_string(), "a".to_string()),
        ("#n".to_string(), "name".to_string()),
    ]);
    let values = HashMap::from([
        (":s".to_string(), AttributeValue::S("x".into())),
        (":n".to_string(), AttributeValue::N(Number::from(1))),
        (
            ":l".to_string(),
            AttributeValue::L(vec![AttributeValue::Null]),
        ),
        (":ss".to_string(), AttributeValue::Ss(vec!["x".into()])),
    ]);
    ExpressionContext::new(Some(names), Some(values)).unwrap()
}

fn sample_item() -> Item {
    crate::common::item(serde_json::json!({
        "a": {"M": {"b": {"L": [{"N": "1"}, {"S": "x"}]}}},
        "c": {"N": "5"},
        "d": {"SS": ["x", "y"]},
        "e": {"L": [{"N": "1"}, {"N": "2"}]}
    }))
}

const TOKENS: &[&str] = &[
    "a",
    "b",
    "c",
    "d",
    "e",
    "#a",
    "#n",
    "#zz",
    ":s",
    ":n",
    ":l",
    ":ss",
    ":q",
    "name",
    ".",
    "[",
    "]",
    "0",
    "1",
    "99999999999999999999999",
    "(",
    ")",
    ",",
    "=",
    "<>",
    "<",
    "<=",
    ">",
    ">=",
    "+",
    "-",
    "AND",
    "OR",
    "NOT",
    "BETWEEN",
    "IN",
    "SET",
    "REMOVE",
    "ADD",
    "DELETE",
    "size",
    "attribute_exists",
    "attribute_not_exists",
    "attribute_type",
    "begins_with",
    "contains",
    "if_not_exists",
    "list_append",
    "foo",
    "!",
    "é",
    "\t",
];

fn token_soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..24).prop_map(|t| t.join(" "))
}

fn path() -> impl Strategy<Value = String> {
    let head = prop::sample::select(&["a", "c", "d", "e", "#a", "#n"][..]);
    let step = prop_oneof![
        prop::sample::select(&["b", "c", "#a"][..]).prop_map(|s| format!(".{s}")),
        (0usize..3).prop_map(|i| format!("[{i}]")),
    ];
    (head, prop::collection::vec(step, 0..3)).prop_map(|(h, s)| format!("{h}{}", s.concat()))
}

fn operand() -> impl Strategy<Value = String> {
    prop_oneof![
        path(),
        prop::sample::select(&[":s", ":n", ":l", ":ss"][..]).prop_map(String::from),
        path().prop_map(|p| format!("size({p})")),
    ]
}

fn condition() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        (
            operand(),
            prop::sample::select(&["=", "<>", "<", "<=", ">", ">="][..]),
            operand()
        )
            .prop_map(|(a, op, b)| format!("{a} {op} {b}")),
        (operand(), operand(), operand()).prop_map(|(a, b, c)| format!("{a} BETWEEN {b} AND {c}")),
        (operand(), prop::collection::vec(operand(), 1..4))
            .prop_map(|(a, l)| format!("{a} IN ({})", l.join(", "))),
        path().prop_map(|p| format!("attribute_exists({p})")),
        path().prop_map(|p| format!("attribute_not_exists({p})")),
        (path(), operand()).prop_map(|(p, o)| format!("begins_with({p}, {o})")),
        (path(), operand()).prop_map(|(p, o)| format!("contains({p}, {o})")),
    ];
    leaf.prop_recursive(3, 16, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} AND {b}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} OR {b}")),
            inner.clone().prop_map(|a| format!("NOT {a}")),
            inner.prop_map(|a| format!("({a})")),
        ]
    })
}

fn update_operand() -> impl Strategy<Value = String> {
    prop_oneof![
        path(),
        prop::sample::select(&[":s", ":n", ":l", ":ss"][..]).prop_map(String::from),
    ]
}

fn update() -> impl Strategy<Value = String> {
    let set_value = prop_oneof![
        update_operand(),
        (update_operand(), update_operand()).prop_map(|(a, b)| format!("{a} + {b}")),
        (path(), update_operand()).prop_map(|(p, o)| format!("if_not_exists({p}, {o})")),
        (update_operand(), update_operand()).prop_map(|(a, b)| format!("list_append({a}, {b})")),
    ];
    let set = prop::collection::vec((path(), set_value), 1..3).prop_map(|v| {
        let actions: Vec<String> = v.into_iter().map(|(p, x)| format!("{p} = {x}")).collect();
        format!("SET {}", actions.join(", "))
    });
    let remove =
        prop::collection::vec(path(), 1..3).prop_map(|v| format!("REMOVE {}", v.join(", ")));
    let add = (path(), prop::sample::select(&[":n", ":ss", ":s"][..]))
        .prop_map(|(p, v)| format!("ADD {p} {v}"));
    let delete = (path(), prop::sample::select(&[":ss", ":n"][..]))
        .prop_map(|(p, v)| format!("DELETE {p} {v}"));
    // Each clause at most once, in any order.
    (
        prop::option::of(set),
        prop::option::of(remove),
        prop::option::of(add),
        prop::option::of(delete),
    )
        .prop_filter_map("needs a clause", |(a, b, c, d)| {
            let clauses: Vec<String> = [a, b, c, d].into_iter().flatten().collect();
            (!clauses.is_empty()).then_some(clauses)
        })
        .prop_shuffle()
        .prop_map(|clauses| clauses.join(" "))
}

/// Drops, duplicates or swaps a character to make a near-valid expression.
fn mutate(expr: String, kind: u8, at: usize) -> String {
    let chars: Vec<char> = expr.chars().collect();
    if chars.is_empty() {
        return expr;
    }
    let i = at % chars.len();
    let mut out = chars.clone();
    match kind % 3 {
        0 => {
            out.remove(i);
        }
        1 => out.insert(i, chars[i]),
        _ => out.swap(i, (i + 1) % chars.len()),
    }
    out.into_iter().collect()
}

/// Every parser on one input; evaluation and application must not panic either.
fn exercise(expr: &str) {
    let item = sample_item();
    if let Ok(c) = parse_condition(expr, &mut context()) {
        let _ = c.evaluate(&item);
    }
    if let Ok(u) = parse_update(expr, &mut context()) {
        let mut target = item.clone();
        let before = target.clone();
        if u.apply(&mut target).is_err() {
            assert_eq!(target, before, "failed update must not change the item");
        }
        let _ = u.top_level_attributes();
    }
    if let Ok(p) = parse_projection(expr, &mut context()) {
        let _ = p.apply(&item);
    }
    let _ = parse_key_condition(expr, &mut context(), "a", Some("c"));
}

fn number_text() -> impl Strategy<Value = String> {
    (
        any::<bool>(),
        "[0-9]{0,20}",
        "[0-9]{0,20}",
        prop::option::of(-140i32..140),
        any::<bool>(),
    )
        .prop_filter_map("needs a digit", |(neg, int, frac, exp, upper)| {
            if int.is_empty() && frac.is_empty() {
                return None;
            }
            let mut s = String::new();
            if neg {
                s.push('-');
            }
            s.push_str(&int);
            if !frac.is_empty() {
                s.push('.');
                s.push_str(&frac);
            }
            if let Some(e) = exp {
                s.push(if upper { 'E' } else { 'e' });
                s.push_str(&e.to_string());
            }
            Some(s)
        })
}

fn attribute_value() -> impl Strategy<Value = AttributeValue> {
    let number = || number_text().prop_filter_map("in range", |t| t.parse::<Number>().ok());
    let leaf = prop_oneof![
        ".{0,8}".prop_map(AttributeValue::S),
        number().prop_map(AttributeValue::N),
        prop::collection::vec(any::<u8>(), 0..8).prop_map(AttributeValue::B),
        any::<bool>().prop_map(AttributeValue::Bool),
        Just(AttributeValue::Null),
        prop::collection::btree_set(".{0,5}", 1..4)
            .prop_map(|s| AttributeValue::Ss(s.into_iter().collect())),
        prop::collection::hash_set(number(), 1..4)
            .prop_map(|s| AttributeValue::Ns(s.into_iter().collect())),
        prop::collection::btree_set(prop::collection::vec(any::<u8>(), 0..4), 1..4)
            .prop_map(|s| AttributeValue::Bs(s.into_iter().collect())),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(AttributeValue::L),
            prop::collection::btree_map("[a-z]{1,4}", inner, 0..4).prop_map(AttributeValue::M),
        ]
    })
}

/// Arbitrary JSON biased towards attribute-value shapes.
fn json_value() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::Value;
    let key = prop::sample::select(
        &[
            "S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS", "X",
        ][..],
    );
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        number_text().prop_map(Value::String),
        "[A-Za-z0-9+/=]{0,8}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 4, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((key.clone(), inner), 0..3).prop_map(|entries| {
                Value::Object(
                    entries
                        .into_iter()
                        .map(|(k, v)| (k.to_string(), v))
                        .collect(),
                )
            }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn decoding_arbitrary_json_never_panics(json in json_value()) {
        if let Ok(v) = serde_json::from_value::<AttributeValue>(json) {
            // Whatever decodes re-encodes and decodes to the same value.
            let again: AttributeValue = serde_json::from_value(serde_json::to_value(&v).unwrap()).unwrap();
            prop_assert_eq!(again, v);
        }
    }

    #[test]
    fn parsers_never_panic_on_arbitrary_text(expr in ".{0,60}") {
        exercise(&expr);
    }

    #[test]
    fn parsers_never_panic_on_token_soup(expr in token_soup()) {
        exercise(&expr);
    }

    #[test]
    fn generated_conditions_parse_or_fail_cleanly(expr in condition(), kind in any::<u8>(), at in any::<usize>()) {
        exercise(&expr);
        exercise(&mutate(expr, kind, at));
    }

    #[test]
    fn generated_updates_parse_or_fail_cleanly(expr in update(), kind in any::<u8>(), at in any::<usize>()) {
        exercise(&expr);
        exercise(&mutate(expr, kind, at));
    }

    #[test]
    fn number_parsing_agrees_with_bigdecimal(text in number_text()) {
        let reference = BigDecimal::from_str(&text).unwrap();
        if let Ok(n) = text.parse::<Number>() {
            let shown = n.to_string();
            prop_assert_eq!(BigDecimal::from_str(&shown).unwrap(), reference);
            prop_assert_eq!(shown.parse::<Number>().unwrap(), n.clone());
            // Canonical: no exponent, no trailing fractional zeros, no "-0".
            prop_assert!(!shown.contains(['e', 'E']));
            prop_assert!(!(shown.contains('.') && shown.ends_with('0')));
            prop_assert!(shown != "-0");
        }
    }

    #[test]
    fn number_order_agrees_with_bigdecimal(a in number_text(), b in number_text()) {
        if let (Ok(x), Ok(y)) = (a.parse::<Number>(), b.parse::<Number>()) {
            let (rx, ry) = (BigDecimal::from_str(&a).unwrap(), BigDecimal::from_str(&b).unwrap());
            prop_assert_eq!(x.cmp(&y), rx.cmp(&ry));
            prop_assert_eq!(x == y, rx == ry);
        }
    }

    #[test]
    fn number_sums_are_exact(a in number_text(), b in number_text()) {
        if let (Ok(x), Ok(y)) = (a.parse::<Number>(), b.parse::<Number>()) {
            let exact = BigDecimal::from_str(&a).unwrap() + BigDecimal::from_str(&b).unwrap();
            match x.checked_add(&y) {
                Ok(sum) => prop_assert_eq!(BigDecimal::from_str(&sum.to_string()).unwrap(), exact),
                // Only refused when the exact sum is not representable.
                Err(_) => prop_assert!(exact.to_string().parse::<Number>().is_err()),
            }
            let diff = BigDecimal::from_str(&a).unwrap() - BigDecimal::from_str(&b).unwrap();
            if let Ok(d) = x.checked_sub(&y) {
                prop_assert_eq!(BigDecimal::from_str(&d.to_string()).unwrap(), diff);
            }
        }
    }

    #[test]
    fn values_round_trip_through_the_wire_format(v in attribute_value()) {
        let json = serde_json::to_string(&v).unwrap();
        let back: AttributeValue = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(back, v);
    }
}
