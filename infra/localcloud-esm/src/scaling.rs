//! How many batches a mapping processes at once, as AWS documents it for
//! standard queues: start with 5 concurrent batches; while messages remain,
//! add up to 300 per minute; at most 1,000 (or `MaximumConcurrency`); when
//! traffic is low, go back to 5, and without `MaximumConcurrency` down to 2.
//! "Messages remain" is read as: batches ran, and no receive came back short
//! (fewer messages than asked) or had to wait for messages.
//! Throttled invocations shrink the pool (our choice of "backs off": one
//! poller fewer per throttle, never below 1).

use std::time::Duration;

pub const INITIAL_CONCURRENCY: u32 = 5;
pub const IDLE_CONCURRENCY: u32 = 2;
pub const MAX_CONCURRENCY: u32 = 1000;
pub const SCALE_UP_PER_MINUTE: u32 = 300;

/// What the pollers saw during one scaling interval.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Activity {
    pub batches: u64,
    pub empty_receives: u64,
    pub short_receives: u64,
    pub waited_receives: u64,
    pub throttles: u64,
}

impl Activity {
    fn backlog(&self) -> bool {
        self.batches > 0
            && self.empty_receives == 0
            && self.short_receives == 0
            && self.waited_receives == 0
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scaler {
    target: u32,
    cap: u32,
    active_floor: u32,
    idle_floor: u32,
}

impl Scaler {
    pub fn new(maximum_concurrency: Option<u32>) -> Self {
        let cap = maximum_concurrency
            .unwrap_or(MAX_CONCURRENCY)
            .min(MAX_CONCURRENCY);
        let active_floor = INITIAL_CONCURRENCY.min(cap);
        // The 2-poller optimisation is not available with MaximumConcurrency.
        let idle_floor = match maximum_concurrency {
            Some(_) => active_floor,
            None => IDLE_CONCURRENCY,
        };
        Self {
            target: active_floor,
            cap,
            active_floor,
            idle_floor,
        }
    }

    pub fn target(&self) -> u32 {
        self.target
    }

    /// Adjusts the target after `interval` with `activity`; returns it.
    pub fn tick(&mut self, activity: Activity, interval: Duration) -> u32 {
        let step =
            ((u128::from(SCALE_UP_PER_MINUTE) * interval.as_millis()) / 60_000).max(1) as u32;
        let busy = activity.batches > 0;
        self.target = if activity.throttles > 0 {
            let shrink = u32::try_from(activity.throttles).unwrap_or(u32::MAX);
            self.target.saturating_sub(shrink).max(1)
        } else if activity.backlog() {
            (self.target.max(self.active_floor) + step).min(self.cap)
        } else if busy {
            self.target.max(self.active_floor)
        } else if activity.empty_receives > 0 {
            if self.target > self.active_floor {
                self.target.saturating_sub(step).max(self.active_floor)
            } else {
                self.idle_floor
            }
        } else {
            self.target
        };
        self.target
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: Duration = Duration::from_secs(1);

    fn backlog() -> Activity {
        Activity {
            batches: 5,
            ..Activity::default()
        }
    }

    fn idle() -> Activity {
        Activity {
            empty_receives: 5,
            ..Activity::default()
        }
    }

    #[test]
    fn starts_with_five_concurrent_batches() {
        assert_eq!(Scaler::new(None).target(), 5);
        assert_eq!(Scaler::new(Some(2)).target(), 2);
    }

    #[test]
    fn backlog_adds_300_pollers_per_minute() {
        let mut scaler = Scaler::new(None);
        for _ in 0..60 {
            scaler.tick(backlog(), SECOND);
        }
        assert_eq!(scaler.target(), 5 + 300);
    }

    #[test]
    fn scaling_stops_at_maximum_concurrency_and_at_1000() {
        let mut capped = Scaler::new(Some(12));
        let mut uncapped = Scaler::new(None);
        for _ in 0..600 {
            capped.tick(backlog(), SECOND);
            uncapped.tick(backlog(), SECOND);
        }
        assert_eq!(capped.target(), 12);
        assert_eq!(uncapped.target(), 1000);
    }

    #[test]
    fn idle_queue_scales_back_to_five_then_two() {
        let mut scaler = Scaler::new(None);
        for _ in 0..10 {
            scaler.tick(backlog(), SECOND);
        }
        assert_eq!(scaler.target(), 55);
        for _ in 0..10 {
            scaler.tick(idle(), SECOND);
        }
        assert_eq!(scaler.target(), 5);
        scaler.tick(idle(), SECOND);
        assert_eq!(scaler.target(), 2);
        scaler.tick(backlog(), SECOND);
        assert_eq!(scaler.target(), 10, "traffic brings back five, then grows");
    }

    #[test]
    fn idle_with_maximum_concurrency_keeps_five() {
        let mut scaler = Scaler::new(Some(50));
        for _ in 0..5 {
            scaler.tick(idle(), SECOND);
        }
        assert_eq!(scaler.target(), 5);
    }

    #[test]
    fn batches_with_short_or_waiting_receives_do_not_scale_up() {
        let mut scaler = Scaler::new(None);
        let trickle = Activity {
            batches: 5,
            short_receives: 1,
            ..Activity::default()
        };
        let waited = Activity {
            batches: 5,
            waited_receives: 1,
            ..Activity::default()
        };
        assert_eq!(scaler.tick(trickle, SECOND), 5);
        assert_eq!(scaler.tick(waited, SECOND), 5);
    }

    #[test]
    fn throttles_shrink_the_pool_but_not_to_zero() {
        let mut scaler = Scaler::new(None);
        let throttled = Activity {
            batches: 5,
            throttles: 3,
            ..Activity::default()
        };
        assert_eq!(scaler.tick(throttled, SECOND), 2);
        assert_eq!(scaler.tick(throttled, SECOND), 1);
    }
}
