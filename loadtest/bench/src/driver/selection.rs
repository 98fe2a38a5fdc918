//! Which runs a bench makes: the scenarios and variants its options select,
//! and whether the template in front of it deploys a variant at all.

use super::bench::{Bench, RunOptions, TargetKind};
use crate::plan::{self, Mode, ScenarioSpec};
use crate::variants::{self, Experiment, Variant};

/// The fixed-load scenarios and the variants each runs on: every orders
/// scenario on both orders paths, and the Conduit fault scenario on the
/// microservices that call each other through queues.
pub(super) fn scenario_runs(opts: &RunOptions) -> Vec<(ScenarioSpec, Variant)> {
    let orders = plan::orders_scenarios()
        .into_iter()
        .map(|s| (s, selected(opts, Experiment::Orders)));
    let conduit_faults = (
        plan::conduit_faults_scenario(),
        selected(opts, Experiment::Conduit)
            .into_iter()
            .filter(|v| *v == variants::CONDUIT_MICRO_QUEUE)
            .collect(),
    );
    orders
        .chain([conduit_faults])
        .filter(|(s, _)| scenario_selected(opts, s))
        .flat_map(|(s, variants)| variants.into_iter().map(move |v| (s.clone(), v)))
        .collect()
}

fn scenario_selected(opts: &RunOptions, spec: &ScenarioSpec) -> bool {
    // Smoke runs the baseline, and other scenarios only when named.
    let in_mode = opts.mode != Mode::Smoke
        || spec.name == "orders-baseline"
        || opts.scenarios.contains(&spec.name);
    // Environments can be killed on the local cloud only.
    let on_target = spec.kill_rate.is_none() || opts.target == TargetKind::Local;
    in_mode && on_target && wants(&opts.scenarios, &spec.name)
}

/// The variants of `experiment` that `--variant` selects (all without it).
pub(super) fn selected(opts: &RunOptions, experiment: Experiment) -> Vec<Variant> {
    variants::of(experiment)
        .into_iter()
        .filter(|v| variant_selected(opts, v))
        .collect()
}

pub(super) fn variant_selected(opts: &RunOptions, variant: &Variant) -> bool {
    opts.variants.is_empty() || opts.variants.iter().any(|n| n == variant.name)
}

/// Whether `--scenario` selects `name` (all without it).
pub(super) fn wants(filter: &[String], name: &str) -> bool {
    filter.is_empty() || filter.iter().any(|f| f == name)
}

/// The searches a pass makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Searches {
    /// The orders concurrency and batch sweep.
    pub sweep: bool,
    /// The Conduit capacity search.
    pub capacity: bool,
}

/// The searches of pass `pass` (0 the first): the sweep and the capacity
/// search measure the first pass only. The verdicts read that pass, and
/// later passes (another API or compute type) are compared with it on the
/// scenarios alone, so searching them again would only double a full run;
/// a search of another compute type is a run with that type first.
pub(super) fn searches(opts: &RunOptions, pass: usize) -> Searches {
    let first = pass == 0;
    Searches {
        sweep: first
            && opts.sweep
            && wants(&opts.scenarios, "orders-sweep")
            && opts.mode != Mode::Smoke
            && opts.target == TargetKind::Local,
        capacity: first
            && opts.capacity
            && wants(&opts.scenarios, "conduit-capacity")
            && opts.mode != Mode::Smoke
            && (opts.mode != Mode::Quick || capacity_asked(opts)),
    }
}

/// Quick runs the capacity search only when asked for by name or given
/// steps: its own steps (50-200 users) are held by every variant on two
/// cores, so it could only ever answer "tie (floors)", at a third of the
/// quick run's time.
fn capacity_asked(opts: &RunOptions) -> bool {
    opts.capacity_steps.is_some() || opts.scenarios.iter().any(|s| s == "conduit-capacity")
}

pub(crate) fn deployed(ctx: &Bench, variant: &Variant) -> bool {
    match ctx.opts.target {
        TargetKind::Local => ctx.template_text.contains(&format!("\n  {}:", variant.api)),
        _ => ctx.door.urls.contains_key(variant.api),
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::target::CpuShare;

    fn options(mode: Mode, target: TargetKind, scenarios: &[&str]) -> RunOptions {
        RunOptions {
            mode,
            target,
            scenarios: scenarios.iter().map(|s| s.to_string()).collect(),
            variants: Vec::new(),
            out: PathBuf::new(),
            binaries_dir: PathBuf::new(),
            doors: Vec::new(),
            sweep: false,
            capacity: false,
            capacity_steps: None,
            capacity_resolution: None,
            latency_profile: None,
            prices: None,
            price_date: None,
            cpu_share: CpuShare::Aws,
            memory_sizes: Vec::new(),
        }
    }

    #[test]
    fn only_the_first_pass_sweeps_and_searches_capacity() {
        // GIVEN a full run asking for both searches
        let mut full = options(Mode::Full, TargetKind::Local, &[]);
        (full.sweep, full.capacity) = (true, true);
        let both = Searches {
            sweep: true,
            capacity: true,
        };
        let neither = Searches {
            sweep: false,
            capacity: false,
        };
        // THEN the first pass makes both, a second pass neither
        assert_eq!(searches(&full, 0), both);
        assert_eq!(searches(&full, 1), neither);
        // AND the sweep is on the local cloud only, and named scenarios
        // choose between them
        full.target = TargetKind::Aws;
        assert!(!searches(&full, 0).sweep);
        assert!(searches(&full, 0).capacity);
        let mut named = options(Mode::Full, TargetKind::Local, &["orders-sweep"]);
        (named.sweep, named.capacity) = (true, true);
        assert_eq!(
            searches(&named, 0),
            Searches {
                sweep: true,
                capacity: false
            }
        );
        // AND neither without being asked, nor in a smoke run
        assert_eq!(
            searches(&options(Mode::Full, TargetKind::Local, &[]), 0),
            neither
        );
        let mut smoke = options(Mode::Smoke, TargetKind::Local, &[]);
        (smoke.sweep, smoke.capacity) = (true, true);
        assert_eq!(searches(&smoke, 0), neither);
    }

    #[test]
    fn quick_searches_capacity_only_when_asked() {
        // GIVEN a quick run with the searches on (the default)
        let mut quick = options(Mode::Quick, TargetKind::Local, &[]);
        (quick.sweep, quick.capacity) = (true, true);
        // THEN it sweeps but does not search capacity
        assert!(searches(&quick, 0).sweep);
        assert!(!searches(&quick, 0).capacity);
        // AND it does when given steps, or the search by name
        quick.capacity_steps = Some(vec![400, 800]);
        assert!(searches(&quick, 0).capacity);
        let mut named = options(Mode::Quick, TargetKind::Local, &["conduit-capacity"]);
        named.capacity = true;
        assert!(searches(&named, 0).capacity);
    }

    fn runs(opts: &RunOptions) -> Vec<String> {
        scenario_runs(opts)
            .iter()
            .map(|(s, v)| format!("{} / {}", s.name, v.name))
            .collect()
    }

    #[test]
    fn the_conduit_fault_scenario_runs_on_the_queue_microservices_on_the_local_cloud_only() {
        // GIVEN a smoke run naming the Conduit fault scenario
        let named = options(Mode::Smoke, TargetKind::Local, &["conduit-faults"]);
        // THEN it runs on conduit-micro-queue alone
        assert_eq!(runs(&named), ["conduit-faults / conduit-micro-queue"]);
        // AND a smoke run without names runs the orders baseline only
        let smoke = options(Mode::Smoke, TargetKind::Local, &[]);
        assert_eq!(
            runs(&smoke),
            [
                "orders-baseline / orders-direct",
                "orders-baseline / orders-queue"
            ]
        );
        // AND a quick run has it, but not against AWS, where nothing is killed
        let quick = runs(&options(Mode::Quick, TargetKind::Local, &[]));
        assert!(quick.contains(&"conduit-faults / conduit-micro-queue".to_string()));
        assert!(quick.contains(&"orders-faults / orders-queue".to_string()));
        let aws = runs(&options(Mode::Quick, TargetKind::Aws, &[]));
        assert!(aws.iter().all(|r| !r.contains("faults")), "{aws:?}");
        assert_eq!(aws.len(), 6, "{aws:?}");
    }
}
