//! One pass of a run (`bench run --api` x `--compute`) as its records say
//! it: the front door and the compute behind it.

use crate::apis::ApiKind;
use crate::compute::ComputeType;

/// One pass of a run as its records say it: the front door and the compute
/// behind it. Records of one pass compare with each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Pass {
    pub api: ApiKind,
    pub compute: ComputeType,
}

impl From<ApiKind> for Pass {
    /// That door, on-demand.
    fn from(api: ApiKind) -> Self {
        Self {
            api,
            compute: ComputeType::OnDemand,
        }
    }
}

impl Pass {
    /// A variant and, when not an HTTP API on-demand, its door and compute.
    pub fn label(self, variant: &str) -> String {
        format!(
            "{variant}{}{}",
            crate::apis::title_note(self.api),
            self.compute.title_note()
        )
    }

    /// The pass in words: the door ("HTTP API"), and the compute unless
    /// on-demand ("HTTP API on Lambda Managed Instances").
    pub fn describe(self) -> String {
        let door = crate::apis::describe(self.api);
        match self.compute {
            ComputeType::OnDemand => door.to_string(),
            managed => format!("{door} on {}", managed.describe()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_names_the_door_and_the_compute_unless_the_defaults() {
        let http: Pass = ApiKind::Http.into();
        assert_eq!(http.label("orders-direct"), "orders-direct");
        let lmi = Pass {
            compute: ComputeType::Managed,
            ..http
        };
        assert_eq!(lmi.label("orders-direct"), "orders-direct on LMI");
        let rest = Pass {
            api: ApiKind::Rest,
            ..lmi
        };
        assert_eq!(rest.label("x"), "x (REST API) on LMI");
        assert_eq!(http.describe(), "HTTP API");
        assert_eq!(lmi.describe(), "HTTP API on Lambda Managed Instances");
    }
}
