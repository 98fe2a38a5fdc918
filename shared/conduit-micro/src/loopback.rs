//! An in-process transport to an owner, for tests and local experiments: the
//! request and the answer go through JSON exactly as on the wire, every call
//! is counted by operation, and the owner can be made slow or broken.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use serde_json::Value;
use transport::{Transport, TransportError};

use crate::owner::Owned;

/// Calls made through loopbacks sharing one log, by operation, in order.
#[derive(Debug, Default)]
pub struct CallLog {
    calls: Mutex<Vec<String>>,
    in_flight: Mutex<(usize, usize)>,
}

impl CallLog {
    /// Operation names of every call so far, in call order.
    pub fn calls(&self) -> Vec<String> {
        self.calls.lock().clone()
    }

    /// Calls per operation.
    pub fn counts(&self) -> BTreeMap<String, usize> {
        let mut counts = BTreeMap::new();
        for op in self.calls.lock().iter() {
            *counts.entry(op.clone()).or_default() += 1;
        }
        counts
    }

    /// The most calls that were in flight at the same time.
    pub fn max_in_flight(&self) -> usize {
        self.in_flight.lock().1
    }

    pub fn clear(&self) {
        self.calls.lock().clear();
        *self.in_flight.lock() = (0, 0);
    }

    fn enter(&self, op: String) {
        self.calls.lock().push(op);
        let mut in_flight = self.in_flight.lock();
        in_flight.0 += 1;
        in_flight.1 = in_flight.1.max(in_flight.0);
    }

    fn leave(&self) {
        self.in_flight.lock().0 -= 1;
    }
}

/// How the owner behind a loopback behaves.
#[derive(Debug, Clone, Default)]
pub enum Behaviour {
    #[default]
    Healthy,
    /// Answers after this delay.
    Slow(Duration),
    /// Fails every call as a callee failure.
    Failing,
    /// Never answers: the call fails with a timeout after this wait, as the
    /// real transports do when their wait limit passes.
    Unanswered(Duration),
}

pub struct Loopback {
    owner: Owned,
    log: Arc<CallLog>,
    behaviour: Mutex<Behaviour>,
}

impl Loopback {
    pub fn new(owner: Owned, log: Arc<CallLog>) -> Self {
        Self {
            owner,
            log,
            behaviour: Mutex::new(Behaviour::Healthy),
        }
    }

    pub fn set_behaviour(&self, behaviour: Behaviour) {
        *self.behaviour.lock() = behaviour;
    }
}

impl Transport for Loopback {
    async fn call(&self, request: Value) -> Result<Value, TransportError> {
        let op = request["op"].as_str().unwrap_or("?").to_owned();
        self.log.enter(format!("{}.{op}", self.owner.service()));
        let behaviour = self.behaviour.lock().clone();
        let result = async {
            match behaviour {
                Behaviour::Healthy => {}
                Behaviour::Slow(delay) => tokio::time::sleep(delay).await,
                Behaviour::Failing => {
                    return Err(TransportError::CalleeFailed {
                        error_type: "OwnerFailure".into(),
                        message: "the owner is down".into(),
                    })
                }
                Behaviour::Unanswered(wait) => {
                    tokio::time::sleep(wait).await;
                    return Err(TransportError::Timeout {
                        waited_ms: wait.as_millis() as u64,
                    });
                }
            }
            // Through text, as on the wire.
            let request: Value = serde_json::from_str(&request.to_string())
                .map_err(|e| TransportError::BadAnswer(e.to_string()))?;
            match self.owner.answer_json(request).await {
                Ok(answer) => serde_json::from_str(&answer.to_string())
                    .map_err(|e| TransportError::BadAnswer(e.to_string())),
                Err(e) => Err(TransportError::CalleeFailed {
                    error_type: e.error_type().into(),
                    message: e.to_string(),
                }),
            }
        }
        .await;
        self.log.leave();
        result
    }
}
