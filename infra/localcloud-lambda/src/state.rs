//! What the service shares with its background work (running invocations,
//! `Event` retries, the idle reaper): configuration, functions, concurrency,
//! the meter, the CPU controller and the shutdown signal.

use std::collections::BTreeMap;
use std::sync::Arc;

use tokio::sync::watch;

use crate::concurrency::Concurrency;
use crate::config::LambdaConfig;
use crate::cpu_share::CpuController;
use crate::function::Function;
use crate::metering::Meter;

pub(crate) struct Inner {
    pub config: LambdaConfig,
    pub functions: BTreeMap<String, Arc<Function>>,
    pub concurrency: Arc<Concurrency>,
    pub meter: Meter,
    /// How environments get their CPU share.
    pub cpu: CpuController,
    shutdown: watch::Sender<bool>,
}

impl Inner {
    pub fn new(
        config: LambdaConfig,
        functions: BTreeMap<String, Arc<Function>>,
        concurrency: Arc<Concurrency>,
        meter: Meter,
        cpu: CpuController,
    ) -> Self {
        Self {
            config,
            functions,
            concurrency,
            meter,
            cpu,
            shutdown: watch::Sender::new(false),
        }
    }

    pub fn is_shutting_down(&self) -> bool {
        *self.shutdown.borrow()
    }

    pub fn shutdown_signal(&self) -> watch::Receiver<bool> {
        self.shutdown.subscribe()
    }

    /// Later invocations fail; running ones and background tasks stop.
    pub fn signal_shutdown(&self) {
        let _ = self.shutdown.send(true);
    }
}
