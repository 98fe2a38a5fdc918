//! Condition and filter expressions: evaluation and AWS's error messages.

use crate::common::{ctx, item};
use dynamodb_lang::{parse_condition, parse_filter, ExpressionContext, Item};
use serde_json::{json, Value};

fn sample() -> Item {
    item(json!({
        "id": {"S": "user#1"},
        "age": {"N": "42"},
        "score": {"N": "1.5"},
        "nick": {"S": "héllo𝄞"},
        "bin": {"B": "AQID"},
        "tags": {"SS": ["red", "blue"]},
        "nums": {"NS": ["1", "2"]},
        "arr": {"L": [{"S": "a"}, {"N": "7"}, {"M": {"c": {"S": "deep"}}}]},
        "doc": {"M": {"b": {"L": [{"N": "0"}, {"N": "1"}, {"M": {"c": {"S": "x"}}}]}}},
        "flag": {"BOOL": true},
        "nothing": {"NULL": true}
    }))
}

/// GIVEN the sample item WHEN `expr` is evaluated with `values` THEN returns its truth.
fn holds(expr: &str, values: Value) -> bool {
    holds_with(expr, &mut ctx(&[], values))
}

fn holds_with(expr: &str, ctx: &mut ExpressionContext) -> bool {
    parse_condition(expr, ctx)
        .unwrap_or_else(|e| panic!("{expr}: {}", e.message))
        .evaluate(&sample())
        .unwrap()
}

fn error(expr: &str, values: Value) -> String {
    error_with(expr, &mut ctx(&[], values))
}

fn error_with(expr: &str, ctx: &mut ExpressionContext) -> String {
    match parse_condition(expr, ctx) {
        Ok(c) => panic!("{expr} parsed as {c:?}"),
        Err(e) => e.message,
    }
}

#[test]
fn comparisons_of_same_types_follow_value_order() {
    let v = json!({":n": {"N": "42.0"}, ":s": {"S": "user#0"}, ":b": {"B": "AQI="}});
    assert!(holds("age = :n", v.clone()));
    assert!(holds("age >= :n AND age <= :n", v.clone()));
    assert!(!holds("age <> :n", v.clone()));
    assert!(holds("id > :s", v.clone()));
    assert!(holds("bin > :b", v.clone()));
    assert!(!holds("age < :n", v));
}

#[test]
fn comparisons_across_types_are_false_not_errors() {
    let v = json!({":s": {"S": "42"}});
    assert!(!holds("age = :s", v.clone()));
    assert!(!holds("age < :s", v.clone()));
    assert!(!holds("age >= :s", v.clone()));
    assert!(holds("age <> :s", v));
}

#[test]
fn missing_attributes_compare_unequal() {
    let v = json!({":n": {"N": "1"}});
    assert!(!holds("absent = :n", v.clone()));
    assert!(holds("absent <> :n", v.clone()));
    assert!(!holds("absent < :n", v));
}

#[test]
fn sets_lists_and_maps_compare_by_content() {
    let v = json!({
        ":tags": {"SS": ["blue", "red"]},
        ":nums": {"NS": ["2.0", "1"]},
        ":arr": {"L": [{"S": "a"}, {"N": "7"}, {"M": {"c": {"S": "deep"}}}]}
    });
    assert!(holds("tags = :tags AND nums = :nums AND arr = :arr", v));
}

#[test]
fn between_and_in() {
    let v = json!({":lo": {"N": "40"}, ":hi": {"N": "42"}, ":a": {"N": "1"}, ":b": {"N": "42"}});
    assert!(holds("age BETWEEN :lo AND :hi", v.clone()));
    assert!(holds("age IN (:a, :b)", v.clone()));
    assert!(!holds("score IN (:a, :b)", v));
}

#[test]
fn not_binds_tighter_than_and_which_binds_tighter_than_or() {
    let v = json!({":t": {"BOOL": true}, ":f": {"BOOL": false}});
    // OR of (false AND ...) and true.
    assert!(holds("flag = :f AND flag = :f OR flag = :t", v.clone()));
    // false AND (... OR ...) when parenthesised.
    assert!(!holds("flag = :f AND (flag = :f OR flag = :t)", v.clone()));
    assert!(holds("NOT flag = :f AND flag = :t", v.clone()));
    assert!(!holds("NOT (flag = :f OR flag = :t)", v));
}

#[test]
fn document_paths_reach_nested_values() {
    let v = json!({":x": {"S": "x"}, ":deep": {"S": "deep"}, ":one": {"N": "1"}});
    assert!(holds(
        "doc.b[2].c = :x AND arr[2].c = :deep AND doc.b[1] = :one",
        v.clone()
    ));
    assert!(!holds("doc.b[9] = :one", v.clone()));
    assert!(!holds("arr.c = :x", v));
    let mut c = ctx(&[("#m", "doc"), ("#b", "b")], json!({":x": {"S": "x"}}));
    assert!(holds_with("#m.#b[2].c = :x", &mut c));
}

#[test]
fn existence_and_type_functions() {
    let v = json!({":ss": {"S": "SS"}, ":n": {"S": "N"}});
    assert!(holds(
        "attribute_exists(doc.b[2].c) AND attribute_not_exists(doc.z)",
        v.clone()
    ));
    assert!(holds(
        "attribute_type(tags, :ss) AND attribute_type(age, :n)",
        v.clone()
    ));
    assert!(!holds("attribute_type(id, :n)", v));
}

#[test]
fn begins_with_and_contains() {
    let v = json!({
        ":p": {"S": "user#"}, ":red": {"S": "red"}, ":two": {"N": "2"}, ":sev": {"N": "7"},
        ":sub": {"S": "llo"}, ":bp": {"B": "AQ=="}
    });
    assert!(holds(
        "begins_with(id, :p) AND begins_with(bin, :bp)",
        v.clone()
    ));
    assert!(holds(
        "contains(tags, :red) AND contains(nums, :two)",
        v.clone()
    ));
    assert!(holds(
        "contains(arr, :sev) AND contains(nick, :sub)",
        v.clone()
    ));
    assert!(!holds("contains(age, :two) OR begins_with(age, :p)", v));
}

#[test]
fn size_counts_utf16_units_bytes_and_elements() {
    let v = json!({":7": {"N": "7"}, ":3": {"N": "3"}, ":2": {"N": "2"}, ":1": {"N": "1"}});
    // "héllo𝄞": 6 characters, 7 UTF-16 code units.
    assert!(holds("size(nick) = :7", v.clone()));
    assert!(holds(
        "size(bin) = :3 AND size(arr) = :3 AND size(tags) = :2",
        v.clone()
    ));
    assert!(holds("size(doc) = :1", v));
}

#[test]
fn size_of_a_number_has_no_value() {
    let v = json!({":1": {"N": "1"}});
    assert!(!holds("size(age) = :1", v.clone()));
    assert!(!holds("size(age) < :1", v));
}

#[test]
fn undefined_placeholders_are_reported() {
    assert_eq!(
        error("a = :x", json!({":y": {"N": "1"}})),
        "Invalid ConditionExpression: An expression attribute value used in expression is not defined; attribute value: :x"
    );
    assert_eq!(
        error("#x = :y", json!({":y": {"N": "1"}})),
        "Invalid ConditionExpression: An expression attribute name used in the document path is not defined; attribute name: #x"
    );
}

#[test]
fn reserved_words_need_placeholders() {
    assert_eq!(
        error("name = :v", json!({":v": {"S": "x"}})),
        "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: name"
    );
    assert_eq!(
        error("a.Status = :v", json!({":v": {"S": "x"}})),
        "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: Status"
    );
    let mut c = ctx(&[("#n", "name")], json!({":v": {"S": "x"}}));
    assert!(parse_condition("#n = :v", &mut c).is_ok());
}

#[test]
fn syntax_errors_show_token_and_context() {
    let v = json!({":v": {"N": "1"}});
    assert_eq!(
        error("a = = :v", v.clone()),
        "Invalid ConditionExpression: Syntax error; token: \"=\", near: \"= =\""
    );
    assert_eq!(
        error("a =", v.clone()),
        "Invalid ConditionExpression: Syntax error; token: \"<EOF>\", near: \"=\""
    );
    assert_eq!(
        error("a = :v AND", v.clone()),
        "Invalid ConditionExpression: Syntax error; token: \"<EOF>\", near: \"AND\""
    );
    assert_eq!(
        error("a ! :v", v),
        "Invalid ConditionExpression: Syntax error; token: \"!\", near: \"a !\""
    );
    assert_eq!(
        error("", Value::Null),
        "Invalid ConditionExpression: The expression can not be empty;"
    );
}

#[test]
fn filter_errors_carry_their_own_prefix() {
    let err = parse_filter("a = ", &mut ctx(&[], Value::Null)).unwrap_err();
    assert!(err
        .message
        .starts_with("Invalid FilterExpression: Syntax error"));
}

#[test]
fn function_misuse_is_rejected() {
    let v = json!({":v": {"N": "1"}, ":s": {"S": "x"}, ":t": {"S": "XX"}});
    assert_eq!(
        error("foo(a)", v.clone()),
        "Invalid ConditionExpression: Invalid function name; function: foo"
    );
    assert_eq!(
        error("attribute_exists(a, b)", v.clone()),
        "Invalid ConditionExpression: Incorrect number of operands for operator or function; operator or function: attribute_exists, number of operands: 2"
    );
    assert_eq!(
        error("attribute_exists(:v)", v.clone()),
        "Invalid ConditionExpression: Operator or function requires a document path; operator or function: attribute_exists"
    );
    assert_eq!(
        error("attribute_type(:s, :s)", v.clone()),
        "Invalid ConditionExpression: Operator or function requires a document path; operator or function: attribute_type"
    );
    assert_eq!(
        error("size(a)", v.clone()),
        "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: size"
    );
    assert_eq!(
        error("attribute_exists(a) = :v", v.clone()),
        "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: attribute_exists"
    );
    assert_eq!(
        error("begins_with(a, :v)", v.clone()),
        "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"
    );
    assert_eq!(
        error("attribute_type(a, :t)", v.clone()),
        "Invalid ConditionExpression: Invalid attribute type name found; type: XX, valid types: {B,NULL,SS,BOOL,L,BS,N,NS,S,M}"
    );
    assert_eq!(
        error("a = a", v),
        "Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: =, first operand: [a]"
    );
}

#[test]
fn between_bounds_must_be_ordered_and_alike() {
    let v = json!({":lo": {"N": "10"}, ":hi": {"N": "1"}, ":s": {"S": "a"}});
    assert_eq!(
        error("a BETWEEN :lo AND :hi", v.clone()),
        "Invalid ConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {N:10}, upper bound operand: AttributeValue: {N:1}"
    );
    assert!(error("a BETWEEN :lo AND :s", v)
        .contains("The BETWEEN operator requires same data type for lower and upper bounds"));
}

#[test]
fn redundant_parentheses_are_rejected() {
    let v = json!({":v": {"N": "1"}});
    assert_eq!(
        error("((a = :v))", v.clone()),
        "Invalid ConditionExpression: The expression has redundant parentheses;"
    );
    assert!(holds("(age = :v) OR (flag = :v) OR (age <> :v)", v));
}

#[test]
fn in_accepts_at_most_100_operands() {
    let values: serde_json::Map<String, Value> = (0..101)
        .map(|i| (format!(":v{i}"), json!({"N": i.to_string()})))
        .collect();
    let arr: Vec<String> = (0..101).map(|i| format!(":v{i}")).collect();
    let mut c = ctx(&[], Value::Object(values));
    let err = error_with(&format!("a IN ({})", arr.join(", ")), &mut c);
    assert!(err.contains("number of operands: 101"), "{err}");
    let ok = format!("age IN ({})", arr[..100].join(", "));
    assert!(holds_with(&ok, &mut c));
}

#[test]
fn keywords_are_case_insensitive() {
    let v = json!({":v": {"N": "42"}, ":w": {"N": "0"}});
    assert!(holds(
        "age = :v and not age = :w or age between :w and :v",
        v
    ));
}

#[test]
fn expressions_over_4_kb_are_rejected() {
    let long = format!("a = :v{}", " OR a = :v".repeat(410));
    assert_eq!(
        error(&long, json!({":v": {"N": "1"}})),
        format!(
            "Invalid ConditionExpression: Expression size has exceeded the maximum allowed size; expression size: {}",
            long.len()
        )
    );
}

#[test]
fn deep_nesting_is_a_syntax_error_not_a_crash() {
    let v = json!({":v": {"N": "1"}});
    let deep_parens = format!("{}a = :v{}", "(".repeat(2000), ")".repeat(2000));
    assert!(error(&deep_parens, v.clone()).contains("Syntax error"));
    let deep_not = format!("{}a = :v", "NOT ".repeat(1000));
    assert!(error(&deep_not, v.clone()).contains("Syntax error"));
    // Ten alternating levels are fine.
    let nested = format!("{}age <> :v{}", "NOT (".repeat(10), ")".repeat(10));
    assert!(holds(&nested, v));
}

#[test]
fn document_paths_deeper_than_32_levels_are_rejected() {
    let v = json!({":v": {"N": "1"}});
    let ok = format!("a{} = :v", ".b".repeat(31));
    assert!(parse_condition(&ok, &mut ctx(&[], v.clone())).is_ok());
    let deep = format!("a{} = :v", ".b".repeat(32));
    assert_eq!(
        error(&deep, v),
        "Invalid ConditionExpression: The document path has too many nesting levels; nesting levels: 33"
    );
}

#[test]
fn redundant_parentheses_around_operands_are_rejected() {
    let v = json!({":v": {"N": "1"}});
    assert_eq!(
        error("((age)) = :v", v.clone()),
        "Invalid ConditionExpression: The expression has redundant parentheses;"
    );
    assert!(holds("(age) <> :v AND (size(nick)) > (:v)", v));
}

#[test]
fn double_negation_and_functions_inside_ranges() {
    let v = json!({":lo": {"N": "6"}, ":hi": {"N": "8"}, ":x": {"N": "1"}});
    assert!(holds("NOT NOT size(nick) BETWEEN :lo AND :hi", v.clone()));
    assert!(holds(
        "size(tags) IN (:x, :hi) OR attribute_not_exists(arr[5])",
        v
    ));
}

#[test]
fn placeholders_work_inside_functions() {
    let mut c = ctx(
        &[("#t", "tags"), ("#d", "doc")],
        json!({":red": {"S": "red"}, ":t": {"S": "M"}}),
    );
    assert!(holds_with(
        "contains(#t, :red) AND attribute_type(#d, :t) AND attribute_exists(#d.b[0])",
        &mut c
    ));
    assert!(c.check_all_used().is_ok());
}
