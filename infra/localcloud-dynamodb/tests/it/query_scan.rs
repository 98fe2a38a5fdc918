//! Query and Scan on tables and indexes through the real SDK.

use std::collections::HashMap;

use crate::common::*;
use aws_sdk_dynamodb::types::{ReturnConsumedCapacity, Select};
use aws_sdk_dynamodb::Client;

async fn seed(client: &Client, table: &str, partition: &str, count: i64) {
    for i in 0..count {
        client
            .put_item()
            .table_name(table)
            .set_item(Some(item(&[
                ("pk", s(partition)),
                ("sk", n(i)),
                ("even", Av::Bool(i % 2 == 0)),
            ])))
            .send()
            .await
            .unwrap();
    }
}

fn sks(items: &[HashMap<String, Av>]) -> Vec<String> {
    items
        .iter()
        .map(|i| i["sk"].as_n().unwrap().clone())
        .collect()
}

#[tokio::test]
async fn query_applies_the_sort_key_condition_in_order() {
    // GIVEN ten items in one partition and some in another
    let local = start().await;
    create_composite(&local.client, "qry").await;
    seed(&local.client, "qry", "a", 10).await;
    seed(&local.client, "qry", "b", 3).await;
    // WHEN querying a range, forwards and backwards
    let q = |forward| {
        local
            .client
            .query()
            .table_name("qry")
            .key_condition_expression("pk = :p AND sk BETWEEN :lo AND :hi")
            .expression_attribute_values(":p", s("a"))
            .expression_attribute_values(":lo", n(3))
            .expression_attribute_values(":hi", n(6))
            .scan_index_forward(forward)
            .send()
    };
    let fwd = q(true).await.unwrap();
    let back = q(false).await.unwrap();
    // THEN only that range comes back, in sort-key order
    assert_eq!(sks(fwd.items()), ["3", "4", "5", "6"]);
    assert_eq!(sks(back.items()), ["6", "5", "4", "3"]);
    assert_eq!(fwd.count, 4);
}

#[tokio::test]
async fn query_pages_with_limit_and_exclusive_start_key() {
    // GIVEN
    let local = start().await;
    create_composite(&local.client, "pages").await;
    seed(&local.client, "pages", "a", 7).await;
    let mut seen = Vec::new();
    let mut start = None;
    let mut pages = 0;
    // WHEN
    loop {
        let out = local
            .client
            .query()
            .table_name("pages")
            .key_condition_expression("pk = :p")
            .expression_attribute_values(":p", s("a"))
            .limit(3)
            .set_exclusive_start_key(start.take())
            .send()
            .await
            .unwrap();
        pages += 1;
        seen.extend(sks(out.items()));
        match out.last_evaluated_key {
            Some(k) => start = Some(k),
            None => break,
        }
    }
    // THEN
    assert_eq!(seen, ["0", "1", "2", "3", "4", "5", "6"]);
    assert_eq!(pages, 3);
}

#[tokio::test]
async fn filter_counts_scanned_items_separately_and_count_select_omits_items() {
    // GIVEN
    let local = start().await;
    create_composite(&local.client, "filt").await;
    seed(&local.client, "filt", "a", 6).await;
    // WHEN
    let out = local
        .client
        .query()
        .table_name("filt")
        .key_condition_expression("pk = :p")
        .filter_expression("even = :t")
        .expression_attribute_values(":p", s("a"))
        .expression_attribute_values(":t", Av::Bool(true))
        .select(Select::Count)
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await
        .unwrap();
    // THEN
    assert_eq!(out.count, 3);
    assert_eq!(out.scanned_count, 6);
    assert!(out.items.is_none());
    assert_eq!(out.consumed_capacity.unwrap().capacity_units, Some(0.5));
}

#[tokio::test]
async fn gsi_holds_only_items_with_the_index_key_and_follows_updates() {
    // GIVEN items with and without an email
    let local = start().await;
    create_indexed(&local.client, "users").await;
    let put = |pk: &str, email: Option<&str>| {
        let mut it = item(&[("pk", s(pk)), ("sk", n(0))]);
        if let Some(e) = email {
            it.insert("email".into(), s(e));
        }
        local
            .client
            .put_item()
            .table_name("users")
            .set_item(Some(it))
            .send()
    };
    put("u1", Some("a@x")).await.unwrap();
    put("u2", None).await.unwrap();
    put("u3", Some("a@x")).await.unwrap();
    // WHEN u3 changes its email
    put("u3", Some("b@x")).await.unwrap();
    let by_email = |e: &str| {
        local
            .client
            .query()
            .table_name("users")
            .index_name("by-email")
            .key_condition_expression("email = :e")
            .expression_attribute_values(":e", s(e))
            .send()
    };
    // THEN the index follows
    let a = by_email("a@x").await.unwrap();
    assert_eq!(a.items().len(), 1);
    assert_eq!(a.items()[0]["pk"], s("u1"));
    assert_eq!(by_email("b@x").await.unwrap().items()[0]["pk"], s("u3"));
    let scan = local
        .client
        .scan()
        .table_name("users")
        .index_name("by-email")
        .send()
        .await
        .unwrap();
    assert_eq!(scan.count, 2);
}

#[tokio::test]
async fn consistent_read_on_a_gsi_is_rejected() {
    // GIVEN
    let local = start().await;
    create_indexed(&local.client, "gsicr").await;
    // WHEN
    let err = local
        .client
        .query()
        .table_name("gsicr")
        .index_name("by-email")
        .key_condition_expression("email = :e")
        .expression_attribute_values(":e", s("x"))
        .consistent_read(true)
        .send()
        .await
        .unwrap_err();
    // THEN
    assert_eq!(
        code_message(&err),
        (
            "ValidationException".into(),
            "Consistent reads are not supported on global secondary indexes".into()
        )
    );
}

#[tokio::test]
async fn lsi_query_sorts_by_the_index_key_and_projects() {
    // GIVEN
    let local = start().await;
    create_indexed(&local.client, "lsi").await;
    for (sk, score, title) in [(1, 30, "c"), (2, 10, "a"), (3, 20, "b")] {
        local
            .client
            .put_item()
            .table_name("lsi")
            .set_item(Some(item(&[
                ("pk", s("p")),
                ("sk", n(sk)),
                ("score", n(score)),
                ("title", s(title)),
                ("body", s("long")),
            ])))
            .send()
            .await
            .unwrap();
    }
    let out = local
        .client
        .query()
        .table_name("lsi")
        .index_name("by-score")
        .key_condition_expression("pk = :p AND score > :min")
        .expression_attribute_values(":p", s("p"))
        .expression_attribute_values(":min", n(15))
        .send()
        .await
        .unwrap();
    // WHEN
    let titles: Vec<_> = out
        .items()
        .iter()
        .map(|i| i["title"].as_s().unwrap().clone())
        .collect();
    // THEN
    assert_eq!(titles, ["b", "c"]);
    assert!(
        !out.items()[0].contains_key("body"),
        "INCLUDE projection drops other attributes"
    );
}

#[tokio::test]
async fn query_with_a_key_of_the_wrong_type_is_rejected() {
    // GIVEN
    let local = start().await;
    create_composite(&local.client, "qtype").await;
    // WHEN
    let err = local
        .client
        .query()
        .table_name("qtype")
        .key_condition_expression("pk = :p")
        .expression_attribute_values(":p", n(1))
        .send()
        .await
        .unwrap_err();
    // THEN
    assert_eq!(
        code_message(&err).1,
        "One or more parameter values were invalid: Condition parameter type does not match schema type"
    );
}

#[tokio::test]
async fn parallel_scan_segments_partition_the_table() {
    // GIVEN
    let local = start().await;
    create_simple(&local.client, "segs").await;
    for i in 0..40 {
        local
            .client
            .put_item()
            .table_name("segs")
            .set_item(Some(item(&[("pk", s(&format!("k{i}")))])))
            .send()
            .await
            .unwrap();
    }
    let mut total = 0;
    let mut keys = std::collections::HashSet::new();
    // WHEN
    for segment in 0..4 {
        let out = local
            .client
            .scan()
            .table_name("segs")
            .segment(segment)
            .total_segments(4)
            .send()
            .await
            .unwrap();
        total += out.count;
        keys.extend(out.items().iter().map(|i| i["pk"].as_s().unwrap().clone()));
    }
    // THEN
    assert_eq!(total, 40);
    assert_eq!(keys.len(), 40);
}

#[tokio::test]
async fn scan_pages_through_everything_with_a_filter() {
    // GIVEN
    let local = start().await;
    create_composite(&local.client, "scanp").await;
    seed(&local.client, "scanp", "a", 5).await;
    seed(&local.client, "scanp", "b", 5).await;
    let mut matched = 0;
    let mut scanned = 0;
    let mut start = None;
    // WHEN
    loop {
        let out = local
            .client
            .scan()
            .table_name("scanp")
            .filter_expression("even = :t")
            .expression_attribute_values(":t", Av::Bool(true))
            .limit(4)
            .set_exclusive_start_key(start.take())
            .send()
            .await
            .unwrap();
        matched += out.count;
        scanned += out.scanned_count;
        match out.last_evaluated_key {
            Some(k) => start = Some(k),
            None => break,
        }
    }
    // THEN
    assert_eq!((matched, scanned), (6, 10));
}

#[tokio::test]
async fn query_pages_stop_at_one_megabyte() {
    // GIVEN five items of 300 KB in one partition
    let local = start().await;
    create_composite(&local.client, "mega").await;
    for i in 0..5 {
        local
            .client
            .put_item()
            .table_name("mega")
            .set_item(Some(item(&[
                ("pk", s("a")),
                ("sk", n(i)),
                ("blob", s(&"x".repeat(300 * 1024))),
            ])))
            .send()
            .await
            .unwrap();
    }
    // WHEN querying without a Limit
    let first = local
        .client
        .query()
        .table_name("mega")
        .key_condition_expression("pk = :p")
        .expression_attribute_values(":p", s("a"))
        .send()
        .await
        .unwrap();
    // THEN the first page stops once 1 MB was read, and the second has the rest
    assert!(first.count < 5);
    let lek = first
        .last_evaluated_key
        .clone()
        .expect("a 1 MB page names where to resume");
    let rest = local
        .client
        .query()
        .table_name("mega")
        .key_condition_expression("pk = :p")
        .expression_attribute_values(":p", s("a"))
        .set_exclusive_start_key(Some(lek))
        .send()
        .await
        .unwrap();
    assert_eq!(first.count + rest.count, 5);
}

#[tokio::test]
async fn index_pages_visit_items_sharing_an_index_key_exactly_once_both_ways() {
    // GIVEN seven items sharing one GSI key and three sharing one LSI score
    let local = start().await;
    create_indexed(&local.client, "ties").await;
    for i in 0..7 {
        local
            .client
            .put_item()
            .table_name("ties")
            .set_item(Some(item(&[
                ("pk", s("p")),
                ("sk", n(i)),
                ("email", s("same")),
                ("score", n(i % 3)),
            ])))
            .send()
            .await
            .unwrap();
    }
    for (index, cond, values) in [
        ("by-email", "email = :v", vec![(":v", s("same"))]),
        (
            "by-score",
            "pk = :v AND score >= :z",
            vec![(":v", s("p")), (":z", n(0))],
        ),
    ] {
        for forward in [true, false] {
            // WHEN paging two at a time
            let mut seen = Vec::new();
            let mut start = None;
            loop {
                let mut q = local
                    .client
                    .query()
                    .table_name("ties")
                    .index_name(index)
                    .key_condition_expression(cond)
                    .scan_index_forward(forward)
                    .limit(2)
                    .set_exclusive_start_key(start.take());
                for (k, v) in &values {
                    q = q.expression_attribute_values(*k, v.clone());
                }
                let out = q.send().await.unwrap();
                seen.extend(sks(out.items()));
                match out.last_evaluated_key {
                    Some(k) => start = Some(k),
                    None => break,
                }
            }
            // THEN every item comes exactly once
            let mut sorted = seen.clone();
            sorted.sort();
            sorted.dedup();
            assert_eq!(sorted.len(), 7, "{index} forward={forward}: {seen:?}");
            assert_eq!(seen.len(), 7, "{index} forward={forward}: {seen:?}");
        }
    }
}
