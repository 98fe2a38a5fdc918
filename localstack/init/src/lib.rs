//! Our init for LocalStack's Lambda containers. LocalStack (open-source
//! core, `localstack-core`) starts each execution environment as a container
//! whose entrypoint is `/var/rapid/init`, a program it otherwise downloads
//! from GitHub at first use (`localstack/lambda-runtime-init`, a fork of AWS's
//! runtime interface emulator). This one speaks the same protocol
//! (`localstack-core`'s `services/lambda_/invocation/executor_endpoint.py`
//! and `docker_runtime_executor.py`; localstack/README.md):
//!
//! - it serves the Lambda Runtime API on 127.0.0.1:9001 to the bootstrap
//!   (`/var/task/bootstrap`, `/opt/bootstrap` or `/var/runtime/bootstrap`,
//!   or the command given), which it starts with `AWS_LAMBDA_RUNTIME_API`;
//! - when the bootstrap first asks for an invocation it POSTs
//!   `{LOCALSTACK_RUNTIME_ENDPOINT}/status/{LOCALSTACK_RUNTIME_ID}/ready`; a
//!   bootstrap that exits before that is reported to `.../status/{id}/error`;
//! - LocalStack POSTs each invocation to port 9563, `/invoke`, as JSON
//!   (`invoke-id`, `invoked-function-arn`, `payload`, `trace-id`); the
//!   answer goes back as `/invocations/{id}/logs` (`{"logs": ...}`, first:
//!   LocalStack reads the logs when the result arrives) then
//!   `/invocations/{id}/response` or `/invocations/{id}/error`;
//! - an invocation past `AWS_LAMBDA_FUNCTION_TIMEOUT` seconds fails with
//!   `Sandbox.Timedout` and the bootstrap is restarted, as Lambda resets an
//!   environment after a timeout.

mod config;
pub mod http;
mod invoke;
mod output;
mod process;
mod server;

pub use config::{Config, BOOTSTRAP_PATHS};
pub use invoke::{Init, Invocation};

use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;

use process::supervise;
use server::serve;

/// Applies `LOCALSTACK_CHMOD_PATHS`, opens both ports, starts the bootstrap
/// and serves until the bootstrap fails to start.
pub fn run(config: Config) -> Result<(), String> {
    for (path, mode) in &config.chmod {
        use std::os::unix::fs::PermissionsExt;
        if let Err(e) = std::fs::set_permissions(path, std::fs::Permissions::from_mode(*mode)) {
            eprintln!("init: cannot chmod {path} to {mode:o}: {e}");
        }
    }
    let bind = |addr: SocketAddr| {
        TcpListener::bind(addr).map_err(|e| format!("cannot listen on {addr}: {e}"))
    };
    let runtime_api = bind(config.runtime_api)?;
    let interop = bind(config.interop)?;
    let init = Init::new(config);
    let api = Arc::clone(&init);
    std::thread::spawn(move || serve(api, runtime_api, Init::runtime_api));
    let ls = Arc::clone(&init);
    std::thread::spawn(move || serve(ls, interop, Init::interop));
    supervise(&init)
}
