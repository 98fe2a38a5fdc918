//! Fault injection: execution environments killed (SIGKILL) while they hold
//! an invocation, as when a Lambda sandbox dies. Per function, either a kill
//! rate (each invocation's environment is killed with that probability, at a
//! random moment within the function's usual duration) or a one-shot kill of
//! N environments busy right now.
//!
//! Nothing else is special-cased: the killed process ends the invocation as
//! any crash does, so the caller gets what AWS gives for a runtime that
//! exits mid-invocation: `Runtime.ExitError` ("Runtime exited with error:
//! signal: killed") with `X-Amz-Function-Error: Unhandled` and status 200 on
//! Invoke (https://repost.aws/knowledge-center/lambda-runtime-error); from
//! API Gateway, 500 `Internal Server Error` on an HTTP API
//! (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-troubleshooting-lambda.html)
//! and 502 on a REST API
//! (https://docs.aws.amazon.com/lambda/latest/dg/services-apigateway-errors.html);
//! and for an SQS event source the whole batch returns to the queue after
//! its visibility timeout, then to the DLQ after `maxReceiveCount`
//! (https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-errorhandling.html).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use rand::seq::SliceRandom;
use serde::Serialize;
use tokio::sync::oneshot;
use tokio::time::Instant;

/// One invocation's exposure to faults, given to the environment that runs it.
pub struct Kill {
    /// Kill the process at this moment (drawn from the kill rate).
    pub at: Option<Instant>,
    /// Kill the process when this fires (a one-shot kill chose it).
    pub now: oneshot::Receiver<()>,
    /// Set by the environment when it killed the process.
    pub fired: bool,
}

/// What `GET /_localcloud/faults` shows per function.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FaultStats {
    pub kill_rate: f64,
    /// Environments killed while holding an invocation, since start.
    pub killed: u64,
    /// Invocations running now.
    pub busy: usize,
}

#[derive(Default)]
pub struct Faults {
    kill_rate: Mutex<f64>,
    busy: Arc<Mutex<HashMap<u64, oneshot::Sender<()>>>>,
    next_id: AtomicU64,
    killed: AtomicU64,
    /// Moving average of successful invocations' durations, in microseconds:
    /// rate kills land within it, so they hit invocations in progress.
    typical_us: AtomicU64,
}

/// Keeps an invocation in the busy set until dropped.
pub struct Busy {
    id: u64,
    busy: Arc<Mutex<HashMap<u64, oneshot::Sender<()>>>>,
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.busy.lock().remove(&self.id);
    }
}

impl Faults {
    /// Registers an invocation about to be dispatched, and draws its fate.
    pub fn arm(&self, dispatched: Instant) -> (Busy, Kill) {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (sender, receiver) = oneshot::channel();
        self.busy.lock().insert(id, sender);
        let rate = *self.kill_rate.lock();
        let at = (rate > 0.0 && rand::random::<f64>() < rate).then(|| {
            let typical = self.typical_us.load(Ordering::Relaxed);
            dispatched + Duration::from_micros((rand::random::<f64>() * typical as f64) as u64)
        });
        let busy = Busy {
            id,
            busy: self.busy.clone(),
        };
        let kill = Kill {
            at,
            now: receiver,
            fired: false,
        };
        (busy, kill)
    }

    /// After an invocation: counts a kill, or learns its duration.
    pub fn settle(&self, kill: &Kill, duration: Duration) {
        if kill.fired {
            self.killed.fetch_add(1, Ordering::Relaxed);
            tracing::info!("fault injection: killed an execution environment mid-invocation");
        } else {
            let us = duration.as_micros().min(u64::MAX as u128) as u64;
            let old = self.typical_us.load(Ordering::Relaxed);
            let new = if old == 0 { us } else { (old * 7 + us) / 8 };
            self.typical_us.store(new, Ordering::Relaxed);
        }
    }

    /// Sets the share (0 to 1) of invocations whose environment is killed.
    pub fn set_kill_rate(&self, rate: f64) -> Result<(), String> {
        if !(0.0..=1.0).contains(&rate) {
            return Err(format!("a kill rate is between 0 and 1, got {rate}"));
        }
        *self.kill_rate.lock() = rate;
        Ok(())
    }

    /// Kills up to `n` environments holding an invocation now, chosen at
    /// random; returns how many were told to die.
    pub fn kill_busy(&self, n: usize) -> usize {
        let mut busy = self.busy.lock();
        let mut ids: Vec<u64> = busy.keys().copied().collect();
        ids.shuffle(&mut rand::rng());
        ids.into_iter()
            .take(n)
            .filter_map(|id| busy.remove(&id))
            .filter_map(|sender| sender.send(()).ok())
            .count()
    }

    pub fn stats(&self) -> FaultStats {
        FaultStats {
            kill_rate: *self.kill_rate.lock(),
            killed: self.killed.load(Ordering::Relaxed),
            busy: self.busy.lock().len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_one_shot_kill_reaches_only_invocations_in_progress() {
        // GIVEN three invocations in progress, one of which then ends
        let faults = Faults::default();
        let now = Instant::now();
        let (_a, mut kill_a) = faults.arm(now);
        let (_b, mut kill_b) = faults.arm(now);
        let (ended, _) = faults.arm(now);
        drop(ended);
        // WHEN five kills are asked for
        let killed = faults.kill_busy(5);
        // THEN the two still running are told, and nobody else
        assert_eq!(killed, 2);
        assert_eq!(kill_a.now.try_recv(), Ok(()));
        assert_eq!(kill_b.now.try_recv(), Ok(()));
        assert_eq!(faults.kill_busy(1), 0);
    }

    #[test]
    fn rate_one_kills_every_invocation_and_rate_zero_none() {
        let faults = Faults::default();
        faults.set_kill_rate(1.0).unwrap();
        assert!((0..20).all(|_| faults.arm(Instant::now()).1.at.is_some()));
        faults.set_kill_rate(0.0).unwrap();
        assert!((0..20).all(|_| faults.arm(Instant::now()).1.at.is_none()));
        assert!(faults.set_kill_rate(1.5).is_err());
    }

    #[test]
    fn kills_are_counted_and_durations_learnt_from_the_others() {
        let faults = Faults::default();
        let (_busy, mut kill) = faults.arm(Instant::now());
        faults.settle(&kill, Duration::from_millis(40));
        kill.fired = true;
        faults.settle(&kill, Duration::from_millis(1));
        assert_eq!(faults.stats().killed, 1);
        assert_eq!(faults.typical_us.load(Ordering::Relaxed), 40_000);
    }
}
