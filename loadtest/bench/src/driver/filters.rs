//! `--scenario` and `--variant` names, checked before anything runs.

use crate::plan;
use crate::variants::{self, Experiment};

/// Every scenario a run can select with `--scenario`.
fn scenario_names() -> Vec<String> {
    let mut names: Vec<String> = plan::orders_scenarios()
        .into_iter()
        .map(|s| s.name)
        .collect();
    names.extend(
        [
            "orders-sweep",
            "conduit-mixed",
            "conduit-capacity",
            plan::CONDUIT_FAULTS,
        ]
        .map(String::from),
    );
    names
}

/// A misspelt `--scenario` or `--variant` would otherwise select nothing and
/// leave an empty report after a run that looked fine.
pub(crate) fn check_filters(scenarios: &[String], variant_names: &[String]) -> anyhow::Result<()> {
    let known_scenarios = scenario_names();
    let known_variants: Vec<&str> = [Experiment::Orders, Experiment::Conduit]
        .into_iter()
        .flat_map(variants::of)
        .map(|v| v.name)
        .collect();
    for name in scenarios {
        anyhow::ensure!(
            known_scenarios.contains(name),
            "unknown scenario {name:?}; known: {}",
            known_scenarios.join(", ")
        );
    }
    for name in variant_names {
        anyhow::ensure!(
            known_variants.contains(&name.as_str()),
            "unknown variant {name:?}; known: {}",
            known_variants.join(", ")
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_scenario_or_variant_names_are_refused_by_name() {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(check_filters(&[], &[]).is_ok());
        assert!(check_filters(
            &names(&["orders-highload", "orders-sweep", "conduit-capacity"]),
            &names(&["orders-queue", "conduit-micro-queue"])
        )
        .is_ok());
        let error = check_filters(&names(&["conduit-capcity"]), &[]).unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("unknown scenario \"conduit-capcity\"; known: orders-baseline"),
            "{error}"
        );
        let error = check_filters(&[], &names(&["monolith"])).unwrap_err();
        assert!(
            error.to_string().contains("unknown variant \"monolith\""),
            "{error}"
        );
        assert!(error.to_string().contains("conduit-monolith"), "{error}");
    }
}
