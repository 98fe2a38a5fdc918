//! Lambda Managed Instances (LMI): what a set of functions costs a month when
//! it runs on a capacity provider's EC2 instances instead of on-demand.
//!
//! AWS bills LMI in three parts (<https://aws.amazon.com/lambda/pricing/>,
//! "Lambda Managed Instances pricing"): $0.20 per million requests, the EC2
//! instances at the EC2 price, and a compute management fee of 15 % of the
//! instances' on-demand price; "Lambda Managed Instances functions will not be
//! paying separately for the execution duration of each request". Instances
//! are billed busy or idle, so the month's bill is the fleet's size, which
//! [`fleet`] estimates from measured usage with AWS's documented rules
//! (<https://docs.aws.amazon.com/lambda/latest/dg/lambda-managed-instances-scaling.html>):
//!
//! - each function keeps at least 3 execution environments ("The default
//!   minimum is 3 execution environments across Availability Zones"), and a
//!   capacity provider launches "three [instances] by default for AZ
//!   resiliency";
//! - an environment serves at most `PerExecutionEnvironmentMaxConcurrency`
//!   invocations at once: each function's as a run recorded it
//!   ([`FunctionDemand::max_concurrency`]), else the settings', else Rust's
//!   default of 8 per vCPU
//!   (<https://docs.aws.amazon.com/lambda/latest/dg/lambda-managed-instances-rust.html>,
//!   `localcloud_metrics::instances::default_max_concurrency`), so the
//!   invocations in flight (rate x invocations per request x seconds each:
//!   Little's law) set a floor;
//! - the scaler keeps CPU utilisation at a target that leaves "enough headroom
//!   for your traffic to double within 5 minutes without throttles"; AWS gives
//!   no number, and doubling needs half the fleet idle: 50 % by default here;
//! - each instance keeps 1 vCPU and 1 GiB for the operating system (AWS's
//!   LMI pricing calculator; `localcloud_metrics::instances::OS_RESERVED_VCPUS`);
//! - the instances are of the functions' architecture, of the type the
//!   capacity provider's `InstanceRequirements` allow; where they name none,
//!   the `.xlarge` AWS's calculator starts from
//!   (`localcloud_metrics::instances::default_instance_type`), the local
//!   cloud's fleet's too.
//!
//! Savings Plans and reserved instances discount the EC2 part of the bill;
//! the management fee stays 15 % of the on-demand price ([`managed_monthly`]).

use serde::{Deserialize, Serialize};

use crate::error::{CostError, Result};
use crate::line::CostLine;
use crate::monthly::MonthlyCost;
use crate::prices::{LineKind, RegionPrices};

/// The price table's service for instance-hours, one item per instance type.
pub const EC2_SERVICE: &str = "ec2";
/// The price table's management fee: a `metering` line whose quantity is the
/// fee's share of the instances' on-demand price.
pub const FEE_ITEM: &str = "managed_instances_fee";
/// A month's Savings Plans or reserved-instance discount on the instances
/// (a negative line under the instances' heading).
pub const EC2_DISCOUNT_ITEM: &str = "ec2_discount";

pub use localcloud_metrics::instances::{InstanceShape, INSTANCE_SHAPES};

pub fn instance_shape(name: &str) -> Result<InstanceShape> {
    localcloud_metrics::instances::instance_shape(name).ok_or_else(|| {
        CostError::InvalidUsage(format!(
            "unknown instance type `{name}`; known: {}",
            localcloud_metrics::instances::known_instance_types().join(", ")
        ))
    })
}

/// What one function asks of the fleet, per public request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionDemand {
    pub name: String,
    pub invocations_per_request: f64,
    /// Wall time of one invocation, in seconds: it holds a concurrency slot
    /// that long.
    pub seconds_per_invocation: f64,
    /// CPU time of one invocation, in seconds.
    pub cpu_seconds_per_invocation: f64,
    /// Its `PerExecutionEnvironmentMaxConcurrency` as a run on LMI recorded
    /// it; `None`: [`FleetSettings::max_concurrency`].
    #[serde(default)]
    pub max_concurrency: Option<u32>,
}

/// The capacity provider and the functions' `CapacityProviderConfig`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FleetSettings {
    /// `InstanceRequirements.Architectures`: the functions' architecture,
    /// which the instances share (SAM's default `x86_64`).
    pub architecture: String,
    /// `AllowedInstanceTypes`; empty: any type LMI picks.
    pub allowed_instance_types: Vec<String>,
    /// `ExcludedInstanceTypes`.
    pub excluded_instance_types: Vec<String>,
    /// Each function's `MemorySize`, in GiB (LMI's smallest is 2).
    pub environment_memory_gib: f64,
    /// `ExecutionEnvironmentMemoryGiBPerVCpu`: 2, 4 or 8.
    pub memory_gib_per_vcpu: f64,
    /// `PerExecutionEnvironmentMaxConcurrency` of the functions whose
    /// demand does not carry their own; `None`: 8 per vCPU.
    pub max_concurrency: Option<u32>,
    /// Execution environments each function keeps (AWS's default 3).
    pub min_environments: u32,
    /// Instances the capacity provider keeps (AWS launches 3).
    pub min_instances: u32,
    /// CPU utilisation the scaler keeps the environments at, 0-1.
    pub target_cpu_utilisation: f64,
}

impl Default for FleetSettings {
    fn default() -> Self {
        Self {
            architecture: "x86_64".into(),
            allowed_instance_types: Vec::new(),
            excluded_instance_types: Vec::new(),
            environment_memory_gib: 2.0,
            memory_gib_per_vcpu: 2.0,
            max_concurrency: None,
            min_environments: 3,
            min_instances: 3,
            target_cpu_utilisation: localcloud_metrics::instances::DEFAULT_TARGET_CPU_UTILISATION,
        }
    }
}

impl FleetSettings {
    /// The settings of a provider of `architecture` that allows only `instance_type`.
    pub fn on(instance_type: &str, architecture: &str) -> Self {
        Self {
            architecture: architecture.into(),
            allowed_instance_types: vec![instance_type.into()],
            ..Self::default()
        }
    }

    /// The type the fleet is billed on: the provider's choice
    /// ([`localcloud_metrics::instances::choose_instance_type`], as the
    /// local cloud's fleet chooses), the `.xlarge` where it names none.
    pub fn instance_type(&self) -> Result<&'static str> {
        localcloud_metrics::instances::choose_instance_type(
            &self.architecture,
            &self.allowed_instance_types,
            &self.excluded_instance_types,
        )
        .map_err(CostError::InvalidUsage)
    }
}

/// What set a count: the minimum, the invocations in flight, the CPU, or
/// (instances) how many environments fit on one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    Minimum,
    Concurrency,
    Cpu,
    Packing,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionFleet {
    pub name: String,
    pub environments: u32,
    /// Invocations in flight at the rate.
    pub in_flight: f64,
    /// vCPUs kept busy at the rate.
    pub busy_vcpus: f64,
    /// Invocations one of its environments serves at once.
    #[serde(default)]
    pub max_concurrency: u32,
    pub bound: Bound,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fleet {
    pub requests_per_second: f64,
    pub instance_type: String,
    pub architecture: String,
    pub instances: u32,
    pub bound: Bound,
    pub vcpus_per_environment: f64,
    /// The settings' concurrency: that of functions whose demand carries
    /// none (each function's is in [`FunctionFleet::max_concurrency`]).
    pub max_concurrency: u32,
    pub environments_per_instance: u32,
    pub functions: Vec<FunctionFleet>,
}

/// The fleet `demand` needs at `rate` public requests per second.
pub fn fleet(demand: &[FunctionDemand], rate: f64, settings: &FleetSettings) -> Result<Fleet> {
    validate(demand, rate, settings)?;
    let instance = instance_shape(settings.instance_type()?)?;
    let vcpus_per_environment = settings.environment_memory_gib / settings.memory_gib_per_vcpu;
    let max_concurrency = settings.max_concurrency.unwrap_or_else(|| {
        localcloud_metrics::instances::default_max_concurrency(vcpus_per_environment)
    });
    let functions: Vec<FunctionFleet> = demand
        .iter()
        .map(|d| {
            let concurrency = d.max_concurrency.unwrap_or(max_concurrency);
            function_fleet(d, rate, vcpus_per_environment, concurrency, settings)
        })
        .collect();
    let environments_per_instance =
        instance.environments_that_fit(vcpus_per_environment, settings.environment_memory_gib);
    if environments_per_instance == 0 {
        return Err(CostError::InvalidUsage(format!(
            "an execution environment of {} GiB and {vcpus_per_environment} vCPU does not fit on a {} ({} vCPU, {} GiB, of which the OS keeps 1 vCPU and 1 GiB)",
            settings.environment_memory_gib, instance.name, instance.vcpus, instance.memory_gib
        )));
    }
    let environments: u32 = functions.iter().map(|f| f.environments).sum();
    let packed = environments.div_ceil(environments_per_instance);
    let (instances, bound) = if packed > settings.min_instances {
        (packed, Bound::Packing)
    } else {
        (settings.min_instances, Bound::Minimum)
    };
    Ok(Fleet {
        requests_per_second: rate,
        instance_type: instance.name.to_string(),
        architecture: instance.architecture.to_string(),
        instances,
        bound,
        vcpus_per_environment,
        max_concurrency,
        environments_per_instance,
        functions,
    })
}

fn function_fleet(
    demand: &FunctionDemand,
    rate: f64,
    vcpus_per_environment: f64,
    max_concurrency: u32,
    settings: &FleetSettings,
) -> FunctionFleet {
    let invocations_per_second = rate * demand.invocations_per_request;
    let in_flight = invocations_per_second * demand.seconds_per_invocation;
    let busy_vcpus = invocations_per_second * demand.cpu_seconds_per_invocation;
    let count = |x: f64| x.ceil().min(f64::from(u32::MAX)) as u32;
    let candidates = [
        (settings.min_environments, Bound::Minimum),
        (
            count(in_flight / f64::from(max_concurrency)),
            Bound::Concurrency,
        ),
        (
            count(busy_vcpus / (vcpus_per_environment * settings.target_cpu_utilisation)),
            Bound::Cpu,
        ),
    ];
    // The first of the largest: a tie goes to the minimum, then concurrency.
    let (environments, bound) =
        candidates
            .into_iter()
            .fold(candidates[0], |best, c| if c.0 > best.0 { c } else { best });
    FunctionFleet {
        name: demand.name.clone(),
        environments,
        in_flight,
        busy_vcpus,
        max_concurrency,
        bound,
    }
}

fn validate(demand: &[FunctionDemand], rate: f64, settings: &FleetSettings) -> Result<()> {
    let invalid = |message: String| Err(CostError::InvalidUsage(message));
    if !(rate.is_finite() && rate >= 0.0) {
        return invalid(format!(
            "request rate {rate}/s must be a non-negative number"
        ));
    }
    // CloudFormation's LambdaManagedInstancesCapacityProviderConfig: 2-8 GiB per vCPU.
    if !(2.0..=8.0).contains(&settings.memory_gib_per_vcpu) {
        return invalid(format!(
            "memory per vCPU {} GiB is outside LMI's 2-8",
            settings.memory_gib_per_vcpu
        ));
    }
    // "The smallest supported function size is 2GB and 1vCPU" (scaling page).
    if settings.environment_memory_gib < settings.memory_gib_per_vcpu.max(2.0) {
        return invalid(format!(
            "an environment of {} GiB is below LMI's smallest (2 GiB and one vCPU at {} GiB per vCPU)",
            settings.environment_memory_gib, settings.memory_gib_per_vcpu
        ));
    }
    let concurrencies = demand.iter().filter_map(|d| d.max_concurrency);
    if settings
        .max_concurrency
        .into_iter()
        .chain(concurrencies)
        .any(|c| !(1..=1600).contains(&c))
    {
        return invalid("PerExecutionEnvironmentMaxConcurrency must be 1-1,600".into());
    }
    if !(settings.target_cpu_utilisation > 0.0 && settings.target_cpu_utilisation <= 1.0) {
        return invalid(format!(
            "target CPU utilisation {} must be in (0, 1]",
            settings.target_cpu_utilisation
        ));
    }
    for d in demand {
        let figures = [
            d.invocations_per_request,
            d.seconds_per_invocation,
            d.cpu_seconds_per_invocation,
        ];
        if figures.iter().any(|x| !(x.is_finite() && *x >= 0.0)) {
            return invalid(format!("{}: negative or non-finite demand", d.name));
        }
    }
    Ok(())
}

/// `hours` of an `instance_type` instance at its EC2 on-demand price, and
/// the Lambda management fee on them, billed to `resource`.
pub fn instance_lines(
    instance_type: &str,
    resource: &str,
    hours: f64,
    prices: &RegionPrices<'_>,
) -> Result<[CostLine; 2]> {
    let instance = instance_shape(instance_type)?;
    let ec2 = prices.get_for(
        EC2_SERVICE,
        instance.name,
        LineKind::Price,
        instance.architecture,
    )?;
    let fee_share = prices.get("lambda", FEE_ITEM, LineKind::Metering)?.quantity;
    let instances = CostLine::priced(
        ec2,
        &format!("instances ({})", instance.name),
        resource,
        hours,
    );
    let fee = CostLine {
        service: "lambda".into(),
        item: format!(
            "management fee ({} % of the instances' on-demand price)",
            fee_share * 100.0
        ),
        price_usd: ec2.usd_per_unit() * fee_share,
        price_per: 1.0,
        usd: instances.usd * fee_share,
        price_item: FEE_ITEM.into(),
        ..instances.clone()
    };
    Ok([instances, fee])
}

/// A Savings Plans or reserved-instance discount on the EC2 part of an LMI
/// bill: a share of the instances' on-demand price, from 0 up to (not
/// including) 1. The management fee is not discounted: it is "15 % of the
/// instances' on-demand price" whatever the instances cost.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Ec2Discount(f64);

impl Ec2Discount {
    pub const NONE: Self = Self(0.0);

    pub fn new(share: f64) -> Result<Self> {
        if (0.0..1.0).contains(&share) {
            Ok(Self(share))
        } else {
            Err(CostError::InvalidUsage(format!(
                "an EC2 discount is a share from 0 up to 1 (0.32 for 32 %), got {share}"
            )))
        }
    }

    pub fn share(self) -> f64 {
        self.0
    }

    /// The discount on `instances`, a negative line under their heading;
    /// `None` without a discount.
    fn line(self, instances: &CostLine) -> Option<CostLine> {
        (self.0 > 0.0).then(|| CostLine {
            item: format!(
                "Savings Plans or reserved discount ({} % of the instances)",
                self.0 * 100.0
            ),
            price_usd: -instances.usd_per_unit() * self.0,
            price_per: 1.0,
            usd: -instances.usd * self.0,
            price_item: EC2_DISCOUNT_ITEM.into(),
            ..instances.clone()
        })
    }
}

/// The on-demand month `on_demand` billed on `fleet` instead: Lambda's
/// duration lines (with their volume tiers and free GB-seconds) give way to
/// the instances (less `discount`) and the management fee for every hour of
/// the month; Lambda's requests are billed at the same $0.20 per million but
/// without the on-demand free tier (AWS does not say it applies to LMI);
/// every other line (API Gateway, SQS, DynamoDB, logs, data transfer) is the
/// same traffic's and stays.
pub fn managed_monthly(
    on_demand: &MonthlyCost,
    fleet: &Fleet,
    prices: &RegionPrices<'_>,
    discount: Ec2Discount,
) -> Result<MonthlyCost> {
    let instance_hours = f64::from(fleet.instances) * on_demand.hours_per_month;
    let [instances, fee] = instance_lines(&fleet.instance_type, "", instance_hours, prices)?;
    let discounted = discount.line(&instances);
    // Duration, and instances a measured LMI run was billed (its month is
    // the fleet's, whatever the run's share was).
    let kept = |l: &&CostLine| {
        !(l.service == "lambda" && l.price_item == "duration"
            || l.service == EC2_SERVICE
            || l.price_item == FEE_ITEM)
    };
    let not_lambda = |l: &&CostLine| l.service != "lambda";
    let mut lines: Vec<CostLine> = on_demand.lines.iter().filter(kept).cloned().collect();
    lines.extend([instances, fee].into_iter().chain(discounted));
    let volume_discounts: Vec<CostLine> = on_demand
        .volume_discounts
        .iter()
        .filter(kept)
        .cloned()
        .collect();
    let free_tier: Vec<CostLine> = on_demand
        .free_tier
        .iter()
        .filter(not_lambda)
        .cloned()
        .collect();
    Ok(MonthlyCost::totalled(
        on_demand.requests_per_second,
        on_demand.hours_per_month,
        on_demand.requests_per_month,
        lines,
        volume_discounts,
        free_tier,
    ))
}

#[cfg(test)]
#[path = "managed_tests.rs"]
mod tests;
