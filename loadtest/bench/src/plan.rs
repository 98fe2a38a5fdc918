//! Load shapes: the original experiments' ramps, and how `--quick` and
//! `--smoke` scale them (stated in every report).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Seconds: tiny ramps, for CI.
    Smoke,
    /// A few minutes in all: the original user counts, durations x 0.4.
    Quick,
    /// The original durations and user counts.
    Full,
}

impl Mode {
    /// (user factor, duration factor) applied to the original ramps.
    pub fn scaling(self) -> (f64, f64) {
        match self {
            Mode::Smoke => (0.1, 0.1),
            Mode::Quick => (1.0, 0.4),
            Mode::Full => (1.0, 1.0),
        }
    }

    pub fn describe(self) -> String {
        let (users, time) = self.scaling();
        format!("{self:?}: users x {users}, durations x {time} of the original ramps")
    }
}

/// Ramp to `users` over `seconds` (Goose test plan step); equal users = hold.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Step {
    pub users: u64,
    pub seconds: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadShape {
    pub steps: Vec<Step>,
}

impl LoadShape {
    pub fn new(steps: &[(u64, u64)]) -> Self {
        Self {
            steps: steps
                .iter()
                .map(|&(users, seconds)| Step { users, seconds })
                .collect(),
        }
    }

    /// Users and durations scaled, each at least 1, so no step disappears.
    pub fn scaled(&self, mode: Mode) -> Self {
        let (u, t) = mode.scaling();
        Self {
            steps: self
                .steps
                .iter()
                .map(|s| Step {
                    users: ((s.users as f64 * u).round() as u64).max(1),
                    seconds: ((s.seconds as f64 * t).round() as u64).max(1),
                })
                .collect(),
        }
    }

    /// The ramp in Goose's `--test-plan` syntax: `10,5s;20,5s;50,15s`.
    pub fn describe(&self) -> String {
        self.steps
            .iter()
            .map(|s| format!("{},{}s", s.users, s.seconds))
            .collect::<Vec<_>>()
            .join(";")
    }

    /// What Goose runs: the ramp, then `0,0s` (without it Goose holds the
    /// last step for ever).
    pub fn goose_plan(&self) -> String {
        format!("{};0,0s", self.describe())
    }

    pub fn seconds(&self) -> u64 {
        self.steps.iter().map(|s| s.seconds).sum()
    }

    pub fn peak_users(&self) -> u64 {
        self.steps.iter().map(|s| s.users).max().unwrap_or(0)
    }
}

/// A named workload of one experiment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScenarioSpec {
    pub name: String,
    pub experiment: crate::variants::Experiment,
    /// The original ramp (before scaling).
    pub shape: LoadShape,
    /// Orders per request (orders scenarios).
    pub size: Option<u32>,
    /// 1-7 s between requests for Conduit; none (closed loop) for orders.
    pub think_time_s: Option<(u64, u64)>,
    /// Share of the back ends' invocations whose environment is killed
    /// mid-invocation (`localcloud serve --kill-rate`); local target only.
    #[serde(default)]
    pub kill_rate: Option<f64>,
}

pub fn orders_scenarios() -> Vec<ScenarioSpec> {
    let orders = |name: &str, steps: &[(u64, u64)], size| ScenarioSpec {
        name: name.into(),
        experiment: crate::variants::Experiment::Orders,
        shape: LoadShape::new(steps),
        size: Some(size),
        think_time_s: None,
        kill_rate: None,
    };
    vec![
        orders("orders-baseline", &[(10, 5), (20, 5), (50, 15)], 5),
        orders(
            "orders-highload",
            &[(50, 5), (100, 5), (200, 10), (200, 10)],
            5,
        ),
        orders("orders-largepayload", &[(10, 5), (25, 10), (25, 15)], 100),
        // Highload with 5% of the back ends' environments killed mid-request:
        // what each path loses (nothing, the ledger must show).
        ScenarioSpec {
            kill_rate: Some(0.05),
            ..orders(
                "orders-faults",
                &[(50, 5), (100, 5), (200, 10), (200, 10)],
                5,
            )
        },
    ]
}

/// The orders scenarios whose records the verdict's answers read: quick
/// runs their whole original ramp (25 and 30 s), since 0.4 of it leaves too
/// few blocks of time for an interval to decide anything (`stats`).
pub const ANSWERED_IN_FULL: [&str; 2] = ["orders-baseline", "orders-highload"];

/// The load a scenario runs in `mode`: its ramp scaled, but for the
/// answered orders scenarios in quick mode, which keep the original.
pub fn scenario_shape(spec: &ScenarioSpec, mode: Mode) -> LoadShape {
    if mode == Mode::Quick && ANSWERED_IN_FULL.contains(&spec.name.as_str()) {
        return spec.shape.clone();
    }
    spec.shape.scaled(mode)
}

/// The Conduit mix at a steady user count: ramp, then hold (5 minutes in full).
pub fn conduit_scenario(users: u64) -> ScenarioSpec {
    ScenarioSpec {
        name: "conduit-mixed".into(),
        experiment: crate::variants::Experiment::Conduit,
        shape: LoadShape::new(&[(users, 30), (users, 300)]),
        size: None,
        think_time_s: Some((1, 7)),
        kill_rate: None,
    }
}

/// The Conduit mix at a high steady load with 5% of the microservices'
/// invocations killed (`conduit-micro-queue` only: its services reach each
/// other through request queues, whose ledger must balance). Smoke: 20
/// users for 12 s.
pub fn conduit_faults_scenario() -> ScenarioSpec {
    ScenarioSpec {
        name: CONDUIT_FAULTS.into(),
        shape: LoadShape::new(&[(200, 30), (200, 90)]),
        kill_rate: Some(0.05),
        ..conduit_scenario(200)
    }
}

pub const CONDUIT_FAULTS: &str = "conduit-faults";

/// The steady Conduit run: quick holds 30 s (not 0.4 x 5 min), as the
/// capacity steps after it measure the same mix again.
pub fn conduit_shape(spec: &ScenarioSpec, mode: Mode) -> LoadShape {
    match mode {
        Mode::Quick => {
            let users = spec.shape.peak_users();
            LoadShape::new(&[(users, 10), (users, 30)])
        }
        _ => spec.shape.scaled(mode),
    }
}

/// Where a run's percentiles start: a Conduit run's hold, after the ramp
/// in which every user logs in once (Argon2id, tens of ms of CPU at
/// 128 MB): 100 logins in a 40-s quick run are 15 % of its requests and
/// would be its p95, against 1 % of a full run's. Orders runs: the whole run.
pub fn latency_from_ms(spec: &ScenarioSpec, shape: &LoadShape) -> Option<u64> {
    let ramp = shape.steps.first()?;
    (spec.think_time_s.is_some() && shape.steps.len() > 1).then_some(ramp.seconds * 1000)
}

/// The users of the steady Conduit mix: the full run's 100 in quick too (no
/// capacity search there to start from), so both measure the same load.
pub fn steady_users(mode: Mode) -> u64 {
    match mode {
        Mode::Smoke => capacity_steps(Mode::Smoke)[0],
        Mode::Quick | Mode::Full => 100,
    }
}

/// User counts tried by the Conduit capacity search, smallest first.
pub fn capacity_steps(mode: Mode) -> Vec<u64> {
    match mode {
        Mode::Smoke => vec![5],
        Mode::Quick => vec![50, 100, 200],
        Mode::Full => vec![100, 200, 400, 800, 1600, 3200],
    }
}

/// `--capacity-steps`: none given means the mode's default; given, they must
/// rise, or the search's "most users held" would not mean what it says.
pub fn given_capacity_steps(steps: Vec<u64>) -> Result<Option<Vec<u64>>, String> {
    if steps.windows(2).any(|pair| pair[0] >= pair[1]) {
        return Err(format!(
            "--capacity-steps must be in ascending order, e.g. 800,1600 (got {steps:?})"
        ));
    }
    Ok((!steps.is_empty()).then_some(steps))
}

/// How close the capacity search brings the most users held and the fewest
/// that broke, with halfway steps once the first steps have found a break:
/// full mode narrows 800-1600 to 100 users in three steps (1200, 1000 or 1400,
/// then one more).
pub fn capacity_resolution(mode: Mode) -> u64 {
    match mode {
        Mode::Smoke => 5,
        Mode::Quick => 50,
        Mode::Full => 100,
    }
}

/// The short overload used by the orders sweep: 2x the default caps.
pub fn sweep_shape() -> LoadShape {
    LoadShape::new(&[(100, 5), (200, 5), (200, 20)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quick_runs_the_answered_orders_scenarios_whole_and_the_others_shortened() {
        let orders = orders_scenarios();
        // the baseline and highload the verdict reads: the original 25 and 30 s
        assert_eq!(scenario_shape(&orders[0], Mode::Quick).seconds(), 25);
        assert_eq!(scenario_shape(&orders[1], Mode::Quick).seconds(), 30);
        // largepayload: 0.4 of its 30 s
        assert_eq!(scenario_shape(&orders[2], Mode::Quick).seconds(), 12);
        // smoke shortens them all
        assert!(scenario_shape(&orders[0], Mode::Smoke).seconds() < 25);
    }

    #[test]
    fn conduit_percentiles_start_after_the_ramp_and_orders_ones_at_once() {
        let quick = conduit_shape(&conduit_scenario(100), Mode::Quick);
        assert_eq!(
            latency_from_ms(&conduit_scenario(100), &quick),
            Some(10_000)
        );
        let baseline = &orders_scenarios()[0];
        assert_eq!(latency_from_ms(baseline, &baseline.shape), None);
        assert_eq!(
            (steady_users(Mode::Quick), steady_users(Mode::Full)),
            (100, 100)
        );
    }

    #[test]
    fn capacity_steps_given_must_rise() {
        assert_eq!(given_capacity_steps(vec![]), Ok(None));
        assert_eq!(
            given_capacity_steps(vec![800, 1600]),
            Ok(Some(vec![800, 1600]))
        );
        let error = given_capacity_steps(vec![1600, 800]).unwrap_err();
        assert!(error.contains("ascending"), "{error}");
        assert!(given_capacity_steps(vec![800, 800]).is_err());
    }

    #[test]
    fn baseline_is_the_original_ramp_in_goose_syntax() {
        let baseline = &orders_scenarios()[0];
        assert_eq!(baseline.shape.goose_plan(), "10,5s;20,5s;50,15s;0,0s");
        assert_eq!(baseline.shape.seconds(), 25);
        assert_eq!(baseline.shape.peak_users(), 50);
    }

    #[test]
    fn quick_keeps_users_and_shortens_time() {
        let highload = orders_scenarios()[1].shape.scaled(Mode::Quick);
        assert_eq!(highload.describe(), "50,2s;100,2s;200,4s;200,4s");
        assert_eq!(highload.peak_users(), 200);
    }

    #[test]
    fn smoke_never_scales_a_step_to_nothing() {
        let smoke = orders_scenarios()[0].shape.scaled(Mode::Smoke);
        assert_eq!(smoke.describe(), "1,1s;2,1s;5,2s");
        assert!(Mode::Smoke.describe().contains("x 0.1"));
    }

    #[test]
    fn conduit_faults_kill_throughout_a_short_smoke_run() {
        let spec = conduit_faults_scenario();
        assert_eq!(spec.kill_rate, Some(0.05));
        assert_eq!(spec.think_time_s, Some((1, 7)));
        assert_eq!(spec.shape.scaled(Mode::Smoke).describe(), "20,3s;20,9s");
    }

    #[test]
    fn largepayload_asks_for_100_orders() {
        assert_eq!(orders_scenarios()[2].size, Some(100));
        assert_eq!(conduit_scenario(50).think_time_s, Some((1, 7)));
        let quick = conduit_shape(&conduit_scenario(50), Mode::Quick);
        assert_eq!((quick.seconds(), quick.peak_users()), (40, 50));
    }
}
