//! Metering: the function log with START/END/REPORT lines, per-function totals
//! and CPU time of the function processes.

use std::time::Duration;

use crate::common::*;
use localcloud_lambda::{CpuShare, LambdaConfig};
use serde_json::json;

#[tokio::test]
async fn function_log_has_output_and_start_end_report_lines() {
    // GIVEN a log directory and a function that writes to stderr before crashing
    let dir = tempfile::tempdir().unwrap();
    let service = start(LambdaConfig {
        log_dir: Some(dir.path().to_path_buf()),
        ..config(vec![function("echo", "echo"), function("crash", "crash")])
    });

    // WHEN each is invoked, echo twice
    let first = invoke(&service, "echo", json!({})).await.unwrap();
    let second = invoke(&service, "echo", json!({})).await.unwrap();
    let crash = invoke(&service, "crash", json!({"code": 4})).await.unwrap();
    service.shutdown().await;

    // THEN each function's log has its lines; Init Duration only on the cold start
    let echo_log = std::fs::read_to_string(dir.path().join("echo.log")).unwrap();
    let reports: Vec<&str> = echo_log
        .lines()
        .filter(|l| l.starts_with("REPORT"))
        .collect();
    assert_eq!(reports.len(), 2);
    assert!(reports[0].starts_with(&format!(
        "REPORT RequestId: {}\tDuration: ",
        first.request_id
    )));
    assert!(reports[0].contains("Init Duration: "));
    assert!(reports[0].contains("Memory Size: 128 MB\tMax Memory Used: "));
    assert!(!reports[1].contains("Init Duration"));
    assert!(echo_log.contains(&format!(
        "START RequestId: {} Version: $LATEST",
        second.request_id
    )));
    assert!(echo_log.contains(&format!("END RequestId: {}", second.request_id)));
    let crash_log = std::fs::read_to_string(dir.path().join("crash.log")).unwrap();
    assert!(
        crash_log.contains("crash: exiting with code 4"),
        "{crash_log}"
    );
    assert!(crash_log.contains(&format!(
        "RequestId: {} Error: Runtime exited with error: exit status 4",
        crash.request_id
    )));
    assert!(crash_log.contains("Status: error\tError Type: Runtime.ExitError"));
}

#[tokio::test]
async fn cpu_time_counts_live_and_exited_processes_until_reset() {
    // GIVEN a function with a 1 s timeout
    let mut sleep = function("sleep", "sleep");
    sleep.timeout = Duration::from_millis(1000);
    // Unthrottled: the busy-wait is timed by the clock, and at 128 MB's
    // share it would burn a fourteenth of the CPU this test counts on.
    let service = start(LambdaConfig {
        cpu_share: CpuShare::Off,
        ..config(vec![sleep])
    });

    // WHEN it busy-waits 300 ms in a warm environment
    invoke(&service, "sleep", json!({"cpu_ms": 300, "ms": 0}))
        .await
        .unwrap();
    let live = service.metrics().functions["sleep"].cpu_ms;

    // THEN the CPU time shows, and survives the process being killed by a timeout
    // (Busy-waiting gets only a share of a core on a loaded machine: at least
    // two 10 ms ticks are expected.)
    assert!(live >= 20.0, "cpu {live} ms");
    invoke(&service, "sleep", json!({"cpu_ms": 0, "ms": 5000}))
        .await
        .unwrap();
    assert!(service.process_ids().is_empty());
    let after_exit = service.metrics().functions["sleep"].cpu_ms;
    assert!(
        after_exit >= live,
        "cpu {after_exit} ms after exit, {live} before"
    );

    // AND a reset starts the count again
    service.reset_metrics();
    let metrics = service.metrics();
    assert!(metrics.functions["sleep"].cpu_ms.abs() < 1.0);
    assert_eq!(metrics.functions["sleep"].invocations, 0);
    assert!(service.records().is_empty());
    service.shutdown().await;
}

#[tokio::test]
async fn a_named_threads_cpu_is_metered_by_name_and_survives_its_process() {
    // GIVEN a function that burns CPU on a long-lived thread named "burner",
    // and one that burns on its handler's thread
    let mut burner = function("burner", "thread-burn");
    burner.timeout = Duration::from_millis(2000);
    // Unthrottled: 100 ms of CPU at 128 MB's share would take 1.4 s.
    let service = start(LambdaConfig {
        cpu_share: CpuShare::Off,
        ..config(vec![burner, function("sleep", "sleep")])
    });

    // WHEN the burner's thread burns 100 ms, and the other function too
    let response = invoke(&service, "burner", json!({"cpu_ms": 100}))
        .await
        .unwrap();
    let burned = json(&response.payload)["thread_cpu_ms"].as_f64().unwrap();
    invoke(&service, "sleep", json!({"cpu_ms": 100, "ms": 0}))
        .await
        .unwrap();
    let metrics = service.metrics();

    // THEN the thread's CPU shows under its name, at least what it burned by
    // its own count, and within the process's CPU
    let burner = &metrics.functions["burner"];
    let metered = burner.thread_cpu_ms["burner"];
    assert!(burned >= 100.0, "burned {burned} ms");
    assert!(metered >= burned, "metered {metered} ms, burned {burned}");
    assert!(burner.cpu_ms >= metered, "{burner:?}");
    // AND neither the main thread (named like the binary) nor a thread the
    // other function does not have is listed
    assert!(
        !burner.thread_cpu_ms.contains_key("thread-burn"),
        "{burner:?}"
    );
    let sleep = &metrics.functions["sleep"];
    assert!(!sleep.thread_cpu_ms.contains_key("burner"), "{sleep:?}");

    // WHEN the burner's process is killed by a timeout
    invoke(&service, "burner", json!({"cpu_ms": 0, "ms": 5000}))
        .await
        .unwrap();
    assert_eq!(service.metrics().functions["burner"].environments, 0);

    // THEN its thread's CPU is kept
    let after_exit = service.metrics().functions["burner"].thread_cpu_ms["burner"];
    assert!(
        after_exit >= metered,
        "{after_exit} ms after exit, {metered} before"
    );

    // AND a reset starts it again from zero
    service.reset_metrics();
    let reset = service.metrics().functions["burner"].thread_cpu_ms.clone();
    assert!(reset.values().all(|ms| ms.abs() < 1.0), "{reset:?}");
    service.shutdown().await;
}

#[tokio::test]
async fn totals_add_up_billed_time_and_gb_seconds() {
    // GIVEN a 1024 MB function
    let mut sleep = function("sleep", "sleep");
    sleep.memory_mb = 1024;
    let service = start(config(vec![sleep]));

    // WHEN it runs three times for about 50 ms
    for _ in 0..3 {
        invoke(&service, "sleep", json!({"ms": 50})).await.unwrap();
    }

    // THEN the totals are the sums of the records
    let records = service.records();
    let metrics = &service.metrics().functions["sleep"];
    let billed: u64 = records.iter().map(|r| r.billed_ms).sum();
    assert_eq!(metrics.invocations, 3);
    assert_eq!(metrics.billed_ms, billed);
    assert!(billed >= 150);
    assert!((metrics.gb_seconds - billed as f64 / 1000.0).abs() < 1e-9);
    assert!(metrics.init_ms > 0.0);
    let json = serde_json::to_value(service.metrics()).unwrap();
    assert_eq!(json["functions"]["sleep"]["invocations"], 3);
    service.shutdown().await;
}

#[tokio::test]
async fn log_bytes_are_every_line_as_cloudwatch_ingests_it() {
    // GIVEN a function that prints known lines, with no log directory
    let service = start(config(vec![function("print", "print-lines")]));

    // WHEN it is invoked once, printing two lines to stdout and one to stderr
    let payload = json!({"stdout": ["hello", "wörld"], "stderr": ["oops"]});
    let response = invoke(&service, "print", payload).await.unwrap();

    // THEN six events are ingested: START, the three lines, END and REPORT,
    // each its UTF-8 message (newline kept) plus 26 bytes
    let id = &response.request_id;
    let report = service.records().pop().unwrap().report_line();
    let start_line = 17 + 36 + 17; // "START RequestId: " + uuid + " Version: $LATEST"
    assert_eq!(
        format!("START RequestId: {id} Version: $LATEST").len(),
        start_line
    );
    let end_line = 15 + 36; // "END RequestId: " + uuid
    let printed = (5 + 1 + 26) + (6 + 1 + 26) + (4 + 1 + 26); // "wörld" is 6 bytes
    let expected = (start_line + 1 + 26) + printed + (end_line + 1 + 26) + (report.len() + 1 + 26);
    assert!(eventually(|| service.metrics().functions["print"].log_events >= 6).await);
    let metrics = &service.metrics().functions["print"];
    assert_eq!(metrics.log_events, 6);
    assert_eq!(metrics.log_bytes, expected as u64);

    // AND a reset zeroes them
    service.reset_metrics();
    assert_eq!(service.metrics().functions["print"].log_bytes, 0);
    service.shutdown().await;
}
