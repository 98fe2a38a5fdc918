//! SQS event source mappings for the local cloud: pollers that make the same
//! billed `ReceiveMessage` / `DeleteMessageBatch` calls a real mapping makes
//! (through [`localcloud_core::QueueConsumer`]), batch messages into the SQS
//! event, invoke the function (through [`localcloud_core::Invoker`]) and
//! scale their concurrency as AWS documents it.

pub mod config;
pub mod event;
pub mod metrics;
pub mod outcome;
pub mod poller;
pub mod scaling;

use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use tokio::sync::watch;
use tokio::task::JoinSet;

pub use config::{ConfigError, EsmConfig};
use localcloud_core::{Invoker, QueueConsumer};
pub use metrics::EsmMetrics;
use poller::Shared;
use scaling::Scaler;

/// How often the concurrency target is re-evaluated.
pub const SCALING_INTERVAL: Duration = Duration::from_secs(1);

/// A running mapping.
pub struct EsmHandle {
    shared: Arc<Shared>,
    stop: watch::Sender<bool>,
    supervisor: tokio::task::JoinHandle<()>,
}

impl EsmHandle {
    pub fn metrics(&self) -> EsmMetrics {
        self.shared.metrics.lock().clone()
    }

    pub fn reset_metrics(&self) {
        metrics::reset(&mut self.shared.metrics.lock());
    }

    /// Stops polling; batches being processed are settled first.
    pub async fn shutdown(self) {
        let _ = self.stop.send(true);
        let _ = self.supervisor.await;
    }
}

/// Starts polling `config.queue_arn` for `config.function` (nothing polls
/// while `enabled` is false). Must be called inside a Tokio runtime.
pub fn start(
    config: EsmConfig,
    queue: Arc<dyn QueueConsumer>,
    invoker: Arc<dyn Invoker>,
) -> Result<EsmHandle, ConfigError> {
    config.validate()?;
    let queue_name = config.queue_arn.rsplit(':').next().unwrap_or_default();
    let shared = Arc::new(Shared {
        caller: format!("esm:{queue_name}"),
        metrics: Mutex::new(EsmMetrics::new(&config.function, &config.queue_arn)),
        in_flight: AtomicU64::new(0),
        config,
        queue,
        invoker,
    });
    let (stop, stopped) = watch::channel(false);
    let supervisor = tokio::spawn(supervise(shared.clone(), stopped));
    Ok(EsmHandle {
        shared,
        stop,
        supervisor,
    })
}

/// Messages received at the start of a batching window longer than the
/// visibility timeout come back before the batch is even invoked.
async fn warn_if_window_outlasts_visibility(shared: &Shared) {
    let config = &shared.config;
    if let Ok(visibility) = shared.queue.visibility_timeout(&config.queue_arn).await {
        if config.maximum_batching_window >= visibility {
            tracing::warn!(
                queue = %config.queue_arn,
                ?visibility,
                window = ?config.maximum_batching_window,
                "the batching window outlasts the visibility timeout: messages will be delivered twice"
            );
        }
    }
}

/// Owns the pollers: grows the pool to the scaler's target every interval
/// and waits for every poller on shutdown.
async fn supervise(shared: Arc<Shared>, mut stop: watch::Receiver<bool>) {
    if !shared.config.enabled {
        let _ = stop.wait_for(|s| *s).await;
        return;
    }
    warn_if_window_outlasts_visibility(&shared).await;
    let mut scaler = Scaler::new(shared.config.maximum_concurrency);
    let (target_tx, target_rx) = watch::channel(scaler.target());
    let mut pollers = JoinSet::new();
    let mut spawned = 0;
    let mut last = shared.metrics.lock().clone();
    let first = tokio::time::Instant::now() + SCALING_INTERVAL;
    let mut ticks = tokio::time::interval_at(first, SCALING_INTERVAL);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let target = scaler.target();
        shared.metrics.lock().pollers = u64::from(target);
        let _ = target_tx.send(target);
        while spawned < target {
            let task = poller::run(spawned, shared.clone(), target_rx.clone(), stop.clone());
            pollers.spawn(task);
            spawned += 1;
        }
        tokio::select! {
            _ = ticks.tick() => {}
            _ = stop.wait_for(|s| *s) => break,
        }
        let now = shared.metrics.lock().clone();
        scaler.tick(metrics::activity_since(&now, &last), SCALING_INTERVAL);
        last = now;
    }
    while pollers.join_next().await.is_some() {}
}
