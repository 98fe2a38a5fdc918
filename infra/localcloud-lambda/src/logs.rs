//! One log per function, standing in for its CloudWatch log group: the
//! processes' stdout and stderr plus the platform's START, END and REPORT
//! lines. Every line is metered as CloudWatch ingests it; with a log
//! directory it is also appended to `<dir>/<function>.log`.

use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

/// CloudWatch Logs counts each event's UTF-8 message plus 26 bytes
/// (https://docs.aws.amazon.com/AmazonCloudWatchLogs/latest/APIReference/API_PutLogEvents.html),
/// and ingestion is billed on that size.
pub const EVENT_OVERHEAD_BYTES: u64 = 26;

/// Ingested size of one line: Lambda sends each line of a custom runtime's
/// output, and each platform line, as one event whose message keeps the
/// line's terminating newline.
pub fn event_bytes(line: &str) -> u64 {
    line.len() as u64 + 1 + EVENT_OVERHEAD_BYTES
}

#[derive(Clone, Default)]
pub struct FunctionLog {
    file: Option<Arc<Mutex<std::fs::File>>>,
    ingested: Arc<Ingested>,
}

#[derive(Default)]
struct Ingested {
    events: AtomicU64,
    bytes: AtomicU64,
}

impl FunctionLog {
    /// Appends to `<dir>/<function>.log`; with no directory, lines are only metered.
    pub fn open(dir: Option<&Path>, function: &str) -> std::io::Result<Self> {
        let Some(dir) = dir else {
            return Ok(Self::default());
        };
        std::fs::create_dir_all(dir)?;
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join(format!("{function}.log")))?;
        Ok(Self {
            file: Some(Arc::new(Mutex::new(file))),
            ingested: Arc::default(),
        })
    }

    /// Writes (and meters) one event per line of `text`.
    pub fn line(&self, text: &str) {
        for line in text.split('\n') {
            self.ingested.events.fetch_add(1, Ordering::Relaxed);
            self.ingested
                .bytes
                .fetch_add(event_bytes(line), Ordering::Relaxed);
        }
        if let Some(file) = &self.file {
            // One write per call: `writeln!` on a file issues one system call
            // per formatted piece (the text, then the newline).
            let mut bytes = Vec::with_capacity(text.len() + 1);
            bytes.extend_from_slice(text.as_bytes());
            bytes.push(b'\n');
            // A full disk must not fail an invocation; the line is lost.
            let _ = file.lock().write_all(&bytes);
        }
    }

    /// Events and bytes CloudWatch would have ingested since the last reset.
    pub fn ingested(&self) -> (u64, u64) {
        (
            self.ingested.events.load(Ordering::Relaxed),
            self.ingested.bytes.load(Ordering::Relaxed),
        )
    }

    pub fn reset_metering(&self) {
        self.ingested.events.store(0, Ordering::Relaxed);
        self.ingested.bytes.store(0, Ordering::Relaxed);
    }

    /// Copies a process's output line by line until it closes.
    pub fn pipe(&self, output: impl AsyncRead + Unpin + Send + 'static) {
        let log = self.clone();
        tokio::spawn(async move {
            let mut lines = BufReader::new(output).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                log.line(&line);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn lines_and_piped_output_land_in_the_function_file() {
        let dir = tempfile::tempdir().unwrap();
        let log = FunctionLog::open(Some(dir.path()), "orders").unwrap();
        log.line("START RequestId: 1 Version: $LATEST");
        let (mut writer, reader) = tokio::io::duplex(64);
        log.pipe(reader);
        tokio::io::AsyncWriteExt::write_all(&mut writer, b"hello\nworld\n")
            .await
            .unwrap();
        drop(writer);
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        let text = std::fs::read_to_string(dir.path().join("orders.log")).unwrap();
        assert_eq!(text, "START RequestId: 1 Version: $LATEST\nhello\nworld\n");
    }

    #[test]
    fn each_line_is_one_event_of_its_bytes_plus_newline_plus_26() {
        // GIVEN a log without a file
        let log = FunctionLog::open(None, "orders").unwrap();
        // WHEN a platform line and a two-line write are logged
        log.line("END RequestId: 1");
        log.line("a\nbé");
        // THEN three events: 16 + 1 + 26, 1 + 1 + 26, 3 (é is 2 bytes) + 1 + 26
        assert_eq!(log.ingested(), (3, 43 + 28 + 30));
        log.reset_metering();
        assert_eq!(log.ingested(), (0, 0));
    }
}
