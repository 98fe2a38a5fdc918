//! Runs that could not be measured, kept with their setting and reason.

use super::progress::phase;
use crate::apis::ApiKind;
use crate::results::{RunRecord, Skipped};
use crate::variants::Variant;

/// The record of a run at `setting`, or why there is none (not deployed,
/// the local cloud did not start, seeding or the load failed): every run
/// that could not be measured becomes a `Skipped` in results.json and a row
/// of the report, never only a printed line.
pub(crate) fn record_or_skip(
    scenario: &str,
    variant: &Variant,
    setting: &str,
    run: anyhow::Result<Result<RunRecord, String>>,
) -> Result<RunRecord, Skipped> {
    let at = |reason: String| format!("{setting}: {reason}");
    match run {
        Ok(Ok(record)) => Ok(record),
        Ok(Err(reason)) => Err(skip(scenario, variant, at(reason))),
        Err(e) => {
            let reason = at(format!("failed: {e:#}"));
            phase(&format!("{scenario} / {}: {reason}", variant.name));
            Err(skip(scenario, variant, reason))
        }
    }
}

pub(super) fn failed(scenario: &str, variant: &Variant, error: &anyhow::Error) -> Skipped {
    let reason = format!("failed: {error:#}");
    phase(&format!("{scenario} / {}: {reason}", variant.name));
    skip(scenario, variant, reason)
}

pub(super) fn skip(scenario: &str, variant: &Variant, reason: String) -> Skipped {
    Skipped {
        scenario: scenario.into(),
        variant: variant.name.into(),
        // Its pass names the door and compute (`run`).
        api: ApiKind::default(),
        compute: crate::compute::ComputeType::default(),
        reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variants;

    #[test]
    fn a_run_that_could_not_be_measured_is_kept_with_its_setting_and_reason() {
        // GIVEN a sweep setting whose local cloud did not start, and a
        // capacity step that was refused
        let crashed = record_or_skip(
            "orders-sweep",
            &variants::ORDERS_QUEUE,
            "OrdersQueueBatchSize=10",
            Err(anyhow::anyhow!(
                "localcloud exited before writing its endpoints"
            )),
        );
        let refused = record_or_skip(
            "conduit-capacity",
            &variants::CONDUIT_MONOLITH,
            "400 users",
            Ok(Err("no URL".into())),
        );
        // THEN both are records of what did not run, naming setting and reason
        let crashed = crashed.unwrap_err();
        assert_eq!(crashed.scenario, "orders-sweep");
        assert_eq!(crashed.variant, "orders-queue");
        assert_eq!(
            crashed.reason,
            "OrdersQueueBatchSize=10: failed: localcloud exited before writing its endpoints"
        );
        assert_eq!(refused.unwrap_err().reason, "400 users: no URL");
    }
}
