//! The bootstrap process: started with the Runtime API's address, its output
//! captured into the invocations' logs, restarted after a timeout or a crash.

use std::os::fd::OwnedFd;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use crate::invoke::{lock, Init, Outcome};

fn spawn_bootstrap(init: &Arc<Init>) -> std::io::Result<Child> {
    let (program, args) = init
        .config
        .bootstrap
        .split_first()
        .expect("a bootstrap command");
    let mut child = Command::new(program)
        .args(args)
        .env(
            "AWS_LAMBDA_RUNTIME_API",
            init.config.runtime_api.to_string(),
        )
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let pipes = [
        child.stdout.take().map(OwnedFd::from),
        child.stderr.take().map(OwnedFd::from),
    ];
    init.output.capture(pipes.into_iter().flatten().collect());
    *lock(&init.child_pid) = Some(child.id());
    Ok(child)
}

/// Runs the bootstrap, restarting it after a timeout or a crash once the
/// environment is ready; a bootstrap that cannot start or exits before it
/// asked for an invocation fails the environment's start-up.
pub(crate) fn supervise(init: &Arc<Init>) -> Result<(), String> {
    loop {
        let mut child = spawn_bootstrap(init).map_err(|e| {
            let message = format!("cannot start {}: {e}", init.config.bootstrap[0]);
            init_failed(init, &message, "Runtime.InvalidEntrypoint");
            message
        })?;
        let status = loop {
            if init.kill.swap(false, Ordering::SeqCst) {
                let _ = child.kill();
            }
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) => std::thread::sleep(Duration::from_millis(10)),
                Err(e) => return Err(format!("cannot wait for the bootstrap: {e}")),
            }
            init.check_deadline();
        };
        *lock(&init.child_pid) = None;
        let message = format!("Runtime exited with error: {status}");
        if !init.ready.load(Ordering::SeqCst) {
            init_failed(init, &message, "Runtime.ExitError");
            return Err(message);
        }
        let running = lock(&init.running).take();
        if let Some(running) = running {
            let error =
                serde_json::json!({ "errorMessage": message, "errorType": "Runtime.ExitError" });
            init.report(&running, Outcome::Error(error.to_string().into_bytes()));
        }
    }
}

fn init_failed(init: &Init, message: &str, error_type: &str) {
    let error = serde_json::json!({ "errorMessage": message, "errorType": error_type });
    init.post_status("error", error.to_string().as_bytes());
}
