use super::*;

const HEAD: &str = "# version: test-1\nregion,architecture,service,item,kind,unit,quantity,usd,monthly_from,effective_date,source\n";

fn table(body: &str) -> Result<PriceTable> {
    PriceTable::parse(&format!("{HEAD}{body}"))
}

#[test]
fn embedded_table_parses_and_every_line_has_a_source_and_a_date() {
    // GIVEN the table shipped with the crate
    let prices = PriceTable::aws_default();
    // THEN it is versioned and every line names where its figure comes from, and when
    assert!(!prices.version().is_empty());
    assert!(prices.lines().len() >= 20);
    for line in prices.lines() {
        assert!(is_date(&line.effective_date), "{line:?}");
        assert!(
            line.source.starts_with("https://") || line.source.ends_with(".md"),
            "{line:?}"
        );
        if line.kind == LineKind::Price {
            assert!(line.usd.is_some(), "{line:?}");
        }
    }
}

#[test]
fn embedded_table_holds_the_reference_prices() {
    // GIVEN us-east-1 today
    let prices = PriceTable::aws_default();
    let us = prices.region("us-east-1", None).unwrap();
    let per_unit = |service, item| {
        us.get(service, item, LineKind::Price)
            .unwrap()
            .usd_per_unit()
    };
    // THEN the figures of aws-facts.md are there, per unit
    assert!((per_unit("lambda", "requests") - 0.20 / 1e6).abs() < 1e-15);
    assert!((per_unit("apigateway", "http_requests") - 1.00 / 1e6).abs() < 1e-15);
    assert!((per_unit("apigateway", "rest_requests") - 3.50 / 1e6).abs() < 1e-15);
    assert!((per_unit("sqs", "requests") - 0.40 / 1e6).abs() < 1e-15);
    assert!((per_unit("dynamodb", "read_request_units") - 0.125 / 1e6).abs() < 1e-15);
    assert!((per_unit("dynamodb", "write_request_units") - 0.625 / 1e6).abs() < 1e-15);
    assert!((per_unit("logs", "ingestion") - 0.50).abs() < 1e-15);
    let duration = |arch| {
        us.get_for("lambda", "duration", LineKind::Price, arch)
            .unwrap()
            .usd_per_unit()
    };
    assert_eq!(duration("x86_64"), 0.0000166667);
    assert_eq!(duration("arm64"), 0.0000133334);
}

#[test]
fn unknown_region_is_an_error_naming_the_available_ones() {
    // GIVEN the default table WHEN asking for a region it does not price
    let error = PriceTable::aws_default()
        .region("eu-west-3", None)
        .unwrap_err();
    // THEN the error names the region and what exists
    assert_eq!(
        error,
        CostError::UnknownRegion {
            region: "eu-west-3".into(),
            available: vec!["us-east-1".into()],
        }
    );
    assert!(error.to_string().contains("us-east-1"));
}

#[test]
fn unknown_architecture_is_an_error_naming_the_available_ones() {
    // GIVEN us-east-1 WHEN asking for a Lambda duration price for an unknown architecture
    let prices = PriceTable::aws_default();
    let us = prices.region("us-east-1", None).unwrap();
    let error = us
        .get_for("lambda", "duration", LineKind::Price, "x86-64")
        .unwrap_err();
    // THEN it fails and lists the architectures the table knows
    let CostError::UnknownArchitecture {
        architecture,
        available,
        ..
    } = error
    else {
        panic!("unexpected {error:?}")
    };
    assert_eq!(architecture, "x86-64");
    assert_eq!(available, vec!["arm64".to_string(), "x86_64".to_string()]);
}

#[test]
fn missing_item_is_an_error_not_a_zero_price() {
    let prices = PriceTable::aws_default();
    let us = prices.region("us-east-1", None).unwrap();
    let error = us
        .get("lambda", "gpu_seconds", LineKind::Price)
        .unwrap_err();
    assert!(matches!(error, CostError::MissingItem { .. }), "{error:?}");
}

#[test]
fn newest_line_in_effect_on_the_date_asked_wins() {
    // GIVEN a price that changed on 2024-11-01
    let prices = table(
        "r,any,dynamodb,write_request_units,price,WRU,1000000,1.25,,2018-11-28,old\n\
         r,any,dynamodb,write_request_units,price,WRU,1000000,0.625,,2024-11-01,new\n",
    )
    .unwrap();
    let usd = |as_of| {
        prices
            .region("r", as_of)
            .unwrap()
            .get("dynamodb", "write_request_units", LineKind::Price)
            .map(|l| l.usd.unwrap())
    };
    // THEN before the change the old price applies, from the change on the new one
    assert_eq!(usd(Some("2024-10-31")), Ok(1.25));
    assert_eq!(usd(Some("2024-11-01")), Ok(0.625));
    assert_eq!(usd(None), Ok(0.625));
    // AND before any line was in effect there is no price at all
    assert!(matches!(
        usd(Some("2010-01-01")),
        Err(CostError::MissingItem { .. })
    ));
}

#[test]
fn architecture_specific_line_beats_an_any_line() {
    let prices = table(
        "r,any,lambda,duration,price,GB-second,1,0.5,,2020-01-01,s\n\
         r,arm64,lambda,duration,price,GB-second,1,0.4,,2020-01-01,s\n",
    )
    .unwrap();
    let us = prices.region("r", None).unwrap();
    let usd = |arch| {
        us.get_for("lambda", "duration", LineKind::Price, arch)
            .unwrap()
            .usd
    };
    assert_eq!(usd("arm64"), Some(0.4));
    assert_eq!(usd("x86_64"), Some(0.5));
}

#[test]
fn malformed_tables_are_rejected_with_the_line_number() {
    let cases = [
        // missing usd on a price line
        ("r,any,sqs,requests,price,request,1000000,,,2025-01-01,s\n", 3),
        // a comma inside a field shifts the columns
        ("r,any,sqs,requests,price,request,1000000,0.4,,2025-01-01,s,extra\n", 3),
        // bad date
        ("r,any,sqs,requests,price,request,1000000,0.4,,2025-13-01,s\n", 3),
        // no source
        ("r,any,sqs,requests,price,request,1000000,0.4,,2025-01-01,\n", 3),
        // usd on a free tier line
        ("r,any,sqs,requests,free_tier,request,1000000,0.4,,2025-01-01,s\n", 3),
        // zero quantity
        ("r,any,sqs,requests,price,request,0,0.4,,2025-01-01,s\n", 3),
        // unknown kind
        ("r,any,sqs,requests,discount,request,1,0.4,,2025-01-01,s\n", 3),
        // duplicate
        (
            "r,any,sqs,requests,price,request,1,0.4,,2025-01-01,s\nr,any,sqs,requests,price,request,1,0.5,,2025-01-01,s\n",
            4,
        ),
    ];
    for (body, expected_line) in cases {
        match table(body) {
            Err(CostError::PriceTableSyntax { line, .. }) => {
                assert_eq!(line, expected_line, "{body}")
            }
            other => panic!("{body}: expected a syntax error, got {other:?}"),
        }
    }
}

#[test]
fn table_without_version_or_header_is_rejected() {
    let no_version =
        "region,architecture,service,item,kind,unit,quantity,usd,monthly_from,effective_date,source\n\
                      r,any,sqs,requests,price,request,1,0.4,,2025-01-01,s\n";
    assert!(PriceTable::parse(no_version).is_err());
    let no_header = "# version: 1\nr,any,sqs,requests,price,request,1,0.4,,2025-01-01,s\n";
    assert!(PriceTable::parse(no_header).is_err());
}

#[test]
fn missing_file_is_a_read_error_naming_the_path() {
    let error = PriceTable::from_path(std::path::Path::new("/nonexistent/prices.csv")).unwrap_err();
    assert!(error.to_string().contains("/nonexistent/prices.csv"));
}

#[test]
fn volume_tiers_are_listed_in_order_and_the_first_tier_is_the_price() {
    // GIVEN the default table's HTTP API tiers
    let prices = PriceTable::aws_default();
    let us = prices.region("us-east-1", None).unwrap();
    let tiers = us.tiers("apigateway", "http_requests", "any");
    // THEN $1.00 from 0 and $0.90 beyond 300M; plain lookups return the first tier
    let shape: Vec<(f64, Option<f64>)> = tiers.iter().map(|t| (t.monthly_from, t.usd)).collect();
    assert_eq!(shape, vec![(0.0, Some(1.00)), (300e6, Some(0.90))]);
    let price = us
        .get("apigateway", "http_requests", LineKind::Price)
        .unwrap();
    assert_eq!(price.usd, Some(1.00));
}

#[test]
fn monthly_from_is_only_for_price_lines() {
    let error =
        table("r,any,sqs,requests,free_tier,request,1000000,,5,2025-01-01,s\n").unwrap_err();
    assert!(error.to_string().contains("monthly_from"), "{error}");
}
