//! Update expressions: each action, atomicity, and AWS's error messages.

use crate::common::{ctx, item, value};
use dynamodb_lang::{parse_update, ExpressionContext, Item, Projection};
use serde_json::{json, Value};

fn sample() -> Item {
    item(json!({
        "id": {"S": "k"},
        "tally": {"N": "5"},
        "tags": {"SS": ["a", "b"]},
        "nums": {"NS": ["1", "2"]},
        "arr": {"L": [{"S": "x"}, {"S": "y"}, {"S": "z"}]},
        "doc": {"M": {"nest": {"M": {"v": {"N": "1"}}}}},
        "words": {"S": "hello"}
    }))
}

/// GIVEN `start` WHEN `expr` is applied THEN returns the updated item or the error.
fn apply_to(start: Item, expr: &str, values: Value) -> Result<Item, String> {
    apply_with(start, expr, &mut ctx(&[], values))
}

fn apply_with(start: Item, expr: &str, ctx: &mut ExpressionContext) -> Result<Item, String> {
    let update = parse_update(expr, ctx).map_err(|e| format!("parse: {}", e.message))?;
    let mut target = start;
    update.apply(&mut target).map_err(|e| e.message)?;
    Ok(target)
}

fn apply(expr: &str, values: Value) -> Item {
    apply_to(sample(), expr, values).unwrap_or_else(|e| panic!("{expr}: {e}"))
}

fn parse_error(expr: &str, values: Value) -> String {
    match parse_update(expr, &mut ctx(&[], values)) {
        Ok(u) => panic!("{expr} parsed as {u:?}"),
        Err(e) => e.message,
    }
}

fn apply_error(expr: &str, values: Value) -> String {
    let start = sample();
    let mut target = start.clone();
    let update = parse_update(expr, &mut ctx(&[], values)).unwrap();
    let err = update.apply(&mut target).unwrap_err();
    assert_eq!(target, start, "a failed update leaves the item unchanged");
    err.message
}

#[test]
fn set_assigns_values_and_nested_paths() {
    let out = apply(
        "SET fresh = :v, doc.nest.w = :v, arr[1] = :v",
        json!({":v": {"S": "new"}}),
    );
    assert_eq!(out["fresh"], value(json!({"S": "new"})));
    assert_eq!(
        out["doc"],
        value(json!({"M": {"nest": {"M": {"v": {"N": "1"}, "w": {"S": "new"}}}}}))
    );
    assert_eq!(
        out["arr"],
        value(json!({"L": [{"S": "x"}, {"S": "new"}, {"S": "z"}]}))
    );
}

#[test]
fn set_past_the_end_of_a_list_appends() {
    let out = apply("SET arr[10] = :v", json!({":v": {"S": "w"}}));
    assert_eq!(
        out["arr"],
        value(json!({"L": [{"S": "x"}, {"S": "y"}, {"S": "z"}, {"S": "w"}]}))
    );
}

#[test]
fn arithmetic_is_exact() {
    let big = "9".repeat(37);
    let start = item(json!({"id": {"S": "k"}, "a": {"N": big}, "f": {"N": "0.1"}}));
    let out = apply_to(
        start,
        "SET a = a + :one, f = f + :f",
        json!({":one": {"N": "1"}, ":f": {"N": "0.2"}}),
    )
    .unwrap();
    assert_eq!(
        out["a"],
        value(json!({"N": format!("1{}", "0".repeat(37))}))
    );
    assert_eq!(out["f"], value(json!({"N": "0.3"})));
}

#[test]
fn arithmetic_beyond_38_digits_fails_like_aws() {
    let start = item(json!({"a": {"N": "9".repeat(38)}}));
    let err = apply_to(start, "SET a = a + :x", json!({":x": {"N": "0.1"}})).unwrap_err();
    assert_eq!(
        err,
        "Attempting to store more than 38 significant digits in a Number"
    );
}

#[test]
fn subtraction_and_if_not_exists_counters() {
    let v = json!({":one": {"N": "1"}, ":zero": {"N": "0"}});
    let out = apply(
        "SET tally = tally - :one, hits = if_not_exists(hits, :zero) + :one",
        v,
    );
    assert_eq!(out["tally"], value(json!({"N": "4"})));
    assert_eq!(out["hits"], value(json!({"N": "1"})));
}

#[test]
fn list_append_concatenates_in_order() {
    let out = apply(
        "SET arr = list_append(:front, arr)",
        json!({":front": {"L": [{"S": "w"}]}}),
    );
    assert_eq!(
        out["arr"],
        value(json!({"L": [{"S": "w"}, {"S": "x"}, {"S": "y"}, {"S": "z"}]}))
    );
}

#[test]
fn set_values_are_computed_from_the_item_before_the_update() {
    let out = apply("SET tally = :v, dup = tally", json!({":v": {"N": "9"}}));
    assert_eq!(out["dup"], value(json!({"N": "5"})));
    assert_eq!(out["tally"], value(json!({"N": "9"})));
}

#[test]
fn remove_deletes_attributes_and_shifts_list_elements() {
    let out = apply("REMOVE words, arr[0], doc.nest.v", Value::Null);
    assert!(!out.contains_key("words"));
    assert_eq!(out["arr"], value(json!({"L": [{"S": "y"}, {"S": "z"}]})));
    assert_eq!(out["doc"], value(json!({"M": {"nest": {"M": {}}}})));
}

#[test]
fn remove_of_several_indexes_uses_original_positions() {
    let out = apply("REMOVE arr[0], arr[2]", Value::Null);
    assert_eq!(out["arr"], value(json!({"L": [{"S": "y"}]})));
}

#[test]
fn remove_of_absent_attribute_or_index_is_a_no_op() {
    let out = apply("REMOVE nothing, arr[7]", Value::Null);
    assert_eq!(out, sample());
}

#[test]
fn add_increments_numbers_and_unions_sets() {
    let v = json!({":n": {"N": "-2.5"}, ":ss": {"SS": ["b", "c"]}, ":ns": {"NS": ["2", "3"]}});
    let out = apply("ADD tally :n, tags :ss, nums :ns", v);
    assert_eq!(out["tally"], value(json!({"N": "2.5"})));
    assert_eq!(out["tags"], value(json!({"SS": ["a", "b", "c"]})));
    assert_eq!(out["nums"], value(json!({"NS": ["1", "2", "3"]})));
}

#[test]
fn add_creates_absent_attributes() {
    let out = apply(
        "ADD newcount :n, newset :s",
        json!({":n": {"N": "3"}, ":s": {"SS": ["q"]}}),
    );
    assert_eq!(out["newcount"], value(json!({"N": "3"})));
    assert_eq!(out["newset"], value(json!({"SS": ["q"]})));
}

#[test]
fn delete_removes_members_and_the_attribute_when_empty() {
    let out = apply(
        "DELETE tags :a, nums :all",
        json!({":a": {"SS": ["a", "zz"]}, ":all": {"NS": ["1.0", "2"]}}),
    );
    assert_eq!(out["tags"], value(json!({"SS": ["b"]})));
    assert!(!out.contains_key("nums"));
}

#[test]
fn all_four_clauses_in_one_expression() {
    let out = apply(
        "SET words = :t REMOVE arr ADD tally :one DELETE tags :a",
        json!({":t": {"S": "bye"}, ":one": {"N": "1"}, ":a": {"SS": ["a"]}}),
    );
    assert_eq!(out["words"], value(json!({"S": "bye"})));
    assert!(!out.contains_key("arr"));
    assert_eq!(out["tally"], value(json!({"N": "6"})));
    assert_eq!(out["tags"], value(json!({"SS": ["b"]})));
}

#[test]
fn runtime_errors_leave_the_item_unchanged() {
    assert_eq!(
        apply_error("SET fresh = :v, x = nothing", json!({":v": {"N": "1"}})),
        "The provided expression refers to an attribute that does not exist in the item"
    );
    assert_eq!(
        apply_error("SET fresh = :v, t = words + :v", json!({":v": {"N": "1"}})),
        "An operand in the update expression has an incorrect data type"
    );
    assert_eq!(
        apply_error("ADD words :v", json!({":v": {"N": "1"}})),
        "An operand in the update expression has an incorrect data type"
    );
    assert_eq!(
        apply_error("DELETE tags :v", json!({":v": {"NS": ["1"]}})),
        "An operand in the update expression has an incorrect data type"
    );
    assert_eq!(
        apply_error("SET fresh = :v, nope.child = :v", json!({":v": {"N": "1"}})),
        "The document path provided in the update expression is invalid for update"
    );
    assert_eq!(
        apply_error("SET arr.x = :v", json!({":v": {"N": "1"}})),
        "The document path provided in the update expression is invalid for update"
    );
}

#[test]
fn overlapping_paths_are_rejected() {
    assert_eq!(
        parse_error("SET a = :v, a.b = :v", json!({":v": {"N": "1"}})),
        "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a, b]"
    );
    assert!(
        parse_error("SET a = :v REMOVE a", json!({":v": {"N": "1"}}))
            .contains("Two document paths overlap")
    );
    assert!(
        parse_error("SET a[0] = :v REMOVE a.b", json!({":v": {"N": "1"}}))
            .contains("Two document paths conflict with each other")
    );
}

#[test]
fn each_clause_appears_at_most_once() {
    assert_eq!(
        parse_error("SET a = :v SET b = :v", json!({":v": {"N": "1"}})),
        "Invalid UpdateExpression: The \"SET\" section can only be used once in an update expression;"
    );
}

#[test]
fn parse_time_type_checks() {
    let v = json!({":s": {"S": "x"}, ":n": {"N": "1"}, ":l": {"L": []}});
    assert_eq!(
        parse_error("SET a = b + :s", v.clone()),
        "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: +, operand type: S"
    );
    assert_eq!(
        parse_error("ADD a :s", v.clone()),
        "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: STRING"
    );
    assert_eq!(
        parse_error("DELETE a :n", v.clone()),
        "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: DELETE, operand type: NUMBER"
    );
    assert_eq!(
        parse_error("SET a = list_append(:n, :l)", v.clone()),
        "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: list_append, operand type: N"
    );
    assert_eq!(
        parse_error("SET a = if_not_exists(:n, :n)", v),
        "Invalid UpdateExpression: Operator or function requires a document path; operator or function: if_not_exists"
    );
}

#[test]
fn functions_are_checked() {
    let v = json!({":v": {"N": "1"}});
    assert_eq!(
        parse_error("SET a = foo(:v)", v.clone()),
        "Invalid UpdateExpression: Invalid function name; function: foo"
    );
    assert_eq!(
        parse_error("SET a = attribute_exists(b)", v.clone()),
        "Invalid UpdateExpression: The function is not allowed in an update expression; function: attribute_exists"
    );
    assert_eq!(
        parse_error("SET a = if_not_exists(b)", v),
        "Invalid UpdateExpression: Incorrect number of operands for operator or function; operator or function: if_not_exists, number of operands: 1"
    );
}

#[test]
fn placeholders_reserved_words_and_syntax() {
    assert_eq!(
        parse_error("SET a = :x", json!({":v": {"N": "1"}})),
        "Invalid UpdateExpression: An expression attribute value used in expression is not defined; attribute value: :x"
    );
    assert_eq!(
        parse_error("SET #a = :v", json!({":v": {"N": "1"}})),
        "Invalid UpdateExpression: An expression attribute name used in the document path is not defined; attribute name: #a"
    );
    assert_eq!(
        parse_error("SET name = :v", json!({":v": {"N": "1"}})),
        "Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: name"
    );
    assert_eq!(
        parse_error("SET a = :v 1", json!({":v": {"N": "1"}})),
        "Invalid UpdateExpression: Syntax error; token: \"1\", near: \":v 1\""
    );
    assert_eq!(
        parse_error("UPDATE a = :v", json!({":v": {"N": "1"}})),
        "Invalid UpdateExpression: Syntax error; token: \"UPDATE\", near: \"UPDATE\""
    );
}

#[test]
fn placeholders_substitute_names_and_reserved_words() {
    let mut c = ctx(
        &[("#n", "name"), ("#c", "tally")],
        json!({":v": {"S": "Ann"}, ":one": {"N": "1"}}),
    );
    let out = apply_with(sample(), "SET #n = :v, #c = #c + :one", &mut c).unwrap();
    assert_eq!(out["name"], value(json!({"S": "Ann"})));
    assert_eq!(out["tally"], value(json!({"N": "6"})));
    assert!(c.check_all_used().is_ok());
}

#[test]
fn top_level_attributes_name_every_written_attribute() {
    let update = parse_update(
        "SET a.b = :v, c = :v REMOVE d[0] ADD a2 :n",
        &mut ctx(&[], json!({":v": {"S": "x"}, ":n": {"N": "1"}})),
    )
    .unwrap();
    assert_eq!(update.top_level_attributes(), vec!["a", "c", "d", "a2"]);
}

#[test]
fn parenthesised_set_values_parse() {
    let out = apply("SET tally = (tally + :one)", json!({":one": {"N": "1"}}));
    assert_eq!(out["tally"], value(json!({"N": "6"})));
}

#[test]
fn target_paths_project_the_updated_attributes() {
    let values = json!({":v": {"S": "w"}, ":one": {"N": "1"}});
    let update = parse_update("SET doc.nest.w = :v ADD tally :one", &mut ctx(&[], values)).unwrap();
    let mut updated = sample();
    update.apply(&mut updated).unwrap();
    let new_values = Projection {
        paths: update.target_paths(),
    }
    .apply(&updated);
    assert_eq!(
        serde_json::to_value(&new_values).unwrap(),
        json!({"doc": {"M": {"nest": {"M": {"w": {"S": "w"}}}}}, "tally": {"N": "6"}})
    );
}
