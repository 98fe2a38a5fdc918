//! The compute type as a bench dimension (issue 30): every variant can be
//! measured on on-demand Lambda (`template.yaml`) or on Lambda Managed
//! Instances (`template-lmi.yaml`: the same functions on a capacity
//! provider), or both in one run, one pass per type.

use anyhow::Context;
use serde::{Deserialize, Serialize};

/// Where a variant's functions ran.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ComputeType {
    /// On-demand Lambda: one invocation per environment, billed duration.
    #[default]
    OnDemand,
    /// Lambda Managed Instances: many invocations per environment, billed
    /// the instances.
    Managed,
}

impl ComputeType {
    pub const ALL: [ComputeType; 2] = [Self::OnDemand, Self::Managed];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::OnDemand => "on-demand",
            Self::Managed => "managed",
        }
    }

    /// How a run's title names its compute: nothing on-demand (the
    /// template's own), "on LMI" otherwise.
    pub fn title_note(self) -> &'static str {
        match self {
            Self::OnDemand => "",
            Self::Managed => " on LMI",
        }
    }

    /// The type in words, for reports.
    pub fn describe(self) -> &'static str {
        match self {
            Self::OnDemand => "on-demand Lambda",
            Self::Managed => "Lambda Managed Instances",
        }
    }
}

/// `--compute`: `on-demand`, `managed`, `on-demand,managed` or `both`, in
/// the order given.
pub fn parse_types(text: &str) -> anyhow::Result<Vec<ComputeType>> {
    if text.trim() == "both" {
        return Ok(ComputeType::ALL.to_vec());
    }
    let mut types = Vec::new();
    for name in text.split(',').map(str::trim) {
        let found = ComputeType::ALL
            .into_iter()
            .find(|t| t.as_str() == name)
            .with_context(|| format!("--compute takes on-demand, managed or both; got {name:?}"))?;
        if !types.contains(&found) {
            types.push(found);
        }
    }
    Ok(types)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compute_types_are_read_in_order_once_each() {
        use ComputeType::*;
        assert_eq!(parse_types("on-demand").unwrap(), [OnDemand]);
        assert_eq!(parse_types("both").unwrap(), [OnDemand, Managed]);
        assert_eq!(
            parse_types("managed, on-demand,managed").unwrap(),
            [Managed, OnDemand]
        );
        let err = parse_types("lmi").unwrap_err().to_string();
        assert!(err.contains("\"lmi\""), "{err}");
    }
}
