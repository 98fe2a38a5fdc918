//! The queues of every account and region, found by name, URL or ARN.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};
use tokio::sync::Notify;

use crate::error;
use crate::metrics::QueueCounters;
use crate::queue::QueueState;
use crate::settings::QueueSettings;
use localcloud_core::AwsError;

/// One queue: identity, state under a lock, and the signal long polls wait on.
pub struct Queue {
    /// Distinguishes a queue from an earlier one of the same name, so old
    /// receipt handles do not reach the new queue.
    pub id: u64,
    pub name: String,
    pub region: String,
    pub account: String,
    pub arn: String,
    pub state: Mutex<QueueState>,
    pub tags: Mutex<BTreeMap<String, String>>,
    pub counters: Arc<QueueCounters>,
    /// Woken on every send, visibility reset and deletion.
    pub notify: Notify,
    pub deleted: AtomicBool,
}

impl Queue {
    pub fn is_fifo(&self) -> bool {
        self.name.ends_with(".fifo")
    }
}

pub fn queue_arn(region: &str, account: &str, name: &str) -> String {
    format!("arn:aws:sqs:{region}:{account}:{name}")
}

type Key = (String, String, String);

#[derive(Default)]
pub struct Registry {
    queues: RwLock<HashMap<Key, Arc<Queue>>>,
    counters: Mutex<BTreeMap<String, Arc<QueueCounters>>>,
    next_id: AtomicU64,
}

impl Registry {
    pub fn get(&self, region: &str, account: &str, name: &str) -> Result<Arc<Queue>, AwsError> {
        let key = (region.to_string(), account.to_string(), name.to_string());
        self.queues
            .read()
            .get(&key)
            .cloned()
            .ok_or_else(error::queue_does_not_exist)
    }

    /// `arn:aws:sqs:{region}:{account}:{name}`.
    pub fn by_arn(&self, arn: &str) -> Result<Arc<Queue>, AwsError> {
        let parts: Vec<&str> = arn.split(':').collect();
        match parts.as_slice() {
            ["arn", _, "sqs", region, account, name] => self.get(region, account, name),
            _ => Err(error::queue_does_not_exist()),
        }
    }

    /// Creates the queue, or returns the existing one when every given
    /// attribute already has the given value.
    pub fn create(
        &self,
        region: &str,
        account: &str,
        name: &str,
        settings: QueueSettings,
        attributes: &BTreeMap<String, String>,
        tags: BTreeMap<String, String>,
    ) -> Result<Arc<Queue>, AwsError> {
        let key = (region.to_string(), account.to_string(), name.to_string());
        let mut queues = self.queues.write();
        if let Some(existing) = queues.get(&key) {
            return if existing.state.lock().settings.matches(attributes)? {
                Ok(existing.clone())
            } else {
                Err(error::queue_name_exists(name))
            };
        }
        let arn = queue_arn(region, account, name);
        let counters = self.counters.lock().entry(arn.clone()).or_default().clone();
        let queue = Arc::new(Queue {
            id: self.next_id.fetch_add(1, Ordering::Relaxed) + 1,
            name: name.to_string(),
            region: region.to_string(),
            account: account.to_string(),
            arn,
            state: Mutex::new(QueueState::new(settings)),
            tags: Mutex::new(tags),
            counters,
            notify: Notify::new(),
            deleted: AtomicBool::new(false),
        });
        queues.insert(key, queue.clone());
        Ok(queue)
    }

    pub fn remove(&self, queue: &Queue) {
        let key = (
            queue.region.clone(),
            queue.account.clone(),
            queue.name.clone(),
        );
        let mut queues = self.queues.write();
        if queues.get(&key).is_some_and(|q| q.id == queue.id) {
            queues.remove(&key);
        }
        queue.deleted.store(true, Ordering::SeqCst);
        queue.notify.notify_waiters();
    }

    /// Queues of one account and region whose name starts with `prefix`, by name.
    pub fn list(&self, region: &str, account: &str, prefix: &str) -> Vec<Arc<Queue>> {
        let mut found: Vec<Arc<Queue>> = self
            .queues
            .read()
            .iter()
            .filter(|((r, a, n), _)| r == region && a == account && n.starts_with(prefix))
            .map(|(_, q)| q.clone())
            .collect();
        found.sort_by(|a, b| a.name.cmp(&b.name));
        found
    }

    pub fn all(&self) -> Vec<Arc<Queue>> {
        self.queues.read().values().cloned().collect()
    }

    pub fn counters(&self) -> Vec<(String, Arc<QueueCounters>)> {
        self.counters
            .lock()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }
}
