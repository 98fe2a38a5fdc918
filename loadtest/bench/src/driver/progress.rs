//! What the bench says as it goes: timestamped lines on stderr.

pub(crate) fn phase(line: &str) {
    eprintln!("[{}] {line}", chrono::Local::now().format("%H:%M:%S"));
}

pub(crate) fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}
