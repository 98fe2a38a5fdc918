//! How every function writes its logs: what `lambda_runtime`'s
//! `init_default_subscriber` sets up (level from `AWS_LAMBDA_LOG_LEVEL`, else
//! `RUST_LOG`, else INFO; JSON when `AWS_LAMBDA_LOG_FORMAT` is `JSON`; no
//! target, no time, as CloudWatch Logs stamps each line), in plain text:
//! without colours, whose escape codes CloudWatch Logs would show raw
//! (`\x1b[31mERROR\x1b[0m`).

use tracing::Subscriber;
use tracing_subscriber::filter::{EnvFilter, LevelFilter};
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::util::SubscriberInitExt;

/// Sets up the function's logs on stdout, once, at the start of `main`.
pub fn init_logs() {
    let json = std::env::var("AWS_LAMBDA_LOG_FORMAT").is_ok_and(|f| f.eq_ignore_ascii_case("json"));
    let level = std::env::var("AWS_LAMBDA_LOG_LEVEL").or_else(|_| std::env::var("RUST_LOG"));
    let level = level
        .as_deref()
        .unwrap_or("INFO")
        .parse()
        .unwrap_or(LevelFilter::INFO);
    logs(json, level, std::io::stdout).init();
}

/// The subscriber: plain text (or JSON) at `level` and above, to `writer`.
fn logs<W>(json: bool, level: LevelFilter, writer: W) -> Box<dyn Subscriber + Send + Sync>
where
    W: for<'w> MakeWriter<'w> + Send + Sync + 'static,
{
    let filter = EnvFilter::builder()
        .with_default_directive(level.into())
        .from_env_lossy();
    let format = tracing_subscriber::fmt()
        .with_ansi(false)
        .with_target(false)
        .without_time()
        .with_env_filter(filter)
        .with_writer(writer);
    if json {
        Box::new(format.json().finish())
    } else {
        Box::new(format.finish())
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::sync::{Arc, Mutex};

    use super::*;

    /// What the subscriber wrote.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl Write for Captured {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn written(json: bool, level: LevelFilter, log: impl FnOnce()) -> String {
        let captured = Captured::default();
        let writer = captured.clone();
        tracing::subscriber::with_default(logs(json, level, move || writer.clone()), log);
        let bytes = captured.0.lock().unwrap().clone();
        String::from_utf8(bytes).unwrap()
    }

    #[test]
    fn an_error_is_logged_as_plain_text_without_colour_codes() {
        // WHEN a function logs an error
        let text = written(false, LevelFilter::INFO, || {
            tracing::error!("orders back end failed")
        });
        // THEN the line reads as it will in CloudWatch Logs
        assert_eq!(text, "ERROR orders back end failed\n");
    }

    #[test]
    fn json_logs_carry_no_colour_codes_either() {
        let text = written(true, LevelFilter::INFO, || tracing::warn!(size = 3, "slow"));
        assert!(!text.contains('\x1b'), "{text:?}");
        let line: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(line["level"], "WARN");
        assert_eq!(line["fields"]["message"], "slow");
    }

    #[test]
    fn lines_below_the_level_are_left_out() {
        let text = written(false, LevelFilter::WARN, || tracing::info!("routine"));
        assert_eq!(text, "");
    }
}
