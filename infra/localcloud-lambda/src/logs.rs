//! One log file per function (`<dir>/<function>.log`), standing in for its
//! CloudWatch log group: the processes' stdout and stderr plus the platform's
//! START, END and REPORT lines.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use parking_lot::Mutex;
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

#[derive(Clone, Default)]
pub struct FunctionLog {
    file: Option<Arc<Mutex<std::fs::File>>>,
}

impl FunctionLog {
    /// Appends to `<dir>/<function>.log`; with no directory, lines are dropped.
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
        })
    }

    pub fn is_enabled(&self) -> bool {
        self.file.is_some()
    }

    pub fn line(&self, line: &str) {
        if let Some(file) = &self.file {
            let mut file = file.lock();
            // A full disk must not fail an invocation; the line is lost.
            let _ = writeln!(file, "{line}");
        }
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
}
