//! `localcloud serve`: the local cloud on the command line.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Instant;

use clap::{Parser, Subcommand};
use localcloud::{LocalCloud, LocalCloudConfig, DEFAULT_BIND};

#[derive(Parser)]
#[command(
    name = "localcloud",
    version,
    about = "A Docker-free local AWS: API Gateway, Lambda, SQS, DynamoDB"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve every emulated service on one endpoint until Ctrl-C.
    Serve {
        /// Address to listen on. Anything but loopback exposes the emulator to the network.
        #[arg(long, default_value = DEFAULT_BIND, env = "LOCALCLOUD_BIND")]
        bind: SocketAddr,
        /// Load DynamoDB state from this file at start and save it there on Ctrl-C.
        #[arg(long, env = "LOCALCLOUD_STATE_FILE")]
        state_file: Option<PathBuf>,
    },
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let started = Instant::now();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("LOCALCLOUD_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_target(false)
        .init();
    match Cli::parse().command {
        Command::Serve { bind, state_file } => serve(bind, state_file, started).await,
    }
}

async fn serve(
    bind: SocketAddr,
    state_file: Option<PathBuf>,
    started: Instant,
) -> anyhow::Result<()> {
    if !bind.ip().is_loopback() {
        tracing::warn!(
            "listening on {bind}: the emulator accepts unauthenticated requests from the network"
        );
    }
    let config = LocalCloudConfig {
        bind,
        state_file: state_file.clone(),
        ..LocalCloudConfig::default()
    };
    let cloud = LocalCloud::start(config).await?;
    let endpoint = cloud.endpoint();
    tracing::info!(
        "local cloud ready in {:.1} ms at {endpoint} (DynamoDB, SQS; admin at {endpoint}/_localcloud/health)",
        started.elapsed().as_secs_f64() * 1000.0
    );
    if let Some(path) = &state_file {
        tracing::info!("DynamoDB state persists to {}", path.display());
    }
    tracing::info!("use it with: export AWS_ENDPOINT_URL={endpoint}");
    tokio::signal::ctrl_c().await?;
    tracing::info!("stopping");
    cloud.shutdown().await?;
    tracing::info!("stopped");
    Ok(())
}
