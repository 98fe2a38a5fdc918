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

/// What Lambda Managed Instances keep on each instance for the operating
/// system and the Lambda agent, out of the environments' reach. AWS's LMI
/// pricing calculator: "LMI reserves 1 vCPU and 1 GB for the operating
/// system on each instance"
/// (https://github.com/aws-samples/sample-aws-lambda-managed-instances,
/// `tools/pricing-calculator/docs/CALCULATOR_METHODOLOGY.md`, "Packing
/// Efficiency"; its code takes 1,024 MB); the Lambda pages give no figure.
pub const OS_RESERVED_VCPUS: u32 = 1;
pub const OS_RESERVED_MEMORY_GIB: f64 = 1.0;

impl InstanceShape {
    /// How many environments of `vcpus` and `memory_gib` fit on one
    /// instance beside the operating system's reservation.
    pub fn environments_that_fit(&self, vcpus: f64, memory_gib: f64) -> u32 {
        let free_vcpus = f64::from(self.vcpus.saturating_sub(OS_RESERVED_VCPUS));
        let free_memory = (self.memory_gib - OS_RESERVED_MEMORY_GIB).max(0.0);
        let by_cpu = (free_vcpus / vcpus).floor();
        let by_memory = (free_memory / memory_gib).floor();
        by_cpu.min(by_memory).max(0.0) as u32
    }
}

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

/// The type a capacity provider that names none is billed at. Lambda
/// picks among "all compatible instance types" (the Lambda API's
/// `InstanceRequirements`) without saying which; AWS's LMI pricing
/// calculator starts from `.xlarge` (its default `c7g.xlarge`), so the cost
/// model prices the compute-optimised `.xlarge` of the architecture. (The
/// local cloud places environments on [`default_instance_type`].)
pub fn billed_default_instance_type(architecture: &str) -> &'static str {
    if architecture == "arm64" {
        "c7g.xlarge"
    } else {
        "c7i.xlarge"
    }
}

/// The type a capacity provider of `architecture` runs on, read as
/// `InstanceRequirements` reads: the first of `allowed` (CloudFormation
/// `AllowedInstanceTypes`, SAM `AllowedTypes`) that is known and of the
/// architecture; with none allowed, `default` unless `excluded`
/// (`ExcludedInstanceTypes`, "should not use, even if they meet other
/// requirements"), else the first known type of the architecture that is
/// not. An error names what was asked and what is known.
pub fn choose_instance_type(
    architecture: &str,
    allowed: &[String],
    excluded: &[String],
    default: &'static str,
) -> Result<&'static str, String> {
    let usable = |shape: &&InstanceShape| {
        shape.architecture == architecture && !excluded.iter().any(|e| e == shape.name)
    };
    let chosen = if allowed.is_empty() {
        let preferred = INSTANCE_SHAPES.iter().find(|s| s.name == default);
        preferred
            .filter(usable)
            .or_else(|| INSTANCE_SHAPES.iter().find(usable))
    } else {
        allowed
            .iter()
            .filter_map(|name| INSTANCE_SHAPES.iter().find(|s| s.name == name.as_str()))
            .find(usable)
    };
    chosen.map(|s| s.name).ok_or_else(|| {
        format!(
            "no instance type known here is {architecture}, allowed ({}) and not excluded ({}); known: {}",
            if allowed.is_empty() { "any".to_string() } else { allowed.join(", ") },
            if excluded.is_empty() { "none".to_string() } else { excluded.join(", ") },
            known_instance_types().join(", ")
        )
    })
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

    #[test]
    fn the_os_keeps_one_vcpu_and_one_gib_of_every_instance() {
        let xlarge = instance_shape("c7g.xlarge").unwrap();
        // 4 vCPUs and 8 GiB: 3 vCPUs and 7 GiB left for 1-vCPU, 2-GiB environments.
        assert_eq!(xlarge.environments_that_fit(1.0, 2.0), 3);
        assert_eq!(xlarge.environments_that_fit(2.0, 4.0), 1);
        let large = instance_shape("c7i.large").unwrap();
        assert_eq!(large.environments_that_fit(1.0, 2.0), 1);
        assert_eq!(large.environments_that_fit(2.0, 4.0), 0);
        // m7g.xlarge (16 GiB): memory is not the bound, vCPUs are.
        let general = instance_shape("m7g.xlarge").unwrap();
        assert_eq!(general.environments_that_fit(1.0, 4.0), 3);
    }

    #[test]
    fn instance_types_are_chosen_as_instance_requirements_allow() {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let xlarge = billed_default_instance_type("x86_64");
        assert_eq!(
            choose_instance_type("x86_64", &[], &[], xlarge),
            Ok("c7i.xlarge")
        );
        assert_eq!(
            choose_instance_type("arm64", &[], &[], billed_default_instance_type("arm64")),
            Ok("c7g.xlarge")
        );
        // The first allowed type known here and of the architecture.
        let allowed = names(&["r8g.medium", "c7g.large", "m7g.xlarge"]);
        assert_eq!(
            choose_instance_type("arm64", &allowed, &[], xlarge),
            Ok("c7g.large")
        );
        // An excluded default gives way to the first type not excluded.
        let excluded = names(&["c7i.xlarge", "c7i.large"]);
        assert_eq!(
            choose_instance_type("x86_64", &[], &excluded, xlarge),
            Ok("m7i.large")
        );
        // Nothing of the architecture allowed: an error naming the lists.
        let err = choose_instance_type("x86_64", &names(&["c7g.large"]), &[], xlarge).unwrap_err();
        assert!(err.contains("x86_64") && err.contains("c7g.large"), "{err}");
    }
}
