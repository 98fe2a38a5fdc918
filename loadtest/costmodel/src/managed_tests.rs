use super::*;
use crate::prices::PriceTable;

fn demand(name: &str, seconds: f64, cpu_seconds: f64) -> FunctionDemand {
    FunctionDemand {
        name: name.into(),
        invocations_per_request: 1.0,
        seconds_per_invocation: seconds,
        cpu_seconds_per_invocation: cpu_seconds,
    }
}

#[test]
fn a_slow_io_bound_function_is_sized_by_its_invocations_in_flight() {
    // GIVEN the orders back end: 500 ms per invocation, 1 ms of CPU
    let orders = [demand("backend", 0.5, 0.001)];
    // WHEN it runs at 100 requests/s on c7g.large, 2 GiB and 1 vCPU per environment
    let fleet = fleet(&orders, 100.0, &FleetSettings::default()).unwrap();
    // THEN 50 invocations are in flight, 8 per environment: 7 environments
    let backend = &fleet.functions[0];
    assert!((backend.in_flight - 50.0).abs() < 1e-9);
    assert_eq!(fleet.max_concurrency, 8);
    assert_eq!(
        (backend.environments, backend.bound),
        (7, Bound::Concurrency)
    );
    // AND two 1-vCPU environments fit on a 2-vCPU, 4 GiB instance: 4 instances
    assert_eq!(fleet.environments_per_instance, 2);
    assert_eq!((fleet.instances, fleet.bound), (4, Bound::Packing));
}

#[test]
fn at_a_low_rate_the_minimum_fleet_is_what_is_billed() {
    let fleet = fleet(&[demand("f", 0.02, 0.002)], 1.0, &FleetSettings::default()).unwrap();
    assert_eq!(
        (fleet.functions[0].environments, fleet.functions[0].bound),
        (3, Bound::Minimum)
    );
    assert_eq!((fleet.instances, fleet.bound), (3, Bound::Minimum));
}

#[test]
fn a_cpu_bound_function_is_sized_to_the_target_utilisation() {
    // 1,000 requests/s x 4 ms of CPU = 4 busy vCPUs; at 50 %, 8 one-vCPU environments
    let fleet = fleet(
        &[demand("f", 0.005, 0.004)],
        1000.0,
        &FleetSettings::default(),
    )
    .unwrap();
    let f = &fleet.functions[0];
    assert!((f.busy_vcpus - 4.0).abs() < 1e-9);
    assert_eq!((f.environments, f.bound), (8, Bound::Cpu));
    assert_eq!(fleet.instances, 4);
}

#[test]
fn each_function_keeps_its_own_minimum_of_environments() {
    // four services at a low rate: 4 x 3 environments, 2 per instance
    let services: Vec<FunctionDemand> = ["users", "profiles", "articles", "comments"]
        .iter()
        .map(|n| demand(n, 0.01, 0.001))
        .collect();
    let fleet = fleet(&services, 10.0, &FleetSettings::default()).unwrap();
    assert_eq!(fleet.instances, 6);
    // AND on an instance with room for four, 3 instances remain the floor
    let bigger = FleetSettings {
        instance_type: "c7g.xlarge".into(),
        ..FleetSettings::default()
    };
    let fleet = super::fleet(&services, 10.0, &bigger).unwrap();
    assert_eq!((fleet.environments_per_instance, fleet.instances), (4, 3));
}

#[test]
fn settings_lmi_refuses_are_refused() {
    let d = [demand("f", 0.1, 0.01)];
    let refused = |settings: FleetSettings| fleet(&d, 1.0, &settings).is_err();
    let base = FleetSettings::default;
    assert!(refused(FleetSettings {
        environment_memory_gib: 1.0,
        ..base()
    }));
    assert!(refused(FleetSettings {
        memory_gib_per_vcpu: 1.0,
        ..base()
    }));
    assert!(refused(FleetSettings {
        max_concurrency: Some(0),
        ..base()
    }));
    assert!(refused(FleetSettings {
        instance_type: "t3.nano".into(),
        ..base()
    }));
    // an 8 GiB environment does not fit on a 4 GiB instance
    assert!(refused(FleetSettings {
        environment_memory_gib: 8.0,
        ..base()
    }));
    assert!(fleet(&d, f64::NAN, &base()).is_err());
    assert!(fleet(&[demand("f", -1.0, 0.0)], 1.0, &base()).is_err());
}

const PRICES: &str = "# version: test\n\
region,architecture,service,item,kind,unit,quantity,usd,monthly_from,effective_date,source\n\
us-east-1,arm64,ec2,c7g.large,price,instance-hour,1,0.0725,,2026-01-01,test\n\
us-east-1,any,lambda,managed_instances_fee,metering,share of the EC2 on-demand price,0.15,,,2025-11-30,test\n";

fn line(service: &str, price_item: &str, usd: f64) -> CostLine {
    CostLine {
        service: service.into(),
        item: price_item.into(),
        resource: String::new(),
        quantity: 1.0,
        unit: "unit".into(),
        price_usd: usd,
        price_per: 1.0,
        usd,
        price_item: price_item.into(),
        architecture: "any".into(),
    }
}

#[test]
fn the_managed_month_swaps_duration_for_instances_and_the_fee() {
    // GIVEN an on-demand month of 720 h: requests $51.84, duration $300,
    // API Gateway $259.20, a duration volume tier and the Lambda free tier
    let on_demand = MonthlyCost {
        requests_per_second: 100.0,
        hours_per_month: 720.0,
        requests_per_month: 259_200_000.0,
        lines: vec![
            line("lambda", "requests", 51.84),
            line("lambda", "duration", 300.0),
            line("apigateway", "http_requests", 259.20),
        ],
        volume_discounts: vec![line("lambda", "duration", -10.0)],
        free_tier: vec![
            line("lambda", "requests", -0.20),
            line("lambda", "duration", -6.67),
            line("apigateway", "http_requests", -1.0),
        ],
        usd_without_free_tier: 601.04,
        usd_with_free_tier: 593.17,
        usd_per_million_requests_with_free_tier: 593.17 / 259.2,
    };
    let table = PriceTable::parse(PRICES).unwrap();
    let prices = table.region("us-east-1", None).unwrap();
    let fleet = fleet(
        &[demand("backend", 0.5, 0.001)],
        100.0,
        &FleetSettings::default(),
    )
    .unwrap();
    // WHEN it is billed on 4 c7g.large instances
    let managed = managed_monthly(&on_demand, &fleet, &prices).unwrap();
    // THEN by hand: 4 x 720 h x $0.0725 = $208.80, the fee 15 % of it = $31.32
    let usd = |item: &str| {
        managed
            .lines
            .iter()
            .find(|l| l.price_item == item)
            .map(|l| l.usd)
            .unwrap()
    };
    assert!((usd("c7g.large") - 208.80).abs() < 1e-9);
    assert!((usd(FEE_ITEM) - 31.32).abs() < 1e-9);
    // AND no duration line, tier or free allowance of Lambda's is left
    assert!(!managed.lines.iter().any(|l| l.price_item == "duration"));
    assert!(managed.volume_discounts.is_empty());
    assert_eq!(managed.free_tier.len(), 1);
    // AND the total: 51.84 + 259.20 + 208.80 + 31.32 - 1.00 = 550.16
    assert!((managed.usd_with_free_tier - 550.16).abs() < 1e-9);
    assert!((managed.usd_without_free_tier - 551.16).abs() < 1e-9);
    assert!((managed.usd_per_million_requests_with_free_tier - 550.16 / 259.2).abs() < 1e-9);
    assert_eq!(managed.requests_per_month, on_demand.requests_per_month);
}

#[test]
fn an_instance_type_the_price_table_lacks_is_an_error() {
    let table = PriceTable::parse(PRICES).unwrap();
    let prices = table.region("us-east-1", None).unwrap();
    let settings = FleetSettings {
        instance_type: "m7g.large".into(),
        ..FleetSettings::default()
    };
    let fleet = fleet(&[demand("f", 0.1, 0.01)], 1.0, &settings).unwrap();
    let on_demand = MonthlyCost {
        requests_per_second: 1.0,
        hours_per_month: 720.0,
        requests_per_month: 2_592_000.0,
        lines: vec![],
        volume_discounts: vec![],
        free_tier: vec![],
        usd_without_free_tier: 0.0,
        usd_with_free_tier: 0.0,
        usd_per_million_requests_with_free_tier: 0.0,
    };
    assert!(matches!(
        managed_monthly(&on_demand, &fleet, &prices),
        Err(CostError::MissingItem { .. })
    ));
}
