//! The fleet behind a capacity provider of Lambda Managed Instances: how many
//! execution environments a function may have now, and how many EC2
//! instances its environments fill (what the user pays for, busy or idle).
//!
//! The rules, from "Scaling Lambda Managed Instances"
//! (https://docs.aws.amazon.com/lambda/latest/dg/lambda-managed-instances-scaling.html):
//! - "When you publish a function version with a capacity provider, Lambda
//!   launches Managed Instances in your account. It launches three by default
//!   for AZ resiliency and starts three execution environments before marking
//!   your function version ACTIVE": [`MIN_INSTANCES`], [`MIN_ENVIRONMENTS`];
//! - it "scales asynchronously based on CPU resource utilization and
//!   multi-concurrency saturation", and "if your traffic more than doubles
//!   within 5 minutes, you may see throttles as Lambda scales up instances and
//!   execution environments to meet demand": here a function's environments
//!   at most double over any [`DOUBLING_WINDOW`] ([`ScaleLimit`]), counting
//!   at least its minimum (`MinExecutionEnvironments`, three by default);
//! - the capacity provider's `MaxVCpuCount` caps the vCPUs of its instances.
//!
//! Environments are placed on instances first fit, largest first (AWS does
//! not document its placement), in what each instance leaves beside the
//! 1 vCPU and 1 GiB it keeps for its operating system: the cost model's
//! rule, `InstanceShape::free_for_environments`. A provider that names no
//! type runs on the type the bill prices
//! (`localcloud_metrics::instances::default_instance_type`, an `.xlarge`).

use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

use localcloud_metrics::instances::{self, InstanceShape};
use localcloud_metrics::CapacityProviderMetrics;
use parking_lot::Mutex;

use crate::config::{LambdaConfig, ManagedInstances};

/// Instances a capacity provider runs at least.
pub const MIN_INSTANCES: u32 = 3;
/// Environments a function on a capacity provider keeps at least, unless
/// its `FunctionScalingConfig` says otherwise.
pub const MIN_ENVIRONMENTS: u32 = crate::scaler::DEFAULT_MIN_ENVIRONMENTS;
/// The time over which a function's environments may at most double.
pub const DOUBLING_WINDOW: Duration = Duration::from_secs(300);

/// What one execution environment takes of an instance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Footprint {
    pub vcpus: f64,
    pub memory_gib: f64,
}

impl Footprint {
    /// What one environment of a managed function takes of an instance.
    pub(crate) fn of(managed: &ManagedInstances, memory_mb: u32) -> Self {
        Self {
            vcpus: managed.vcpus(memory_mb),
            memory_gib: f64::from(memory_mb) / 1024.0,
        }
    }
}

/// Why an environment cannot be added.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScaleRefusal {
    /// The function's environments would more than double within the window.
    Doubling,
    /// The provider's instances would pass `MaxVCpuCount`.
    MaxVCpuCount,
    /// The environment is larger than one instance.
    TooLarge,
}

/// Instances that hold `environments` (first fit, largest first) beside
/// each one's OS reservation, at least [`MIN_INSTANCES`]; `None` when one
/// is larger than what an instance leaves.
pub fn instances_for(environments: &[Footprint], instance: InstanceShape) -> Option<u32> {
    let (vcpus, memory_gib) = instance.free_for_environments();
    let capacity = Footprint { vcpus, memory_gib };
    let fits = |free: &Footprint, env: &Footprint| {
        // A little slack: 4,096 MB at 2 GiB per vCPU is 2.0 vCPUs exactly,
        // but divisions of MB by 1,024 need not land on it.
        free.vcpus + 1e-9 >= env.vcpus && free.memory_gib + 1e-9 >= env.memory_gib
    };
    let mut sorted = environments.to_vec();
    sorted.sort_by(|a, b| b.vcpus.total_cmp(&a.vcpus));
    let mut free: Vec<Footprint> = Vec::new();
    for env in &sorted {
        if !fits(&capacity, env) {
            return None;
        }
        match free.iter_mut().find(|slot| fits(slot, env)) {
            Some(slot) => {
                slot.vcpus -= env.vcpus;
                slot.memory_gib -= env.memory_gib;
            }
            None => free.push(Footprint {
                vcpus: capacity.vcpus - env.vcpus,
                memory_gib: capacity.memory_gib - env.memory_gib,
            }),
        }
    }
    Some((free.len() as u32).max(MIN_INSTANCES))
}

/// A function's environment counts over the last [`DOUBLING_WINDOW`].
#[derive(Debug, Clone)]
pub struct ScaleLimit {
    /// (since when, environments from then on), oldest first; the first
    /// entry was in force at the window's start.
    counts: VecDeque<(Instant, u32)>,
}

impl ScaleLimit {
    pub fn new(now: Instant, environments: u32) -> Self {
        Self {
            counts: VecDeque::from([(now, environments)]),
        }
    }

    /// The function has `environments` from `now` on.
    pub fn record(&mut self, now: Instant, environments: u32) {
        self.counts.push_back((now, environments));
        self.forget_before(now);
    }

    /// The most environments the function may have now: twice the fewest
    /// it had at any moment of the last window, counting at least `floor`
    /// (its minimum, at least one: so a new function may double its
    /// minimum at once).
    pub fn allowed(&mut self, now: Instant, floor: u32) -> u32 {
        self.forget_before(now);
        let fewest = self.counts.iter().map(|&(_, n)| n).min().unwrap_or(0);
        fewest.max(floor).max(1).saturating_mul(2)
    }

    /// Drops the counts that ended before the window began.
    fn forget_before(&mut self, now: Instant) {
        let Some(start) = now.checked_sub(DOUBLING_WINDOW) else {
            return;
        };
        while self.counts.len() > 1 && self.counts[1].0 <= start {
            self.counts.pop_front();
        }
    }
}

/// Instance-seconds of a capacity provider: its instance count over time.
#[derive(Debug, Clone)]
pub struct InstanceClock {
    instances: u32,
    since: Instant,
    seconds: f64,
    peak: u32,
}

impl InstanceClock {
    pub fn new(now: Instant, instances: u32) -> Self {
        Self {
            instances,
            since: now,
            seconds: 0.0,
            peak: instances,
        }
    }

    /// The fleet has `instances` from `now` on.
    pub fn set(&mut self, now: Instant, instances: u32) {
        self.seconds = self.seconds_at(now);
        self.since = now;
        self.instances = instances;
        self.peak = self.peak.max(instances);
    }

    /// Instance-seconds so far.
    pub fn seconds_at(&self, now: Instant) -> f64 {
        let running = now.saturating_duration_since(self.since).as_secs_f64();
        self.seconds + running * f64::from(self.instances)
    }

    pub fn instances(&self) -> u32 {
        self.instances
    }

    pub fn peak(&self) -> u32 {
        self.peak
    }

    /// Starts the count again from `now` (the metrics' reset); the peak
    /// restarts from the instances running.
    pub fn reset(&mut self, now: Instant) {
        self.seconds = 0.0;
        self.since = now;
        self.peak = self.instances;
    }
}

/// One capacity provider's instances and the environments on them.
pub(crate) struct Fleet {
    instance: InstanceShape,
    max_vcpu_count: Option<u32>,
    /// The provider's CPU utilisation target (0-1), if it sets one.
    cpu_target: Option<f64>,
    state: Mutex<FleetState>,
}

struct FleetState {
    /// Per function: the size of its environments and how many run.
    environments: BTreeMap<String, (Footprint, u32)>,
    limits: BTreeMap<String, ScaleLimit>,
    clock: InstanceClock,
    /// Invocations throttled for want of a free slot in their function's
    /// environments.
    refusals: u64,
    /// Per function: its part of the instance-seconds (see [`Fleet::shares`]).
    shares: BTreeMap<String, f64>,
    /// Until when the instance-seconds have been shared out.
    shared_until: Instant,
}

impl Fleet {
    /// A fleet of [`MIN_INSTANCES`] instances from `now`.
    pub fn new(shape: InstanceShape, max_vcpu_count: Option<u32>, now: Instant) -> Self {
        Self {
            instance: shape,
            max_vcpu_count,
            cpu_target: None,
            state: Mutex::new(FleetState {
                environments: BTreeMap::new(),
                limits: BTreeMap::new(),
                clock: InstanceClock::new(now, MIN_INSTANCES),
                refusals: 0,
                shares: BTreeMap::new(),
                shared_until: now,
            }),
        }
    }

    /// The fleet scaling to `target` (0-1) CPU utilisation.
    pub fn with_cpu_target(mut self, target: Option<f64>) -> Self {
        self.cpu_target = target;
        self
    }

    /// The provider's CPU utilisation target, if it sets one.
    pub fn cpu_target(&self) -> Option<f64> {
        self.cpu_target
    }

    /// An invocation of one of its functions was throttled for want of a
    /// free slot.
    pub fn throttled(&self) {
        self.state.lock().refusals += 1;
    }

    /// Takes room for one more environment of `function`, whose minimum is
    /// `floor`, or says why not.
    pub fn grow(
        &self,
        function: &str,
        size: Footprint,
        now: Instant,
        floor: u32,
    ) -> Result<(), ScaleRefusal> {
        let mut state = self.state.lock();
        state.share_out(now);
        self.try_add(&mut state, function, size, now, floor)
    }

    fn try_add(
        &self,
        state: &mut FleetState,
        function: &str,
        size: Footprint,
        now: Instant,
        floor: u32,
    ) -> Result<(), ScaleRefusal> {
        let count = state.environments.get(function).map_or(0, |&(_, n)| n);
        let allowed = state
            .limits
            .entry(function.to_string())
            .or_insert_with(|| ScaleLimit::new(now, count))
            .allowed(now, floor);
        if count + 1 > allowed {
            return Err(ScaleRefusal::Doubling);
        }
        let mut sizes = state.sizes();
        sizes.push(size);
        let instances = instances_for(&sizes, self.instance).ok_or(ScaleRefusal::TooLarge)?;
        let grows = instances > state.clock.instances();
        if grows
            && self
                .max_vcpu_count
                .is_some_and(|max| instances * self.instance.vcpus > max)
        {
            return Err(ScaleRefusal::MaxVCpuCount);
        }
        state
            .environments
            .insert(function.to_string(), (size, count + 1));
        if let Some(limit) = state.limits.get_mut(function) {
            limit.record(now, count + 1);
        }
        state.clock.set(now, instances);
        Ok(())
    }

    /// One environment of `function` has gone.
    pub fn remove(&self, function: &str, now: Instant) {
        let mut state = self.state.lock();
        state.share_out(now);
        let Some((_, count)) = state.environments.get_mut(function) else {
            return;
        };
        *count = count.saturating_sub(1);
        let count = *count;
        if let Some(limit) = state.limits.get_mut(function) {
            limit.record(now, count);
        }
        let instances = instances_for(&state.sizes(), self.instance).unwrap_or(MIN_INSTANCES);
        state.clock.set(now, instances);
    }

    pub fn metrics(&self, now: Instant) -> CapacityProviderMetrics {
        let state = self.state.lock();
        let sizes = state.sizes();
        CapacityProviderMetrics {
            instance_type: self.instance.name.to_string(),
            instance_vcpus: self.instance.vcpus,
            instances: state.clock.instances(),
            peak_instances: state.clock.peak(),
            instance_seconds: state.clock.seconds_at(now),
            environments: sizes.len() as u32,
            vcpus_allocated: sizes.iter().map(|s| s.vcpus).sum(),
            scaling_refusals: state.refusals,
        }
    }

    /// Each function's part of the instance-seconds so far: every moment's
    /// instances split by the vCPUs its environments hold then, so that a
    /// variant measured on a provider it shares pays for its own
    /// environments. The parts add up to `instance_seconds` but for
    /// moments with no environment at all (nobody's).
    pub fn shares(&self, now: Instant) -> BTreeMap<String, f64> {
        let mut state = self.state.lock();
        state.share_out(now);
        state.shares.clone()
    }

    /// Totals start again from `now`; levels stay.
    pub fn reset(&self, now: Instant) {
        let mut state = self.state.lock();
        state.clock.reset(now);
        state.refusals = 0;
        state.shares.clear();
        state.shared_until = now;
    }
}

impl FleetState {
    /// Shares the instance-seconds since the last call out among the
    /// functions, by the vCPUs of their environments (unchanged since then).
    fn share_out(&mut self, now: Instant) {
        let elapsed = now
            .saturating_duration_since(self.shared_until)
            .as_secs_f64();
        self.shared_until = self.shared_until.max(now);
        let total: f64 = self.sizes().iter().map(|s| s.vcpus).sum();
        if elapsed <= 0.0 || total <= 0.0 {
            return;
        }
        let instance_seconds = elapsed * f64::from(self.clock.instances());
        for (function, (size, count)) in &self.environments {
            let vcpus = size.vcpus * f64::from(*count);
            *self.shares.entry(function.clone()).or_default() += instance_seconds * vcpus / total;
        }
    }

    /// One entry per environment running.
    fn sizes(&self) -> Vec<Footprint> {
        self.environments
            .values()
            .flat_map(|&(size, count)| std::iter::repeat_n(size, count as usize))
            .collect()
    }
}

/// A fleet per capacity provider of the configuration, and one of the
/// default type for each managed function whose provider it does not
/// declare; an unknown instance type, or an environment larger than its
/// instance, is an error naming them.
pub(crate) fn fleets_for(
    config: &LambdaConfig,
    now: Instant,
) -> Result<BTreeMap<String, std::sync::Arc<Fleet>>, String> {
    let mut fleets = BTreeMap::new();
    for provider in &config.capacity_providers {
        let shape = instances::instance_shape(&provider.instance_type).ok_or_else(|| {
            format!(
                "capacity provider {}: unknown instance type `{}`; known: {}",
                provider.name,
                provider.instance_type,
                instances::known_instance_types().join(", ")
            )
        })?;
        let fleet = Fleet::new(shape, provider.max_vcpu_count, now)
            .with_cpu_target(provider.target_cpu_utilisation);
        fleets.insert(provider.name.clone(), std::sync::Arc::new(fleet));
    }
    for function in &config.functions {
        let Some(managed) = &function.managed else {
            continue;
        };
        let fleet = fleets.entry(managed.provider.clone()).or_insert_with(|| {
            let name = instances::choose_instance_type(function.architecture.as_str(), &[], &[])
                .expect("the default types are known");
            let shape = instances::instance_shape(name).expect("default types are known");
            std::sync::Arc::new(Fleet::new(shape, None, now))
        });
        let size = Footprint::of(managed, function.memory_mb);
        if instances_for(&[size], fleet.instance).is_none() {
            return Err(format!(
                "function {}: an environment of {} vCPUs and {} GiB does not fit on a {} instance of capacity provider {} beside the 1 vCPU and 1 GiB its OS keeps",
                function.name, size.vcpus, size.memory_gib, fleet.instance.name, managed.provider
            ));
        }
    }
    Ok(fleets)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(name: &str) -> InstanceShape {
        localcloud_metrics::instances::instance_shape(name).unwrap()
    }

    /// 4 vCPUs and 8 GiB, of which the OS keeps 1 vCPU and 1 GiB.
    fn xlarge() -> InstanceShape {
        shape("c7g.xlarge")
    }

    fn env(vcpus: f64, memory_gib: f64) -> Footprint {
        Footprint { vcpus, memory_gib }
    }

    #[test]
    fn a_small_fleet_is_still_three_instances() {
        assert_eq!(instances_for(&[], xlarge()), Some(3));
        assert_eq!(instances_for(&[env(1.0, 2.0); 3], xlarge()), Some(3));
    }

    #[test]
    fn environments_fill_what_the_os_leaves_by_vcpus_and_memory() {
        // Three 1-vCPU, 2 GiB environments per xlarge: 3 vCPUs and 7 GiB left.
        assert_eq!(instances_for(&[env(1.0, 2.0); 12], xlarge()), Some(4));
        assert_eq!(instances_for(&[env(1.0, 2.0); 13], xlarge()), Some(5));
        // Memory binds first at 4 GiB per vCPU: one per instance (7 GiB left).
        assert_eq!(instances_for(&[env(1.0, 4.0); 5], xlarge()), Some(5));
        // Largest first: each 2-vCPU one takes an instance, the small ones
        // fill the vCPU each leaves, then start another.
        let mut mixed = vec![env(1.0, 2.0); 5];
        mixed.extend([env(2.0, 4.0); 4]);
        assert_eq!(instances_for(&mixed, xlarge()), Some(5));
    }

    #[test]
    fn the_fleet_packs_environments_as_the_bill_does() {
        // GIVEN every known type and LMI's environment sizes (1 or 2 vCPUs
        // at 2, 4 or 8 GiB per vCPU)
        for instance in localcloud_metrics::instances::INSTANCE_SHAPES {
            for (vcpus, memory_gib) in [(1.0, 2.0), (1.0, 4.0), (2.0, 4.0), (1.0, 8.0)] {
                // WHEN the fleet places 10 of them
                let placed = instances_for(&[env(vcpus, memory_gib); 10], instance);
                // THEN it needs the instances the bill counts for them:
                // as many fit on each beside the OS's 1 vCPU and 1 GiB
                // (InstanceShape::environments_that_fit), three at least
                let per_instance = instance.environments_that_fit(vcpus, memory_gib);
                let billed = (per_instance > 0).then(|| 10u32.div_ceil(per_instance).max(3));
                assert_eq!(
                    placed, billed,
                    "{} {vcpus} vCPU {memory_gib} GiB",
                    instance.name
                );
            }
        }
    }

    #[test]
    fn an_environment_larger_than_what_an_instance_leaves_has_no_place() {
        assert_eq!(instances_for(&[env(4.0, 8.0)], xlarge()), None);
        assert_eq!(instances_for(&[env(1.0, 8.0)], xlarge()), None);
        assert_eq!(instances_for(&[env(3.0, 6.0)], xlarge()), Some(3));
        // A .large keeps one of its two vCPUs for the OS.
        assert_eq!(instances_for(&[env(2.0, 4.0)], shape("c7i.large")), None);
    }

    #[test]
    fn environments_at_most_double_within_five_minutes() {
        let t0 = Instant::now();
        let mut limit = ScaleLimit::new(t0, 3);
        assert_eq!(limit.allowed(t0, 3), 6);
        limit.record(t0 + Duration::from_secs(10), 6);
        // Three environments were in force 4 minutes ago: still at most 6.
        assert_eq!(limit.allowed(t0 + Duration::from_secs(240), 3), 6);
        // Five minutes after the step to 6, the fewest of the window is 6.
        assert_eq!(limit.allowed(t0 + Duration::from_secs(311), 3), 12);
        limit.record(t0 + Duration::from_secs(320), 12);
        assert_eq!(limit.allowed(t0 + Duration::from_secs(400), 3), 12);
        assert_eq!(limit.allowed(t0 + Duration::from_secs(621), 3), 24);
    }

    #[test]
    fn a_drop_in_environments_lowers_the_bound_for_a_window() {
        let t0 = Instant::now();
        let mut limit = ScaleLimit::new(t0, 10);
        limit.record(t0 + Duration::from_secs(1), 2);
        limit.record(t0 + Duration::from_secs(2), 10);
        // Two environments (counted as the minimum three) were in force.
        assert_eq!(limit.allowed(t0 + Duration::from_secs(100), 3), 6);
        assert_eq!(limit.allowed(t0 + Duration::from_secs(303), 3), 20);
    }

    #[test]
    fn a_new_function_may_double_its_minimum_environments_at_once() {
        let t0 = Instant::now();
        let mut limit = ScaleLimit::new(t0, 0);
        assert_eq!(limit.allowed(t0, MIN_ENVIRONMENTS), 2 * MIN_ENVIRONMENTS);
        limit.record(t0, 1);
        assert_eq!(limit.allowed(t0, MIN_ENVIRONMENTS), 2 * MIN_ENVIRONMENTS);
        // A function whose minimum is ten may start them all, and ten more.
        assert_eq!(limit.allowed(t0, 10), 20);
        // One whose minimum is one grows from one.
        assert_eq!(limit.allowed(t0, 0), 2);
    }

    fn c7g_large() -> InstanceShape {
        shape("c7g.large")
    }

    #[test]
    fn a_fleet_grows_instances_as_environments_fill_them_and_meters_them() {
        let t0 = Instant::now();
        // A .large holds one 1-vCPU environment beside its OS.
        let fleet = Fleet::new(c7g_large(), None, t0);
        for _ in 0..6 {
            fleet.grow("f", env(1.0, 2.0), t0, 3).unwrap();
        }
        // Six 1-vCPU environments take six instances; a seventh is refused
        // within five minutes (3 would have been 6 at most anyway), and the
        // invocation that wanted it throttled.
        assert_eq!(
            fleet.grow("f", env(1.0, 2.0), t0, 3),
            Err(ScaleRefusal::Doubling)
        );
        fleet.throttled();
        let later = t0 + Duration::from_secs(301);
        fleet.grow("f", env(1.0, 2.0), later, 3).unwrap();
        let m = fleet.metrics(later + Duration::from_secs(10));
        assert_eq!((m.instances, m.peak_instances, m.environments), (7, 7, 7));
        assert_eq!(m.instance_type, "c7g.large");
        assert_eq!(m.vcpus_allocated, 7.0);
        assert_eq!(m.scaling_refusals, 1);
        assert!((m.instance_seconds - (301.0 * 6.0 + 10.0 * 7.0)).abs() < 1e-6);
        // Another function has its own bound, on the same fleet.
        fleet.grow("g", env(1.0, 2.0), later, 3).unwrap();
        assert_eq!(fleet.metrics(later).instances, 8);
        // One environment of each retired: six left, on six instances.
        fleet.remove("f", later);
        fleet.remove("g", later);
        assert_eq!(fleet.metrics(later).instances, 6);
    }

    #[test]
    fn each_function_pays_the_instances_by_the_vcpus_it_holds() {
        // GIVEN f with one 1-vCPU environment and g with one 2-vCPU one
        let t0 = Instant::now();
        let fleet = Fleet::new(xlarge(), None, t0);
        fleet.grow("f", env(1.0, 2.0), t0, 3).unwrap();
        fleet.grow("g", env(2.0, 4.0), t0, 3).unwrap();
        // WHEN they run 30 s on the three instances, then g's goes
        let t1 = t0 + Duration::from_secs(30);
        fleet.remove("g", t1);
        let t2 = t1 + Duration::from_secs(10);
        let shares = fleet.shares(t2);
        // THEN f paid a third of 90 instance-seconds, then all of 30
        assert!((shares["f"] - (30.0 + 30.0)).abs() < 1e-6, "{shares:?}");
        assert!((shares["g"] - 60.0).abs() < 1e-6, "{shares:?}");
        // AND the parts add up to what the instances ran
        let total = fleet.metrics(t2).instance_seconds;
        assert!((shares.values().sum::<f64>() - total).abs() < 1e-6);
        // AND a reset starts them again
        fleet.reset(t2);
        assert!(fleet.shares(t2).values().all(|s| *s == 0.0));
    }

    #[test]
    fn max_vcpu_count_caps_the_instances() {
        let t0 = Instant::now();
        // Three 2-vCPU instances are 6 vCPUs: the minimum fleet fits (one
        // environment each beside the OS), a fourth instance does not.
        let fleet = Fleet::new(c7g_large(), Some(6), t0);
        for _ in 0..3 {
            fleet.grow("f", env(1.0, 2.0), t0, 3).unwrap();
        }
        assert_eq!(
            fleet.grow("f", env(1.0, 2.0), t0, 3),
            Err(ScaleRefusal::MaxVCpuCount)
        );
        let later = t0 + Duration::from_secs(400);
        assert_eq!(
            fleet.grow("big", env(4.0, 8.0), later, 3),
            Err(ScaleRefusal::TooLarge)
        );
    }

    #[test]
    fn instance_seconds_add_up_each_count_for_its_time() {
        let t0 = Instant::now();
        let mut clock = InstanceClock::new(t0, 3);
        clock.set(t0 + Duration::from_secs(10), 5);
        assert_eq!(clock.seconds_at(t0 + Duration::from_secs(10)), 30.0);
        assert_eq!(clock.seconds_at(t0 + Duration::from_secs(20)), 80.0);
        clock.set(t0 + Duration::from_secs(20), 3);
        assert_eq!(clock.peak(), 5);
        assert_eq!(clock.seconds_at(t0 + Duration::from_secs(30)), 110.0);
        clock.reset(t0 + Duration::from_secs(30));
        assert_eq!(clock.peak(), 3);
        assert_eq!(clock.seconds_at(t0 + Duration::from_secs(31)), 3.0);
    }
}
