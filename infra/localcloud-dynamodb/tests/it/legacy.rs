//! The legacy parameters through the SDK: each gives what its expression
//! equivalent gives, and mixing the two families is refused.

use crate::common::*;
use aws_sdk_dynamodb::types::{
    AttributeAction, AttributeValueUpdate, ComparisonOperator, Condition, ConditionalOperator,
    ExpectedAttributeValue, KeysAndAttributes,
};
use aws_sdk_dynamodb::Client;

fn cond(op: ComparisonOperator, values: &[Av]) -> Condition {
    Condition::builder()
        .comparison_operator(op)
        .set_attribute_value_list(Some(values.to_vec()))
        .build()
        .unwrap()
}

async fn seed(client: &Client, table: &str) {
    create_composite(client, table).await;
    for (sk, colour, size) in [
        (1, "red", 10),
        (2, "blue", 20),
        (3, "red", 30),
        (4, "green", 40),
    ] {
        client
            .put_item()
            .table_name(table)
            .set_item(Some(item(&[
                ("pk", s("p")),
                ("sk", n(sk)),
                ("colour", s(colour)),
                ("size", n(size)),
            ])))
            .send()
            .await
            .unwrap();
    }
}

fn sks(items: &[std::collections::HashMap<String, Av>]) -> Vec<String> {
    items
        .iter()
        .map(|i| i["sk"].as_n().unwrap().clone())
        .collect()
}

#[tokio::test]
async fn key_conditions_and_query_filter_select_what_the_expressions_select() {
    // GIVEN four items in one partition
    let local = start().await;
    seed(&local.client, "legacy-q").await;
    // WHEN queried with KeyConditions (sk BETWEEN 1 AND 3) and QueryFilter
    // (colour = red OR size > 25), and the same with expressions
    let legacy = local
        .client
        .query()
        .table_name("legacy-q")
        .key_conditions("pk", cond(ComparisonOperator::Eq, &[s("p")]))
        .key_conditions("sk", cond(ComparisonOperator::Between, &[n(1), n(3)]))
        .query_filter("colour", cond(ComparisonOperator::Eq, &[s("red")]))
        .query_filter("size", cond(ComparisonOperator::Gt, &[n(25)]))
        .conditional_operator(ConditionalOperator::Or)
        .attributes_to_get("sk")
        .attributes_to_get("colour")
        .send()
        .await
        .unwrap();
    let expression = local
        .client
        .query()
        .table_name("legacy-q")
        .key_condition_expression("pk = :p AND sk BETWEEN :a AND :b")
        .filter_expression("colour = :red OR #size > :s")
        .expression_attribute_names("#size", "size")
        .projection_expression("sk, colour")
        .expression_attribute_values(":p", s("p"))
        .expression_attribute_values(":a", n(1))
        .expression_attribute_values(":b", n(3))
        .expression_attribute_values(":red", s("red"))
        .expression_attribute_values(":s", n(25))
        .send()
        .await
        .unwrap();
    // THEN the same items, projected the same way
    assert_eq!(sks(legacy.items()), vec!["1", "3"]);
    assert_eq!(legacy.items(), expression.items());
    assert_eq!(legacy.scanned_count, expression.scanned_count);
    assert!(legacy.items().iter().all(|i| i.len() == 2));
}

/// A ScanFilter operator and values, and the expression and placeholders
/// meaning the same.
type FilterCase = (
    ComparisonOperator,
    Vec<Av>,
    &'static str,
    Vec<(&'static str, Av)>,
);

#[tokio::test]
async fn scan_filter_operators_match_their_expressions() {
    let local = start().await;
    seed(&local.client, "legacy-s").await;
    let cases: Vec<FilterCase> = vec![
        (
            ComparisonOperator::Ne,
            vec![s("red")],
            "colour <> :a",
            vec![(":a", s("red"))],
        ),
        (
            ComparisonOperator::In,
            vec![s("blue"), s("green")],
            "colour IN (:a, :b)",
            vec![(":a", s("blue")), (":b", s("green"))],
        ),
        (
            ComparisonOperator::BeginsWith,
            vec![s("gr")],
            "begins_with(colour, :a)",
            vec![(":a", s("gr"))],
        ),
        (
            ComparisonOperator::Contains,
            vec![s("e")],
            "contains(colour, :a)",
            vec![(":a", s("e"))],
        ),
        (
            ComparisonOperator::NotContains,
            vec![s("e")],
            "attribute_exists(colour) AND NOT contains(colour, :a)",
            vec![(":a", s("e"))],
        ),
        (
            ComparisonOperator::NotNull,
            vec![],
            "attribute_exists(colour)",
            vec![],
        ),
        (
            ComparisonOperator::Null,
            vec![],
            "attribute_not_exists(colour)",
            vec![],
        ),
        (
            ComparisonOperator::Le,
            vec![s("green")],
            "colour <= :a",
            vec![(":a", s("green"))],
        ),
    ];
    for (op, values, expression, placeholders) in cases {
        let legacy = local
            .client
            .scan()
            .table_name("legacy-s")
            .scan_filter("colour", cond(op.clone(), &values))
            .send()
            .await
            .unwrap();
        let mut request = local
            .client
            .scan()
            .table_name("legacy-s")
            .filter_expression(expression);
        for (k, v) in placeholders {
            request = request.expression_attribute_values(k, v);
        }
        let expected = request.send().await.unwrap();
        assert_eq!(
            sks(legacy.items()),
            sks(expected.items()),
            "{op:?} against `{expression}`"
        );
    }
}

#[tokio::test]
async fn expected_guards_writes_like_a_condition_expression() {
    // GIVEN an item
    let local = start().await;
    seed(&local.client, "legacy-w").await;
    let put = |colour: &str, expected: ExpectedAttributeValue| {
        local
            .client
            .put_item()
            .table_name("legacy-w")
            .set_item(Some(item(&[
                ("pk", s("p")),
                ("sk", n(1)),
                ("colour", s(colour)),
            ])))
            .expected("colour", expected)
    };
    // WHEN the expectation fails THEN ConditionalCheckFailed, nothing written
    let err = put(
        "black",
        ExpectedAttributeValue::builder().value(s("blue")).build(),
    )
    .send()
    .await
    .unwrap_err();
    assert_eq!(code_message(&err).0, "ConditionalCheckFailedException");
    let err = put(
        "black",
        ExpectedAttributeValue::builder().exists(false).build(),
    )
    .send()
    .await
    .unwrap_err();
    assert_eq!(code_message(&err).0, "ConditionalCheckFailedException");
    // WHEN it holds (by value, and by operator) THEN the write goes through
    put(
        "black",
        ExpectedAttributeValue::builder().value(s("red")).build(),
    )
    .send()
    .await
    .unwrap();
    put(
        "white",
        ExpectedAttributeValue::builder()
            .comparison_operator(ComparisonOperator::In)
            .attribute_value_list(s("black"))
            .attribute_value_list(s("grey"))
            .build(),
    )
    .send()
    .await
    .unwrap();
    let got = local
        .client
        .get_item()
        .table_name("legacy-w")
        .key("pk", s("p"))
        .key("sk", n(1))
        .attributes_to_get("colour")
        .send()
        .await
        .unwrap()
        .item
        .unwrap();
    assert_eq!(got, item(&[("colour", s("white"))]));
}

#[tokio::test]
async fn attribute_updates_put_add_and_delete() {
    // GIVEN an item with a number and a set
    let local = start().await;
    create_composite(&local.client, "legacy-u").await;
    local
        .client
        .put_item()
        .table_name("legacy-u")
        .set_item(Some(item(&[
            ("pk", s("p")),
            ("sk", n(1)),
            ("count", n(5)),
            ("tags", Av::Ss(vec!["a".into(), "b".into()])),
            ("gone", s("x")),
        ])))
        .send()
        .await
        .unwrap();
    let update = |action: AttributeAction, value: Option<Av>| {
        AttributeValueUpdate::builder()
            .action(action)
            .set_value(value)
            .build()
    };
    // WHEN one legacy update ADDs to the number, DELETEs a member, PUTs a
    // new attribute and DELETEs another attribute
    let out = local
        .client
        .update_item()
        .table_name("legacy-u")
        .key("pk", s("p"))
        .key("sk", n(1))
        .attribute_updates("count", update(AttributeAction::Add, Some(n(3))))
        .attribute_updates(
            "tags",
            update(AttributeAction::Delete, Some(Av::Ss(vec!["a".into()]))),
        )
        .attribute_updates("name", update(AttributeAction::Put, Some(s("new"))))
        .attribute_updates("gone", update(AttributeAction::Delete, None))
        .expected(
            "count",
            ExpectedAttributeValue::builder().value(n(5)).build(),
        )
        .return_values(aws_sdk_dynamodb::types::ReturnValue::AllNew)
        .send()
        .await
        .unwrap();
    // THEN the item is what the equivalent UpdateExpression makes of it
    assert_eq!(
        out.attributes.unwrap(),
        item(&[
            ("pk", s("p")),
            ("sk", n(1)),
            ("count", n(8)),
            ("tags", Av::Ss(vec!["b".into()])),
            ("name", s("new")),
        ])
    );
    // AND a key attribute cannot be updated
    let err = local
        .client
        .update_item()
        .table_name("legacy-u")
        .key("pk", s("p"))
        .key("sk", n(1))
        .attribute_updates("sk", update(AttributeAction::Put, Some(n(2))))
        .send()
        .await
        .unwrap_err();
    assert_eq!(code_message(&err).0, "ValidationException");
}

#[tokio::test]
async fn batch_get_with_attributes_to_get_projects() {
    let local = start().await;
    seed(&local.client, "legacy-b").await;
    let out = local
        .client
        .batch_get_item()
        .request_items(
            "legacy-b",
            KeysAndAttributes::builder()
                .keys(item(&[("pk", s("p")), ("sk", n(2))]))
                .attributes_to_get("size")
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(
        out.responses.unwrap()["legacy-b"],
        vec![item(&[("size", n(20))])]
    );
}

#[tokio::test]
async fn mixing_legacy_and_expression_parameters_is_refused() {
    let local = start().await;
    seed(&local.client, "legacy-m").await;
    let err = local
        .client
        .get_item()
        .table_name("legacy-m")
        .key("pk", s("p"))
        .key("sk", n(1))
        .attributes_to_get("size")
        .projection_expression("colour")
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        code_message(&err),
        (
            "ValidationException".to_string(),
            "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}".to_string()
        )
    );
    let err = local
        .client
        .query()
        .table_name("legacy-m")
        .key_condition_expression("pk = :p")
        .expression_attribute_values(":p", s("p"))
        .query_filter("colour", cond(ComparisonOperator::Eq, &[s("red")]))
        .send()
        .await
        .unwrap_err();
    assert!(code_message(&err).1.contains(
        "Non-expression parameters: {QueryFilter} Expression parameters: {KeyConditionExpression}"
    ));
    let err = local
        .client
        .update_item()
        .table_name("legacy-m")
        .key("pk", s("p"))
        .key("sk", n(1))
        .update_expression("SET a = :a")
        .expression_attribute_values(":a", n(1))
        .expected(
            "colour",
            ExpectedAttributeValue::builder().exists(false).build(),
        )
        .send()
        .await
        .unwrap_err();
    assert_eq!(code_message(&err).0, "ValidationException");
    // AND a wrong number of values for an operator is AWS's error
    let err = local
        .client
        .scan()
        .table_name("legacy-m")
        .scan_filter("colour", cond(ComparisonOperator::Between, &[s("a")]))
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        code_message(&err).1,
        "One or more parameter values were invalid: Invalid number of argument(s) for the BETWEEN ComparisonOperator"
    );
}
