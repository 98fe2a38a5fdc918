//! The scaler of Lambda Managed Instances, as a decision: from what a
//! function's environments did since the last look, how many it should
//! have. "Lambda Managed Instances does not scale when invocations arrive
//! and does not support cold starts. Instead, it scales asynchronously
//! using resource consumption signals ... CPU resource utilization and
//! multi-concurrency saturation" ("Scaling Lambda Managed Instances",
//! https://docs.aws.amazon.com/lambda/latest/dg/lambda-managed-instances-scaling.html).
//!
//! - Saturation: when the invocations in flight and those throttled since
//!   the last look fill every slot, enough environments for all of them,
//!   and one more at least.
//! - CPU: target tracking, as Application Auto Scaling tracks a target
//!   (capacity in proportion to the metric over the target): when the
//!   environments' mean CPU use is above the target, `ceil(n * use / target)`.
//! - Between `FunctionScalingConfig`'s `MinExecutionEnvironments` and
//!   `MaxExecutionEnvironments` (default 3 and none).
//!
//! Scale-in is gradual ("Lambda Managed Instances scale down gradually to
//! maintain availability", LMI troubleshooting,
//! https://docs.aws.amazon.com/lambda/latest/dg/lambda-managed-instances-troubleshooting.html):
//! one environment per look, one that has had no invocation for
//! [`SCALE_IN_AFTER`], while the function has more than it wants.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::sync::{watch, Notify};

/// What a managed function's invocations tell its scaler.
pub(crate) struct ScalerInbox {
    /// Invocations throttled since the scaler last looked.
    pub(crate) throttled: AtomicU64,
    pub(crate) wake: Notify,
    /// Whether its minimum environments have been started.
    pub(crate) active: watch::Sender<bool>,
}

impl ScalerInbox {
    pub fn new() -> Self {
        Self {
            throttled: AtomicU64::new(0),
            wake: Notify::new(),
            active: watch::Sender::new(false),
        }
    }

    /// An invocation found no free slot: the scaler looks at once.
    pub(crate) fn throttled(&self) {
        self.throttled.fetch_add(1, Ordering::Relaxed);
        self.wake.notify_one();
    }

    pub(crate) fn take_throttled(&self) -> u64 {
        self.throttled.swap(0, Ordering::Relaxed)
    }

    pub(crate) fn activate(&self) {
        self.active
            .send_if_modified(|active| !std::mem::replace(active, true));
    }
}

/// How often the scaler looks at a function's environments when nothing
/// wakes it (a throttle does). AWS's scaler acts "asynchronously", at a
/// pace it does not give: two seconds keeps a local run's scaling visible
/// within seconds without reading `/proc` often.
pub const SCALE_PERIOD: Duration = Duration::from_secs(2);

/// How long an environment has had no invocation before the scaler may
/// retire it. AWS gives no figure ("scale down gradually", "conservatively");
/// five minutes is the window over which Lambda lets traffic double without
/// throttles, so an environment idle for less may still be the headroom
/// the next doubling needs.
pub const SCALE_IN_AFTER: Duration = Duration::from_secs(300);

/// `MinExecutionEnvironments` when the function does not set it: "The
/// default minimum is 3 execution environments across Availability Zones,
/// with no default maximum".
pub const DEFAULT_MIN_ENVIRONMENTS: u32 = 3;

/// `FunctionScalingConfig`: the environments a function keeps at least and
/// may have at most.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScalingBounds {
    pub min: u32,
    /// `None`: no maximum.
    pub max: Option<u32>,
}

impl Default for ScalingBounds {
    fn default() -> Self {
        Self {
            min: DEFAULT_MIN_ENVIRONMENTS,
            max: None,
        }
    }
}

impl ScalingBounds {
    fn clamp(&self, wanted: u32) -> u32 {
        let at_least = wanted.max(self.min);
        self.max.map_or(at_least, |max| at_least.min(max))
    }
}

/// What a function's environments did since the scaler's last look.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Signals {
    pub environments: u32,
    /// Invocations each environment takes at once.
    pub slots_per_environment: u32,
    pub in_flight: u32,
    /// Invocations refused for want of a free slot since the last look.
    pub throttled: u64,
    /// The environments' mean use of their vCPUs (0-1), once measured.
    pub cpu_busy: Option<f64>,
    /// The CPU utilisation (0-1) the scaler keeps them at.
    pub cpu_target: f64,
}

/// The environments the function should have.
pub fn wanted(signals: &Signals, bounds: &ScalingBounds) -> u32 {
    let n = signals.environments;
    let by_saturation = saturation_wants(signals);
    let by_cpu = match signals.cpu_busy {
        Some(busy) if busy > signals.cpu_target && signals.cpu_target > 0.0 => {
            (f64::from(n) * busy / signals.cpu_target).ceil() as u32
        }
        _ => 0,
    };
    bounds.clamp(by_saturation.max(by_cpu))
}

/// Environments for every invocation seen, and one more than now when
/// they fill every slot; 0 when the slots are not all full.
fn saturation_wants(signals: &Signals) -> u32 {
    let slots = u64::from(signals.slots_per_environment.max(1));
    let demand = u64::from(signals.in_flight) + signals.throttled;
    let capacity = u64::from(signals.environments) * slots;
    if demand == 0 || demand < capacity {
        return 0;
    }
    let for_all = u32::try_from(demand.div_ceil(slots)).unwrap_or(u32::MAX);
    for_all.max(signals.environments.saturating_add(1))
}

/// What the scaler does this time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Start this many environments.
    Add(u32),
    /// Retire one idle environment.
    RetireOne,
    Hold,
}

/// The step from `signals`: add up to what is wanted, or retire one idle
/// environment (`idle_environments`: those idle for [`SCALE_IN_AFTER`])
/// while there are more than wanted.
pub fn step(signals: &Signals, bounds: &ScalingBounds, idle_environments: u32) -> Step {
    let wanted = wanted(signals, bounds);
    let n = signals.environments;
    if wanted > n {
        Step::Add(wanted - n)
    } else if wanted < n && idle_environments > 0 {
        Step::RetireOne
    } else {
        Step::Hold
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signals(environments: u32, in_flight: u32, throttled: u64) -> Signals {
        Signals {
            environments,
            slots_per_environment: 4,
            in_flight,
            throttled,
            cpu_busy: None,
            cpu_target: 0.5,
        }
    }

    const DEFAULT: ScalingBounds = ScalingBounds { min: 3, max: None };

    #[test]
    fn free_slots_and_calm_cpu_keep_the_environments() {
        assert_eq!(step(&signals(3, 11, 0), &DEFAULT, 0), Step::Hold);
        assert_eq!(wanted(&signals(3, 0, 0), &DEFAULT), 3);
    }

    #[test]
    fn full_slots_want_one_more_environment_and_throttles_want_room_for_them() {
        // 12 slots all busy: one more.
        assert_eq!(step(&signals(3, 12, 0), &DEFAULT, 0), Step::Add(1));
        // 12 busy and 9 refused: 21 invocations want six environments.
        assert_eq!(step(&signals(3, 12, 9), &DEFAULT, 0), Step::Add(3));
        // Throttles alone count too (the burst is over when the scaler looks).
        assert_eq!(wanted(&signals(3, 0, 30), &DEFAULT), 8);
    }

    #[test]
    fn cpu_above_the_target_is_tracked_in_proportion() {
        let busy = |use_: f64| Signals {
            cpu_busy: Some(use_),
            ..signals(4, 1, 0)
        };
        // 4 environments at 80 % for a 50 % target: ceil(6.4) = 7.
        assert_eq!(step(&busy(0.8), &DEFAULT, 0), Step::Add(3));
        assert_eq!(step(&busy(0.5), &DEFAULT, 0), Step::Hold, "at the target");
        assert_eq!(wanted(&busy(0.51), &DEFAULT), 5);
    }

    #[test]
    fn the_function_scaling_config_bounds_what_is_wanted() {
        let bounds = ScalingBounds {
            min: 5,
            max: Some(6),
        };
        assert_eq!(step(&signals(0, 0, 0), &bounds, 0), Step::Add(5));
        assert_eq!(wanted(&signals(5, 20, 100), &bounds), 6);
        // Min and max 0: the function is deactivated.
        let off = ScalingBounds {
            min: 0,
            max: Some(0),
        };
        assert_eq!(wanted(&signals(0, 0, 50), &off), 0);
    }

    #[test]
    fn scale_in_retires_one_idle_environment_at_a_time_down_to_the_minimum() {
        assert_eq!(step(&signals(6, 0, 0), &DEFAULT, 4), Step::RetireOne);
        assert_eq!(
            step(&signals(6, 0, 0), &DEFAULT, 0),
            Step::Hold,
            "none idle"
        );
        assert_eq!(step(&signals(3, 0, 0), &DEFAULT, 3), Step::Hold, "minimum");
        // Over a lowered maximum, idle ones go even while others are busy.
        let capped = ScalingBounds {
            min: 1,
            max: Some(2),
        };
        assert_eq!(step(&signals(4, 8, 0), &capped, 1), Step::RetireOne);
    }
}
