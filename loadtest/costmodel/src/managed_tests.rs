use super::*;
use crate::prices::PriceTable;

fn demand(name: &str, seconds: f64, cpu_seconds: f64) -> FunctionDemand {
    FunctionDemand {
        name: name.into(),
        invocations_per_request: 1.0,
        seconds_per_invocation: seconds,
        cpu_seconds_per_invocation: cpu_seconds,
        max_concurrency: None,
    }
}

#[test]
fn a_functions_own_concurrency_sizes_its_environments() {
    // GIVEN the orders back end at 200 requests/s (100 invocations in
    // flight), recorded serving 64 at once per environment, beside one
    // that recorded none
    let backend = FunctionDemand {
        max_concurrency: Some(64),
        ..demand("backend", 0.5, 0.001)
    };
    let other = demand("other", 0.5, 0.001);
    // WHEN its fleet is sized with AWS's defaults
    let sized = fleet(&[backend, other], 200.0, &FleetSettings::default()).unwrap();
    // THEN it has ceil(100 / 64) = 2 environments, kept at the minimum 3,
    // while the other has 100 / 8 = 13 at the settings' default
    let (backend, other) = (&sized.functions[0], &sized.functions[1]);
    assert_eq!(backend.max_concurrency, 64);
    assert_eq!((backend.environments, backend.bound), (3, Bound::Minimum));
    assert_eq!((other.max_concurrency, other.environments), (8, 13));
    assert_eq!(sized.max_concurrency, 8);
    // AND (3 + 13) environments, three per c7i.xlarge, take 6 instances
    assert_eq!((sized.instances, sized.bound), (6, Bound::Packing));
    // AND a recorded concurrency outside Lambda's 1-1,600 is refused
    let bad = FunctionDemand {
        max_concurrency: Some(0),
        ..demand("bad", 0.5, 0.001)
    };
    assert!(fleet(&[bad], 1.0, &FleetSettings::default()).is_err());
}

#[test]
fn a_slow_io_bound_function_is_sized_by_its_invocations_in_flight() {
    // GIVEN the orders back end: 500 ms per invocation, 1 ms of CPU
    let orders = [demand("backend", 0.5, 0.001)];
    // WHEN it runs at 200 requests/s with AWS's defaults: x86_64, 2 GiB and
    // 1 vCPU per environment, on the c7i.xlarge a provider naming no type is billed
    let fleet = fleet(&orders, 200.0, &FleetSettings::default()).unwrap();
    // THEN 100 invocations are in flight, 8 per environment: 13 environments
    let backend = &fleet.functions[0];
    assert!((backend.in_flight - 100.0).abs() < 1e-9);
    assert_eq!(fleet.max_concurrency, 8);
    assert_eq!(
        (backend.environments, backend.bound),
        (13, Bound::Concurrency)
    );
    // AND a 4-vCPU, 8 GiB instance keeps 1 vCPU and 1 GiB for its OS: three
    // 1-vCPU environments fit on each, 5 instances
    assert_eq!(fleet.instance_type, "c7i.xlarge");
    assert_eq!(fleet.architecture, "x86_64");
    assert_eq!(fleet.environments_per_instance, 3);
    assert_eq!((fleet.instances, fleet.bound), (5, Bound::Packing));
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
    // three a c7i.xlarge
    assert_eq!(fleet.instances, 3);
}

#[test]
fn each_function_keeps_its_own_minimum_of_environments() {
    // four services at a low rate: 4 x 3 environments, 3 per c7i.xlarge
    let services: Vec<FunctionDemand> = ["users", "profiles", "articles", "comments"]
        .iter()
        .map(|n| demand(n, 0.01, 0.001))
        .collect();
    let fleet = fleet(&services, 10.0, &FleetSettings::default()).unwrap();
    assert_eq!((fleet.environments_per_instance, fleet.instances), (3, 4));
    // AND on a c7g.large the OS leaves room for one: 12 instances
    let large = FleetSettings::on("c7g.large", "arm64");
    let fleet = super::fleet(&services, 10.0, &large).unwrap();
    assert_eq!((fleet.environments_per_instance, fleet.instances), (1, 12));
}

#[test]
fn the_instances_are_those_the_capacity_provider_allows_of_its_architecture() {
    let d = [demand("f", 0.1, 0.01)];
    let type_of = |settings: FleetSettings| fleet(&d, 1.0, &settings).map(|f| f.instance_type);
    // arm64 functions, no type named: the arm64 .xlarge
    let arm = FleetSettings {
        architecture: "arm64".into(),
        ..FleetSettings::default()
    };
    assert_eq!(type_of(arm.clone()).unwrap(), "c7g.xlarge");
    // ExcludedInstanceTypes: the default gives way
    let excluding = FleetSettings {
        excluded_instance_types: vec!["c7g.xlarge".into(), "c7g.large".into()],
        ..arm
    };
    assert_eq!(type_of(excluding).unwrap(), "c7g.2xlarge");
    // an instance of the other architecture is refused: both sides of a
    // comparison run the functions' architecture
    assert!(type_of(FleetSettings::on("c7g.xlarge", "x86_64")).is_err());
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
    assert!(refused(FleetSettings::on("t3.nano", "x86_64")));
    // an 8 GiB environment does not fit beside the OS's 1 GiB of 8
    assert!(refused(FleetSettings {
        environment_memory_gib: 8.0,
        ..base()
    }));
    assert!(fleet(&d, f64::NAN, &base()).is_err());
    assert!(fleet(&[demand("f", -1.0, 0.0)], 1.0, &base()).is_err());
    assert!(Ec2Discount::new(1.0).is_err() && Ec2Discount::new(-0.1).is_err());
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
    let large = FleetSettings::on("c7g.large", "arm64");
    let fleet = fleet(&[demand("backend", 0.5, 0.001)], 100.0, &large).unwrap();
    // WHEN it is billed on 7 c7g.large instances (7 environments, one each)
    assert_eq!(fleet.instances, 7);
    let managed = managed_monthly(&on_demand, &fleet, &prices, Ec2Discount::NONE).unwrap();
    // THEN by hand: 7 x 720 h x $0.0725 = $365.40, the fee 15 % of it = $54.81
    let usd = |item: &str| {
        managed
            .lines
            .iter()
            .find(|l| l.price_item == item)
            .map(|l| l.usd)
            .unwrap()
    };
    assert!((usd("c7g.large") - 365.40).abs() < 1e-9);
    assert!((usd(FEE_ITEM) - 54.81).abs() < 1e-9);
    // AND no duration line, tier or free allowance of Lambda's is left
    assert!(!managed.lines.iter().any(|l| l.price_item == "duration"));
    assert!(managed.volume_discounts.is_empty());
    assert_eq!(managed.free_tier.len(), 1);
    // AND the total: 51.84 + 259.20 + 365.40 + 54.81 - 1.00 = 730.25
    assert!((managed.usd_with_free_tier - 730.25).abs() < 1e-9);
    assert!((managed.usd_without_free_tier - 731.25).abs() < 1e-9);
    assert!((managed.usd_per_million_requests_with_free_tier - 730.25 / 259.2).abs() < 1e-9);
    assert_eq!(managed.requests_per_month, on_demand.requests_per_month);
    // AND a 32 % Savings Plan takes 32 % off the instances, not off the fee:
    // 365.40 x 0.32 = 116.928 less
    let discount = Ec2Discount::new(0.32).unwrap();
    let saved = managed_monthly(&on_demand, &fleet, &prices, discount).unwrap();
    let line = saved
        .lines
        .iter()
        .find(|l| l.price_item == EC2_DISCOUNT_ITEM);
    assert!((line.unwrap().usd + 116.928).abs() < 1e-9);
    assert!((saved.usd_with_free_tier - (730.25 - 116.928)).abs() < 1e-9);
    let fee = saved.lines.iter().find(|l| l.price_item == FEE_ITEM);
    assert!((fee.unwrap().usd - 54.81).abs() < 1e-9);
}

#[test]
fn an_instance_type_the_price_table_lacks_is_an_error() {
    let table = PriceTable::parse(PRICES).unwrap();
    let prices = table.region("us-east-1", None).unwrap();
    let settings = FleetSettings::on("m7g.large", "arm64");
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
        managed_monthly(&on_demand, &fleet, &prices, Ec2Discount::NONE),
        Err(CostError::MissingItem { .. })
    ));
}
