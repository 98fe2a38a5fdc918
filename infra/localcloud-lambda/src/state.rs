//! What the service shares with its background work (running invocations,
//! `Event` retries, the idle reaper): configuration, functions, concurrency,
//! the meter, the CPU controller and the shutdown signal.

use std::collections::BTreeMap;
use std::sync::Arc;

use tokio::sync::watch;

use crate::concurrency::Concurrency;
use crate::config::LambdaConfig;
use crate::cpu_share::CpuController;
use crate::fleet::Fleet;
use crate::function::Function;
use crate::metering::Meter;

pub(crate) struct Inner {
    pub config: LambdaConfig,
    pub functions: BTreeMap<String, Arc<Function>>,
    pub concurrency: Arc<Concurrency>,
    pub meter: Meter,
    /// How environments get their CPU share.
    pub cpu: CpuController,
    /// Lambda Managed Instances: each capacity provider's fleet, by name.
    pub fleets: BTreeMap<String, Arc<Fleet>>,
    shutdown: watch::Sender<bool>,
}

impl Inner {
    pub fn new(
        config: LambdaConfig,
        functions: BTreeMap<String, Arc<Function>>,
        concurrency: Arc<Concurrency>,
        meter: Meter,
        cpu: CpuController,
        fleets: BTreeMap<String, Arc<Fleet>>,
    ) -> Self {
        Self {
            config,
            functions,
            concurrency,
            meter,
            cpu,
            fleets,
            shutdown: watch::Sender::new(false),
        }
    }

    /// The fleet a managed function's environments run on.
    pub fn fleet(&self, function: &Function) -> Option<&Arc<Fleet>> {
        let provider = &function.config.managed.as_ref()?.provider;
        self.fleets.get(provider)
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
