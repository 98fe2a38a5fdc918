//! EC2 instance types Lambda Managed Instances run on: their sizes, defined
//! once for the local cloud (which places environments on instances and
//! meters instance-seconds) and the cost model (which prices them).

use serde::Serialize;

/// The CPU utilisation of its environments above which Lambda Managed
/// Instances adds environments, for the local cloud's scaler and the cost
/// model's fleet alike. AWS scales "based on CPU resource utilization and
/// multi-concurrency saturation" and names a capacity provider's target
/// (`AverageCPUUtilization`) without giving its default
/// (https://docs.aws.amazon.com/lambda/latest/dg/lambda-managed-instances-scaling.html):
/// half the vCPUs is our assumption.
pub const DEFAULT_TARGET_CPU_UTILISATION: f64 = 0.5;

/// An EC2 instance type's size (the EC2 instance type pages); its price is
/// in the cost model's price table.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct InstanceShape {
    pub name: &'static str,
    /// `x86_64` or `arm64`, as Lambda spells it.
    pub architecture: &'static str,
    pub vcpus: u32,
    pub memory_gib: f64,
}

const fn shape(
    name: &'static str,
    architecture: &'static str,
    vcpus: u32,
    memory_gib: f64,
) -> InstanceShape {
    InstanceShape {
        name,
        architecture,
        vcpus,
        memory_gib,
    }
}

/// The types the price table prices: compute (2 GiB per vCPU) and general
/// purpose (4 GiB per vCPU), Graviton and Intel; LMI takes `.large` and up.
pub const INSTANCE_SHAPES: [InstanceShape; 10] = [
    shape("c7g.large", "arm64", 2, 4.0),
    shape("c7g.xlarge", "arm64", 4, 8.0),
    shape("c7g.2xlarge", "arm64", 8, 16.0),
    shape("m7g.large", "arm64", 2, 8.0),
    shape("m7g.xlarge", "arm64", 4, 16.0),
    shape("c6g.large", "arm64", 2, 4.0),
    shape("c7i.large", "x86_64", 2, 4.0),
    shape("c7i.xlarge", "x86_64", 4, 8.0),
    shape("m7i.large", "x86_64", 2, 8.0),
    shape("m7i.xlarge", "x86_64", 4, 16.0),
];

/// The shape of a known instance type.
pub fn instance_shape(name: &str) -> Option<InstanceShape> {
    INSTANCE_SHAPES.iter().find(|s| s.name == name).copied()
}

/// The names of the known types, for error messages.
pub fn known_instance_types() -> Vec<&'static str> {
    INSTANCE_SHAPES.iter().map(|s| s.name).collect()
}

/// The type the local cloud assumes where a capacity provider names none
/// (Lambda then picks among all compatible types, and does not say how):
/// the smallest compute-optimised type of the architecture.
pub fn default_instance_type(architecture: &str) -> &'static str {
    if architecture == "arm64" {
        "c7g.large"
    } else {
        "c7i.large"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_known_types_of_their_architecture() {
        for arch in ["x86_64", "arm64"] {
            let shape = instance_shape(default_instance_type(arch)).unwrap();
            assert_eq!(shape.architecture, arch);
        }
        assert_eq!(instance_shape("t2.micro"), None);
        assert!(known_instance_types().contains(&"m7g.xlarge"));
    }
}
