//! A function's `FunctionScalingConfig` (SAM passes it through to
//! `AWS::Lambda::Function`): the execution environments a function on
//! Lambda Managed Instances keeps at least and may have at most, checked as
//! "Scaling Lambda Managed Instances" states
//! (https://docs.aws.amazon.com/lambda/latest/dg/lambda-managed-instances-scaling.html):
//! "Valid values for both `MinExecutionEnvironments` and
//! `MaxExecutionEnvironments` range from 0 to 15000. A minimum of 0 is only
//! valid when the maximum is also 0"; SAM requires `CapacityProviderConfig`
//! beside it.

use crate::diag::At;
use crate::model::FunctionScaling;
use crate::props::{check_keys, Reader};
use crate::yaml::Node;

const KEY: &str = "FunctionScalingConfig";
const KEYS: &[&str] = &["MinExecutionEnvironments", "MaxExecutionEnvironments"];
/// The most either bound may be.
const MAX_ENVIRONMENTS: u32 = 15_000;

/// The function's `FunctionScalingConfig`, default when absent; errors go
/// to the diagnostics.
pub(crate) fn function_scaling(props: &Node, at: &At, r: &mut Reader) -> FunctionScaling {
    let Some(entry) = props.get(KEY) else {
        return FunctionScaling::default();
    };
    let at = at.child(KEY);
    if props.get("CapacityProviderConfig").is_none() {
        let m = "FunctionScalingConfig needs CapacityProviderConfig (Lambda Managed Instances)";
        r.diags.error(&at, entry.key_line, m);
    }
    let config = &entry.value;
    check_keys(config, KEYS, &[], &at, r.diags);
    let line_of = |key: &str| config.get(key).map_or(entry.key_line, |e| e.key_line);
    let bound = |key: &str, r: &mut Reader| {
        let n = r.u32(config, key, &at)?;
        if n > MAX_ENVIRONMENTS {
            let m = format!("must be between 0 and {MAX_ENVIRONMENTS}");
            r.diags.error(&at.child(key), line_of(key), m);
            return None;
        }
        Some(n)
    };
    let min = bound(KEYS[0], r);
    let max = bound(KEYS[1], r);
    let scaling = FunctionScaling {
        min_execution_environments: min,
        max_execution_environments: max,
    };
    if let Err(m) = scaling.check() {
        r.diags.error(&at, entry.key_line, m);
        return FunctionScaling::default();
    }
    scaling
}

impl FunctionScaling {
    /// The bounds Lambda enforces between the two: min 0 only with max 0,
    /// and no minimum above the maximum (an unset one takes its default:
    /// 3 and none).
    fn check(&self) -> Result<(), String> {
        let min = self.min_execution_environments;
        let max = self.max_execution_environments;
        if min == Some(0) && max != Some(0) {
            return Err(
                "MinExecutionEnvironments 0 is only valid with MaxExecutionEnvironments 0".into(),
            );
        }
        let least = min.unwrap_or(DEFAULT_MIN);
        match max {
            Some(most) if most < least => Err(format!(
                "MaxExecutionEnvironments {most} is below the minimum {least}"
            )),
            _ => Ok(()),
        }
    }
}

/// `MinExecutionEnvironments` when unset: "The default minimum is 3
/// execution environments across Availability Zones, with no default
/// maximum".
pub(crate) const DEFAULT_MIN: u32 = 3;
