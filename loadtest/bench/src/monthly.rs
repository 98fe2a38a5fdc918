//! The monthly bill at the user's rate (`bench cost`): each scenario run's
//! measured usage per successful request, scaled to a 30-day month of steady
//! traffic at R successful requests per second and priced by `costmodel`'s
//! monthly figures (the volume tiers on the month's totals, the always-free
//! allowances apart), every bill heading, per scenario and architecture, with
//! the rates where two architectures' bills cross ([`crate::break_even`]).

use costmodel::bill::{lines_by_heading, BillLine};
use costmodel::managed::{Ec2Discount, Fleet, FleetSettings, FunctionDemand};
use costmodel::{
    CostOptions, FunctionUsage, MonthlyCost, PriceTable, QueueUsage, TableUsage, Usage,
};
use serde::{Deserialize, Serialize};

use crate::apis::ApiKind;
use crate::break_even::{break_even, BreakEven};
use crate::compute::ComputeType;
use crate::pass::Pass;
use crate::results::{RecordKind, Results, RunRecord};

/// A 30-day month (the AWS Pricing Calculator's is 730 h; a round month
/// makes the figures checkable by hand).
pub const HOURS_PER_MONTH: f64 = 720.0;
/// The report's rates, successful requests per second.
pub const STANDARD_RATES: [f64; 4] = [1.0, 10.0, 100.0, 1000.0];
/// How close the usage rebuilt from `results.json` must price the run to
/// the bill the run recorded.
const REPRODUCED: f64 = 1e-6;

#[derive(Debug, thiserror::Error)]
pub enum MonthlyError {
    #[error("a rate must be a positive number of requests per second, got {0}")]
    Rate(f64),
    #[error("no scenario run here has a bill (metering, a price and successful requests): nothing to price")]
    NothingToPrice,
    #[error("{run}: price table {ours} does not price it as the run's table {results} did (${rebuilt} against ${recorded}): pass the run's table with --prices")]
    PriceTable {
        run: String,
        results: String,
        ours: String,
        rebuilt: f64,
        recorded: f64,
    },
    #[error("{run}: its metering prices the run at ${rebuilt}, not the ${recorded} it recorded: its usage cannot be rebuilt from results.json")]
    NotReproduced {
        run: String,
        rebuilt: f64,
        recorded: f64,
    },
    #[error("{run}: {source}")]
    Cost {
        run: String,
        #[source]
        source: costmodel::CostError,
    },
}

/// `bench cost --json`: the monthly bills of every scenario run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MonthlyBills {
    /// The run the usage was measured in.
    pub git_commit: String,
    pub started_at: String,
    pub region: String,
    /// The table the run was priced with.
    pub price_table_version: String,
    /// The table these bills were priced with: the run's, or a newer one
    /// that prices the run as the run's did (it only adds lines).
    #[serde(default)]
    pub priced_with: String,
    pub price_date: Option<String>,
    pub log_retention_days: Option<f64>,
    /// The Lambda architecture the durations were measured and priced on.
    pub lambda_architecture: String,
    /// The Savings Plans or reserved discount on LMI's instances (a share).
    #[serde(default)]
    pub ec2_discount: f64,
    pub hours_per_month: f64,
    pub rates: Vec<f64>,
    pub scenarios: Vec<ScenarioBills>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScenarioBills {
    pub scenario: String,
    pub architectures: Vec<ArchitectureBills>,
    /// Every pair of architectures, in the order they were run.
    pub break_even: Vec<BreakEven>,
}

/// One architecture (variant, its front door and setting) of a scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArchitectureBills {
    pub architecture: String,
    /// The run's successful requests: every figure is per one of them.
    pub successes: u64,
    /// One bill per rate, in the order asked.
    pub bills: Vec<MonthlyBill>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MonthlyBill {
    pub requests_per_second: f64,
    /// Successful requests in the month.
    pub requests_per_month: f64,
    /// Every bill heading, volume tiers applied, no free tier.
    pub lines: Vec<BillLine>,
    pub total_usd: f64,
    /// The always-free allowances (negative): the account's, once, whatever
    /// else it runs.
    pub free_tier_usd: f64,
    pub total_with_free_tier_usd: f64,
    /// On Lambda Managed Instances: the fleet the month pays for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fleet: Option<Fleet>,
}

/// Which compute the bills are for. The fleet settings' architecture is
/// each run's own: on-demand and LMI are compared on one architecture.
#[derive(Debug, Clone, PartialEq)]
pub enum Compute {
    /// On-demand Lambda, as the run measured it.
    OnDemand,
    /// Lambda Managed Instances, a fleet sized from the measured usage.
    Managed(FleetSettings),
    /// Both, side by side, with the rate where they cross.
    Both(FleetSettings),
}

impl Compute {
    fn on_demand(&self) -> bool {
        !matches!(self, Self::Managed(_))
    }

    fn managed(&self) -> Option<&FleetSettings> {
        match self {
            Self::OnDemand => None,
            Self::Managed(settings) | Self::Both(settings) => Some(settings),
        }
    }
}

/// One architecture as billed: its usage per success, and on LMI what each
/// function asks of the fleet.
struct Billed {
    name: String,
    /// The architecture whatever the compute (the on-demand name).
    architecture: String,
    usage: Usage,
    managed: Option<(Vec<FunctionDemand>, FleetSettings)>,
}

impl MonthlyBill {
    /// The dollars under one bill heading (0 for a heading it does not have).
    pub fn line_usd(&self, heading: &str) -> f64 {
        self.lines
            .iter()
            .filter(|l| l.heading == heading)
            .map(|l| l.usd)
            .sum()
    }
}

/// The price table and options the run was priced with, for a month.
pub struct MonthPricing {
    prices: PriceTable,
    region: String,
    run_options: CostOptions,
    /// The table the runs were priced with.
    run_table: String,
    /// Off LMI's instances (not off its fee), every LMI month.
    ec2_discount: Ec2Discount,
}

fn bill_of(rate: f64, month: MonthlyCost, fleet: Option<Fleet>) -> MonthlyBill {
    let free_tier_usd: f64 = month.free_tier.iter().map(|l| l.usd).sum();
    MonthlyBill {
        requests_per_second: rate,
        requests_per_month: month.requests_per_month,
        lines: lines_by_heading(month.lines.iter().chain(&month.volume_discounts)),
        total_usd: month.usd_without_free_tier,
        free_tier_usd,
        total_with_free_tier_usd: month.usd_with_free_tier,
        fleet,
    }
}

impl MonthPricing {
    /// `prices` must price the runs of `results` as they were priced: the
    /// table they were priced with, or a newer one that only adds lines
    /// (checked run by run by [`monthly_bills`]).
    pub fn new(results: &Results, prices: PriceTable) -> Result<Self, MonthlyError> {
        let run_options = CostOptions {
            price_date: results.price_date.clone(),
            log_retention_days: results.log_retention_days,
            ..CostOptions::default()
        };
        Ok(Self {
            prices,
            region: results.region.clone(),
            run_options,
            run_table: results.price_table_version.clone(),
            ec2_discount: Ec2Discount::NONE,
        })
    }

    /// Every LMI month with `discount` off its instances: Savings Plans or
    /// reserved instances (`bench cost --ec2-discount`).
    pub fn with_ec2_discount(self, discount: Ec2Discount) -> Self {
        Self {
            ec2_discount: discount,
            ..self
        }
    }

    fn month_at(&self, usage: &Usage, rate: f64) -> Result<MonthlyCost, costmodel::CostError> {
        let options = CostOptions {
            requests_per_second: Some(rate),
            hours_per_month: HOURS_PER_MONTH,
            ..self.run_options.clone()
        };
        let breakdown = costmodel::cost(usage, &self.prices, &self.region, &options)?;
        breakdown.monthly.ok_or_else(|| {
            costmodel::CostError::InvalidUsage("no monthly figures at a rate".into())
        })
    }

    /// The bill of a month at `rate` successful requests per second, `usage`
    /// being one run's per its successful requests.
    pub fn bill_at(&self, usage: &Usage, rate: f64) -> Result<MonthlyBill, costmodel::CostError> {
        Ok(bill_of(rate, self.month_at(usage, rate)?, None))
    }

    /// The same month on Lambda Managed Instances: the fleet `demand` needs
    /// at `rate` in place of Lambda's duration (`costmodel::managed`).
    pub fn managed_bill_at(
        &self,
        usage: &Usage,
        demand: &[FunctionDemand],
        settings: &FleetSettings,
        rate: f64,
    ) -> Result<MonthlyBill, costmodel::CostError> {
        let on_demand = self.month_at(usage, rate)?;
        let fleet = costmodel::managed::fleet(demand, rate, settings)?;
        let prices = self
            .prices
            .region(&self.region, self.run_options.price_date.as_deref())?;
        let month =
            costmodel::managed::managed_monthly(&on_demand, &fleet, &prices, self.ec2_discount)?;
        Ok(bill_of(rate, month, Some(fleet)))
    }

    fn billed_at(&self, billed: &Billed, rate: f64) -> Result<MonthlyBill, costmodel::CostError> {
        match &billed.managed {
            None => self.bill_at(&billed.usage, rate),
            Some((demand, settings)) => self.managed_bill_at(&billed.usage, demand, settings, rate),
        }
    }

    /// Fails unless `usage` prices the run `r` as it was priced when it ran.
    fn check_reproduces(&self, r: &RunRecord, usage: &Usage) -> Result<(), MonthlyError> {
        let recorded = r.cost.as_ref().map_or(0.0, |c| c.total_usd);
        let rebuilt = costmodel::cost(usage, &self.prices, &self.region, &self.run_options)
            .map_err(|source| MonthlyError::Cost {
                run: architecture(r),
                source,
            })?
            .total_usd;
        if (rebuilt - recorded).abs() > REPRODUCED * recorded.abs().max(1e-12) {
            let run = format!("{} / {}", r.scenario, architecture(r));
            if self.prices.version() != self.run_table {
                return Err(MonthlyError::PriceTable {
                    run,
                    results: self.run_table.clone(),
                    ours: self.prices.version().to_string(),
                    rebuilt,
                    recorded,
                });
            }
            return Err(MonthlyError::NotReproduced {
                run,
                rebuilt,
                recorded,
            });
        }
        Ok(())
    }
}

/// Every scenario run priced for a month at each of `rates`, on-demand, with
/// the break-even rates between the architectures of each scenario.
pub fn monthly_bills(
    results: &Results,
    pricing: &MonthPricing,
    rates: &[f64],
) -> Result<MonthlyBills, MonthlyError> {
    monthly_bills_for(results, pricing, rates, &Compute::OnDemand)
}

/// [`monthly_bills`] on the compute asked: each architecture on-demand, on
/// Lambda Managed Instances, or both (then each is also compared with its
/// other self: the rate where LMI becomes the cheaper).
pub fn monthly_bills_for(
    results: &Results,
    pricing: &MonthPricing,
    rates: &[f64],
    compute: &Compute,
) -> Result<MonthlyBills, MonthlyError> {
    if let Some(bad) = rates.iter().find(|r| !(r.is_finite() && **r > 0.0)) {
        return Err(MonthlyError::Rate(*bad));
    }
    let mut scenarios: Vec<(ScenarioBills, Vec<Billed>)> = Vec::new();
    let mut lambda_architecture = None;
    for r in &results.records {
        let Some(usage) = usage_per_success(r) else {
            continue;
        };
        pricing.check_reproduces(r, &usage)?;
        lambda_architecture = r.cost.as_ref().map(|c| c.architecture.clone());
        let billed_as = billed_as(r, usage, compute).map_err(|source| MonthlyError::Cost {
            run: architecture(r),
            source,
        })?;
        for billed in billed_as {
            let bills = rates
                .iter()
                .map(|rate| pricing.billed_at(&billed, *rate))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|source| MonthlyError::Cost {
                    run: billed.name.clone(),
                    source,
                })?;
            let bills = ArchitectureBills {
                architecture: billed.name.clone(),
                successes: r.summary.successes,
                bills,
            };
            match scenarios.iter_mut().find(|(s, _)| s.scenario == r.scenario) {
                Some((scenario, runs)) => {
                    scenario.architectures.push(bills);
                    runs.push(billed);
                }
                None => scenarios.push((
                    ScenarioBills {
                        scenario: r.scenario.clone(),
                        architectures: vec![bills],
                        break_even: Vec::new(),
                    },
                    vec![billed],
                )),
            }
        }
    }
    if scenarios.is_empty() {
        return Err(MonthlyError::NothingToPrice);
    }
    let mut priced = Vec::new();
    for (mut scenario, runs) in scenarios {
        scenario.break_even = break_evens(pricing, &runs, rates)?;
        priced.push(scenario);
    }
    Ok(MonthlyBills {
        git_commit: results.git_commit.clone(),
        started_at: results.started_at.clone(),
        region: results.region.clone(),
        price_table_version: results.price_table_version.clone(),
        priced_with: pricing.prices.version().to_string(),
        price_date: results.price_date.clone(),
        log_retention_days: results.log_retention_days,
        lambda_architecture: lambda_architecture.unwrap_or_default(),
        ec2_discount: pricing.ec2_discount.share(),
        hours_per_month: HOURS_PER_MONTH,
        rates: rates.to_vec(),
        scenarios: priced,
    })
}

/// The ways `compute` bills a record. A run measured on Lambda Managed
/// Instances is billed as such whatever `compute` asks: the fleet its
/// measured demand needs at each rate ([`measured_on_lmi`]). A run measured
/// on-demand is billed under its own name, and on LMI as "<name> on LMI
/// (<instance type>, modelled)": a fleet of its own architecture sized from
/// the usage measured on-demand, not measured on LMI.
fn billed_as(
    r: &RunRecord,
    usage: Usage,
    compute: &Compute,
) -> Result<Vec<Billed>, costmodel::CostError> {
    let name = architecture(r);
    if r.compute == ComputeType::Managed {
        return Ok(measured_on_lmi(r, usage).into_iter().collect());
    }
    let mut billed = Vec::new();
    if let (Some(asked), Some(demand)) = (compute.managed(), demand_per_success(r)) {
        let settings = FleetSettings {
            architecture: measured_architecture(r),
            ..asked.clone()
        };
        billed.push(Billed {
            name: format!("{name} on LMI ({}, modelled)", settings.instance_type()?),
            architecture: name.clone(),
            usage: usage.clone(),
            managed: Some((demand, settings)),
        });
    }
    if compute.on_demand() {
        billed.insert(
            0,
            Billed {
                architecture: name.clone(),
                name,
                usage,
                managed: None,
            },
        );
    }
    Ok(billed)
}

/// The Lambda architecture a run was measured and priced on.
fn measured_architecture(r: &RunRecord) -> String {
    r.cost
        .as_ref()
        .map_or_else(|| "x86_64".into(), |c| c.architecture.clone())
}

/// A run measured on Lambda Managed Instances, billed as its fleet: its
/// functions' memory, memory per vCPU and concurrency as the run recorded
/// them (each function's own, [`demand_per_success`]), AWS's other
/// defaults, on the instance type its capacity provider named, else the
/// `.xlarge` the local cloud places a provider naming none on
/// (`FleetSettings::instance_type`).
fn measured_on_lmi(r: &RunRecord, usage: Usage) -> Option<Billed> {
    use localcloud_metrics::instances::{former_default_instance_type, instance_shape};
    let demand = demand_per_success(r)?;
    let functions = r.metering.as_ref()?.functions.values();
    let managed: Vec<_> = functions
        .filter_map(|f| Some((f.managed.as_ref()?, f.memory_mb)))
        .collect();
    let (first, _) = managed.first()?;
    let (largest, memory_mb) = managed.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1))?;
    let lambda_architecture = measured_architecture(r);
    // A type of the other architecture (a provider declared arm64 while the
    // binaries ran on this machine's) is priced as none named: both sides of
    // a comparison are priced at the measured architecture. So is the
    // `.large` a local cloud before metrics version 8 (a run that recorded
    // no concurrency) placed a provider naming none on.
    let of_measured_architecture = instance_shape(&first.instance_type)
        .is_some_and(|shape| shape.architecture == lambda_architecture);
    let former_default = first.max_concurrency.is_none()
        && first.instance_type == former_default_instance_type(&lambda_architecture);
    let named = (of_measured_architecture && !former_default).then(|| first.instance_type.clone());
    let defaults = FleetSettings::default();
    let settings = FleetSettings {
        architecture: lambda_architecture,
        allowed_instance_types: named.into_iter().collect(),
        environment_memory_gib: memory_mb / 1024.0,
        memory_gib_per_vcpu: largest
            .memory_gib_per_vcpu
            .unwrap_or(defaults.memory_gib_per_vcpu),
        ..defaults
    };
    Some(Billed {
        name: architecture(r),
        architecture: on_demand_name(r),
        usage,
        managed: Some((demand, settings)),
    })
}

/// Each pair of the scenario's architectures on the same compute, and each
/// architecture against itself on the other compute: where their bills
/// (without the free tier, the account's whatever it runs) cross.
fn break_evens(
    pricing: &MonthPricing,
    runs: &[Billed],
    rates: &[f64],
) -> Result<Vec<BreakEven>, MonthlyError> {
    let mut found = Vec::new();
    for (i, a) in runs.iter().enumerate() {
        let compared = |b: &&Billed| {
            a.managed.is_some() == b.managed.is_some() || a.architecture == b.architecture
        };
        for b in runs[i + 1..].iter().filter(compared) {
            let bill_a = |rate: f64| pricing.billed_at(a, rate).map(|m| m.total_usd);
            let bill_b = |rate: f64| pricing.billed_at(b, rate).map(|m| m.total_usd);
            let pair = break_even((&a.name, &bill_a), (&b.name, &bill_b), rates);
            found.push(pair.map_err(|source| MonthlyError::Cost {
                run: format!("{} against {}", a.name, b.name),
                source,
            })?);
        }
    }
    Ok(found)
}

/// The architecture a record measured: its variant, its front door unless
/// an HTTP API, its compute unless on-demand, and its setting unless the
/// template's defaults.
pub fn architecture(r: &RunRecord) -> String {
    with_setting(r, r.pass().label(&r.variant))
}

/// The same architecture on-demand: what a run on LMI is compared with.
fn on_demand_name(r: &RunRecord) -> String {
    let pass = Pass {
        compute: ComputeType::OnDemand,
        ..r.pass()
    };
    with_setting(r, pass.label(&r.variant))
}

fn with_setting(r: &RunRecord, mut name: String) -> String {
    if !r.setting.is_empty() && r.setting != "template defaults" {
        name.push_str(&format!(" [{}]", r.setting));
    }
    name
}

/// The usage a scenario run was priced from, rebuilt from its recorded
/// metering, counted per successful request (what a month at a rate of
/// successes scales); `None` for a run without metering, price or success.
pub fn usage_per_success(r: &RunRecord) -> Option<Usage> {
    let (metering, cost) = (r.metering.as_ref()?, r.cost.as_ref()?);
    if r.kind != RecordKind::Scenario || r.summary.successes == 0 {
        return None;
    }
    let lambda = metering
        .functions
        .iter()
        // An idle function on LMI still pays for its environments' instances.
        .filter(|(_, f)| f.invocations > 0.0 || f.billed_ms > 0.0 || f.managed.is_some())
        .map(|(name, f)| FunctionUsage {
            name: name.clone(),
            // Priced as the run was: on the architecture it was measured on.
            architecture: cost.architecture.clone(),
            memory_mb: f.memory_mb,
            invocations: f.invocations,
            billed_ms_total: f.billed_ms,
            // Not recorded: they only split the duration line, and its
            // GB-seconds are the billed time at the memory size, as metered.
            init_ms_total: 0.0,
            waiting_ms_total: 0.0,
            gb_seconds: None,
            managed: f.managed.clone(),
        })
        .collect();
    let mut usage = Usage {
        label: architecture(r),
        public_requests: r.summary.successes as f64,
        lambda,
        sqs: metering
            .queues
            .iter()
            .map(|(name, q)| QueueUsage {
                name: name.clone(),
                billed_requests: q.billed_requests,
            })
            .collect(),
        dynamodb: metering
            .tables
            .iter()
            .map(|(name, t)| TableUsage {
                name: name.clone(),
                read_units: t.read_units,
                write_units: t.write_units,
            })
            .collect(),
        log_bytes: metering.functions.values().map(|f| f.log_bytes).sum(),
        data_transfer_out_bytes: metering.data_transfer_out_bytes,
        ..Usage::default()
    };
    match r.api {
        ApiKind::Http => usage.api_gateway.http_requests = metering.api_requests,
        ApiKind::Rest => usage.api_gateway.rest_requests = metering.api_requests,
        // Function URLs cost nothing of their own.
        ApiKind::FunctionUrl => {}
    }
    Some(usage)
}

/// What each function of a scenario run asks of an LMI fleet per successful
/// request: its invocations, each one's time in flight and its CPU time,
/// and, measured on LMI, the concurrency its environments were configured
/// with (none in results before metrics version 8: the fleet's default).
/// In flight is the billed time without what the on-demand CPU quota held
/// back (`throttled_ms`) and this machine's contention: an LMI environment
/// has whole vCPUs. `None` for a run without metering or success.
pub fn demand_per_success(r: &RunRecord) -> Option<Vec<FunctionDemand>> {
    let metering = r.metering.as_ref()?;
    if r.kind != RecordKind::Scenario || r.summary.successes == 0 {
        return None;
    }
    let successes = r.summary.successes as f64;
    let demand = metering
        .functions
        .iter()
        .filter(|(_, f)| f.invocations > 0.0)
        .map(|(name, f)| {
            let in_flight_ms = (f.billed_ms - f.throttled_ms - f.contention_ms).max(f.cpu_ms);
            FunctionDemand {
                name: name.clone(),
                invocations_per_request: f.invocations / successes,
                seconds_per_invocation: in_flight_ms / f.invocations / 1000.0,
                cpu_seconds_per_invocation: f.cpu_ms / f.invocations / 1000.0,
                max_concurrency: f.managed.as_ref().and_then(|m| m.max_concurrency),
            }
        })
        .collect();
    Some(demand)
}

#[cfg(test)]
#[path = "monthly_tests.rs"]
mod tests;
