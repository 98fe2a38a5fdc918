use super::*;

const WARM: &str = "REPORT RequestId: 8f5e6a1c-3b2d-4c1e-9a7f-2d3e4f5a6b7c\tDuration: 1.44 ms\tBilled Duration: 2 ms\tMemory Size: 128 MB\tMax Memory Used: 15 MB\t";
const COLD: &str = "REPORT RequestId: 0b7f3c5e-1111-4a2b-8c3d-9e8f7a6b5c4d\tDuration: 1.44 ms\tBilled Duration: 15 ms\tMemory Size: 128 MB\tMax Memory Used: 15 MB\tInit Duration: 12.92 ms\t";

fn report(line: &str) -> Report {
    parse_report_line(line).unwrap().unwrap()
}

#[test]
fn warm_report_line_with_tabs() {
    let r = report(WARM);
    assert_eq!(r.request_id, "8f5e6a1c-3b2d-4c1e-9a7f-2d3e4f5a6b7c");
    assert_eq!(
        (r.duration_ms, r.billed_ms, r.memory_mb),
        (1.44, 2.0, 128.0)
    );
    assert_eq!(r.max_memory_used_mb, Some(15.0));
    assert_eq!(r.init_ms, None);
    assert_eq!(r.init_billed_ms(), 0.0);
}

#[test]
fn cold_start_line_bills_init_inside_billed_duration() {
    // provided.al2023: Billed 15 ms = ceil(1.44 + 12.92)
    let r = report(COLD);
    assert_eq!(r.init_ms, Some(12.92));
    assert_eq!(r.init_billed_ms(), 12.92);
}

#[test]
fn old_managed_runtime_line_did_not_bill_init() {
    // Before August 2025 a managed runtime's Billed Duration left INIT out
    let r = report("REPORT RequestId: 1 Duration: 102.25 ms Billed Duration: 103 ms Memory Size: 128 MB Max Memory Used: 70 MB Init Duration: 163.36 ms");
    assert_eq!(r.init_billed_ms(), 0.0);
}

#[test]
fn line_with_prefix_spaces_xray_and_status() {
    // As printed by `sam logs`/`aws logs tail`: timestamp prefix, single spaces, X-Ray trailer
    let line = "2026-11-30T10:00:00.123Z /aws/lambda/conduit REPORT RequestId: abc-123 Duration: 3000.00 ms Billed Duration: 3000 ms Memory Size: 256 MB Max Memory Used: 38 MB Status: timeout XRAY TraceId: 1-5e1b4151-5ac6c58f5a8a4e7a8d9b2c31 SegmentId: 6b2f1a3c4d5e6f70 Sampled: true";
    let r = report(line);
    assert_eq!(r.request_id, "abc-123");
    assert_eq!((r.billed_ms, r.memory_mb), (3000.0, 256.0));
    assert_eq!(r.status.as_deref(), Some("timeout"));
}

#[test]
fn error_status_with_error_type() {
    let line = "REPORT RequestId: e1\tDuration: 5.01 ms\tBilled Duration: 6 ms\tMemory Size: 128 MB\tMax Memory Used: 20 MB\tStatus: error\tError Type: Runtime.ExitError";
    let r = report(line);
    assert_eq!(r.status.as_deref(), Some("error"));
    assert_eq!(r.billed_ms, 6.0);
}

#[test]
fn snapstart_restore_is_read() {
    let line = "REPORT RequestId: s1\tDuration: 20.00 ms\tBilled Duration: 20 ms\tMemory Size: 512 MB\tMax Memory Used: 90 MB\tRestore Duration: 474.16 ms\tBilled Restore Duration: 228 ms";
    let r = report(line);
    assert_eq!(r.billed_restore_ms, Some(228.0));
    assert_eq!(r.billed_ms, 20.0);
}

#[test]
fn json_platform_report_record() {
    let line = r#"{"time":"2026-11-30T10:00:00.000Z","type":"platform.report","record":{"requestId":"j-1","metrics":{"durationMs":1.44,"billedDurationMs":15,"memorySizeMB":128,"maxMemoryUsedMB":15,"initDurationMs":12.92},"status":"success"}}"#;
    let r = report(line);
    assert_eq!(r.request_id, "j-1");
    assert_eq!((r.billed_ms, r.init_billed_ms()), (15.0, 12.92));
    assert_eq!(r.status.as_deref(), Some("success"));
}

#[test]
fn other_lines_are_skipped() {
    for line in [
        "START RequestId: 8f5e Version: $LATEST",
        "END RequestId: 8f5e",
        "INIT_START Runtime Version: provided:al2023.v92 Runtime Version ARN: arn:aws:lambda:us-east-1::runtime:abc",
        r#"{"level":"INFO","message":"listed 20 articles"}"#,
        "",
    ] {
        assert_eq!(parse_report_line(line), Ok(None), "{line}");
    }
}

#[test]
fn report_line_without_billed_duration_is_an_error() {
    let error =
        parse_report_line("REPORT RequestId: x Duration: 1.44 ms Memory Size: 128 MB").unwrap_err();
    assert!(error.contains("Billed Duration"), "{error}");
    let error = parse_report_line(
        "REPORT RequestId: x Duration: fast Billed Duration: 2 ms Memory Size: 128 MB",
    )
    .unwrap_err();
    assert!(error.contains("Duration"), "{error}");
}

#[test]
fn log_sums_into_function_usage() {
    // GIVEN a log with one cold and two warm invocations, plus START/END lines
    let log = format!(
        "START RequestId: 0b7f Version: $LATEST\n{COLD}\nEND RequestId: 0b7f\n{WARM}\n{WARM}\n"
    );
    // WHEN summarised
    let summary = summarise_log("conduit", "arm64", &log).unwrap();
    let u = summary.usage;
    // THEN 3 invocations, billed 15 + 2 + 2 = 19 ms, of which 12.92 ms INIT
    assert_eq!(summary.reports, 3);
    assert_eq!(
        (u.name.as_str(), u.architecture.as_str()),
        ("conduit", "arm64")
    );
    assert_eq!((u.invocations, u.billed_ms_total), (3.0, 19.0));
    assert_eq!(u.init_ms_total, 12.92);
    assert_eq!(u.memory_mb, 128.0);
    // AND the log weighs what its lines weigh
    assert_eq!(summary.log_bytes, log.len() as f64);
}

#[test]
fn log_mixing_memory_sizes_is_rejected() {
    let bigger = WARM.replace("128 MB", "256 MB");
    let error = summarise_log("f", "arm64", &format!("{WARM}\n{bigger}\n")).unwrap_err();
    assert!(
        matches!(error, CostError::ReportLine { line: 2, .. }),
        "{error:?}"
    );
}

#[test]
fn log_without_report_lines_is_rejected() {
    assert!(summarise_log("f", "arm64", "START RequestId: 1\n").is_err());
}
