//! "On-demand or Lambda Managed Instances?": every scenario run measured on
//! both compute types side by side (latency, failures, dollars per million
//! successful requests as each run was billed) and the request rate at
//! which the LMI month becomes the cheaper (`crate::monthly`'s break-evens,
//! the LMI fleet sized from the demand measured on LMI).

use costmodel::{quantity, PriceTable};

use super::answers::{dollars, Answer, Table};
use super::ms;
use crate::break_even::{BreakEven, Crossing};
use crate::compute::ComputeType;
use crate::monthly::{architecture, monthly_bills_for, Compute, MonthPricing, STANDARD_RATES};
use crate::results::{RecordKind, Results, RunRecord};

pub const COMPUTE_QUESTION: &str =
    "On-demand Lambda or Lambda Managed Instances (the same functions)?";

/// The questions the run answers: the experiments' (through its first
/// pass), then the compute types compared when both ran.
pub fn all_answers(results: &Results) -> Vec<Answer> {
    let mut all = super::answers::answers(results);
    all.extend(answer(results));
    all
}

/// The question answered, when some scenario ran on both compute types.
pub fn answer(results: &Results) -> Option<Answer> {
    Some(Answer {
        question: COMPUTE_QUESTION,
        table: compute_table(results)?,
    })
}

/// `None` unless some scenario ran on both compute types.
pub fn compute_table(results: &Results) -> Option<Table> {
    let pairs = twins(results);
    if pairs.is_empty() {
        return None;
    }
    let crossings = crossings(results);
    let headers = [
        "run",
        "p50 ms on-demand",
        "p50 ms LMI",
        "p95 ms on-demand",
        "p95 ms LMI",
        "failed on-demand",
        "failed LMI",
        "$ per M ok on-demand",
        "$ per M ok LMI (as run)",
        "LMI cheaper",
    ];
    let rows = pairs
        .iter()
        .map(|(on_demand, lmi)| {
            let ok = |r: &RunRecord| r.cost.as_ref().and_then(|c| c.usd_per_million_successful);
            let failed = |r: &RunRecord| format!("{:.1} %", r.summary.error_rate * 100.0);
            let crossing = crossings
                .iter()
                .find(|(scenario, b)| *scenario == on_demand.scenario && pair_of(b, on_demand, lmi))
                .map_or_else(|| "-".into(), |(_, b)| lmi_cheaper(b, &architecture(lmi)));
            vec![
                format!("{} / {}", on_demand.scenario, architecture(on_demand)),
                ms(on_demand.summary.p50_ms),
                ms(lmi.summary.p50_ms),
                ms(on_demand.summary.p95_ms),
                ms(lmi.summary.p95_ms),
                failed(on_demand),
                failed(lmi),
                dollars(ok(on_demand)),
                dollars(ok(lmi)),
                crossing,
            ]
        })
        .collect();
    Some(Table {
        headers: headers.map(String::from).to_vec(),
        rows,
    })
}

/// Each scenario run on-demand with its twin on LMI (same scenario,
/// variant, door and setting).
fn twins(results: &Results) -> Vec<(&RunRecord, &RunRecord)> {
    let scenario = |r: &&RunRecord| r.kind == RecordKind::Scenario;
    results
        .records
        .iter()
        .filter(scenario)
        .filter(|r| r.compute == ComputeType::OnDemand)
        .filter_map(|on_demand| {
            let lmi = results.records.iter().filter(scenario).find(|r| {
                r.compute == ComputeType::Managed
                    && (r.api, &r.scenario, &r.variant, &r.setting)
                        == (
                            on_demand.api,
                            &on_demand.scenario,
                            &on_demand.variant,
                            &on_demand.setting,
                        )
            })?;
            Some((on_demand, lmi))
        })
        .collect()
}

/// The break-evens of the run's months, on each compute as measured, each
/// with its scenario: one variant's months differ from scenario to scenario.
fn crossings(results: &Results) -> Vec<(String, BreakEven)> {
    let Ok(pricing) = MonthPricing::new(results, PriceTable::aws_default()) else {
        return Vec::new();
    };
    monthly_bills_for(results, &pricing, &STANDARD_RATES, &Compute::OnDemand)
        .map(|bills| {
            bills
                .scenarios
                .into_iter()
                .flat_map(|s| {
                    let scenario = s.scenario;
                    s.break_even.into_iter().map(move |b| (scenario.clone(), b))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn pair_of(b: &BreakEven, on_demand: &RunRecord, lmi: &RunRecord) -> bool {
    let (od, managed) = (architecture(on_demand), architecture(lmi));
    (b.a == od && b.b == managed) || (b.a == managed && b.b == od)
}

/// Where the LMI month is the cheaper, in words: "above 32.2 req/s".
fn lmi_cheaper(b: &BreakEven, lmi: &str) -> String {
    match &b.crossing {
        Crossing::At {
            rates,
            cheaper_above,
            ..
        } => {
            let (first, last) = (rates[0], rates[rates.len() - 1]);
            let crossings = if rates.len() > 1 {
                format!(
                    " (the bills cross {} times from {} req/s)",
                    rates.len(),
                    quantity(first)
                )
            } else {
                String::new()
            };
            if cheaper_above == lmi {
                format!("above {} req/s{crossings}", quantity(last))
            } else {
                format!("below {} req/s{crossings}", quantity(first))
            }
        }
        Crossing::Never { cheaper, .. } if cheaper == lmi => "at every rate".into(),
        Crossing::Never { .. } => "never".into(),
        Crossing::Same => "same bill".into(),
    }
}

#[cfg(test)]
#[path = "compute_table_tests.rs"]
mod tests;
