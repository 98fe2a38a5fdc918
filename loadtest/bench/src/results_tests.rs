use super::*;
use crate::testdata;

#[test]
fn results_survive_a_json_round_trip() {
    // GIVEN a complete results document
    let results = testdata::results();
    // WHEN written and read back
    let text = results.to_json().unwrap();
    let back = Results::from_json(&text).unwrap();
    // THEN nothing is lost (floats to JSON's last digit: serde_json's default
    // float parsing may differ in the last bit)
    let again: serde_json::Value = serde_json::from_str(&back.to_json().unwrap()).unwrap();
    let first: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert!(same(&first, &again), "the round trip changed the document");
}

/// Equal JSON, numbers within a relative 1e-12.
fn same(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value;
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            (x - y).abs() <= 1e-12 * x.abs().max(y.abs())
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

#[test]
fn every_record_states_its_settings_and_figures() {
    let text = testdata::results().to_json().unwrap();
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    for key in [
        "schema_version",
        "mode",
        "scaling",
        "git_commit",
        "machine",
        "records",
        "capacity",
        "skipped",
    ] {
        assert!(value.get(key).is_some(), "missing {key}");
    }
    for key in ["cores", "ram_mb", "cpu_model"] {
        assert!(value["machine"].get(key).is_some(), "missing machine.{key}");
    }
    let record = &value["records"][0];
    for pointer in [
        "/settings/parameters/OrdersDelayMs",
        "/settings/memory_mb",
        "/settings/account_concurrency_limit",
        "/load/shape/steps",
        "/load/original_shape/steps",
        "/summary/successful_rps",
        "/summary/failed_rps",
        "/summary/p95_ms",
        "/summary/throttled",
        "/cpu/functions_ms_per_request",
        "/cpu/load_generator_saturated",
        "/cost/usd_per_million_requests",
        "/metering/functions",
    ] {
        assert!(record.pointer(pointer).is_some(), "missing {pointer}");
    }
}

#[test]
fn a_document_without_records_is_rejected() {
    let mut value: serde_json::Value =
        serde_json::from_str(&testdata::results().to_json().unwrap()).unwrap();
    value.as_object_mut().unwrap().remove("records");
    assert!(Results::from_json(&value.to_string()).is_err());
}

#[test]
fn machine_facts_are_parsed_from_proc() {
    assert_eq!(
        parse_cpu_model("processor: 0\nmodel name\t: Neoverse-N1\n").as_deref(),
        Some("Neoverse-N1")
    );
    assert_eq!(
        parse_meminfo_total_mb("MemTotal:       4194304 kB\n"),
        Some(4096)
    );
    assert_eq!(parse_meminfo_total_mb("nothing"), None);
}

#[test]
fn the_hosts_ram_is_read_under_its_old_name_too() {
    // GIVEN a machine as older results.json and tune.json files write it
    let old = r#"{"cores": 2, "memory_mb": 4096, "cpu_model": "x", "os": "linux"}"#;
    // WHEN read
    let machine: Machine = serde_json::from_str(old).unwrap();
    // THEN its RAM is there, and it is written under the new name
    assert_eq!(machine.ram_mb, 4096);
    let written = serde_json::to_value(&machine).unwrap();
    assert_eq!(written["ram_mb"], 4096);
    assert!(written.get("memory_mb").is_none());
}

#[test]
fn variants_are_listed_once_in_order() {
    assert_eq!(
        testdata::results().variants(),
        [
            "orders-direct",
            "orders-queue",
            "conduit-monolith",
            "conduit-micro-invoke",
            "conduit-micro-queue"
        ]
    );
}

#[test]
fn runs_whose_ledger_does_not_balance_are_named() {
    use crate::ledger::{Ledger, RequestLedger};
    let scenarios = crate::plan::orders_scenarios();
    let baseline = &scenarios[0];
    // GIVEN two runs, one of which lost a request
    let mut balanced = crate::testdata::record(baseline, "orders-direct", 20.0, 0);
    balanced.ledger = Some(Ledger {
        requests: RequestLedger {
            sent: 3,
            ok: 3,
            ..Default::default()
        },
        messages: Vec::new(),
    });
    let mut lossy = crate::testdata::record(baseline, "orders-queue", 20.0, 0);
    lossy.ledger = Some(Ledger {
        requests: RequestLedger {
            sent: 3,
            ok: 2,
            ..Default::default()
        },
        messages: Vec::new(),
    });
    let mut results = crate::testdata::results();
    results.records = vec![balanced, lossy];
    // THEN only the lossy one is unaccounted for
    let unaccounted = results.unaccounted();
    assert_eq!(unaccounted.len(), 1);
    assert!(
        unaccounted[0].starts_with("orders-baseline / orders-queue: "),
        "{unaccounted:?}"
    );
    assert!(unaccounted[0].ends_with("lost 1"), "{unaccounted:?}");
}

#[test]
fn a_version_2_file_reads_with_the_argon2_split_unknown() {
    // GIVEN results written before the split: no Argon2id figures, no threads
    let mut value: serde_json::Value =
        serde_json::from_str(&testdata::results().to_json().unwrap()).unwrap();
    value["schema_version"] = 2.into();
    for record in value["records"].as_array_mut().unwrap() {
        let cpu = record["cpu"].as_object_mut().unwrap();
        for key in [
            "argon2_ms",
            "argon2_ms_per_request",
            "functions_ms_per_request_excluding_argon2",
        ] {
            assert!(cpu.remove(key).is_some(), "{key} is written");
        }
        for function in record["metering"]["functions"]
            .as_object_mut()
            .unwrap()
            .values_mut()
        {
            function.as_object_mut().unwrap().remove("thread_cpu_ms");
        }
    }
    // WHEN read back
    let results = Results::from_json(&value.to_string()).unwrap();
    // THEN the split is unknown, not zero, and the whole figure is kept
    let conduit = results
        .records
        .iter()
        .find(|r| r.variant == "conduit-monolith")
        .unwrap();
    assert_eq!(conduit.cpu.argon2_ms, None);
    assert_eq!(conduit.cpu.functions_ms_per_request_excluding_argon2, None);
    assert!(conduit.cpu.functions_ms_per_request.is_some());
    let metering = conduit.metering.as_ref().unwrap();
    assert_eq!(metering.argon2_cpu_ms(), 0.0);
    assert!(metering
        .functions
        .values()
        .all(|f| f.thread_cpu_ms.is_empty()));
}

#[test]
fn a_version_3_file_reads_with_the_cpu_share_unknown() {
    // GIVEN results written before the CPU share: no modes, no waits
    let mut value: serde_json::Value =
        serde_json::from_str(&testdata::results().to_json().unwrap()).unwrap();
    value["schema_version"] = 3.into();
    assert!(value.as_object_mut().unwrap().remove("cpu_share").is_some());
    for record in value["records"].as_array_mut().unwrap() {
        let metering = record["metering"].as_object_mut().unwrap();
        assert!(metering.remove("cpu_share").is_some(), "written");
        for function in metering["functions"].as_object_mut().unwrap().values_mut() {
            let function = function.as_object_mut().unwrap();
            for key in [
                "cpu_share_vcpus",
                "throttled_ms",
                "run_queue_wait_ms",
                "contention_ms",
                "modeled_cpu_ms",
            ] {
                assert!(function.remove(key).is_some(), "{key} is written");
            }
        }
    }
    // WHEN read back
    let results = Results::from_json(&value.to_string()).unwrap();
    // THEN the modes are unknown and the reports say so, not "off"
    assert_eq!(results.cpu_share, None);
    let record = &results.records[0];
    let metering = record.metering.as_ref().unwrap();
    assert_eq!(metering.cpu_share, None);
    assert_eq!(metering.contention_share(), Some(0.0));
    let note = crate::report::cpu_share::note(record).unwrap();
    assert_eq!(
        note.mode,
        "CPU share: not recorded (results before schema 4)"
    );
}

#[test]
fn a_version_6_file_reads_without_iam_evidence_and_a_denial_is_named() {
    // GIVEN results written before the IAM evidence
    let mut value: serde_json::Value =
        serde_json::from_str(&testdata::results().to_json().unwrap()).unwrap();
    value["schema_version"] = 6.into();
    assert!(value.as_object_mut().unwrap().remove("iam").is_some());
    // WHEN read back
    let results = Results::from_json(&value.to_string()).unwrap();
    // THEN there is no evidence and so no denial
    assert_eq!(results.iam, None);
    assert!(results.iam_denials().is_empty());
    // AND a run with a denial is named with its call
    let mut denied = testdata::results();
    let evidence = denied.iam.as_mut().unwrap();
    evidence.add(
        "orders-faults / orders-queue",
        &testdata::iam_document(1, 3),
    );
    let denials = denied.iam_denials();
    assert_eq!(denials.len(), 1, "{denials:?}");
    assert!(
        denials[0].starts_with("orders-faults / orders-queue: OrdersQueueFunction"),
        "{denials:?}"
    );
    assert!(denials[0].ends_with("(3x)"), "{denials:?}");
}
