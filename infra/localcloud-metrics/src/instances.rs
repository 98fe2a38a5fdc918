//! EC2 instance types Lambda Managed Instances run on: their sizes, the type
//! a capacity provider gets, what each instance keeps for its OS, and an
//! execution environment's default concurrency, defined once for the local
//! cloud (which places environments on instances and meters
//! instance-seconds) and the cost model (which sizes and prices a fleet).

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
    /// The vCPUs and GiB of one instance left to execution environments
    /// beside the operating system's reservation.
    pub fn free_for_environments(&self) -> (f64, f64) {
        (
            f64::from(self.vcpus.saturating_sub(OS_RESERVED_VCPUS)),
            (self.memory_gib - OS_RESERVED_MEMORY_GIB).max(0.0),
        )
    }

    /// How many environments of `vcpus` and `memory_gib` fit on one
    /// instance beside the operating system's reservation.
    pub fn environments_that_fit(&self, vcpus: f64, memory_gib: f64) -> u32 {
        let (free_vcpus, free_memory) = self.free_for_environments();
        // A little slack: 4,096 MB at 2 GiB per vCPU is 2.0 vCPUs exactly,
        // but divisions of MB by 1,024 need not land on it.
        let by_cpu = (free_vcpus / vcpus + 1e-9).floor();
        let by_memory = (free_memory / memory_gib + 1e-9).floor();
        by_cpu.min(by_memory).max(0.0) as u32
    }
}

/// Rust's default concurrency per vCPU on Lambda Managed Instances: "the
/// default value for Rust is 8 concurrent requests per vCPU"
/// (https://docs.aws.amazon.com/lambda/latest/dg/lambda-managed-instances-rust.html).
pub const RUST_CONCURRENCY_PER_VCPU: u32 = 8;

/// Invocations one execution environment of `vcpus` serves at once when its
/// function sets no `PerExecutionEnvironmentMaxConcurrency`: 8 per whole
/// vCPU, at least 8.
pub fn default_max_concurrency(vcpus: f64) -> u32 {
    (vcpus.floor().max(1.0) as u32).saturating_mul(RUST_CONCURRENCY_PER_VCPU)
}

/// The shape of a known instance type.
pub fn instance_shape(name: &str) -> Option<InstanceShape> {
    INSTANCE_SHAPES.iter().find(|s| s.name == name).copied()
}

/// The names of the known types, for error messages.
pub fn known_instance_types() -> Vec<&'static str> {
    INSTANCE_SHAPES.iter().map(|s| s.name).collect()
}

/// The type a capacity provider that names none runs on, in the local cloud
/// and in the bill. Lambda picks among "all compatible instance types" (the
/// Lambda API's `InstanceRequirements`) without saying which; AWS's LMI
/// pricing calculator starts from `.xlarge` (its default `c7g.xlarge`), so
/// the compute-optimised `.xlarge` of the architecture.
pub fn default_instance_type(architecture: &str) -> &'static str {
    if architecture == "arm64" {
        "c7g.xlarge"
    } else {
        "c7i.xlarge"
    }
}

/// The type local clouds before metrics version 8 placed environments on
/// where a provider named none (`.large`, without the OS reservation): a
/// run they recorded on it named no type.
pub fn former_default_instance_type(architecture: &str) -> &'static str {
    if architecture == "arm64" {
        "c7g.large"
    } else {
        "c7i.large"
    }
}

/// The type a capacity provider of `architecture` runs on, read as
/// `InstanceRequirements` reads: the first of `allowed` (CloudFormation
/// `AllowedInstanceTypes`, SAM `AllowedTypes`) that is known and of the
/// architecture; with none allowed, [`default_instance_type`] unless
/// `excluded` (`ExcludedInstanceTypes`, "should not use, even if they meet
/// other requirements"), else the first known type of the architecture that
/// is not. The local cloud's fleet and the cost model's both choose so. An
/// error names what was asked and what is known.
pub fn choose_instance_type(
    architecture: &str,
    allowed: &[String],
    excluded: &[String],
) -> Result<&'static str, String> {
    let default = default_instance_type(architecture);
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
            for default in [
                default_instance_type(arch),
                former_default_instance_type(arch),
            ] {
                let shape = instance_shape(default).unwrap();
                assert_eq!(shape.architecture, arch);
            }
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
        assert_eq!(general.free_for_environments(), (3.0, 15.0));
    }

    #[test]
    fn the_default_concurrency_is_8_per_whole_vcpu() {
        assert_eq!(default_max_concurrency(1.0), 8);
        assert_eq!(default_max_concurrency(2.0), 16);
        assert_eq!(default_max_concurrency(1.5), 8);
        assert_eq!(default_max_concurrency(0.5), 8);
    }

    #[test]
    fn instance_types_are_chosen_as_instance_requirements_allow() {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(choose_instance_type("x86_64", &[], &[]), Ok("c7i.xlarge"));
        assert_eq!(choose_instance_type("arm64", &[], &[]), Ok("c7g.xlarge"));
        // The first allowed type known here and of the architecture.
        let allowed = names(&["r8g.medium", "c7g.large", "m7g.xlarge"]);
        assert_eq!(
            choose_instance_type("arm64", &allowed, &[]),
            Ok("c7g.large")
        );
        // An excluded default gives way to the first type not excluded.
        let excluded = names(&["c7i.xlarge", "c7i.large"]);
        assert_eq!(
            choose_instance_type("x86_64", &[], &excluded),
            Ok("m7i.large")
        );
        // Nothing of the architecture allowed: an error naming the lists.
        let err = choose_instance_type("x86_64", &names(&["c7g.large"]), &[]).unwrap_err();
        assert!(err.contains("x86_64") && err.contains("c7g.large"), "{err}");
    }
}
