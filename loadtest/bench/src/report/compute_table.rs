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
use crate::monthly::{
    architecture, monthly_bills_for, Compute, MonthPricing, MonthlyBills, STANDARD_RATES,
};
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
    let months = months(results);
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
            let crossing = months
                .as_ref()
                .and_then(|m| lmi_crossing(m, on_demand, lmi))
                .unwrap_or_else(|| "-".into());
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

/// The run's months at the standard rates, on each compute as measured.
fn months(results: &Results) -> Option<MonthlyBills> {
    let pricing = MonthPricing::new(results, PriceTable::aws_default()).ok()?;
    monthly_bills_for(results, &pricing, &STANDARD_RATES, &Compute::OnDemand).ok()
}

/// Where the LMI month of a pair becomes the cheaper, and the instances it
/// is priced on: "above 80.26 req/s on c7i.xlarge". One variant's months
/// differ from scenario to scenario: the pair's own scenario's.
fn lmi_crossing(months: &MonthlyBills, on_demand: &RunRecord, lmi: &RunRecord) -> Option<String> {
    let scenario = months
        .scenarios
        .iter()
        .find(|s| s.scenario == on_demand.scenario)?;
    let lmi_name = architecture(lmi);
    let pair = scenario
        .break_even
        .iter()
        .find(|b| pair_of(b, on_demand, lmi))?;
    let instance_type = scenario
        .architectures
        .iter()
        .find(|a| a.architecture == lmi_name)
        .and_then(|a| a.bills.first()?.fleet.as_ref())
        .map(|f| f.instance_type.clone());
    let cheaper = lmi_cheaper(pair, &lmi_name);
    Some(match instance_type {
        Some(instances) => format!("{cheaper} on {instances}"),
        None => cheaper,
    })
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
