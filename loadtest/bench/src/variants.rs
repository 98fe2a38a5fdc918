//! The architectures under test and the template resources each one owns:
//! what its load goes to and what its bill is made of.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Experiment {
    Orders,
    Conduit,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Variant {
    pub name: &'static str,
    pub experiment: Experiment,
    /// Logical id of its HTTP API in template.yaml.
    pub api: &'static str,
    /// Its functions: metered names contain one of these logical ids (or prefixes).
    pub functions: &'static [&'static str],
    /// Its queues: names containing one of these. Empty: no queue.
    pub queues: &'static [&'static str],
}

impl Variant {
    pub fn owns_function(&self, name: &str) -> bool {
        self.functions.iter().any(|f| name.contains(f))
    }

    pub fn owns_queue(&self, arn_or_name: &str) -> bool {
        let name = arn_or_name.rsplit([':', '/']).next().unwrap_or(arn_or_name);
        self.queues.iter().any(|q| name.contains(q))
    }

    /// Logical ids of the functions a fault scenario kills: the back ends
    /// that other functions reach, never a public API function alone. In
    /// the Conduit microservices every service is both: each serves its own
    /// public routes and answers the others' requests.
    pub fn back_ends(&self) -> &'static [&'static str] {
        match self.name {
            "orders-direct" => &["OrdersBackendFunction"],
            "orders-queue" => &["OrdersWorkerFunction"],
            "conduit-micro-queue" => &[
                "ConduitMicroQueueUsersFunction",
                "ConduitMicroQueueProfilesFunction",
                "ConduitMicroQueueArticlesFunction",
                "ConduitMicroQueueCommentsFunction",
            ],
            _ => &[],
        }
    }
}

pub const ORDERS_DIRECT: Variant = Variant {
    name: "orders-direct",
    experiment: Experiment::Orders,
    api: "OrdersDirectApi",
    functions: &["OrdersDirectFunction", "OrdersBackendFunction"],
    queues: &[],
};

pub const ORDERS_QUEUE: Variant = Variant {
    name: "orders-queue",
    experiment: Experiment::Orders,
    api: "OrdersQueueApi",
    functions: &[
        "OrdersQueueFunction",
        "OrdersWorkerFunction",
        "OrdersReplySweeperFunction",
    ],
    queues: &["orders-requests", "orders-reply-"],
};

/// The Conduit variants' functions are not all in the template yet: each
/// owns the functions whose logical id starts with its prefix.
pub const CONDUIT_MONOLITH: Variant = Variant {
    name: "conduit-monolith",
    experiment: Experiment::Conduit,
    api: "ConduitApi",
    functions: &["ConduitFunction", "ConduitMonolith"],
    queues: &[],
};

pub const CONDUIT_MICRO_INVOKE: Variant = Variant {
    name: "conduit-micro-invoke",
    experiment: Experiment::Conduit,
    api: "ConduitMicroInvokeApi",
    // Its functions have fixed names (they invoke each other by name).
    functions: &["ConduitMicroInvoke", "conduit-invoke-"],
    queues: &[],
};

pub const CONDUIT_MICRO_QUEUE: Variant = Variant {
    name: "conduit-micro-queue",
    experiment: Experiment::Conduit,
    api: "ConduitMicroQueueApi",
    functions: &["ConduitMicroQueue"],
    // Request queues (`<stack>-conduit-<owner>-requests`), their DLQ, and the
    // reply queues (`<stack>-cr-<caller>-<owner>-`).
    queues: &["conduit-", "-cr-"],
};

pub const ALL: [Variant; 5] = [
    ORDERS_DIRECT,
    ORDERS_QUEUE,
    CONDUIT_MONOLITH,
    CONDUIT_MICRO_INVOKE,
    CONDUIT_MICRO_QUEUE,
];

pub fn by_name(name: &str) -> Option<Variant> {
    ALL.iter().find(|v| v.name == name).cloned()
}

pub fn of(experiment: Experiment) -> Vec<Variant> {
    ALL.iter()
        .filter(|v| v.experiment == experiment)
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_paths_own_disjoint_functions_and_queues() {
        let name = "local-OrdersBackendFunction";
        assert!(ORDERS_DIRECT.owns_function(name));
        assert!(!ORDERS_QUEUE.owns_function(name));
        let reply = "arn:aws:sqs:us-east-1:000000000000:local-orders-reply-abc";
        assert!(ORDERS_QUEUE.owns_queue(reply));
        assert!(!ORDERS_DIRECT.owns_queue(reply));
        assert!(!ORDERS_QUEUE.owns_queue("local-orders-requests-dlq-other:x"));
    }

    #[test]
    fn fault_scenarios_kill_back_ends_in_the_template_and_no_orders_api() {
        // GIVEN the template the bench runs
        let template = include_str!("../../../template.yaml");
        for variant in ALL {
            for id in variant.back_ends() {
                // THEN every back end is a function of the template and of its variant
                assert!(
                    template.contains(&format!("\n  {id}:\n    Type: AWS::Serverless::Function")),
                    "{id} is not a function of template.yaml"
                );
                assert!(variant.owns_function(id), "{id} not in {}", variant.name);
                // AND an orders API function is never killed
                assert_ne!(*id, variant.functions[0], "{}", variant.name);
            }
        }
        assert_eq!(CONDUIT_MICRO_QUEUE.back_ends().len(), 4);
        assert!(CONDUIT_MONOLITH.back_ends().is_empty());
    }

    #[test]
    fn variants_are_found_by_name() {
        assert_eq!(by_name("orders-queue").unwrap().api, "OrdersQueueApi");
        assert!(by_name("nope").is_none());
        assert_eq!(of(Experiment::Conduit).len(), 3);
    }
}
